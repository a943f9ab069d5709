//! Config writes end to end against the real binary: `config/value/write`, `config/batchWrite`
//! and `config/mcpServer/reload` edit and re-read `config.toml` in place (comments and order
//! kept), answer with the reference's versions and conflicts, never lose a concurrent writer's
//! change, take effect for threads started afterwards, and obey the same client allow-list as
//! per-thread `config` overrides (a provider's `base_url`, `[clients]`, MCP servers and the
//! settings every front end's ceiling is computed from are refused); over a network listener
//! nothing is written unless the operator enables it.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use app_server_protocol::config_requests::{
    ConfigBatchWriteParams, ConfigEdit, ConfigValueWriteParams, MergeStrategy, WriteStatus,
};
use app_server_protocol::tables::client_requests;
use app_server_protocol::thread_requests::NoParams;
use app_server_protocol::utility::{ConfigLayerSource, ConfigReadParams};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::McpHttp;
use tandem_tests::server::{SpawnOptions, TestServer};

const INVALID_REQUEST: i64 = -32600;

/// A config with comments, a provider `mock` (never called) and a profile.
const COMMENTED: &str = "# the operator's settings\nmodel_provider = \"mock\"\nmodel = \"first\"  # the usual one\napproval_policy = \"never\"\n\n[model_providers.mock]\n# a local gateway\nname = \"Mock\"\nbase_url = \"http://127.0.0.1:9/v1\"\nwire_api = \"responses\"\n";

async fn server_with(config_toml: &str, args: &[&str]) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config_toml.to_owned(),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

fn write(key_path: &str, value: Value) -> ConfigValueWriteParams {
    ConfigValueWriteParams {
        key_path: key_path.to_owned(),
        value,
        merge_strategy: MergeStrategy::Replace,
        file_path: None,
        expected_version: None,
    }
}

fn config_text(server: &TestServer) -> String {
    std::fs::read_to_string(server.home.join("config.toml")).unwrap()
}

/// The `config_write_error_code` of an error answer (after checking it is `-32600`).
fn write_error_code(error: &Value) -> String {
    assert_eq!(error["code"], INVALID_REQUEST, "{error}");
    error["data"]["config_write_error_code"]
        .as_str()
        .unwrap_or_else(|| panic!("no config_write_error_code: {error}"))
        .to_owned()
}

/// The user layer's version as `config/read` reports it.
async fn user_version(server: &mut TestServer) -> String {
    let read = server
        .call::<client_requests::ConfigRead>(ConfigReadParams {
            include_layers: Some(true),
            cwd: None,
        })
        .await
        .unwrap();
    read.layers
        .unwrap()
        .into_iter()
        .find(|layer| matches!(layer.name, ConfigLayerSource::User { .. }))
        .map(|layer| layer.version)
        .unwrap()
}

async fn new_thread_model(server: &mut TestServer) -> String {
    let started = server.request("thread/start", json!({})).await.unwrap();
    started["model"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_value_write_keeps_comments_and_order_and_new_threads_use_it() {
    let mut server = server_with(COMMENTED, &[]).await;
    assert_eq!(new_thread_model(&mut server).await, "first");
    let version = user_version(&mut server).await;
    assert!(version.starts_with("sha256:"), "{version}");

    let written = server
        .call::<client_requests::ConfigValueWrite>(ConfigValueWriteParams {
            expected_version: Some(version),
            ..write("model", json!("second"))
        })
        .await
        .unwrap();
    assert_eq!(written.status, WriteStatus::Ok);
    assert_eq!(written.overridden_metadata, None);
    assert_eq!(
        written.file_path,
        server.home.join("config.toml").display().to_string()
    );
    assert_eq!(
        config_text(&server),
        COMMENTED.replace("model = \"first\"", "model = \"second\"")
    );
    // The answer's version is the one `config/read` now reports, and the next write may
    // name it.
    assert_eq!(user_version(&mut server).await, written.version);
    assert_eq!(new_thread_model(&mut server).await, "second");

    let upserted = server
        .call::<client_requests::ConfigValueWrite>(ConfigValueWriteParams {
            merge_strategy: MergeStrategy::Upsert,
            expected_version: Some(written.version.clone()),
            ..write(
                "sandbox_workspace_write",
                json!({"exclude_slash_tmp": true}),
            )
        })
        .await
        .unwrap();
    assert_ne!(upserted.version, written.version);
    assert!(
        config_text(&server).ends_with(
            "wire_api = \"responses\"\n\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n"
        ),
        "{}",
        config_text(&server)
    );
}

#[tokio::test]
async fn a_batch_applies_every_edit_or_none() {
    let mut server = server_with(COMMENTED, &[]).await;
    let edit = |key_path: &str, value: Value| ConfigEdit {
        key_path: key_path.to_owned(),
        value,
        merge_strategy: MergeStrategy::Replace,
    };
    let batch = |edits| ConfigBatchWriteParams {
        edits,
        file_path: None,
        expected_version: None,
        reload_user_config: Some(true),
    };
    server
        .call::<client_requests::ConfigBatchWrite>(batch(vec![
            edit("model", json!("batched")),
            edit("model_reasoning_effort", json!("high")),
            edit("approval_policy", Value::Null),
        ]))
        .await
        .unwrap();
    let after_first = config_text(&server);
    assert_eq!(
        after_first,
        COMMENTED
            .replace("model = \"first\"", "model = \"batched\"")
            .replace(
                "approval_policy = \"never\"\n",
                "model_reasoning_effort = \"high\"\n"
            )
    );

    // The second edit does not validate (a model is a string): the first is not written.
    let error = server
        .call::<client_requests::ConfigBatchWrite>(batch(vec![
            edit("model", json!("lost")),
            edit("model", json!(5)),
        ]))
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configValidationError");
    assert_eq!(config_text(&server), after_first);
}

#[tokio::test]
async fn a_stale_version_is_a_conflict_and_a_concurrent_change_survives() {
    let mut server = server_with(COMMENTED, &[]).await;
    let version = user_version(&mut server).await;

    // Someone else edits the file after the client read it.
    let path = server.home.join("config.toml");
    let edited = format!("{COMMENTED}\n[profiles.theirs]\nmodel = \"kept\"\n");
    std::fs::write(&path, &edited).unwrap();

    let error = server
        .call::<client_requests::ConfigValueWrite>(ConfigValueWriteParams {
            expected_version: Some(version),
            ..write("model", json!("mine"))
        })
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configVersionConflict");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);

    // Read again, write again: the other writer's table is still there.
    let version = user_version(&mut server).await;
    server
        .call::<client_requests::ConfigValueWrite>(ConfigValueWriteParams {
            expected_version: Some(version),
            ..write("model", json!("mine"))
        })
        .await
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("model = \"mine\"") && text.contains("[profiles.theirs]"),
        "{text}"
    );
}

#[tokio::test]
async fn concurrent_writers_in_two_processes_lose_nothing() {
    let home = tempfile::tempdir().unwrap();
    let all = ["-c", "clients.allow_client_config=\"all\""];
    let mut servers = Vec::new();
    for _ in 0..2 {
        let mut server = TestServer::spawn_with(SpawnOptions {
            config_toml: COMMENTED.to_owned(),
            args: all.iter().map(|arg| (*arg).to_owned()).collect(),
            home: Some(home.path().to_path_buf()),
            cwd: None,
        })
        .await;
        server.initialize().await;
        servers.push(server);
    }
    // Every request is sent before any answer is read: the two processes and the requests
    // inside each run at the same time.
    let mut pending = Vec::new();
    for (index, server) in servers.iter_mut().enumerate() {
        let mut ids = Vec::new();
        for key in 0..8 {
            let params = json!({
                "keyPath": format!("profiles.p{index}x{key}.model"),
                "value": "m",
                "mergeStrategy": "replace",
            });
            ids.push(server.send_request("config/value/write", params).await);
        }
        pending.push(ids);
    }
    for (server, ids) in servers.iter_mut().zip(pending) {
        for id in ids {
            server.response(id).await.unwrap();
        }
    }
    let text = std::fs::read_to_string(home.path().join("config.toml")).unwrap();
    for index in 0..2 {
        for key in 0..8 {
            assert!(
                text.contains(&format!("[profiles.p{index}x{key}]")),
                "profiles.p{index}x{key} lost:\n{text}"
            );
        }
    }
    assert!(text.starts_with("# the operator's settings\n"), "{text}");
}

#[tokio::test]
async fn malformed_writes_are_refused_and_write_nothing() {
    let mut server = server_with(COMMENTED, &[]).await;
    for params in [
        json!({"value": "m", "mergeStrategy": "replace"}),
        json!({"keyPath": "model", "value": "m", "mergeStrategy": "sideways"}),
        json!({"keyPath": "model", "mergeStrategy": "replace"}),
    ] {
        let error = server
            .request("config/value/write", params.clone())
            .await
            .unwrap_err();
        assert_eq!(error["code"], INVALID_REQUEST, "{params}: {error}");
    }
    for (key_path, value) in [
        ("", json!("m")),
        ("model..x", json!("m")),
        ("model", json!(5)),
        ("approval_policy", json!("sometimes")),
        ("model_provider", json!("nowhere")),
    ] {
        let error = server
            .call::<client_requests::ConfigValueWrite>(write(key_path, value))
            .await
            .unwrap_err();
        assert_eq!(
            write_error_code(&error),
            "configValidationError",
            "{key_path}"
        );
    }
    let error = server
        .call::<client_requests::ConfigValueWrite>(ConfigValueWriteParams {
            file_path: Some("/tmp/elsewhere.toml".to_owned()),
            ..write("model", json!("m"))
        })
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configLayerReadonly");
    assert_eq!(config_text(&server), COMMENTED);
}

#[tokio::test]
async fn writes_obey_the_client_allow_list_and_the_ceiling() {
    let mut server = server_with(COMMENTED, &[]).await;
    for (key_path, value) in [
        (
            "model_providers.mock.base_url",
            json!("http://127.0.0.1:1/evil"),
        ),
        (
            "model_providers.evil",
            json!({"base_url": "http://x", "name": "x"}),
        ),
        ("model_providers.mock", Value::Null),
        ("mcp_servers.x", json!({"command": "sh"})),
        ("hooks", json!({"x": 1})),
        ("clients.max_sandbox", json!("danger-full-access")),
        ("clients", Value::Null),
        ("query_project_index.roots", json!(["/"])),
        ("sandbox_mode", json!("danger-full-access")),
        ("sandbox_workspace_write.network_access", json!(true)),
        ("sandbox_workspace_write", json!({"writable_roots": ["/"]})),
    ] {
        let error = server
            .call::<client_requests::ConfigValueWrite>(write(key_path, value))
            .await
            .unwrap_err();
        assert_eq!(
            write_error_code(&error),
            "configKeyRefused",
            "{key_path}: {error}"
        );
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("cannot be"), "{key_path}: {message}");
    }
    assert_eq!(config_text(&server), COMMENTED);
    // Narrowing stays allowed.
    server
        .call::<client_requests::ConfigValueWrite>(write("sandbox_mode", json!("read-only")))
        .await
        .unwrap();

    // With every key allowed, `[clients]` is still the operator's.
    let mut all = server_with(COMMENTED, &["-c", "clients.allow_client_config=\"all\""]).await;
    let error = all
        .call::<client_requests::ConfigValueWrite>(write(
            "clients.max_sandbox",
            json!("danger-full-access"),
        ))
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configKeyRefused");
    all.call::<client_requests::ConfigValueWrite>(write(
        "model_providers.mock.name",
        json!("Renamed"),
    ))
    .await
    .unwrap();

    // The operator can turn writes off altogether.
    let mut off = server_with(COMMENTED, &["-c", "clients.allow_config_writes=false"]).await;
    let error = off
        .call::<client_requests::ConfigValueWrite>(write("model", json!("m")))
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configKeyRefused");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("clients.allow_config_writes"),
        "{error}"
    );
}

#[tokio::test]
async fn a_key_a_flag_sets_is_written_but_reported_overridden() {
    let mut server = server_with(COMMENTED, &["-c", "model=\"from-flag\""]).await;
    let written = server
        .call::<client_requests::ConfigValueWrite>(write("model", json!("from-file")))
        .await
        .unwrap();
    assert_eq!(written.status, WriteStatus::OkOverridden);
    let overridden = written.overridden_metadata.unwrap();
    assert_eq!(
        overridden.overriding_layer.name,
        ConfigLayerSource::SessionFlags
    );
    assert_eq!(overridden.effective_value, json!("from-flag"));
    assert!(config_text(&server).contains("model = \"from-file\""));
    assert_eq!(new_thread_model(&mut server).await, "from-flag");
}

#[tokio::test]
async fn a_reload_picks_up_the_file_and_keeps_the_old_config_when_it_is_broken() {
    let mut server = server_with(COMMENTED, &[]).await;
    let path = server.home.join("config.toml");
    std::fs::write(&path, COMMENTED.replace("\"first\"", "\"edited\"")).unwrap();
    server
        .call::<client_requests::ConfigMcpServerReload>(NoParams {})
        .await
        .unwrap();
    assert_eq!(new_thread_model(&mut server).await, "edited");

    // Bad params.
    let error = server
        .request("config/mcpServer/reload", json!(5))
        .await
        .unwrap_err();
    assert_eq!(error["code"], INVALID_REQUEST, "{error}");

    // A file that does not load is reported and the running config stays.
    std::fs::write(&path, "model = \n").unwrap();
    let error = server
        .call::<client_requests::ConfigMcpServerReload>(NoParams {})
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configValidationError");
    assert_eq!(new_thread_model(&mut server).await, "edited");
}

#[tokio::test]
async fn a_network_listener_writes_no_config_unless_the_operator_enables_it() {
    for (args, enabled) in [
        (&[][..], false),
        (&["-c", "clients.allow_config_writes=true"][..], true),
    ] {
        let server = McpHttp::spawn(COMMENTED, args).await;
        let (session, _) = server.initialize("2025-06-18", json!({})).await;
        let body = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "setDefaultModel",
            "params": {"model": "remote", "reasoningEffort": null},
        });
        let response: Value = server
            .post_accept(Some(&session), &body, "application/json")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let text = std::fs::read_to_string(server.home.join("config.toml")).unwrap();
        if enabled {
            assert_eq!(response["result"], json!({}), "{response}");
            assert!(
                text.contains("model = \"remote\"  # the usual one"),
                "{text}"
            );
        } else {
            assert_eq!(response["error"]["code"], INVALID_REQUEST, "{response}");
            assert!(
                response["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("clients.allow_config_writes"),
                "{response}"
            );
            assert_eq!(text, COMMENTED);
        }
    }
}
