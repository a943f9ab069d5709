//! The engine's skills methods: `skills/list`, `skills/config/write`, the connection's extra
//! skill roots, and the message listing a new thread's enabled skills to the model
//! (discovery itself is `crate::skills`).

use std::path::PathBuf;

use app_server_protocol::config_requests::{ConfigEdit, MergeStrategy};
use app_server_protocol::skills::{
    SkillsConfigWriteParams, SkillsConfigWriteResponse, SkillsListEntry, SkillsListParams,
    SkillsListResponse,
};

use crate::audit::AuditEvent;
use crate::config::write::{ConfigWriteError, write_user_config};
use crate::engine::{Engine, EngineError};
use crate::model::{ContentItem, ResponseItem};
use crate::skills::{Discovery, SkillSetting, discover, is_enabled, settings};
use crate::sync::lock;

/// The most working directories one `skills/list` may name.
pub const MAX_LIST_CWDS: usize = 64;
/// The most extra roots a connection may set.
pub const MAX_EXTRA_ROOTS: usize = 64;

impl Engine {
    /// The skill directories a thread working in `cwd` reads (`crate::skills::roots`), with
    /// the connection's extra roots: what a client watches for `skills/changed`.
    pub fn skill_roots(&self, cwd: &str) -> Vec<PathBuf> {
        let home = self.config().home.clone();
        let cwd = PathBuf::from(super::resolve_cwd(Some(cwd)));
        crate::skills::roots(&home, &cwd, &self.skill_extra_roots())
            .into_iter()
            .map(|(root, _)| root)
            .collect()
    }

    /// `skills/list`: the skills each of `params.cwds` sees (the server's working directory
    /// when none is named), read from disk now.
    pub async fn list_skills(
        &self,
        params: SkillsListParams,
    ) -> Result<SkillsListResponse, EngineError> {
        let mut cwds = params.cwds.unwrap_or_default();
        if cwds.len() > MAX_LIST_CWDS {
            return Err(EngineError::InvalidRequest(format!(
                "skills/list takes at most {MAX_LIST_CWDS} cwds, got {}",
                cwds.len()
            )));
        }
        if cwds.is_empty() {
            cwds.push(super::resolve_cwd(None));
        }
        let config = self.config();
        let (home, extra_roots) = (config.home.clone(), self.skill_extra_roots());
        let settings = settings(&config.effective);
        let data = tokio::task::spawn_blocking(move || {
            cwds.into_iter()
                .map(|cwd| {
                    let resolved = PathBuf::from(super::resolve_cwd(Some(&cwd)));
                    let Discovery { skills, errors } =
                        discover(&home, &resolved, &extra_roots, &settings);
                    SkillsListEntry {
                        cwd,
                        skills,
                        errors,
                    }
                })
                .collect()
        })
        .await
        .map_err(|error| EngineError::Internal(format!("skills/list failed: {error}")))?;
        Ok(SkillsListResponse { data })
    }

    /// `skills/config/write`: records in `config.toml`'s `[[skills.config]]` whether the skill
    /// at `params.path` (or every skill named `params.name`) is enabled, replacing an earlier
    /// entry for the same path or name. The caller checked that exactly one of the two is
    /// given. Subject to `clients.allow_config_writes`, not to the key allow-list: the entry
    /// only hides or shows a skill the model could read anyway.
    pub async fn write_skill_config(
        &self,
        params: SkillsConfigWriteParams,
    ) -> Result<SkillsConfigWriteResponse, ConfigWriteError> {
        if !self.client_policy().allows_config_writes() {
            self.audit(&AuditEvent::Refused {
                setting: "clients.allow_config_writes".into(),
                reason: ConfigWriteError::Disabled.to_string(),
            });
            return Err(ConfigWriteError::Disabled);
        }
        if let Some(path) = &params.path
            && !std::path::Path::new(path).is_absolute()
        {
            return Err(ConfigWriteError::Validation(format!(
                "`path` must be absolute, got `{path}`"
            )));
        }
        let current = self.config();
        let mut entries: Vec<toml::Value> = current
            .effective
            .get("skills")
            .and_then(|skills| skills.get("config"))
            .and_then(toml::Value::as_array)
            .cloned()
            .unwrap_or_default();
        // An earlier entry for the same target would be shadowed anyway: replace it.
        entries.retain(|entry| {
            let text = |key: &str| entry.get(key).and_then(toml::Value::as_str);
            match (&params.path, &params.name) {
                (Some(path), _) => text("path") != Some(path.as_str()),
                (None, Some(name)) => text("path").is_some() || text("name") != Some(name.as_str()),
                (None, None) => true,
            }
        });
        let mut entry = toml::Table::new();
        if let Some(path) = &params.path {
            entry.insert("path".into(), toml::Value::String(path.clone()));
        }
        if let Some(name) = &params.name {
            entry.insert("name".into(), toml::Value::String(name.clone()));
        }
        entry.insert("enabled".into(), toml::Value::Boolean(params.enabled));
        entries.push(toml::Value::Table(entry));
        let value = serde_json::to_value(&entries)
            .map_err(|error| ConfigWriteError::Validation(error.to_string()))?;
        let edit = ConfigEdit {
            key_path: "skills.config".into(),
            value,
            merge_strategy: MergeStrategy::Replace,
        };
        let written = {
            let (current, edit) = (current.clone(), edit.clone());
            tokio::task::spawn_blocking(move || write_user_config(&current, &[edit], None))
                .await
                .map_err(|error| ConfigWriteError::Io(format!("config write failed: {error}")))??
        };
        self.audit(&AuditEvent::SettingChanged {
            key: edit.key_path.clone(),
            value: edit.value.to_string(),
        });
        let config = self.adopt(&current, written.config);
        let settings: Vec<SkillSetting> = settings(&config.effective);
        let effective_enabled = match (&params.path, &params.name) {
            (Some(path), _) => {
                let name = params.name.as_deref().unwrap_or_default();
                is_enabled(&settings, name, path)
            }
            (None, Some(name)) => is_enabled(&settings, name, ""),
            (None, None) => params.enabled,
        };
        Ok(SkillsConfigWriteResponse { effective_enabled })
    }

    /// Replaces the connection's extra skill roots (already checked against its file
    /// roots); whether the list changed.
    pub fn set_skill_extra_roots(&self, roots: Vec<PathBuf>) -> Result<bool, EngineError> {
        if roots.len() > MAX_EXTRA_ROOTS {
            return Err(EngineError::InvalidRequest(format!(
                "at most {MAX_EXTRA_ROOTS} extra skill roots, got {}",
                roots.len()
            )));
        }
        let mut current = lock(&self.inner.skill_roots);
        let changed = *current != roots;
        *current = roots;
        Ok(changed)
    }

    /// The connection's extra skill roots.
    pub fn skill_extra_roots(&self) -> Vec<PathBuf> {
        lock(&self.inner.skill_roots).clone()
    }

    /// The developer message listing the enabled skills a thread in `cwd` sees, if any; read
    /// on the blocking pool.
    pub(crate) async fn skills_message(&self, cwd: &str) -> Option<ResponseItem> {
        let config = self.config();
        let (home, extra_roots) = (config.home.clone(), self.skill_extra_roots());
        let settings = settings(&config.effective);
        let cwd = PathBuf::from(cwd);
        let text = tokio::task::spawn_blocking(move || {
            let discovery = discover(&home, &cwd, &extra_roots, &settings);
            crate::skills::model_message(discovery.enabled())
        })
        .await
        .ok()
        .flatten()?;
        Some(ResponseItem::Message {
            id: None,
            role: "developer".into(),
            content: vec![ContentItem::InputText { text }],
        })
    }
}
