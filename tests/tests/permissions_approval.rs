//! `item/permissions/requestApproval` through the real binary and the mock model: with
//! `request_permissions_tool` set, the model's `request_permissions` call asks the client, and
//! the commands of the rest of the turn run with what took effect: only what the model asked
//! for, and never beyond the operator's ceiling (`clients.max_sandbox = "workspace-write"`
//! keeps the network and `/` out of reach whatever the client grants). A turn grant ends with
//! its turn, a session grant outlives it, a refusal grants nothing, and with the granular flag
//! `request_permissions: false` nobody is asked. Without the setting the tool is neither offered
//! nor run.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{Answer, Setup, config, done, exec, find, run_turn, tool_output};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::server::{SpawnOptions, TestServer};

async fn setup(offer_tool: bool) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut config_toml = config(
        &model.base_url(),
        "on-request",
        "workspace-write",
        "responses",
    );
    if offer_tool {
        config_toml = format!("request_permissions_tool = true\n{config_toml}");
    }
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml,
        args: vec![
            "-c".into(),
            "clients.max_sandbox=\"workspace-write\"".into(),
        ],
        home: None,
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let result = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    server.notification("thread/started").await;
    Setup {
        model,
        server,
        thread_id,
        workspace,
    }
}

fn request_permissions(call_id: &str, arguments: Value) -> MockResponse {
    MockResponse::sse(responses_function_call(
        call_id,
        "request_permissions",
        &arguments.to_string(),
    ))
}

fn offered_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or("").to_string())
        .collect()
}

#[tokio::test]
async fn a_grant_takes_effect_for_the_turn_within_the_ceiling() {
    let mut setup = setup(true).await;
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let outside_dir = outside.path().to_str().unwrap().to_string();
    let granted_file = format!("{outside_dir}/granted.txt");
    setup.model.push_all([
        request_permissions(
            "call_perm",
            json!({
                "reason": "write the report next to the data",
                "permissions": {
                    "network": {"enabled": true},
                    "file_system": {"write": [outside_dir, "/"]},
                },
            }),
        ),
        exec("call_touch", &format!("touch {granted_file}")),
        done(),
    ]);
    // The client grants everything asked, and more.
    let grant = json!({
        "permissions": {
            "network": {"enabled": true},
            "fileSystem": {"write": [outside_dir, "/", "/etc"], "read": ["/etc"]},
        },
        "scope": "turn",
    });
    let messages = run_turn(&mut setup, "write the report", vec![Answer::Result(grant)]).await;

    assert!(offered_names(&setup.model.requests()[0]).contains(&"request_permissions".to_string()));
    let asked = find(&messages, "item/permissions/requestApproval");
    assert_eq!(asked.len(), 1, "{messages:#?}");
    let params = asked[0]["params"].clone();
    let turn_id = find(&messages, "turn/started")[0]["params"]["turn"]["id"].clone();
    assert_eq!(params["threadId"], json!(setup.thread_id));
    assert_eq!(params["turnId"], turn_id);
    assert_eq!(params["itemId"], "call_perm");
    assert_eq!(
        params["cwd"],
        json!(setup.workspace.path().to_str().unwrap())
    );
    assert_eq!(params["reason"], "write the report next to the data");
    assert_eq!(
        params["permissions"],
        json!({"network": {"enabled": true}, "fileSystem": {"read": null, "write": [outside_dir, "/"], "entries": null, "globScanMaxDepth": null}})
    );
    // Only what was asked and the ceiling allows took effect: no network (the operator's
    // sandbox has none), no `/`, no `/etc`.
    assert_eq!(
        serde_json::from_str::<Value>(&tool_output_of(&setup.model, "call_perm")).unwrap(),
        json!({"permissions": {"file_system": {"write": [outside_dir]}}, "scope": "turn"})
    );
    // The next command of the turn writes where it was granted.
    assert!(
        std::path::Path::new(&granted_file).exists(),
        "{}",
        tool_output(&setup.model, "call_touch")
    );

    // A turn grant ends with its turn: the sandbox blocks the same write now.
    let blocked_file = format!("{outside_dir}/blocked.txt");
    setup
        .model
        .push_all([exec("call_again", &format!("touch {blocked_file}")), done()]);
    run_turn(&mut setup, "write it again", Vec::new()).await;
    assert!(!std::path::Path::new(&blocked_file).exists());
}

/// The output the model got for `call_id` in any of its requests.
fn tool_output_of(model: &MockModel, call_id: &str) -> String {
    model
        .requests()
        .iter()
        .flat_map(|request| request["input"].as_array().cloned().unwrap_or_default())
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .and_then(|item| item["output"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no output for {call_id}"))
}

#[tokio::test]
async fn a_session_grant_outlives_its_turn_and_a_refusal_grants_nothing() {
    let mut setup = setup(true).await;
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let outside_dir = outside.path().to_str().unwrap().to_string();
    let asking = json!({"permissions": {"file_system": {"write": [outside_dir]}}});
    setup
        .model
        .push_all([request_permissions("call_no", asking.clone()), done()]);
    let refusal = json!({"permissions": {}});
    run_turn(&mut setup, "ask", vec![Answer::Result(refusal)]).await;
    assert_eq!(
        serde_json::from_str::<Value>(&tool_output_of(&setup.model, "call_no")).unwrap(),
        json!({"permissions": {}, "scope": "turn"})
    );

    setup
        .model
        .push_all([request_permissions("call_yes", asking), done()]);
    let grant =
        json!({"permissions": {"fileSystem": {"write": [outside_dir]}}, "scope": "session"});
    run_turn(&mut setup, "ask again", vec![Answer::Result(grant)]).await;
    let later_file = format!("{outside_dir}/later.txt");
    setup
        .model
        .push_all([exec("call_later", &format!("touch {later_file}")), done()]);
    run_turn(&mut setup, "write later", Vec::new()).await;
    assert!(
        std::path::Path::new(&later_file).exists(),
        "{}",
        tool_output(&setup.model, "call_later")
    );
}

#[tokio::test]
async fn without_the_setting_the_tool_is_neither_offered_nor_run() {
    let mut setup = setup(false).await;
    setup.model.push_all([
        request_permissions(
            "call_perm",
            json!({"permissions": {"network": {"enabled": true}}}),
        ),
        done(),
    ]);
    let messages = run_turn(&mut setup, "ask", Vec::new()).await;
    assert_eq!(find(&messages, "item/permissions/requestApproval").len(), 0);
    assert!(
        !offered_names(&setup.model.requests()[0]).contains(&"request_permissions".to_string())
    );
    assert_eq!(
        tool_output_of(&setup.model, "call_perm"),
        "unsupported call: request_permissions"
    );
}

#[tokio::test]
async fn the_granular_flag_off_grants_nothing_without_asking() {
    let mut setup = setup(true).await;
    setup.model.push_all([
        request_permissions(
            "call_perm",
            json!({"permissions": {"network": {"enabled": true}}}),
        ),
        done(),
    ]);
    let granular = json!({"granular": {
        "sandbox_approval": true,
        "rules": true,
        "skill_approval": true,
        "request_permissions": false,
        "mcp_elicitations": true,
    }});
    let messages = common::tool_turns::run_turn_with(
        &mut setup,
        json!({"approvalPolicy": granular}),
        "ask",
        Vec::new(),
    )
    .await;
    assert_eq!(find(&messages, "item/permissions/requestApproval").len(), 0);
    assert_eq!(
        serde_json::from_str::<Value>(&tool_output_of(&setup.model, "call_perm")).unwrap(),
        json!({"permissions": {}, "scope": "turn"})
    );
}
