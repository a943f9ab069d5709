//! The configuration methods of the engine: writes to `config.toml` (checked against the
//! operator's policy, then applied by `config::write`), reading the file again, and what the
//! configuration offers a client (permission profiles, model providers, requirements, feature
//! flags).
//!
//! After a write or a reload the engine's configuration is replaced whole: threads started
//! afterwards use it, as the reference's do; loaded threads keep the settings they started
//! with. The operator's ceiling (`ClientPolicy`) was resolved when the server started and does
//! not change with the file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use app_server_protocol::config_requests::{
    ConfigEdit, ConfigRequirements, ConfigRequirementsReadResponse, ConfigWriteResponse,
    ExperimentalFeatureListParams, ExperimentalFeatureListResponse, GatewayAuth, MergeStrategy,
    ModelProviderConfigWriteResponse, ModelProviderListResponse, ModelProviderSummary,
    OverriddenMetadata, PermissionProfileListParams, PermissionProfileListResponse,
    PermissionProfileSummary, ProviderSettings, ProviderSettingsPatch, WriteStatus,
};
use app_server_protocol::policy::SandboxMode;

use crate::audit::AuditEvent;
use crate::config::write::{ConfigWriteError, split_key_path, write_user_config};
use crate::config::{Config, ProviderConfig, config_read_response, table_version};
use crate::engine::{Engine, EngineError};

/// The built-in permission profiles, narrowest first, with the sandbox each grants.
const PERMISSION_PROFILES: [(&str, SandboxMode); 3] = [
    (":read-only", SandboxMode::ReadOnly),
    (":workspace", SandboxMode::WorkspaceWrite),
    (":danger-full-access", SandboxMode::DangerFullAccess),
];

impl Engine {
    /// `config/value/write`, `config/batchWrite`: applies `edits` to the user's `config.toml`
    /// (all or none) once the operator's policy allows each, and makes the result the
    /// configuration of threads started from now on.
    pub async fn write_config(
        &self,
        file_path: Option<&str>,
        edits: Vec<ConfigEdit>,
        expected_version: Option<String>,
    ) -> Result<ConfigWriteResponse, ConfigWriteError> {
        let current = self.config();
        if let Some(file_path) = file_path {
            // Canonicalising touches the file system: off the async workers.
            let (named, config_file) = (PathBuf::from(file_path), current.config_file.clone());
            let user_file = tokio::task::spawn_blocking(move || same_file(&named, &config_file))
                .await
                .unwrap_or(false);
            if !user_file {
                return Err(ConfigWriteError::LayerReadonly(current.config_file.clone()));
            }
        }
        if let Err(error) = self.inner.access.check_persistent_config(&edits) {
            if matches!(
                error,
                ConfigWriteError::Refused(_) | ConfigWriteError::Disabled
            ) {
                self.audit(&AuditEvent::Refused {
                    setting: "clients.allow_config_writes".into(),
                    reason: error.to_string(),
                });
            }
            return Err(error);
        }
        let written = {
            let current = current.clone();
            let edits = edits.clone();
            tokio::task::spawn_blocking(move || {
                write_user_config(&current, &edits, expected_version.as_deref())
            })
            .await
            .map_err(|error| ConfigWriteError::Io(format!("config write failed: {error}")))??
        };
        for edit in &edits {
            self.audit(&AuditEvent::SettingChanged {
                key: edit.key_path.clone(),
                value: edit.value.to_string(),
            });
        }
        let config = self.adopt(&current, written.config);
        Ok(write_response(
            &config,
            &edits,
            written.file.display().to_string(),
        ))
    }

    /// `config/mcpServer/reload` (and `config/read`): reads `config.toml` again with the
    /// server's `-c` flags, so that threads started from now on use what it says.
    pub async fn reload_config(&self) -> Result<(), ConfigWriteError> {
        let current = self.config();
        let (home, flags) = (current.home.clone(), current.flags.clone());
        let version = current.user_version.clone();
        let loaded = tokio::task::spawn_blocking(move || {
            // An unchanged file (the usual case of `config/read`) is not loaded again.
            let text = match std::fs::read_to_string(home.join("config.toml")) {
                Ok(text) => Some(text),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
                Err(error) => return Err(ConfigWriteError::Io(error.to_string())),
            };
            let table = match &text {
                Some(text) => toml::from_str::<toml::Table>(text).ok(),
                None => Some(toml::Table::new()),
            };
            if table.is_some_and(|table| table_version(&table) == version) {
                return Ok(None);
            }
            Config::from_user_text(home, text.as_deref(), &flags)
                .map(Some)
                .map_err(|error| ConfigWriteError::Validation(error.to_string()))
        })
        .await
        .map_err(|error| ConfigWriteError::Io(format!("config reload failed: {error}")))??;
        if let Some(loaded) = loaded
            && loaded != *current
        {
            self.adopt(&current, loaded);
        }
        Ok(())
    }

    /// `configRequirements/read`: the sandbox modes within the operator's ceiling, or `null`
    /// when the ceiling restricts nothing.
    pub fn config_requirements(&self) -> ConfigRequirementsReadResponse {
        config_requirements_under(self.inner.access.max_sandbox())
    }

    /// `experimentalFeature/list`: Tandem has no feature flags. A named thread must be one of
    /// the caller's loaded threads.
    pub fn experimental_features(
        &self,
        params: ExperimentalFeatureListParams,
    ) -> Result<ExperimentalFeatureListResponse, EngineError> {
        if let Some(thread_id) = &params.thread_id
            && self.thread(thread_id).is_none()
        {
            return Err(EngineError::InvalidRequest(format!(
                "thread not loaded: {thread_id}"
            )));
        }
        let (data, next_cursor) = page(Vec::new(), params.cursor.as_deref(), params.limit)?;
        Ok(ExperimentalFeatureListResponse { data, next_cursor })
    }

    /// `permissionProfile/list`: the built-in profiles, each allowed when within the
    /// operator's ceiling.
    pub fn permission_profiles(
        &self,
        params: PermissionProfileListParams,
    ) -> Result<PermissionProfileListResponse, EngineError> {
        let max_sandbox = self.inner.access.max_sandbox();
        let profiles = PERMISSION_PROFILES
            .iter()
            .map(|(id, mode)| PermissionProfileSummary {
                id: (*id).to_owned(),
                description: None,
                allowed: within(*mode, max_sandbox),
            })
            .collect();
        let (data, next_cursor) = page(profiles, params.cursor.as_deref(), params.limit)?;
        Ok(PermissionProfileListResponse { data, next_cursor })
    }

    /// `modelProvider/list`: every provider (built-ins and `[model_providers]`), the default,
    /// and what this client may change.
    pub fn model_providers(&self) -> ModelProviderListResponse {
        let config = self.config();
        let can_change_default = self.may_write("model_provider", "openai");
        ModelProviderListResponse {
            data: config
                .model_providers
                .values()
                .map(|provider| self.provider_summary(provider))
                .collect(),
            default_provider_id: config.model_provider.clone(),
            can_change_default,
        }
    }

    /// `modelProvider/config/write`: a gateway provider's name, endpoint or key variable, or a
    /// new gateway provider; refused unless the operator lets clients write those keys.
    pub async fn write_model_provider(
        &self,
        patch: ProviderSettingsPatch,
    ) -> Result<ModelProviderConfigWriteResponse, ConfigWriteError> {
        let ProviderSettingsPatch::CustomGateway {
            provider_id,
            name,
            base_url,
            env_key,
        } = patch
        else {
            return Err(ConfigWriteError::Validation(
                "this server has no Amazon Bedrock or Google Cloud providers".to_owned(),
            ));
        };
        let config = self.config();
        let (id, new) = match provider_id {
            Some(id) if config.model_providers.contains_key(&id) => (id, false),
            Some(id) => return Err(ConfigWriteError::UnknownProvider(id)),
            None => (new_provider_id(&config, name.as_deref()), true),
        };
        let key = |field: &str| format!("model_providers.{id}.{field}");
        let set = |field: &str, value: serde_json::Value| ConfigEdit {
            key_path: key(field),
            value,
            merge_strategy: MergeStrategy::Replace,
        };
        let mut edits = Vec::new();
        if let Some(name) = name {
            edits.push(set("name", serde_json::Value::String(name)));
        }
        if let Some(base_url) = base_url {
            edits.push(set(
                "base_url",
                base_url.map_or(serde_json::Value::Null, Into::into),
            ));
        }
        if let Some(env_key) = env_key {
            edits.push(set(
                "env_key",
                env_key.map_or(serde_json::Value::Null, Into::into),
            ));
        }
        if new {
            edits.push(set("wire_api", "responses".into()));
        }
        self.write_config(None, edits, None).await?;
        let config = self.config();
        let provider = config
            .model_providers
            .get(&id)
            .ok_or_else(|| ConfigWriteError::UnknownProvider(id.clone()))?;
        Ok(ModelProviderConfigWriteResponse {
            provider: self.provider_summary(provider),
        })
    }

    /// `modelProvider/default/set`: writes `model_provider`, which must name a configured
    /// provider.
    pub async fn set_default_provider(
        &self,
        provider_id: String,
    ) -> Result<ConfigWriteResponse, ConfigWriteError> {
        if !self.config().model_providers.contains_key(&provider_id) {
            return Err(ConfigWriteError::Validation(format!(
                "model provider `{provider_id}` is not configured"
            )));
        }
        let edit = ConfigEdit {
            key_path: "model_provider".to_owned(),
            value: serde_json::Value::String(provider_id),
            merge_strategy: MergeStrategy::Replace,
        };
        self.write_config(None, vec![edit], None).await
    }

    /// Makes `loaded` (read from the file) the engine's configuration, keeping the server's
    /// index state.
    pub(super) fn adopt(&self, current: &Config, mut loaded: Config) -> Arc<Config> {
        loaded.query_project_index.state = current.query_project_index.state.clone();
        let loaded = Arc::new(loaded);
        self.inner.replace_config(loaded.clone());
        loaded
    }

    /// Whether the operator's policy lets this client write `key_path` (probed with `value`).
    fn may_write(&self, key_path: &str, value: &str) -> bool {
        let probe = ConfigEdit {
            key_path: key_path.to_owned(),
            value: serde_json::Value::String(value.to_owned()),
            merge_strategy: MergeStrategy::Replace,
        };
        self.inner.access.check_persistent_config(&[probe]).is_ok()
    }

    fn provider_summary(&self, provider: &ProviderConfig) -> ModelProviderSummary {
        let openai = provider.id == "openai";
        let settings = if openai {
            ProviderSettings::Openai
        } else {
            ProviderSettings::CustomGateway {
                auth: match &provider.env_key {
                    Some(env_key) => GatewayAuth::EnvironmentVariable {
                        env_key: env_key.clone(),
                    },
                    None => GatewayAuth::None,
                },
            }
        };
        ModelProviderSummary {
            id: provider.id.clone(),
            name: provider.name.clone(),
            can_edit: !openai
                && self.may_write(&format!("model_providers.{}.name", provider.id), "x"),
            base_url: (!openai)
                .then(|| displayable_url(&provider.base_url))
                .flatten(),
            settings,
        }
    }
}

/// The answer to a write: `okOverridden` when a `-c` flag of the server sets one of the
/// written keys (or a key below one), naming the flag layer and the value in effect.
fn write_response(config: &Config, edits: &[ConfigEdit], file_path: String) -> ConfigWriteResponse {
    let read = config_read_response(config, false);
    let overridden = edits.iter().find_map(|edit| {
        let prefix = format!("{}.", edit.key_path);
        read.origins
            .iter()
            .find(|(key, metadata)| {
                (**key == edit.key_path || key.starts_with(&prefix))
                    && metadata.name
                        == app_server_protocol::utility::ConfigLayerSource::SessionFlags
            })
            .map(|(key, metadata)| OverriddenMetadata {
                message: format!(
                    "`{key}` is set by a -c flag of the server's command line, which takes precedence over config.toml"
                ),
                overriding_layer: metadata.clone(),
                effective_value: effective_value(&read.config, key),
            })
    });
    ConfigWriteResponse {
        status: if overridden.is_some() {
            WriteStatus::OkOverridden
        } else {
            WriteStatus::Ok
        },
        version: config.user_version.clone(),
        file_path,
        overridden_metadata: overridden,
    }
}

/// The value at a dotted key of the effective config, `null` when absent.
fn effective_value(config: &serde_json::Value, key: &str) -> serde_json::Value {
    let Ok(path) = split_key_path(key) else {
        return serde_json::Value::Null;
    };
    path.iter()
        .try_fold(config, |value, segment| value.get(segment))
        .cloned()
        .unwrap_or(serde_json::Value::Null)
}

/// Whether `path` names the user's config file (lexically, or as the same file on disk).
fn same_file(path: &Path, config_file: &Path) -> bool {
    if path == config_file {
        return true;
    }
    match (
        std::fs::canonicalize(path),
        std::fs::canonicalize(config_file),
    ) {
        (Ok(left), Ok(right)) => left == right,
        _ => false,
    }
}

/// Whether `mode` is within the ceiling `max`.
fn within(mode: SandboxMode, max: SandboxMode) -> bool {
    let rank = |mode: SandboxMode| match mode {
        SandboxMode::ReadOnly => 0,
        SandboxMode::WorkspaceWrite => 1,
        SandboxMode::DangerFullAccess => 2,
    };
    rank(mode) <= rank(max)
}

/// One page of `items` from `cursor` (a decimal offset), `limit` long (all when absent).
fn page<T>(
    items: Vec<T>,
    cursor: Option<&str>,
    limit: Option<u32>,
) -> Result<(Vec<T>, Option<String>), EngineError> {
    let start = match cursor {
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= items.len())
            .ok_or_else(|| EngineError::InvalidRequest(format!("invalid cursor: {cursor}")))?,
        None => 0,
    };
    let limit = limit.map_or(usize::MAX, |limit| (limit as usize).max(1));
    let end = start.saturating_add(limit).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((
        items.into_iter().skip(start).take(end - start).collect(),
        next,
    ))
}

/// A provider's endpoint, unless it carries credentials (`user:password@`) or does not parse.
fn displayable_url(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    (parsed.username().is_empty() && parsed.password().is_none()).then(|| url.to_owned())
}

/// An unused provider id made from `name` (lowercase letters, digits and dashes), `custom`
/// when it leaves nothing.
fn new_provider_id(config: &Config, name: Option<&str>) -> String {
    let slug: String = name
        .unwrap_or_default()
        .chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() {
                character.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug.trim_matches('-');
    let base = if slug.is_empty() { "custom" } else { slug };
    let base: String = base.chars().take(48).collect();
    if !config.model_providers.contains_key(&base) {
        return base;
    }
    (2..)
        .map(|suffix| format!("{base}-{suffix}"))
        .find(|id| !config.model_providers.contains_key(id))
        .unwrap_or(base)
}

/// The requirements a ceiling of `max_sandbox` sets, as `configRequirements/read` and
/// `app-server --print-startup-config` report them.
pub fn config_requirements_under(max_sandbox: SandboxMode) -> ConfigRequirementsReadResponse {
    let requirements = (max_sandbox != SandboxMode::DangerFullAccess).then(|| ConfigRequirements {
        allowed_sandbox_modes: Some(
            PERMISSION_PROFILES
                .iter()
                .map(|(_, mode)| *mode)
                .filter(|mode| within(*mode, max_sandbox))
                .collect(),
        ),
    });
    ConfigRequirementsReadResponse {
        requirements,
        supports_independent_speed_modes: None,
    }
}
