//! Tests of config loading, layering, error messages and `config/read`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use app_server_protocol::policy::{AskForApproval, ReasoningEffort, ReasoningSummary, SandboxMode};
use pretty_assertions::assert_eq;
use serde_json::json;
use tempfile::TempDir;

use crate::config::load::resolve::builtin_providers;
use crate::config::load::{
    ConfigError, HomeEnvironment, config_read_response, resolve_home, table_version,
};
use crate::config::{
    AppServerConfig, Config, ConfigOrigin, ProviderConfig, WireApi, WorkspaceWriteConfig,
};

/// A tempdir home with `config.toml` holding `text` (no file when `None`).
fn home_with(text: Option<&str>) -> TempDir {
    let home = tempfile::tempdir().unwrap();
    if let Some(text) = text {
        std::fs::write(home.path().join("config.toml"), text).unwrap();
    }
    home
}

fn load(home: &TempDir, flags: &[&str]) -> Result<Config, ConfigError> {
    let flags: Vec<String> = flags.iter().map(|flag| (*flag).to_owned()).collect();
    Config::load(Some(home.path().to_path_buf()), &flags)
}

fn config_file(home: &TempDir) -> String {
    home.path().join("config.toml").display().to_string()
}

fn table(text: &str) -> toml::Table {
    text.parse().unwrap()
}

fn origins(entries: &[(&str, ConfigOrigin)]) -> BTreeMap<String, ConfigOrigin> {
    entries
        .iter()
        .map(|(key, origin)| ((*key).to_owned(), origin.clone()))
        .collect()
}

#[test]
fn defaults_without_a_config_file() {
    let home = home_with(None);
    let config = load(&home, &[]).unwrap();
    let openai = ProviderConfig {
        id: "openai".to_owned(),
        name: "OpenAI".to_owned(),
        base_url: "https://api.openai.com/v1".to_owned(),
        wire_api: WireApi::Responses,
        env_key: Some("OPENAI_API_KEY".to_owned()),
        http_headers: BTreeMap::new(),
        request_max_retries: 4,
        stream_max_retries: 5,
        stream_idle_timeout_ms: 300_000,
        stream: true,
        models: vec!["gpt-5.1-codex".to_owned(), "gpt-5.1".to_owned()],
        default_model: "gpt-5.1-codex".to_owned(),
    };
    assert_eq!(builtin_providers()["openai"], openai);
    assert_eq!(
        builtin_providers().keys().collect::<Vec<_>>(),
        ["demo", "ollama", "openai"]
    );
    let expected = Config {
        home: home.path().to_path_buf(),
        config_file: home.path().join("config.toml"),
        profile: None,
        model: None,
        model_provider: "openai".to_owned(),
        approval_policy: AskForApproval::OnRequest,
        sandbox_mode: SandboxMode::ReadOnly,
        sandbox_workspace_write: WorkspaceWriteConfig::default(),
        model_reasoning_effort: None,
        model_reasoning_summary: None,
        base_instructions: None,
        developer_instructions: None,
        project_doc_max_bytes: 32 * 1024,
        compact_prompt: None,
        model_context_window: None,
        model_auto_compact_token_limit: None,
        model_providers: builtin_providers(),
        ask_user: true,
        request_permissions_tool: false,
        app_server: AppServerConfig {
            max_line_bytes: 16 * 1024 * 1024,
            request_queue_capacity: 128,
        },
        query_project_index: crate::config::QueryProjectIndexConfig {
            auto_warm: true,
            model_tool: true,
            roots: Vec::new(),
            settings: tandem_index::IndexSettings::with_defaults(&home.path().join("models")),
            state: tandem_index::IndexState::default(),
        },
        mcp_servers: Vec::new(),
        mcp_tool_output_max_bytes: 1024 * 1024,
        shell_environment_policy: Default::default(),
        clients: crate::config::ClientsConfig::default(),
        effective: table(
            r#"
            model_provider = "openai"
            approval_policy = "on-request"
            sandbox_mode = "read-only"
            "#,
        ),
        origins: BTreeMap::new(),
        flags: Vec::new(),
        user_version: table_version(&toml::Table::new()),
    };
    assert_eq!(config, expected);
}

#[test]
fn file_values() {
    let home = home_with(Some(
        r#"
model = "gpt-5.1"
approval_policy = "never"
sandbox_mode = "workspace-write"
model_reasoning_effort = "high"
model_reasoning_summary = "concise"
instructions = "be brief"
developer_instructions = "use tabs"
future_key = 1

[sandbox_workspace_write]
writable_roots = ["/srv/data"]
network_access = true
exclude_slash_tmp = true

[app_server]
max_line_bytes = 1024
request_queue_capacity = 8
"#,
    ));
    let config = load(&home, &[]).unwrap();
    assert_eq!(config.model.as_deref(), Some("gpt-5.1"));
    assert_eq!(config.approval_policy, AskForApproval::Never);
    assert_eq!(config.sandbox_mode, SandboxMode::WorkspaceWrite);
    assert_eq!(
        config.sandbox_workspace_write,
        WorkspaceWriteConfig {
            writable_roots: vec![PathBuf::from("/srv/data")],
            network_access: true,
            exclude_tmpdir_env_var: false,
            exclude_slash_tmp: true,
        }
    );
    assert_eq!(config.model_reasoning_effort, Some(ReasoningEffort::High));
    assert_eq!(
        config.model_reasoning_summary,
        Some(ReasoningSummary::Concise)
    );
    assert_eq!(config.base_instructions.as_deref(), Some("be brief"));
    assert_eq!(config.developer_instructions.as_deref(), Some("use tabs"));
    assert_eq!(
        config.app_server,
        AppServerConfig {
            max_line_bytes: 1024,
            request_queue_capacity: 8,
        }
    );
    // Unknown keys are kept for config/read.
    assert_eq!(config.effective["future_key"], toml::Value::Integer(1));
    use ConfigOrigin::User;
    assert_eq!(
        config.origins,
        origins(&[
            ("app_server.max_line_bytes", User),
            ("app_server.request_queue_capacity", User),
            ("approval_policy", User),
            ("developer_instructions", User),
            ("future_key", User),
            ("instructions", User),
            ("model", User),
            ("model_reasoning_effort", User),
            ("model_reasoning_summary", User),
            ("sandbox_mode", User),
            ("sandbox_workspace_write.exclude_slash_tmp", User),
            ("sandbox_workspace_write.network_access", User),
            ("sandbox_workspace_write.writable_roots", User),
        ])
    );
}

const PROFILES: &str = r#"
model = "top"
profile = "fast"

[profiles.fast]
model = "fast-model"
approval_policy = "never"

[profiles.careful]
approval_policy = "untrusted"
sandbox_workspace_write.network_access = true
"#;

#[test]
fn profile_overrides_top_level_keys() {
    let home = home_with(Some(PROFILES));
    let config = load(&home, &[]).unwrap();
    assert_eq!(config.profile.as_deref(), Some("fast"));
    assert_eq!(config.model.as_deref(), Some("fast-model"));
    assert_eq!(config.approval_policy, AskForApproval::Never);
    assert_eq!(config.effective["model"], toml::Value::from("fast-model"));
    assert_eq!(config.origins["model"], ConfigOrigin::User);

    let config = load(&home, &["profile=careful"]).unwrap();
    assert_eq!(config.profile.as_deref(), Some("careful"));
    assert_eq!(config.model.as_deref(), Some("top"));
    assert_eq!(config.approval_policy, AskForApproval::Untrusted);
    assert!(config.sandbox_workspace_write.network_access);
    assert_eq!(config.origins["profile"], ConfigOrigin::SessionFlags);
}

#[test]
fn unknown_profile() {
    let home = home_with(Some("profile = \"missing\"\n"));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:1: config profile `missing` not found",
            config_file(&home)
        )
    );
    let home = home_with(Some(PROFILES));
    let err = load(&home, &["profile=nope"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "-c `profile=nope`: config profile `nope` not found"
    );
}

#[test]
fn flags_win_over_profile_and_file_and_set_nested_keys() {
    let home = home_with(Some(PROFILES));
    let config = load(
        &home,
        &[
            "model=\"from-flag\"",
            "model_providers.mock.base_url=\"http://127.0.0.1:9/v1\"",
            "model_providers.mock.wire_api=chat",
            "model_provider=mock",
            "sandbox_workspace_write.writable_roots=[\"/a\", \"/b\"]",
            "app_server.request_queue_capacity = 3",
        ],
    )
    .unwrap();
    assert_eq!(config.model.as_deref(), Some("from-flag"));
    // The profile still applies below the flags.
    assert_eq!(config.approval_policy, AskForApproval::Never);
    assert_eq!(config.model_provider, "mock");
    assert_eq!(
        config.model_providers["mock"],
        ProviderConfig {
            id: "mock".to_owned(),
            name: "mock".to_owned(),
            base_url: "http://127.0.0.1:9/v1".to_owned(),
            wire_api: WireApi::Chat,
            env_key: None,
            http_headers: BTreeMap::new(),
            request_max_retries: 4,
            stream_max_retries: 5,
            stream_idle_timeout_ms: 300_000,
            stream: true,
            models: Vec::new(),
            default_model: "from-flag".to_owned(),
        }
    );
    assert_eq!(
        config.sandbox_workspace_write.writable_roots,
        [PathBuf::from("/a"), PathBuf::from("/b")]
    );
    assert_eq!(config.app_server.request_queue_capacity, 3);
    use ConfigOrigin::{SessionFlags, User};
    assert_eq!(
        config.origins,
        origins(&[
            ("app_server.request_queue_capacity", SessionFlags),
            ("approval_policy", User),
            ("model", SessionFlags),
            ("model_provider", SessionFlags),
            ("model_providers.mock.base_url", SessionFlags),
            ("model_providers.mock.wire_api", SessionFlags),
            ("profile", User),
            ("profiles.careful.approval_policy", User),
            (
                "profiles.careful.sandbox_workspace_write.network_access",
                User
            ),
            ("profiles.fast.approval_policy", User),
            ("profiles.fast.model", User),
            ("sandbox_workspace_write.writable_roots", SessionFlags),
        ])
    );
}

#[test]
fn later_flags_override_earlier_ones() {
    let home = home_with(None);
    let config = load(&home, &["model=a", "model=b"]).unwrap();
    assert_eq!(config.model.as_deref(), Some("b"));
    // A leaf replaced by a table and back.
    let config = load(&home, &["x=1", "x.y=2", "x.y.z=3"]).unwrap();
    assert_eq!(config.effective["x"], toml::Value::Table(table("y.z = 3")));
}

#[test]
fn flag_values_that_are_not_toml_are_plain_strings() {
    let home = home_with(None);
    let cases = [
        ("model=gpt-5", "gpt-5"),
        ("model=gpt-5.1-codex", "gpt-5.1-codex"),
        ("model=\"quoted\"", "quoted"),
        ("model='literal'", "literal"),
        ("model=qwen2.5-coder:7b", "qwen2.5-coder:7b"),
        ("instructions=two words", "two words"),
        ("instructions=\"unterminated", "unterminated"),
        ("instructions=", ""),
        ("instructions=a=b", "a=b"),
    ];
    for (flag, expected) in cases {
        let config = load(&home, &[flag]).unwrap();
        let value = config
            .model
            .or(config.base_instructions)
            .unwrap_or_default();
        assert_eq!(value, expected, "{flag}");
    }
}

#[test]
fn malformed_flags() {
    let home = home_with(None);
    let errors: Vec<String> = ["model", "=gpt-5", "a..b=1", " = 1"]
        .into_iter()
        .map(|flag| load(&home, &[flag]).unwrap_err().to_string())
        .collect();
    assert_eq!(
        errors,
        [
            "invalid -c override `model`: expected `key=value`",
            "invalid -c override `=gpt-5`: empty key",
            "invalid -c override `a..b=1`: empty key",
            "invalid -c override ` = 1`: empty key",
        ]
    );
    // A number where a string is expected is a type error, not a string.
    let err = load(&home, &["model=5"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "-c `model=5`: invalid value for `model`: invalid type: integer `5`, expected a string"
    );
}

#[test]
fn toml_syntax_error_names_file_line_and_column() {
    let home = home_with(Some("model = \"x\"\n\napproval_policy = sometimes\n"));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:19: string values must be quoted, expected literal string",
            config_file(&home)
        )
    );
    let home = home_with(Some("[a]\nx = 1\n[a]\n"));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}:3:2: duplicate key", config_file(&home))
    );
}

#[test]
fn bad_values_name_file_line_and_key() {
    let home = home_with(Some(
        "model = \"m\"\n\n\n\n\n\n\n\n\n\n\napproval_policy = \"sometimes\"\n",
    ));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:12: invalid value for `approval_policy`: unknown variant `sometimes`, expected one of `untrusted`, `on-request`, `granular`, `never`",
            config_file(&home)
        )
    );

    let home = home_with(Some(
        "profile = \"p\"\n[profiles.p]\nsandbox_mode = \"yolo\"\n",
    ));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3: invalid value for `profiles.p.sandbox_mode`: unknown variant `yolo`, expected one of `read-only`, `workspace-write`, `danger-full-access`",
            config_file(&home)
        )
    );

    let home = home_with(Some(
        "[sandbox_workspace_write]\nnetwork_access = \"yes\"\n",
    ));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2: invalid value for `sandbox_workspace_write.network_access`: invalid type: string \"yes\", expected a boolean",
            config_file(&home)
        )
    );

    let home = home_with(Some("[app_server]\nrequest_queue_capacity = 0\n"));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2: invalid value for `app_server.request_queue_capacity`: must be at least 1",
            config_file(&home)
        )
    );

    let home = home_with(None);
    let err = load(&home, &["model_reasoning_effort=extreme"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "-c `model_reasoning_effort=extreme`: invalid value for `model_reasoning_effort`: unknown variant `extreme`, expected one of `none`, `minimal`, `low`, `medium`, `high`, `xhigh`, `max`, `ultra`"
    );
}

#[test]
fn unknown_model_provider() {
    let home = home_with(Some("model = \"m\"\nmodel_provider = \"nope\"\n"));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}:2: model provider `nope` not found", config_file(&home))
    );
    let err = ConfigError::ProviderNotFound {
        location: None,
        id: "x".to_owned(),
    };
    assert_eq!(err.to_string(), "model provider `x` not found");
}

#[test]
fn user_providers() {
    let home = home_with(Some(
        r#"
model = "top-model"

[model_providers.openai]
base_url = "http://proxy.local/v1"
request_max_retries = 9
http_headers = { "X-Team" = "tandem" }

[model_providers.vllm]
name = "vLLM"
base_url = "http://gpu:8000/v1"
wire_api = "chat"
env_key = "VLLM_KEY"
models = ["qwen3-coder", "llama"]
stream_idle_timeout_ms = 1000
query_params = { a = "b" }

[model_providers.bare]
base_url = "http://bare/v1"
"#,
    ));
    let config = load(&home, &[]).unwrap();
    let mut openai = builtin_providers()["openai"].clone();
    openai.base_url = "http://proxy.local/v1".to_owned();
    openai.request_max_retries = 9;
    openai.http_headers = BTreeMap::from([("X-Team".to_owned(), "tandem".to_owned())]);
    assert_eq!(config.model_providers["openai"], openai);
    assert_eq!(
        config.model_providers["vllm"],
        ProviderConfig {
            id: "vllm".to_owned(),
            name: "vLLM".to_owned(),
            base_url: "http://gpu:8000/v1".to_owned(),
            wire_api: WireApi::Chat,
            env_key: Some("VLLM_KEY".to_owned()),
            http_headers: BTreeMap::new(),
            request_max_retries: 4,
            stream_max_retries: 5,
            stream_idle_timeout_ms: 1000,
            stream: true,
            models: vec!["qwen3-coder".to_owned(), "llama".to_owned()],
            default_model: "qwen3-coder".to_owned(),
        }
    );
    assert_eq!(config.model_providers["bare"].default_model, "top-model");
    assert_eq!(config.model_providers["demo"], builtin_providers()["demo"]);
    assert_eq!(
        config.model_providers.keys().collect::<Vec<_>>(),
        ["bare", "demo", "ollama", "openai", "vllm"]
    );

    // Without any model, the provider id is the default model.
    let home = home_with(Some("[model_providers.bare]\nbase_url = \"http://b\"\n"));
    let config = load(&home, &[]).unwrap();
    assert_eq!(config.model_providers["bare"].default_model, "bare");
}

#[test]
fn invalid_provider_tables() {
    let home = home_with(Some(
        "model = \"m\"\n\n[model_providers.local]\nname = \"Local\"\n",
    ));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3: invalid model provider `local`: missing `base_url`",
            config_file(&home)
        )
    );

    let home = home_with(Some(
        "[model_providers.local]\nbase_url = \"http://x\"\nwire_api = \"grpc\"\n",
    ));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3: invalid value for `model_providers.local.wire_api`: unknown variant `grpc`, expected `responses` or `chat`",
            config_file(&home)
        )
    );

    let home = home_with(Some("model_providers = 3\n"));
    let err = load(&home, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:1: invalid value for `model_providers`: invalid type: integer `3`, expected a map",
            config_file(&home)
        )
    );

    let home = home_with(None);
    let err = load(&home, &["model_providers.x.name=X"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "-c `model_providers.x.name=X`: invalid model provider `x`: missing `base_url`"
    );
}

#[test]
fn with_overrides_adds_a_session_flags_layer() {
    let home = home_with(Some(PROFILES));
    let base = load(&home, &["sandbox_mode=workspace-write"]).unwrap();
    let overrides = BTreeMap::from([
        ("model".to_owned(), json!("thread-model")),
        (
            "model_providers.mock".to_owned(),
            json!({"base_url": "http://127.0.0.1:1/v1", "models": ["m1"], "ignored": null}),
        ),
        ("model_provider".to_owned(), json!("mock")),
        ("model_reasoning_effort".to_owned(), json!(null)),
    ]);
    let config = base.with_overrides(&overrides).unwrap();
    assert_eq!(config.model.as_deref(), Some("thread-model"));
    assert_eq!(config.model_provider, "mock");
    assert_eq!(config.model_providers["mock"].default_model, "m1");
    assert_eq!(config.sandbox_mode, SandboxMode::WorkspaceWrite);
    assert_eq!(config.approval_policy, AskForApproval::Never);
    assert_eq!(config.model_reasoning_effort, None);
    assert_eq!(config.origins["model"], ConfigOrigin::SessionFlags);
    assert_eq!(
        config.origins["model_providers.mock.models"],
        ConfigOrigin::SessionFlags
    );
    assert_eq!(config.origins["profiles.fast.model"], ConfigOrigin::User);
    // No overrides: the same config.
    assert_eq!(base.with_overrides(&BTreeMap::new()).unwrap(), base);

    // Switching profile applies it beneath the overrides.
    let overrides = BTreeMap::from([("profile".to_owned(), json!("careful"))]);
    let config = base.with_overrides(&overrides).unwrap();
    assert_eq!(config.profile.as_deref(), Some("careful"));
    assert_eq!(config.approval_policy, AskForApproval::Untrusted);
    // Re-selecting the active profile does not undo `-c` flags.
    let flagged = load(&home, &["model=flag"]).unwrap();
    let overrides = BTreeMap::from([("profile".to_owned(), json!("fast"))]);
    let config = flagged.with_overrides(&overrides).unwrap();
    assert_eq!(config.model.as_deref(), Some("flag"));

    let errors: Vec<String> = [
        ("approval_policy", json!("sometimes")),
        ("model_provider", json!("nope")),
        ("profile", json!("nope")),
        ("", json!(1)),
    ]
    .into_iter()
    .map(|(key, value)| {
        let overrides = BTreeMap::from([(key.to_owned(), value)]);
        base.with_overrides(&overrides).unwrap_err().to_string()
    })
    .collect();
    assert_eq!(
        errors,
        [
            "config override: invalid value for `approval_policy`: unknown variant `sometimes`, expected one of `untrusted`, `on-request`, `granular`, `never`",
            "config override: model provider `nope` not found",
            "config override: config profile `nope` not found",
            "invalid config override ``: empty key",
        ]
    );
}

#[test]
fn config_read_response_shape() {
    let home = home_with(Some(
        "model = \"m\"\n[model_providers.mock]\nbase_url = \"http://x/v1\"\n",
    ));
    let config = load(&home, &["approval_policy=never"]).unwrap();
    let file = config_file(&home);
    let user_version = table_version(&table(
        "model = \"m\"\n[model_providers.mock]\nbase_url = \"http://x/v1\"\n",
    ));
    let flags_version = table_version(&table("approval_policy = \"never\""));
    assert_eq!(config.user_version, user_version);
    assert_eq!(config.flags, ["approval_policy=never"]);

    let user = json!({"type": "user", "file": file, "profile": null});
    let flags = json!({"type": "sessionFlags"});
    let expected_config = json!({
        "model": "m",
        "review_model": null,
        "model_provider": "openai",
        "approval_policy": "never",
        "sandbox_mode": "read-only",
        "sandbox_workspace_write": null,
        "model_reasoning_effort": null,
        "model_reasoning_summary": null,
        "instructions": null,
        "developer_instructions": null,
        "profile": null,
        "model_providers": {"mock": {"base_url": "http://x/v1"}},
        "profiles": null,
    });
    let expected_origins = json!({
        "approval_policy": {"name": flags, "version": flags_version},
        "model": {"name": user, "version": user_version},
        "model_providers.mock.base_url": {"name": user, "version": user_version},
    });

    let response = serde_json::to_value(config_read_response(&config, false)).unwrap();
    assert_eq!(
        response,
        json!({"config": expected_config, "origins": expected_origins})
    );

    let response = serde_json::to_value(config_read_response(&config, true)).unwrap();
    assert_eq!(
        response,
        json!({
            "config": expected_config,
            "origins": expected_origins,
            "layers": [
                {
                    "name": user,
                    "version": user_version,
                    "config": {"model": "m", "model_providers": {"mock": {"base_url": "http://x/v1"}}},
                },
                {
                    "name": flags,
                    "version": flags_version,
                    "config": {"approval_policy": "never"},
                },
            ],
        })
    );

    // Without a file or flags there are no layers to list.
    let config = load(&home_with(None), &[]).unwrap();
    let response = config_read_response(&config, true);
    assert_eq!(response.layers, Some(Vec::new()));
    assert!(response.origins.is_empty());
}

#[test]
fn config_read_converts_toml_types() {
    let home = home_with(Some(
        "when = 1979-05-27T07:32:00Z\nratio = 0.5\nlist = [1, \"a\", true]\n",
    ));
    let config = load(&home, &[]).unwrap();
    let response = config_read_response(&config, false);
    assert_eq!(response.config["when"], json!("1979-05-27T07:32:00Z"));
    assert_eq!(response.config["ratio"], json!(0.5));
    assert_eq!(response.config["list"], json!([1, "a", true]));
}

#[test]
fn versions_are_the_references_sha256_of_sorted_compact_json() {
    // The reference's versions of an empty file and of this one (codex-cli 0.169.0):
    // independent of key order, comments and spacing.
    assert_eq!(
        table_version(&toml::Table::new()),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    assert_eq!(
        table_version(&table(
            "# c\n[tools]\nview_image = false\n\n[features]\nfoo = true\n"
        )),
        "sha256:5743afa3bc12929f7ee1edf038ea7331a1e98683068e286ca9dfafc2f5982ba4"
    );
}

#[test]
fn home_resolution() {
    let environment = |tandem_home: Option<&str>, home: Option<&str>| HomeEnvironment {
        tandem_home: tandem_home.map(OsString::from),
        home: home.map(OsString::from),
        current_dir: Some(PathBuf::from("/work")),
    };
    let resolve = |explicit: Option<&str>, environment: &HomeEnvironment| {
        resolve_home(explicit.map(PathBuf::from), environment).map_err(|err| err.to_string())
    };
    let everything = environment(Some("/env/tandem"), Some("/home/u"));
    assert_eq!(
        resolve(Some("/explicit"), &everything),
        Ok(PathBuf::from("/explicit"))
    );
    assert_eq!(resolve(None, &everything), Ok(PathBuf::from("/env/tandem")));
    assert_eq!(
        resolve(None, &environment(None, Some("/home/u"))),
        Ok(PathBuf::from("/home/u/.tandem"))
    );
    assert_eq!(
        resolve(None, &environment(Some(""), Some("/home/u"))),
        Ok(PathBuf::from("/home/u/.tandem"))
    );
    assert_eq!(
        resolve(Some("rel/home"), &everything),
        Ok(PathBuf::from("/work/rel/home"))
    );
    assert_eq!(
        resolve(None, &environment(Some("~/t"), Some("/home/u"))),
        Ok(PathBuf::from("/home/u/t"))
    );
    assert_eq!(
        resolve(None, &environment(None, None)),
        Err("cannot resolve TANDEM_HOME: neither TANDEM_HOME nor HOME is set".to_owned())
    );
    assert_eq!(
        resolve(None, &environment(Some("~/t"), None)),
        Err("cannot resolve TANDEM_HOME: cannot expand `~/t`: HOME is not set".to_owned())
    );
    let no_current_dir = HomeEnvironment {
        current_dir: None,
        ..environment(Some("rel"), None)
    };
    assert_eq!(
        resolve(None, &no_current_dir),
        Err(
            "cannot resolve TANDEM_HOME: cannot make `rel` absolute: the current directory is unknown"
                .to_owned()
        )
    );
}

#[test]
fn unreadable_config_file() {
    let home = home_with(None);
    // A directory where the file should be cannot be read.
    std::fs::create_dir(home.path().join("config.toml")).unwrap();
    let err = load(&home, &[]).unwrap_err();
    assert!(
        matches!(&err, ConfigError::Read { path, .. } if path == Path::new(&config_file(&home))),
        "{err}"
    );
}
