//! A client written for Codex's `codex/event` payloads, run against `tandem mcp-server` over
//! real stdio: it renders a turn only from the `msg` types of the events (as Codex's own
//! MCP clients do) and answers the approvals, and the rendering shows the agent's text, the
//! approval, the command's output, the patch and the completion.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::McpStdio;

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n";

/// What a terminal client written for Codex shows for one turn, built from `codex/event`
/// messages alone (it knows nothing of the app-server notifications).
#[derive(Default)]
struct CodexRenderer {
    lines: Vec<String>,
    /// The agent message being streamed.
    streaming: String,
}

impl CodexRenderer {
    fn event(&mut self, msg: &Value) {
        let text = |key: &str| msg[key].as_str().unwrap_or_default().to_string();
        match msg["type"].as_str().unwrap_or_default() {
            "session_configured" => self.lines.push(format!(
                "session {} model {}",
                text("session_id"),
                text("model")
            )),
            "task_started" => self.lines.push("turn started".to_string()),
            "user_message" => self.lines.push(format!("user: {}", text("message"))),
            "agent_message_content_delta" => self.streaming.push_str(&text("delta")),
            "agent_message" => {
                // The streamed text and the final message must agree.
                assert_eq!(self.streaming, text("message"));
                self.streaming.clear();
                self.lines.push(format!("agent: {}", text("message")));
            }
            "exec_approval_request" => {
                let command: Vec<&str> = msg["command"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|word| word.as_str().unwrap())
                    .collect();
                self.lines
                    .push(format!("approve command? {}", command.join(" ")));
            }
            "exec_command_begin" => self.lines.push(format!("running {}", text("call_id"))),
            "exec_command_end" => self.lines.push(format!(
                "output (exit {}): {}",
                msg["exit_code"],
                text("aggregated_output").trim_end()
            )),
            "apply_patch_approval_request" => {
                let files: Vec<&String> = msg["changes"].as_object().unwrap().keys().collect();
                self.lines.push(format!("approve patch? {files:?}"));
            }
            "patch_apply_end" => self.lines.push(format!("patch: {}", text("status"))),
            "task_complete" => self.lines.push(format!(
                "done: {}",
                text("last_agent_message")
                    .lines()
                    .next()
                    .unwrap_or_default()
            )),
            "turn_aborted" => self.lines.push(format!("aborted: {}", text("reason"))),
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_codex_client_renders_a_turn_from_codex_events_alone() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    server
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    server
        .send(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "codex", "arguments": {
                "prompt": "Show me what you can do.",
                "cwd": workspace.path().to_string_lossy(),
                "approval-policy": "untrusted",
                "sandbox": "workspace-write",
            }},
        }))
        .await;
    let mut renderer = CodexRenderer::default();
    let response = loop {
        let message = server.next().await;
        match message["method"].as_str() {
            Some("codex/event") => {
                assert_eq!(message["params"]["_meta"]["requestId"], 1);
                renderer.event(&message["params"]["msg"]);
            }
            Some("elicitation/create") => {
                renderer.lines.push("(approved)".to_string());
                let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"decision": "approved"}});
                server.send(&answer).await;
            }
            Some(_) => {}
            None => break message,
        }
    };
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["isError"], false, "{response}");

    let lines = &renderer.lines;
    let find = |prefix: &str| {
        lines
            .iter()
            .position(|line| line.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line in {lines:#?}"))
    };
    let uname = std::process::Command::new("uname")
        .arg("-srm")
        .output()
        .unwrap();
    let uname = String::from_utf8_lossy(&uname.stdout).trim().to_string();
    // The text, the approval, the command output and the completion, in that order.
    assert!(find("session ") < find("turn started"), "{lines:#?}");
    assert_eq!(
        lines[find("user: ")],
        "user: Show me what you can do.",
        "{lines:#?}"
    );
    let asked = find("approve command? ");
    assert!(lines[asked].ends_with("-c uname -srm"), "{lines:#?}");
    assert_eq!(lines[asked + 1], "(approved)");
    assert!(lines[asked + 2].starts_with("running "), "{lines:#?}");
    assert_eq!(
        lines[find("output ")],
        format!("output (exit 0): {uname}"),
        "{lines:#?}"
    );
    let patch = find("approve patch? ");
    assert_eq!(lines[patch + 1], "(approved)");
    assert_eq!(lines[patch + 2], "patch: completed", "{lines:#?}");
    let agent = lines
        .iter()
        .filter(|line| line.starts_with("agent: "))
        .count();
    assert!(agent >= 1, "{lines:#?}");
    let done = find("done: ");
    assert_eq!(
        done,
        lines.len() - 1,
        "the completion comes last: {lines:#?}"
    );
    assert!(lines[done].len() > "done: ".len(), "{lines:#?}");
    assert_eq!(server.shutdown().await, Some(0));
}
