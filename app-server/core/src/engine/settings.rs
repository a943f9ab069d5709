//! Settings and lookups shared by the thread and turn operations: thread-id normalisation, cwd
//! and sandbox resolution, settings overrides, error constructors and the thread, provider and
//! model-client lookups.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use app_server_protocol::policy::{AskForApproval, SandboxMode, SandboxPolicy};
use app_server_protocol::tables::ServerNotification;

use crate::access::CeilingError;
use crate::audit::AuditEvent;
use crate::config::{Config, ConfigError, ProviderConfig};
use crate::engine::{Engine, EngineError};
use crate::model::ModelClient;
use crate::store::ThreadMeta;
use crate::sync::lock;

/// Parses a thread id the way the reference server does (UUID, `urn:uuid:` and upper case
/// accepted, normalised to lowercase hyphenated).
pub fn normalize_thread_id(raw: &str) -> Result<String, EngineError> {
    uuid::Uuid::parse_str(raw)
        .map(|id| id.hyphenated().to_string())
        .map_err(|error| EngineError::InvalidRequest(format!("invalid thread id: {error}")))
}

/// The object form of a sandbox mode, with the configured workspace-write settings.
pub fn sandbox_policy(mode: SandboxMode, config: &Config) -> SandboxPolicy {
    match mode {
        SandboxMode::ReadOnly => SandboxPolicy::ReadOnly {
            network_access: Some(false),
        },
        SandboxMode::DangerFullAccess => SandboxPolicy::DangerFullAccess,
        SandboxMode::WorkspaceWrite => {
            let settings = &config.sandbox_workspace_write;
            SandboxPolicy::WorkspaceWrite {
                writable_roots: Some(
                    settings
                        .writable_roots
                        .iter()
                        .map(|root| root.to_string_lossy().into_owned())
                        .collect(),
                ),
                network_access: Some(settings.network_access),
                exclude_tmpdir_env_var: Some(settings.exclude_tmpdir_env_var),
                exclude_slash_tmp: Some(settings.exclude_slash_tmp),
            }
        }
    }
}

/// Overrides shared by start, resume and fork.
pub(super) struct SettingsOverrides<'a> {
    pub(super) model: Option<&'a String>,
    pub(super) model_provider: Option<&'a String>,
    pub(super) cwd: Option<&'a String>,
    pub(super) approval_policy: Option<AskForApproval>,
    pub(super) sandbox: Option<SandboxMode>,
    pub(super) base_instructions: Option<&'a String>,
    pub(super) developer_instructions: Option<&'a String>,
    /// Config overrides: not applied on resume and fork, but held to the same allow-list.
    pub(super) config: Option<&'a BTreeMap<String, serde_json::Value>>,
}

impl Engine {
    /// The model client for `provider`, created on first use.
    pub(super) fn client(
        &self,
        provider: &ProviderConfig,
    ) -> Result<Arc<dyn ModelClient>, EngineError> {
        let mut clients = lock(&self.inner.clients);
        if let Some(client) = clients.get(&provider.id) {
            return Ok(client.clone());
        }
        let client = crate::model::client_for(provider, self.account()).map_err(|error| {
            EngineError::InvalidRequest(format!("failed to load configuration: {error}"))
        })?;
        clients.insert(provider.id.clone(), client.clone());
        Ok(client)
    }

    /// The configured provider with this id.
    pub(super) fn provider(&self, id: &str) -> Result<ProviderConfig, EngineError> {
        self.inner
            .config()
            .model_providers
            .get(id)
            .cloned()
            .ok_or_else(|| provider_not_found(id))
    }

    /// The configuration with a client's `config` overrides applied, after refusing any key
    /// the operator does not let a client set (`clients.allow_client_config`).
    pub fn client_config(
        &self,
        overrides: &BTreeMap<String, serde_json::Value>,
    ) -> Result<Config, ConfigError> {
        if let Err(error) = self.inner.access.check_config(overrides) {
            self.audit(&AuditEvent::Refused {
                setting: "clients.allow_client_config".to_string(),
                reason: error.to_string(),
            });
            return Err(error);
        }
        self.inner.config().with_overrides(overrides)
    }

    /// The sandbox of a standalone command (`command/exec`, `execOneOffCommand`) run in `cwd`:
    /// the one the client asked for, refused when beyond `clients.max_sandbox`, else the
    /// configured mode narrowed to the ceiling.
    pub fn command_sandbox(
        &self,
        requested: Option<&SandboxPolicy>,
        cwd: &Path,
    ) -> Result<SandboxPolicy, EngineError> {
        let config = self.inner.config();
        let (policy, asked) = match requested {
            Some(policy) => (policy.clone(), true),
            None => (sandbox_policy(config.sandbox_mode, &config), false),
        };
        self.inner
            .access
            .admit(policy, cwd, asked)
            .map_err(|error| self.beyond_ceiling(error))
    }

    /// Applies overrides to `meta`; returns the provider the thread now uses.
    ///
    /// A sandbox the client names must lie within `clients.max_sandbox`; a stored one beyond
    /// it (a thread another front end created) is narrowed.
    pub(super) fn apply_overrides(
        &self,
        meta: &mut ThreadMeta,
        overrides: &SettingsOverrides<'_>,
    ) -> Result<ProviderConfig, EngineError> {
        let config = self.inner.config();
        if let Some(config) = overrides.config {
            self.inner
                .access
                .check_config(config)
                .map_err(|error| self.refused_config(error))?;
        }
        if let Some(provider_id) = overrides.model_provider {
            let provider = self.provider(provider_id)?;
            meta.model_provider = provider.id.clone();
            if overrides.model.is_none() {
                meta.model = provider.default_model;
            }
        }
        let provider = self.provider(&meta.model_provider)?;
        if let Some(model) = overrides.model {
            meta.model = model.clone();
        }
        if let Some(cwd) = overrides.cwd {
            meta.cwd = resolve_cwd(Some(cwd));
        }
        if let Some(approval) = overrides.approval_policy {
            meta.approval_policy = approval;
        }
        if let Some(mode) = overrides.sandbox {
            meta.sandbox = sandbox_policy(mode, &config);
        }
        // A sandbox the client names is refused beyond the ceiling; a stored one is narrowed,
        // except that a working directory the client names must be a workspace for it.
        let cwd = PathBuf::from(&meta.cwd);
        let access = &self.inner.access;
        meta.sandbox = match (overrides.sandbox, overrides.cwd) {
            (Some(_), _) => access
                .admit(meta.sandbox.clone(), &cwd, true)
                .map_err(|error| self.beyond_ceiling(error))?,
            (None, Some(_)) => access
                .admit(meta.sandbox.clone(), &cwd, false)
                .map_err(|error| self.beyond_ceiling(error))?,
            (None, None) => access.contain(&meta.sandbox, &cwd),
        };
        if let Some(text) = overrides.base_instructions {
            meta.base_instructions = Some(text.clone());
        }
        if let Some(text) = overrides.developer_instructions {
            meta.developer_instructions = Some(text.clone());
        }
        Ok(provider)
    }

    /// Sets the prompt that asks for this thread's compaction summaries (`newConversation`'s
    /// `compactPrompt`). It is kept in the thread's metadata, so that the rollout carries it
    /// and a resumed thread compacts with it too.
    pub fn set_compact_prompt(&self, thread_id: &str, prompt: String) -> Result<(), EngineError> {
        let id = normalize_thread_id(thread_id)?;
        let thread = self.thread(&id).ok_or_else(|| not_loaded(&id))?;
        let mut state = lock(&thread.state);
        state.meta.compact_prompt = Some(prompt);
        // A rollout already written gets the change as a settings line; a new one writes it
        // in its header.
        if state.writer.is_some() {
            let meta = state.meta.clone();
            state.record(&crate::store::RolloutRecord::Settings { meta });
        }
        Ok(())
    }

    /// Sends one notification to the sink.
    pub(super) async fn emit(&self, notification: ServerNotification) {
        self.inner.sink.emit(notification).await;
    }
}

/// Resolves `cwd` against the process working directory, normalised.
pub fn resolve_cwd(cwd: Option<&str>) -> String {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let path = match cwd {
        Some(cwd) if !cwd.is_empty() => base.join(cwd),
        _ => base,
    };
    normalize_path(&path)
}

/// Removes `.` and `..` components without touching the file system (the directory may not
/// exist).
fn normalize_path(path: &std::path::Path) -> String {
    crate::paths::resolve_lexically(std::path::Path::new("/"), path)
        .to_string_lossy()
        .into_owned()
}

impl Engine {
    /// The error of a sandbox beyond `clients.max_sandbox`, recorded in the audit trail.
    pub(super) fn beyond_ceiling(&self, error: CeilingError) -> EngineError {
        self.refused("clients.max_sandbox", error.to_string())
    }

    /// The error of a `config` override key a client may not set, recorded in the audit
    /// trail.
    pub(super) fn refused_config(&self, error: ConfigError) -> EngineError {
        self.refused("clients.allow_client_config", error.to_string())
    }

    fn refused(&self, setting: &str, reason: String) -> EngineError {
        self.audit(&AuditEvent::Refused {
            setting: setting.to_string(),
            reason: reason.clone(),
        });
        EngineError::InvalidRequest(reason)
    }
}

pub(super) fn provider_not_found(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!(
        "failed to load configuration: Model provider `{id}` not found"
    ))
}

pub(super) fn not_loaded(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!("thread not loaded: {id}"))
}

pub(super) fn no_rollout(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!("no rollout found for thread id {id}"))
}
