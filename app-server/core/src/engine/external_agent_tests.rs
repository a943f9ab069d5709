//! The trust rules of the extensions on an engine built for a network listener
//! (`mcp-server --http`, the network front end this binary has): importing MCP servers or hooks
//! is refused while `AGENTS.md` still imports, and direct MCP calls are off by default.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use crate::access::{ClientPolicy, FrontEnd};
use crate::config::Config;
use crate::engine::Engine;
use crate::engine::test_support::{NoUser, RecordingSink};
use crate::principal::Principal;
use crate::store::Store;

fn network_engine(config: &Config) -> Engine {
    let (sender, _receiver) = mpsc::channel(16);
    Engine::new(
        config.clone(),
        Arc::new(Store::open(&config.home).expect("store")),
        Arc::new(crate::account::AccountState::load(&config.home)),
        Arc::new(RecordingSink(sender)),
        Arc::new(NoUser),
        Principal::named("remote"),
        ClientPolicy::resolve(config, FrontEnd::McpServerHttp),
    )
}

fn params<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("params")
}

#[tokio::test]
async fn a_network_client_imports_no_mcp_server_or_hook_and_calls_no_server() {
    let home = tempfile::tempdir().expect("home");
    let repo = tempfile::tempdir().expect("repo");
    std::fs::write(repo.path().join("CLAUDE.md"), "rules").expect("CLAUDE.md");
    std::fs::write(
        repo.path().join(".mcp.json"),
        r#"{"mcpServers": {"files": {"command": "npx"}}}"#,
    )
    .expect(".mcp.json");
    let config = Config::load(Some(home.path().to_path_buf()), &[]).expect("config");
    let engine = network_engine(&config);
    let cwd = repo.path().to_string_lossy().into_owned();
    let item = |item_type: &str, details: serde_json::Value| {
        params(json!({"itemType": item_type, "description": "", "cwd": cwd, "details": details}))
    };

    let refused = engine
        .import_external_agent_config(vec![
            item("AGENTS_MD", serde_json::Value::Null),
            item(
                "MCP_SERVER_CONFIG",
                json!({"mcpServers": [{"name": "files"}]}),
            ),
        ])
        .await
        .expect_err("refused");
    assert!(
        refused.to_string().contains("local connection"),
        "{refused}"
    );
    assert!(!repo.path().join("AGENTS.md").exists());
    assert!(!home.path().join("config.toml").exists());
    let hooks = engine
        .import_external_agent_config(vec![item("HOOKS", json!({"hooks": [{"name": "Stop"}]}))])
        .await
        .expect_err("refused");
    assert!(hooks.to_string().contains("local connection"), "{hooks}");

    let imported = engine
        .import_external_agent_config(vec![item("AGENTS_MD", serde_json::Value::Null)])
        .await
        .expect("AGENTS.md imports");
    assert_eq!(imported[0].failures, Vec::new());
    assert_eq!(
        std::fs::read_to_string(repo.path().join("AGENTS.md")).expect("AGENTS.md"),
        "rules"
    );

    let call = engine
        .call_mcp_tool(params(json!({"threadId": "t", "server": "s", "tool": "x"})))
        .await
        .expect_err("refused");
    assert!(
        call.to_string().contains("clients.allow_mcp_server_calls"),
        "{call}"
    );
}
