//! `request_permissions`: the model asks the client for more than the thread's sandbox gives
//! (network access, paths to write or read) through `item/permissions/requestApproval`, and the
//! later commands of the turn (or of the thread, for a `session` grant) run with what was
//! granted.
//!
//! What takes effect is bounded three times: by what the model asked for (anything else the
//! client names is ignored), by the operator's ceiling (`[clients]`: a grant the ceiling does not
//! allow is dropped, and every command is checked against it again before it runs), and by what
//! Tandem's sandbox can add (network access; writable roots under `workspace-write`; reading,
//! which its sandbox allows everywhere but `$TANDEM_HOME`, which stays concealed). The model is
//! told exactly what took effect. The tool is offered only with `request_permissions_tool`, as
//! the reference offers it only behind its feature of that name.

use std::path::{Path, PathBuf};

use app_server_protocol::permissions::{
    AdditionalFileSystemPermissions, AdditionalNetworkPermissions, FileSystemAccessMode,
    FileSystemPath, GrantedPermissionProfile, PermissionGrantScope,
    PermissionsRequestApprovalParams, RequestPermissionProfile,
};
use app_server_protocol::policy::{AskForApproval, SandboxPolicy};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::access::ClientPolicy;
use crate::clock::unix_millis;
use crate::config::Config;
use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::registry::{ModelCall, spec_of};
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::ToolSpec;
use crate::paths::resolve_lexically;
use crate::sync::lock;
use crate::tools::{Tool, ToolFuture};

/// The most paths one request may name (read and write together).
pub const MAX_REQUESTED_PATHS: usize = 64;

/// The longest path the model may name, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// The longest `reason`, in bytes; a longer one is cut at a character boundary.
pub const MAX_REASON_BYTES: usize = 4096;

/// `request_permissions`.
pub(crate) struct RequestPermissions;

impl Tool for RequestPermissions {
    const NAME: &'static str = "request_permissions";
    const DESCRIPTION: &'static str = "Ask the user for more than the sandbox gives: network access, or paths to read or write. Wait for the answer: the user may grant a part of it, for this turn or for the rest of the conversation, and the commands you run afterwards get what was granted. The answer says exactly what was granted; do not retry what was refused.";
    type Args = RequestPermissionsArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(
        context: Self::Context<'a>,
        args: RequestPermissionsArgs,
    ) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.request_permissions(context.call, args))
    }
}

/// `request_permissions` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct RequestPermissionsArgs {
    /// Optional short explanation of why the permissions are needed, shown to the user.
    #[serde(default)]
    reason: Option<String>,
    /// What to ask for.
    permissions: AskedPermissions,
}

/// The permissions the model asks for.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct AskedPermissions {
    /// Network access for commands.
    #[serde(default)]
    network: Option<AskedNetwork>,
    /// Paths to read or write.
    #[serde(default)]
    file_system: Option<AskedFileSystem>,
}

/// Network access asked for.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct AskedNetwork {
    /// Set to true to ask for network access.
    #[serde(default)]
    enabled: Option<bool>,
}

/// Paths asked for.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct AskedFileSystem {
    /// Absolute paths to read.
    #[serde(default)]
    read: Option<Vec<String>>,
    /// Absolute paths to write.
    #[serde(default)]
    write: Option<Vec<String>>,
}

/// Access granted on top of the sandbox: network access and absolute paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// Commands may use the network.
    pub network: bool,
    /// Paths commands may read (reported; the sandbox reads them already).
    pub read: Vec<String>,
    /// Directories commands may write, added to the sandbox's writable roots.
    pub write: Vec<String>,
}

impl Grant {
    fn is_empty(&self) -> bool {
        !self.network && self.read.is_empty() && self.write.is_empty()
    }

    fn add(&mut self, other: &Grant) {
        self.network |= other.network;
        for (mine, theirs) in [
            (&mut self.read, &other.read),
            (&mut self.write, &other.write),
        ] {
            for path in theirs {
                if !mine.contains(path) {
                    mine.push(path.clone());
                }
            }
        }
    }
}

/// What the client granted in a thread: for the rest of the thread, and for one turn.
#[derive(Debug, Default)]
pub struct PermissionGrants {
    session: Grant,
    turn: Option<(String, Grant)>,
}

impl PermissionGrants {
    /// Everything in force for turn `turn_id`.
    pub fn for_turn(&self, turn_id: &str) -> Grant {
        let mut grant = self.session.clone();
        if let Some((granted_in, turn)) = &self.turn
            && granted_in == turn_id
        {
            grant.add(turn);
        }
        grant
    }

    fn record(&mut self, turn_id: &str, scope: PermissionGrantScope, grant: &Grant) {
        match scope {
            PermissionGrantScope::Session => self.session.add(grant),
            PermissionGrantScope::Turn => match &mut self.turn {
                Some((granted_in, turn)) if granted_in == turn_id => turn.add(grant),
                _ => self.turn = Some((turn_id.to_owned(), grant.clone())),
            },
        }
    }
}

/// The tool's definition, when the operator offers it (`request_permissions_tool`).
pub fn offered(config: &Config) -> Option<ToolSpec> {
    config
        .request_permissions_tool
        .then(spec_of::<RequestPermissions>)
}

/// `sandbox` with `grant` added: network access and writable roots where the sandbox has
/// them. A sandbox without restrictions stays as it is; a read-only one gains no writable
/// roots (its grant holds none: [`within_ceiling`] drops them).
pub fn widened(sandbox: &SandboxPolicy, grant: &Grant) -> SandboxPolicy {
    if grant.is_empty() {
        return sandbox.clone();
    }
    let mut sandbox = sandbox.clone();
    match &mut sandbox {
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. } => {}
        SandboxPolicy::ReadOnly { network_access } => {
            if grant.network {
                *network_access = Some(true);
            }
        }
        SandboxPolicy::WorkspaceWrite {
            writable_roots,
            network_access,
            ..
        } => {
            if grant.network {
                *network_access = Some(true);
            }
            let roots = writable_roots.get_or_insert_with(Vec::new);
            for path in &grant.write {
                if !roots.contains(path) {
                    roots.push(path.clone());
                }
            }
        }
    }
    sandbox
}

/// The part of `grant` that takes effect on `sandbox` in workspace `cwd` within the
/// operator's ceiling: the network when the ceiling allows it; each write path when the
/// sandbox has writable roots and the ceiling allows that root; each read path outside
/// `home` (`$TANDEM_HOME`, which the sandbox keeps concealed whatever is granted).
pub fn within_ceiling(
    grant: &Grant,
    sandbox: &SandboxPolicy,
    cwd: &Path,
    access: &ClientPolicy,
    home: &Path,
) -> Grant {
    // Without Tandem's sandbox, commands already have all of it.
    if matches!(
        sandbox,
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. }
    ) {
        return grant.clone();
    }
    let mut effective = Grant::default();
    let allowed = |candidate: &Grant| {
        access
            .check_sandbox(&widened(sandbox, candidate), cwd)
            .is_ok()
    };
    if grant.network {
        let candidate = Grant {
            network: true,
            ..Grant::default()
        };
        effective.network = allowed(&candidate);
    }
    if matches!(sandbox, SandboxPolicy::WorkspaceWrite { .. }) {
        for path in &grant.write {
            let candidate = Grant {
                write: vec![path.clone()],
                ..Grant::default()
            };
            if allowed(&candidate) {
                effective.write.push(path.clone());
            }
        }
    }
    let home = resolve_lexically(Path::new("/"), home);
    effective.read = grant
        .read
        .iter()
        .filter(|path| !Path::new(path).starts_with(&home))
        .cloned()
        .collect();
    effective
}

/// The paths of `paths` resolved against `cwd`, each once.
fn absolute_paths(cwd: &Path, paths: &[String]) -> Vec<String> {
    let mut resolved: Vec<String> = Vec::new();
    for path in paths {
        let path = resolve_lexically(cwd, Path::new(path))
            .display()
            .to_string();
        if !resolved.contains(&path) {
            resolved.push(path);
        }
    }
    resolved
}

/// What the model asked for, as absolute paths, or the message it gets for a request that is
/// empty or too large.
fn asked_grant(cwd: &Path, permissions: &AskedPermissions) -> Result<Grant, String> {
    let (read, write) = match &permissions.file_system {
        Some(file_system) => (
            file_system.read.clone().unwrap_or_default(),
            file_system.write.clone().unwrap_or_default(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    if read.len() + write.len() > MAX_REQUESTED_PATHS {
        return Err(format!(
            "request_permissions accepts at most {MAX_REQUESTED_PATHS} paths"
        ));
    }
    if let Some(path) = read
        .iter()
        .chain(&write)
        .find(|path| path.is_empty() || path.len() > MAX_PATH_BYTES)
    {
        return Err(format!(
            "request_permissions paths must be 1 to {MAX_PATH_BYTES} bytes long, not {}",
            path.len()
        ));
    }
    let grant = Grant {
        network: permissions
            .network
            .as_ref()
            .is_some_and(|network| network.enabled == Some(true)),
        read: absolute_paths(cwd, &read),
        write: absolute_paths(cwd, &write),
    };
    if grant.is_empty() {
        return Err("request_permissions requires at least one permission".into());
    }
    Ok(grant)
}

/// The part of the client's `granted` that was asked for (`asked`): anything else is ignored.
fn granted_of_asked(cwd: &Path, asked: &Grant, granted: &GrantedPermissionProfile) -> Grant {
    let mut read = Vec::new();
    let mut write = Vec::new();
    if let Some(file_system) = &granted.file_system {
        read.extend(file_system.read.clone().unwrap_or_default());
        write.extend(file_system.write.clone().unwrap_or_default());
        for entry in file_system.entries.iter().flatten() {
            // Only plain paths can be matched against what was asked.
            let FileSystemPath::Path { path } = &entry.path else {
                continue;
            };
            match entry.access {
                FileSystemAccessMode::Read => read.push(path.clone()),
                FileSystemAccessMode::Write => write.push(path.clone()),
                FileSystemAccessMode::Deny => {}
            }
        }
    }
    let keep = |paths: Vec<String>, asked: &[String]| -> Vec<String> {
        absolute_paths(cwd, &paths)
            .into_iter()
            .filter(|path| asked.contains(path))
            .collect()
    };
    Grant {
        network: asked.network
            && granted
                .network
                .as_ref()
                .is_some_and(|network| network.enabled == Some(true)),
        // A path granted for writing may also be read.
        read: keep(read, &asked.read),
        write: keep(write, &asked.write),
    }
}

/// The wire form of what the model asked for.
fn request_profile(asked: &Grant) -> RequestPermissionProfile {
    RequestPermissionProfile {
        network: asked.network.then_some(AdditionalNetworkPermissions {
            enabled: Some(true),
        }),
        file_system: (!asked.read.is_empty() || !asked.write.is_empty()).then(|| {
            AdditionalFileSystemPermissions {
                read: (!asked.read.is_empty()).then(|| asked.read.clone()),
                write: (!asked.write.is_empty()).then(|| asked.write.clone()),
                entries: None,
                glob_scan_max_depth: None,
            }
        }),
    }
}

/// The tool's output: what took effect, and for how long, in the shape the model asked in.
fn grant_output(grant: &Grant, scope: PermissionGrantScope) -> String {
    let mut permissions = serde_json::Map::new();
    if grant.network {
        permissions.insert("network".into(), json!({"enabled": true}));
    }
    if !grant.read.is_empty() || !grant.write.is_empty() {
        let mut file_system = serde_json::Map::new();
        if !grant.read.is_empty() {
            file_system.insert("read".into(), json!(grant.read));
        }
        if !grant.write.is_empty() {
            file_system.insert("write".into(), json!(grant.write));
        }
        permissions.insert("file_system".into(), file_system.into());
    }
    json!({"permissions": permissions, "scope": scope}).to_string()
}

/// Cuts `text` to at most `max` bytes at a character boundary.
fn truncated(mut text: String, max: usize) -> String {
    crate::text::truncate_within(&mut text, max);
    text
}

impl TurnTask {
    /// `request_permissions`: asks the client, bounds the grant and records it.
    async fn request_permissions(
        &mut self,
        call: &ToolCall,
        args: RequestPermissionsArgs,
    ) -> ToolOutcome {
        let (cwd, approval_policy, sandbox) = {
            let state = lock(&self.thread.state);
            (
                PathBuf::from(&state.meta.cwd),
                state.meta.approval_policy,
                state.meta.sandbox.clone(),
            )
        };
        // Never offered without the operator's setting; a call anyway is an unknown tool.
        if !self.engine.config().request_permissions_tool {
            return call.reply(format!("unsupported call: {}", call.name));
        }
        let asked = match asked_grant(&cwd, &args.permissions) {
            Ok(asked) => asked,
            Err(message) => return call.reply(message),
        };
        // Nobody is asked under `never` or with the granular flag off: nothing is granted.
        let may_ask = match approval_policy {
            AskForApproval::Never => false,
            AskForApproval::Granular(granular) => granular.request_permissions,
            AskForApproval::Untrusted | AskForApproval::OnRequest => true,
        };
        if !may_ask {
            return call.reply(grant_output(&Grant::default(), PermissionGrantScope::Turn));
        }
        let params = PermissionsRequestApprovalParams {
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            item_id: call.call_id.clone(),
            environment_id: None,
            started_at_ms: unix_millis(),
            cwd: cwd.display().to_string(),
            reason: args
                .reason
                .map(|reason| truncated(reason, MAX_REASON_BYTES)),
            permissions: request_profile(&asked),
        };
        let response = match self.ask(ApprovalRequest::Permissions(params)).await {
            ApprovalReply::Answered(ApprovalAnswer::Permissions(response)) => response,
            ApprovalReply::Answered(other) => {
                return call.reply(format!(
                    "request_permissions failed: the client answered with {}",
                    other.kind()
                ));
            }
            ApprovalReply::Failed(message) => {
                return call.reply(format!("request_permissions failed: {message}"));
            }
            ApprovalReply::Withdrawn => {
                let mut outcome =
                    call.reply("request_permissions was cancelled before receiving a response");
                outcome.interrupt = true;
                return outcome;
            }
        };
        let granted = granted_of_asked(&cwd, &asked, &response.permissions);
        let home = self.engine.config().home.clone();
        let effective = within_ceiling(&granted, &sandbox, &cwd, &self.engine.access, &home);
        if effective != granted {
            tracing::info!(
                thread_id = %self.thread.id,
                ?granted,
                ?effective,
                "permission grant narrowed to what the sandbox and clients.max_sandbox allow"
            );
        }
        lock(&self.thread.tools.permission_grants).record(
            &self.turn_id,
            response.scope,
            &effective,
        );
        call.reply(grant_output(&effective, response.scope))
    }

    /// The thread's sandbox with the permissions granted for this turn added.
    pub(super) fn granted_sandbox(&self, sandbox: SandboxPolicy) -> SandboxPolicy {
        let grant = lock(&self.thread.tools.permission_grants).for_turn(&self.turn_id);
        widened(&sandbox, &grant)
    }
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
