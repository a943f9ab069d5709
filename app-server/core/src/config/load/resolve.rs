//! Turning the merged config table into a typed [`Config`].
//!
//! Each known key is deserialized on its own, so that an error names the key and where it
//! was set; unknown keys are kept in the table and reported back to be logged.

use std::collections::BTreeMap;
use std::path::PathBuf;

use app_server_protocol::policy::{AskForApproval, SandboxMode};
use serde::Deserialize;

use crate::config::load::layer::{Tracked, join};
use crate::config::{
    AppServerConfig, Config, ConfigError, ProviderConfig, WireApi, WorkspaceWriteConfig,
};

/// A resolved config and the keys it ignored.
pub(super) struct Resolved {
    /// The typed config.
    pub(super) config: Config,
    /// Keys no layer should have set, in table order.
    pub(super) unknown_keys: Vec<UnknownKey>,
}

/// A key Tandem does not know; it stays in `effective` and is otherwise ignored.
pub(in crate::config) struct UnknownKey {
    /// Dotted key as written.
    pub(super) key: String,
    /// Where it was set.
    pub(super) location: String,
}

/// Top-level keys with a meaning; also the keys of a `[profiles.NAME]` table.
const TOP_LEVEL_KEYS: &[&str] = &[
    "model",
    "model_provider",
    "approval_policy",
    "sandbox_mode",
    "sandbox_workspace_write",
    "model_reasoning_effort",
    "model_reasoning_summary",
    "instructions",
    "developer_instructions",
    "profile",
    "profiles",
    "model_providers",
    "app_server",
    "history",
    "query_project_index",
    "ask_user",
    "request_permissions_tool",
    "mcp_servers",
    "mcp_tool_output_max_bytes",
    "shell_environment_policy",
    "clients",
    "project_doc_max_bytes",
    "compact_prompt",
    "model_context_window",
    "model_auto_compact_token_limit",
    "skills",
    "hooks",
];

const WORKSPACE_WRITE_KEYS: &[&str] = &[
    "writable_roots",
    "network_access",
    "exclude_tmpdir_env_var",
    "exclude_slash_tmp",
];

const APP_SERVER_KEYS: &[&str] = &["max_line_bytes", "request_queue_capacity"];

const PROVIDER_KEYS: &[&str] = &[
    "name",
    "base_url",
    "wire_api",
    "env_key",
    "http_headers",
    "request_max_retries",
    "stream_max_retries",
    "stream_idle_timeout_ms",
    "stream",
    "models",
    "default_model",
];

/// Top-level keys that always have a value, with their defaults.
const DEFAULTED_KEYS: [(&str, &str); 3] = [
    ("model_provider", "openai"),
    ("approval_policy", "on-request"),
    ("sandbox_mode", "read-only"),
];

const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
const DEFAULT_REQUEST_QUEUE_CAPACITY: usize = 128;
const DEFAULT_REQUEST_MAX_RETRIES: u32 = 4;
const DEFAULT_STREAM_MAX_RETRIES: u32 = 5;
const DEFAULT_STREAM_IDLE_TIMEOUT_MS: u64 = 300_000;

/// The `wire_api` values a config file may name; `demo` is reserved for the built-in.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum WireApiName {
    Responses,
    Chat,
}

/// Validates the merged layers and builds the typed config.
pub(super) fn resolve(
    home: PathBuf,
    config_file: PathBuf,
    profile: Option<String>,
    mut effective: Tracked,
) -> Result<Resolved, ConfigError> {
    for (key, default) in DEFAULTED_KEYS {
        if !effective.table.contains_key(key) {
            effective
                .table
                .insert(key.to_owned(), toml::Value::String(default.to_owned()));
        }
    }
    let top = &effective.table;
    let mut unknown_keys = Vec::new();
    collect_unknown(&effective, top, "", TOP_LEVEL_KEYS, &mut unknown_keys);

    let model: Option<String> = effective.field(top, "", "model")?;
    let model_provider: String = effective
        .field(top, "", "model_provider")?
        .unwrap_or_else(|| "openai".to_owned());
    let approval_policy = effective
        .field(top, "", "approval_policy")?
        .unwrap_or(AskForApproval::OnRequest);
    let sandbox_mode = effective
        .field(top, "", "sandbox_mode")?
        .unwrap_or(SandboxMode::ReadOnly);
    let sandbox_workspace_write = workspace_write(&effective, &mut unknown_keys)?;
    let model_reasoning_effort = effective.field(top, "", "model_reasoning_effort")?;
    let model_reasoning_summary = effective.field(top, "", "model_reasoning_summary")?;
    let base_instructions = effective.field(top, "", "instructions")?;
    let developer_instructions = effective.field(top, "", "developer_instructions")?;
    let ask_user = effective.field(top, "", "ask_user")?.unwrap_or(true);
    let request_permissions_tool = effective
        .field(top, "", "request_permissions_tool")?
        .unwrap_or(false);
    let project_doc_max_bytes = effective
        .field(top, "", "project_doc_max_bytes")?
        .unwrap_or(crate::config::DEFAULT_PROJECT_DOC_MAX_BYTES);
    let compact_prompt = effective.field(top, "", "compact_prompt")?;
    let model_context_window = effective.field(top, "", "model_context_window")?;
    let model_auto_compact_token_limit =
        effective.field(top, "", "model_auto_compact_token_limit")?;
    let app_server = app_server(&effective, &mut unknown_keys)?;
    let query_project_index = super::query_index::resolve(&effective, &home, &mut unknown_keys)?;
    let mcp_servers = super::mcp_servers::resolve(&effective, &mut unknown_keys)?;
    let mcp_tool_output_max_bytes = super::mcp_servers::output_max_bytes(&effective)?;
    let shell_environment_policy =
        super::shell_environment::resolve(&effective, &mut unknown_keys)?;
    let clients = super::clients::resolve(&effective, &mut unknown_keys)?;
    let model_providers = providers(&effective, model.as_deref(), &mut unknown_keys)?;
    if !model_providers.contains_key(&model_provider) {
        return Err(ConfigError::ProviderNotFound {
            location: Some(effective.location("model_provider")),
            id: model_provider,
        });
    }

    let origins = effective.origins();
    let config = Config {
        home,
        config_file,
        profile,
        model,
        model_provider,
        approval_policy,
        sandbox_mode,
        sandbox_workspace_write,
        model_reasoning_effort,
        model_reasoning_summary,
        base_instructions,
        developer_instructions,
        project_doc_max_bytes,
        compact_prompt,
        model_context_window,
        model_auto_compact_token_limit,
        model_providers,
        ask_user,
        request_permissions_tool,
        app_server,
        query_project_index,
        mcp_servers,
        mcp_tool_output_max_bytes,
        shell_environment_policy,
        clients,
        effective: effective.table,
        origins,
        // Set by the caller, which knows the flags and the file.
        flags: Vec::new(),
        user_version: String::new(),
    };
    Ok(Resolved {
        config,
        unknown_keys,
    })
}

/// The built-in providers: `openai`, `ollama` and `demo`.
pub(super) fn builtin_providers() -> BTreeMap<String, ProviderConfig> {
    let builtin =
        |id: &str, name: &str, base_url: &str, wire_api, env_key: Option<&str>| ProviderConfig {
            id: id.to_owned(),
            name: name.to_owned(),
            base_url: base_url.to_owned(),
            wire_api,
            env_key: env_key.map(str::to_owned),
            http_headers: BTreeMap::new(),
            request_max_retries: DEFAULT_REQUEST_MAX_RETRIES,
            stream_max_retries: DEFAULT_STREAM_MAX_RETRIES,
            stream_idle_timeout_ms: DEFAULT_STREAM_IDLE_TIMEOUT_MS,
            stream: true,
            models: Vec::new(),
            default_model: String::new(),
        };
    let openai = ProviderConfig {
        models: vec!["gpt-5.1-codex".to_owned(), "gpt-5.1".to_owned()],
        default_model: "gpt-5.1-codex".to_owned(),
        ..builtin(
            "openai",
            "OpenAI",
            "https://api.openai.com/v1",
            WireApi::Responses,
            Some("OPENAI_API_KEY"),
        )
    };
    // Ollama lists its pulled models at `/v1/models`, so no static list.
    let ollama = ProviderConfig {
        default_model: "qwen2.5-coder:7b".to_owned(),
        ..builtin(
            "ollama",
            "Ollama",
            "http://127.0.0.1:11434/v1",
            WireApi::Chat,
            None,
        )
    };
    let demo = ProviderConfig {
        models: vec!["demo".to_owned()],
        default_model: "demo".to_owned(),
        ..builtin(
            "demo",
            "Tandem demo (offline, scripted)",
            "demo://",
            WireApi::Demo,
            None,
        )
    };
    [openai, ollama, demo]
        .into_iter()
        .map(|provider| (provider.id.clone(), provider))
        .collect()
}

fn workspace_write(
    effective: &Tracked,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<WorkspaceWriteConfig, ConfigError> {
    let prefix = "sandbox_workspace_write";
    let Some(table) = effective.field::<toml::Table>(&effective.table, "", prefix)? else {
        return Ok(WorkspaceWriteConfig::default());
    };
    collect_unknown(
        effective,
        &table,
        prefix,
        WORKSPACE_WRITE_KEYS,
        unknown_keys,
    );
    Ok(WorkspaceWriteConfig {
        writable_roots: effective
            .field(&table, prefix, "writable_roots")?
            .unwrap_or_default(),
        network_access: effective
            .field(&table, prefix, "network_access")?
            .unwrap_or(false),
        exclude_tmpdir_env_var: effective
            .field(&table, prefix, "exclude_tmpdir_env_var")?
            .unwrap_or(false),
        exclude_slash_tmp: effective
            .field(&table, prefix, "exclude_slash_tmp")?
            .unwrap_or(false),
    })
}

fn app_server(
    effective: &Tracked,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<AppServerConfig, ConfigError> {
    let prefix = "app_server";
    let table = effective
        .field::<toml::Table>(&effective.table, "", prefix)?
        .unwrap_or_default();
    collect_unknown(effective, &table, prefix, APP_SERVER_KEYS, unknown_keys);
    // Zero would make the transport reject every line or panic creating a channel.
    let positive = |key: &str, default: usize| -> Result<usize, ConfigError> {
        match effective.field::<usize>(&table, prefix, key)? {
            None => Ok(default),
            Some(0) => Err(effective.invalid_value(&join(prefix, key), "must be at least 1")),
            Some(value) => Ok(value),
        }
    };
    Ok(AppServerConfig {
        max_line_bytes: positive("max_line_bytes", DEFAULT_MAX_LINE_BYTES)?,
        request_queue_capacity: positive("request_queue_capacity", DEFAULT_REQUEST_QUEUE_CAPACITY)?,
    })
}

/// The built-ins merged with `[model_providers.*]`.
fn providers(
    effective: &Tracked,
    model: Option<&str>,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<BTreeMap<String, ProviderConfig>, ConfigError> {
    let mut providers = builtin_providers();
    let Some(tables) = effective.field::<toml::Table>(&effective.table, "", "model_providers")?
    else {
        return Ok(providers);
    };
    for (id, value) in &tables {
        let prefix = join("model_providers", id);
        let table: toml::Table = effective.typed(&prefix, value)?;
        collect_unknown(effective, &table, &prefix, PROVIDER_KEYS, unknown_keys);

        let builtin = providers.remove(id);
        let is_builtin = builtin.is_some();
        let mut provider = match builtin {
            Some(provider) => provider,
            None => {
                let Some(base_url) = effective.field(&table, &prefix, "base_url")? else {
                    return Err(ConfigError::InvalidProvider {
                        location: effective.location(&prefix),
                        id: id.clone(),
                        reason: "missing `base_url`".to_owned(),
                    });
                };
                ProviderConfig {
                    id: id.clone(),
                    name: id.clone(),
                    base_url,
                    wire_api: WireApi::Responses,
                    env_key: None,
                    http_headers: BTreeMap::new(),
                    request_max_retries: DEFAULT_REQUEST_MAX_RETRIES,
                    stream_max_retries: DEFAULT_STREAM_MAX_RETRIES,
                    stream_idle_timeout_ms: DEFAULT_STREAM_IDLE_TIMEOUT_MS,
                    stream: true,
                    models: Vec::new(),
                    default_model: String::new(),
                }
            }
        };
        if let Some(name) = effective.field(&table, &prefix, "name")? {
            provider.name = name;
        }
        if let Some(base_url) = effective.field(&table, &prefix, "base_url")? {
            provider.base_url = base_url;
        }
        if let Some(wire_api) = effective.field(&table, &prefix, "wire_api")? {
            provider.wire_api = match wire_api {
                WireApiName::Responses => WireApi::Responses,
                WireApiName::Chat => WireApi::Chat,
            };
        }
        if let Some(env_key) = effective.field(&table, &prefix, "env_key")? {
            provider.env_key = Some(env_key);
        }
        if let Some(http_headers) = effective.field(&table, &prefix, "http_headers")? {
            provider.http_headers = http_headers;
        }
        if let Some(retries) = effective.field(&table, &prefix, "request_max_retries")? {
            provider.request_max_retries = retries;
        }
        if let Some(retries) = effective.field(&table, &prefix, "stream_max_retries")? {
            provider.stream_max_retries = retries;
        }
        if let Some(timeout) = effective.field(&table, &prefix, "stream_idle_timeout_ms")? {
            provider.stream_idle_timeout_ms = timeout;
        }
        if let Some(stream) = effective.field(&table, &prefix, "stream")? {
            provider.stream = stream;
        }
        if let Some(models) = effective.field(&table, &prefix, "models")? {
            provider.models = models;
        }
        match effective.field(&table, &prefix, "default_model")? {
            Some(default_model) => provider.default_model = default_model,
            // A built-in keeps its own default.
            None if is_builtin => {}
            None => {
                provider.default_model = provider
                    .models
                    .first()
                    .map(String::as_str)
                    .or(model)
                    .unwrap_or(id)
                    .to_owned();
            }
        }
        providers.insert(id.clone(), provider);
    }
    Ok(providers)
}

/// Adds the keys of `table` (at dotted `prefix`) that are not in `known`.
pub(super) fn collect_unknown(
    effective: &Tracked,
    table: &toml::Table,
    prefix: &str,
    known: &[&str],
    unknown_keys: &mut Vec<UnknownKey>,
) {
    for key in table.keys() {
        if !known.contains(&key.as_str()) {
            let dotted = join(prefix, key);
            unknown_keys.push(UnknownKey {
                key: effective.written_key(&dotted),
                location: effective.location(&dotted),
            });
        }
    }
}
