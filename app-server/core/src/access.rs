//! The operator's policy for clients (`[clients]` in `config.toml`), as the core applies it:
//! the widest sandbox a client may obtain, which config keys it may set, and whether a stored
//! secret may be returned to it.
//!
//! A front end resolves one [`ClientPolicy`] from the configuration and its own defaults
//! ([`FrontEnd`]) and gives it to the engine it builds; the engine applies it where the
//! *effective* access is decided (a thread's or turn's sandbox with its working directory, a
//! standalone command, the model's request to leave the sandbox, a patch the user approves),
//! whichever front end asked. The ceiling bounds what a policy resolves to, not its name:
//! `externalSandbox`, network access, and `workspaceWrite` whose writable roots or working
//! directory are `/` or overlap `$TANDEM_HOME` are all measured against it.
//!
//! Where a client explicitly asks for more than the ceiling, the request is refused with an
//! error naming `clients.max_sandbox`; only settings nobody asked for (the operator's default,
//! a stored thread's policy) are clamped, and the model's request to run outside the sandbox is
//! declined.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use app_server_protocol::policy::{SandboxMode, SandboxPolicy};

use app_server_protocol::config_requests::ConfigEdit;

use crate::config::write::{ConfigWriteError, split_key_path};
use crate::config::{ClientConfigAccess, Config, ConfigError, refused_client_key};
use crate::paths::resolve_lexically;

/// The front end that serves the client; it decides the defaults of unset `[clients]` keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrontEnd {
    /// `tandem app-server` on stdio: the IDE's own process, acting for the local user. A
    /// connection on the `unix://` listener from the server's own user has the same trust.
    AppServerStdio,
    /// `tandem app-server --listen ws://`: anyone who reaches the listener with a valid
    /// token.
    AppServerWebSocket,
    /// `tandem mcp-server` on stdio: the spawning MCP client, whose tool arguments a model
    /// chooses.
    McpServerStdio,
    /// `tandem mcp-server --http`: anyone who reaches the listener.
    McpServerHttp,
    /// `tandem exec`: one non-interactive turn run by the local user at a command line (or by
    /// a script or SDK the user runs), with no one to answer approvals.
    Exec,
}

impl FrontEnd {
    /// The front end's name in the audit trail.
    pub fn name(self) -> &'static str {
        match self {
            FrontEnd::AppServerStdio => "app-server",
            FrontEnd::AppServerWebSocket => "app-server websocket",
            FrontEnd::McpServerStdio => "mcp-server stdio",
            FrontEnd::McpServerHttp => "mcp-server http",
            FrontEnd::Exec => "exec",
        }
    }

    /// The ceiling when `clients.max_sandbox` is unset (before it follows the operator's own
    /// `sandbox_mode`).
    fn default_max_sandbox(self) -> SandboxMode {
        match self {
            // The local user chooses the sandbox on their own command line, as with stdio.
            FrontEnd::AppServerStdio | FrontEnd::Exec => SandboxMode::DangerFullAccess,
            FrontEnd::AppServerWebSocket | FrontEnd::McpServerStdio | FrontEnd::McpServerHttp => {
                SandboxMode::WorkspaceWrite
            }
        }
    }

    /// Whether clients reach this front end over a network listener.
    fn is_network(self) -> bool {
        match self {
            FrontEnd::AppServerStdio | FrontEnd::McpServerStdio | FrontEnd::Exec => false,
            FrontEnd::AppServerWebSocket | FrontEnd::McpServerHttp => true,
        }
    }

    /// `reveal_credentials` when unset.
    fn default_reveal_credentials(self) -> bool {
        match self {
            FrontEnd::AppServerStdio => true,
            // `exec` serves no method that returns a credential: nothing to reveal.
            FrontEnd::AppServerWebSocket
            | FrontEnd::McpServerStdio
            | FrontEnd::McpServerHttp
            | FrontEnd::Exec => false,
        }
    }
}

/// What the operator lets a client obtain, resolved for one front end.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientPolicy {
    /// The widest sandbox mode a client may obtain.
    max_sandbox: SandboxMode,
    /// Which `config` override keys a client may set.
    client_config: ClientConfigAccess,
    /// Whether stored secrets may be returned.
    reveal_credentials: bool,
    /// The operator's `sandbox_workspace_write.network_access`: whether network access is
    /// within a ceiling below `danger-full-access`.
    network_access: bool,
    /// The operator's own `workspace-write` policy, what a default wider than the ceiling is
    /// clamped to.
    workspace_write: SandboxPolicy,
    /// The operator's extra writable roots, reachable by patches a client approves.
    operator_roots: Vec<String>,
    /// `$TANDEM_HOME`: configuration, credentials and rollouts, never written for a client
    /// below `danger-full-access`.
    home: PathBuf,
    /// Whether a client may write `config.toml` (`clients.allow_config_writes`, off by
    /// default on a network listener).
    config_writes: bool,
    /// Whether the operator set `clients.max_sandbox = "danger-full-access"` explicitly: only
    /// then may a client persist settings that would widen the ceiling of other front ends.
    operator_full_access: bool,
    /// Whether a client may call a thread's MCP servers directly
    /// (`clients.allow_mcp_server_calls`, off by default on a network listener).
    mcp_server_calls: bool,
    /// Whether the client is local (not on a network listener): only a local client may
    /// import MCP servers or hooks from another agent's setup.
    local: bool,
}

/// A sandbox beyond the ceiling: what was asked and the ceiling it exceeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CeilingError {
    /// What exceeds the ceiling, such as "sandbox `dangerFullAccess`".
    what: String,
    /// The ceiling.
    max_sandbox: SandboxMode,
}

impl fmt::Display for CeilingError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{} is beyond what this server lets a client obtain (clients.max_sandbox = \"{}\")",
            self.what,
            mode_name(self.max_sandbox)
        )
    }
}

impl std::error::Error for CeilingError {}

impl ClientPolicy {
    /// The policy of `front_end` under `config` (the operator's configuration, before any
    /// client override).
    ///
    /// Unset keys take the front end's defaults; the default ceiling widens to the operator's
    /// own `sandbox_mode`, and credentials are never revealed on a network listener.
    pub fn resolve(config: &Config, front_end: FrontEnd) -> ClientPolicy {
        let clients = &config.clients;
        let max_sandbox = clients.max_sandbox.unwrap_or_else(|| {
            let default = front_end.default_max_sandbox();
            if rank(config.sandbox_mode) > rank(default) {
                config.sandbox_mode
            } else {
                default
            }
        });
        let asked_reveal = clients
            .reveal_credentials
            .unwrap_or_else(|| front_end.default_reveal_credentials());
        if asked_reveal && front_end.is_network() {
            tracing::warn!(
                "clients.reveal_credentials is ignored on a network listener: stored credentials are never returned there"
            );
        }
        let settings = &config.sandbox_workspace_write;
        ClientPolicy {
            max_sandbox,
            client_config: clients.allow_client_config,
            reveal_credentials: asked_reveal && !front_end.is_network(),
            network_access: settings.network_access,
            workspace_write: crate::engine::sandbox_policy(SandboxMode::WorkspaceWrite, config),
            operator_roots: settings
                .writable_roots
                .iter()
                .map(|root| root.to_string_lossy().into_owned())
                .collect(),
            home: config.home.clone(),
            config_writes: clients
                .allow_config_writes
                .unwrap_or(!front_end.is_network()),
            operator_full_access: clients.max_sandbox == Some(SandboxMode::DangerFullAccess),
            mcp_server_calls: clients
                .allow_mcp_server_calls
                .unwrap_or(!front_end.is_network()),
            local: !front_end.is_network(),
        }
    }

    /// The widest sandbox mode a client may obtain.
    pub fn max_sandbox(&self) -> SandboxMode {
        self.max_sandbox
    }

    /// Whether a stored secret (an API key) may be returned to the client.
    pub fn reveal_credentials(&self) -> bool {
        self.reveal_credentials
    }

    /// Whether anything may run outside Tandem's sandbox (only under a
    /// `danger-full-access` ceiling).
    pub fn allows_unsandboxed(&self) -> bool {
        self.max_sandbox == SandboxMode::DangerFullAccess
    }

    /// Refuses `config` overrides from a client that set a key it may not set.
    pub fn check_config(
        &self,
        overrides: &BTreeMap<String, serde_json::Value>,
    ) -> Result<(), ConfigError> {
        refused_client_key(overrides, self.client_config)
    }

    /// Whether a client may write `config.toml` at all.
    pub fn allows_config_writes(&self) -> bool {
        self.config_writes
    }

    /// Whether a client may call a thread's MCP servers directly (`mcpServer/tool/call`,
    /// `mcpServer/resource/read`).
    pub fn allows_mcp_server_calls(&self) -> bool {
        self.mcp_server_calls
    }

    /// Whether a client may import MCP servers or hooks from another agent's setup
    /// (`externalAgentConfig/import`): only a local one, whatever `[clients]` says, since both
    /// run commands once enabled.
    pub fn allows_command_imports(&self) -> bool {
        self.local
    }

    /// Refuses a persistent write of `edits` to `config.toml` that this client may not make:
    /// config writes off for this front end, a key outside the client allow-list (the same
    /// list as `config` overrides; removing a key counts as setting it), or a setting the
    /// ceiling of every front end is computed from (`sandbox_mode` wider than
    /// `workspace-write` or beyond this client's ceiling, `sandbox_workspace_write`'s
    /// `network_access = true` or writable roots), unless the operator set
    /// `clients.max_sandbox = "danger-full-access"`. The `hooks` table is never written for a
    /// client.
    pub fn check_persistent_config(&self, edits: &[ConfigEdit]) -> Result<(), ConfigWriteError> {
        if !self.config_writes {
            return Err(ConfigWriteError::Disabled);
        }
        for edit in edits {
            let path = split_key_path(&edit.key_path)?;
            // A hook runs commands once trusted in `[hooks.state]`: only the operator writes
            // either, whatever the allow-list says.
            if path.first().is_some_and(|first| first == "hooks") {
                return Err(ConfigWriteError::Refused(format!(
                    "config key `{}` cannot be written by a client: hooks come only from the operator's config.toml",
                    edit.key_path
                )));
            }
            // A removal is a write of the key itself; `refused_client_key` skips `null`.
            let value = match &edit.value {
                serde_json::Value::Null => serde_json::Value::Bool(false),
                other => other.clone(),
            };
            let overrides = BTreeMap::from([(edit.key_path.clone(), value)]);
            refused_client_key(&overrides, self.client_config)
                .map_err(|error| ConfigWriteError::Refused(error.to_string()))?;
            let mut leaves = Vec::new();
            persistent_leaves(path, &edit.value, &mut leaves);
            for (leaf, value) in leaves {
                self.check_persisted_ceiling_input(&leaf, value)?;
            }
        }
        Ok(())
    }

    /// Refuses persisting a value of `path` that would widen the ceiling of later servers.
    fn check_persisted_ceiling_input(
        &self,
        path: &[String],
        value: &serde_json::Value,
    ) -> Result<(), ConfigWriteError> {
        let ends_with = |suffix: &[&str]| {
            path.len() >= suffix.len()
                && path[path.len() - suffix.len()..]
                    .iter()
                    .zip(suffix)
                    .all(|(segment, wanted)| segment == wanted)
        };
        let refuse = |what: String| {
            Err(ConfigWriteError::Refused(format!(
                "config key `{}` cannot be written by a client: {what}",
                path.join(".")
            )))
        };
        if ends_with(&["sandbox_mode"]) {
            let Ok(mode) = serde_json::from_value::<SandboxMode>(value.clone()) else {
                return Ok(());
            };
            if rank(mode) > rank(self.max_sandbox) {
                return refuse(format!(
                    "`{}` is beyond what this server lets a client obtain (clients.max_sandbox = \"{}\")",
                    mode_name(mode),
                    mode_name(self.max_sandbox)
                ));
            }
            if rank(mode) > rank(SandboxMode::WorkspaceWrite) && !self.operator_full_access {
                return refuse(format!(
                    "a persisted `{}` would widen the ceiling of every front end whose `clients.max_sandbox` is unset (the operator allows it with `clients.max_sandbox = \"danger-full-access\"`)",
                    mode_name(mode)
                ));
            }
        }
        let widening = (ends_with(&["sandbox_workspace_write", "network_access"])
            && value.as_bool() == Some(true))
            || (ends_with(&["sandbox_workspace_write", "writable_roots"])
                && value.as_array().is_some_and(|roots| !roots.is_empty()));
        if widening && !self.operator_full_access {
            return refuse(
                "the operator's network access and writable roots bound what every client may obtain, so only the operator sets them (or allows clients to with `clients.max_sandbox = \"danger-full-access\"`)"
                    .to_owned(),
            );
        }
        Ok(())
    }

    /// Whether `policy` with workspace `cwd` (absolute) stays within the ceiling, judged by
    /// what it grants: running without Tandem's sandbox, writing, the network, and writable
    /// roots (the workspace included) that would make the whole file system writable.
    pub fn check_sandbox(&self, policy: &SandboxPolicy, cwd: &Path) -> Result<(), CeilingError> {
        if self.max_sandbox == SandboxMode::DangerFullAccess {
            return Ok(());
        }
        let beyond = |what: String| {
            Err(CeilingError {
                what,
                max_sandbox: self.max_sandbox,
            })
        };
        let network = match policy {
            SandboxPolicy::DangerFullAccess => {
                return beyond("sandbox `dangerFullAccess`".to_owned());
            }
            SandboxPolicy::ExternalSandbox { .. } => {
                return beyond(
                    "sandbox `externalSandbox` (commands run without Tandem's sandbox)".to_owned(),
                );
            }
            SandboxPolicy::ReadOnly { network_access } => network_access,
            SandboxPolicy::WorkspaceWrite { .. } if self.max_sandbox == SandboxMode::ReadOnly => {
                return beyond("sandbox `workspaceWrite`".to_owned());
            }
            SandboxPolicy::WorkspaceWrite {
                writable_roots,
                network_access,
                ..
            } => {
                let workspace = resolve_lexically(Path::new("/"), cwd);
                if let Some(why) = self.too_wide(&workspace) {
                    return beyond(format!(
                        "a writable working directory `{}` ({why})",
                        workspace.display()
                    ));
                }
                for root in writable_roots.iter().flatten() {
                    if let Some(why) = self.too_wide(&resolve_lexically(cwd, Path::new(root))) {
                        return beyond(format!("writable root `{root}` ({why})"));
                    }
                }
                network_access
            }
        };
        if network.unwrap_or(false) && !self.network_access {
            return beyond(
                "network access (the operator's sandbox_workspace_write.network_access is false)"
                    .to_owned(),
            );
        }
        Ok(())
    }

    /// Checks a policy a client asked for; a policy nobody asked for (the operator's default)
    /// that is wider than the ceiling is first narrowed to the ceiling's mode.
    ///
    /// The error remains when even the ceiling's mode is beyond it in `cwd` (a `workspaceWrite`
    /// ceiling at `/`).
    pub fn admit(
        &self,
        policy: SandboxPolicy,
        cwd: &Path,
        asked: bool,
    ) -> Result<SandboxPolicy, CeilingError> {
        match self.check_sandbox(&policy, cwd) {
            Ok(()) => Ok(policy),
            Err(error) if asked => Err(error),
            Err(_) => {
                let narrowed = self.ceiling_policy();
                self.check_sandbox(&narrowed, cwd)?;
                tracing::info!(
                    ?policy,
                    ?narrowed,
                    "default sandbox narrowed to clients.max_sandbox"
                );
                Ok(narrowed)
            }
        }
    }

    /// The policy to use for a policy nobody asked for just now (a stored thread's): itself
    /// when within the ceiling, else the ceiling's mode, else read-only.
    pub fn contain(&self, policy: &SandboxPolicy, cwd: &Path) -> SandboxPolicy {
        if self.check_sandbox(policy, cwd).is_ok() {
            return policy.clone();
        }
        let narrowed = self.ceiling_policy();
        let contained = if self.check_sandbox(&narrowed, cwd).is_ok() {
            narrowed
        } else {
            read_only()
        };
        tracing::info!(
            ?policy,
            ?contained,
            "stored sandbox narrowed to clients.max_sandbox"
        );
        contained
    }

    /// Whether a file the engine writes for the model (a patch) at `path` lies within the
    /// ceiling, with the thread's `sandbox` and workspace `cwd`: anywhere under
    /// `danger-full-access`; nowhere under `read-only`; under `workspace-write`, below the
    /// workspace or a writable root of the thread or the operator, outside `.git` and
    /// `$TANDEM_HOME`, and never through a root that is `/`.
    ///
    /// A patch the user approves may still write only here: an approval does not raise the
    /// ceiling.
    pub fn may_write(&self, sandbox: &SandboxPolicy, cwd: &Path, path: &Path) -> bool {
        match self.max_sandbox {
            SandboxMode::DangerFullAccess => true,
            SandboxMode::ReadOnly => false,
            SandboxMode::WorkspaceWrite => {
                let path = resolve_lexically(cwd, path);
                if path.starts_with(resolve_lexically(Path::new("/"), &self.home)) {
                    return false;
                }
                let mut roots = vec![String::new()];
                if let SandboxPolicy::WorkspaceWrite { writable_roots, .. } = sandbox {
                    roots.extend(writable_roots.iter().flatten().cloned());
                }
                roots.extend(self.operator_roots.iter().cloned());
                roots.iter().any(|root| {
                    let root = resolve_lexically(cwd, Path::new(root));
                    root != Path::new("/")
                        && path.strip_prefix(&root).is_ok_and(|relative| {
                            !relative
                                .components()
                                .any(|component| component.as_os_str() == ".git")
                        })
                })
            }
        }
    }

    /// Why a writable root (absolute, resolved) is no workspace: the whole file system, or a
    /// directory that holds or lies inside `$TANDEM_HOME` (whose `config.toml` sets this very
    /// ceiling).
    fn too_wide(&self, root: &Path) -> Option<&'static str> {
        let home = resolve_lexically(Path::new("/"), &self.home);
        if root == Path::new("/") {
            Some("the whole file system")
        } else if home.starts_with(root) || root.starts_with(&home) {
            Some("it overlaps $TANDEM_HOME, the server's configuration, credentials and rollouts")
        } else {
            None
        }
    }

    /// The policy of the ceiling's own mode, as the operator configured it.
    fn ceiling_policy(&self) -> SandboxPolicy {
        match self.max_sandbox {
            SandboxMode::ReadOnly => read_only(),
            SandboxMode::WorkspaceWrite => self.workspace_write.clone(),
            SandboxMode::DangerFullAccess => SandboxPolicy::DangerFullAccess,
        }
    }
}

/// Config keys whose values are secrets: HTTP headers (bearer tokens) of providers and MCP
/// servers, the environment given to MCP servers, and passwords (ClickHouse's).
const SECRET_KEYS: &[&str] = &["http_headers", "env_http_headers", "env", "password"];

/// Replaces every value stored under a secret key ([`SECRET_KEYS`], at any depth) of a
/// config shown to a client by `"<redacted>"`, keeping the keys, for a server that does not
/// reveal stored credentials (`config/read`, `getUserSavedConfig`).
pub fn redact_config_secrets(value: &mut serde_json::Value) {
    fn redact_all(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(object) => object.values_mut().for_each(redact_all),
            serde_json::Value::Array(array) => array.iter_mut().for_each(redact_all),
            serde_json::Value::Null => {}
            other => *other = serde_json::Value::String("<redacted>".to_owned()),
        }
    }
    match value {
        serde_json::Value::Object(object) => {
            for (key, inner) in object.iter_mut() {
                if SECRET_KEYS.contains(&key.as_str()) {
                    redact_all(inner);
                } else {
                    redact_config_secrets(inner);
                }
            }
        }
        serde_json::Value::Array(array) => array.iter_mut().for_each(redact_config_secrets),
        _ => {}
    }
}

/// Read-only without network: within every ceiling.
fn read_only() -> SandboxPolicy {
    SandboxPolicy::ReadOnly {
        network_access: Some(false),
    }
}

/// Orders the modes from narrowest to widest.
fn rank(mode: SandboxMode) -> u8 {
    match mode {
        SandboxMode::ReadOnly => 0,
        SandboxMode::WorkspaceWrite => 1,
        SandboxMode::DangerFullAccess => 2,
    }
}

/// The leaves of a written `value` at `path`, with their values (objects are walked; a
/// `null` leaf is a removal and widens nothing, so it is left out).
fn persistent_leaves<'a>(
    path: Vec<String>,
    value: &'a serde_json::Value,
    leaves: &mut Vec<(Vec<String>, &'a serde_json::Value)>,
) {
    match value {
        serde_json::Value::Null => {}
        serde_json::Value::Object(object) => {
            for (key, inner) in object {
                let mut inner_path = path.clone();
                inner_path.push(key.clone());
                persistent_leaves(inner_path, inner, leaves);
            }
        }
        _ => leaves.push((path, value)),
    }
}

/// The mode as `config.toml` spells it.
/// A sandbox mode as `config.toml` writes it (`"workspace-write"`).
pub fn mode_name(mode: SandboxMode) -> &'static str {
    match mode {
        SandboxMode::ReadOnly => "read-only",
        SandboxMode::WorkspaceWrite => "workspace-write",
        SandboxMode::DangerFullAccess => "danger-full-access",
    }
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
