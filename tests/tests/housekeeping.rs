//! Housekeeping end to end through the binary: `feedback/save` bundles (contents, masked
//! secrets, the paths a client may name), `plugin/list`, and importing another agent's setup
//! with `externalAgentConfig/detect` and `externalAgentConfig/import`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::io::Read as _;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

async fn spawn(home: &Path, cwd: &Path, config: &str) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config.to_string(),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: Some(cwd.to_path_buf()),
    })
    .await;
    server.initialize().await;
    server
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn zip_entries(path: &Path) -> Vec<(String, String)> {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..archive.len())
        .map(|index| {
            let mut file = archive.by_index(index).unwrap();
            let mut text = String::new();
            file.read_to_string(&mut text).unwrap();
            (file.name().unwrap().into_owned(), text)
        })
        .collect()
}

const KEY: &str = "sk-abcdefghijklmnopqrstuvwxyz0123456789";

#[tokio::test]
async fn feedback_save_bundles_the_threads_rollout_with_secrets_masked() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let config = format!(
        "{}\n[clients]\nmax_sandbox = \"workspace-write\"\n",
        mock_config(&model.base_url())
    );
    let mut server = spawn(home.path(), work.path(), &config).await;
    let started = server
        .request(
            "thread/start",
            json!({"cwd": work.path().to_string_lossy()}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    model.push(MockResponse::sse(responses_text("msg_1", &["noted"])));
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": format!("my key is {KEY}")}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;

    let bundle = work.path().join("feedback.zip");
    let saved = server
        .request(
            "feedback/save",
            json!({
                "classification": "bug",
                "savePath": bundle.to_string_lossy(),
                "threadId": thread_id,
                "includeLogs": true,
                "reason": "it broke",
                "tags": {"area": "turns"},
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        saved,
        json!({"savedPath": bundle.to_string_lossy(), "threadId": thread_id, "promptHash": null})
    );
    let entries = zip_entries(&bundle);
    let names: Vec<&str> = entries.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"report.json"), "{names:?}");
    assert_eq!(names.last(), Some(&"manifest.json"), "{names:?}");
    let rollout = entries
        .iter()
        .find(|(name, _)| name.contains("/rollout-") && name.ends_with(".jsonl"))
        .unwrap_or_else(|| panic!("no rollout in {names:?}"));
    assert!(rollout.1.contains("my key is sk-"), "{}", rollout.1);
    assert!(!entries.iter().any(|(_, text)| text.contains(KEY)));
    let report: Value = serde_json::from_str(&entries[0].1).unwrap();
    assert_eq!(report["classification"], "bug");
    assert_eq!(report["reason"], "it broke");
    assert_eq!(report["threadId"], thread_id.as_str());
    assert_eq!(report["tags"], json!({"area": "turns"}));
    let manifest: Value = serde_json::from_str(&entries.last().unwrap().1).unwrap();
    assert_eq!(manifest.as_array().unwrap().len(), entries.len() - 2);

    // Without a thread: a report alone, under an id of its own.
    let alone = work.path().join("alone.zip");
    let saved = server
        .request(
            "feedback/save",
            json!({"classification": "idea", "savePath": alone.to_string_lossy(), "includeLogs": false}),
        )
        .await
        .unwrap();
    assert!(
        saved["threadId"]
            .as_str()
            .unwrap()
            .starts_with("no-active-thread-")
    );
    let names: Vec<String> = zip_entries(&alone)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, ["report.json", "manifest.json"]);

    // An existing file is never replaced; a relative path, a path outside the file roots, one
    // inside TANDEM_HOME and another principal's or a missing thread are refused.
    let error = server
        .request(
            "feedback/save",
            json!({"classification": "bug", "savePath": bundle.to_string_lossy(), "includeLogs": false}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32603, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{error}"
    );
    let outside = tempfile::tempdir().unwrap();
    for (path, thread) in [
        ("relative.zip".to_owned(), Value::Null),
        (
            outside.path().join("x.zip").to_string_lossy().into_owned(),
            Value::Null,
        ),
        (
            home.path().join("x.zip").to_string_lossy().into_owned(),
            Value::Null,
        ),
        (
            work.path().join("y.zip").to_string_lossy().into_owned(),
            json!("00000000-0000-0000-0000-000000000000"),
        ),
    ] {
        let error = server
            .request(
                "feedback/save",
                json!({"classification": "bug", "savePath": path, "threadId": thread, "includeLogs": false}),
            )
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32600, "{path}: {error}");
    }
    assert!(!outside.path().join("x.zip").exists());
    assert!(!home.path().join("x.zip").exists());
}

#[tokio::test]
async fn plugin_list_is_local_and_empty_and_the_remote_catalogue_is_not_supported() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut server = spawn(home.path(), work.path(), "model_provider = \"demo\"\n").await;
    let listed = server.request("plugin/list", json!({})).await.unwrap();
    assert_eq!(
        listed,
        json!({"marketplaces": [], "marketplaceLoadErrors": [], "featuredPluginIds": []})
    );
    let listed = server
        .request("plugin/list", json!({"marketplaceKinds": ["local"]}))
        .await
        .unwrap();
    assert_eq!(listed["marketplaces"], json!([]));
    let error = server
        .request("plugin/list", json!({"marketplaceKinds": ["vertical"]}))
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("not supported by this server"),
        "{error}"
    );
    for method in ["plugin/installed", "feedback/upload", "app/list"] {
        let error = server.request(method, json!({})).await.unwrap_err();
        assert_eq!(error["code"], -32601, "{method}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .starts_with("method not supported by this server"),
            "{method}: {error}"
        );
    }
}

#[tokio::test]
async fn a_claude_code_setup_is_detected_and_imported_with_servers_and_hooks_disabled() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(&repo.join("CLAUDE.md"), "# Rules\nUse tabs.\n");
    write(
        &repo.join(".claude/skills/tidy/SKILL.md"),
        "---\nname: tidy\ndescription: Tidies code.\n---\nbody\n",
    );
    write(
        &repo.join(".claude/skills/tidy/scripts/run.sh"),
        "echo tidy\n",
    );
    write(
        &repo.join(".mcp.json"),
        r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-filesystem", "."], "env": {"A": "1"}}, "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}"#,
    );
    write(
        &repo.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo check"}]}]}}"#,
    );
    let mut server = spawn(home.path(), work.path(), "model_provider = \"demo\"\n").await;
    let cwd = repo.to_string_lossy().into_owned();
    let detected = server
        .request(
            "externalAgentConfig/detect",
            json!({"cwds": [cwd], "includeHome": false}),
        )
        .await
        .unwrap();
    let items = detected["items"].as_array().unwrap().clone();
    let kinds: Vec<&str> = items
        .iter()
        .map(|item| item["itemType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["MCP_SERVER_CONFIG", "HOOKS", "SKILLS", "AGENTS_MD"]);
    assert_eq!(
        items[0]["details"]["mcpServers"],
        json!([{"name": "files"}, {"name": "web"}])
    );
    assert_eq!(
        items[1]["details"]["hooks"],
        json!([{"name": "PreToolUse"}])
    );
    assert_eq!(items[2]["details"]["skills"], json!([{"name": "tidy"}]));
    assert_eq!(items[3]["details"], Value::Null);
    assert!(items.iter().all(|item| item["cwd"] == cwd.as_str()));
    assert_eq!(detected["connectors"], json!([]));

    let imported = server
        .request(
            "externalAgentConfig/import",
            json!({"migrationItems": items}),
        )
        .await
        .unwrap();
    let import_id = imported["importId"].as_str().unwrap().to_string();
    let mut progress = Vec::new();
    for _ in 0..4 {
        let params = server
            .notification("externalAgentConfig/import/progress")
            .await;
        assert_eq!(params["importId"], import_id.as_str());
        progress.push(params["itemTypeResults"][0].clone());
    }
    let completed = server
        .notification("externalAgentConfig/import/completed")
        .await;
    assert_eq!(completed["itemTypeResults"], Value::Array(progress.clone()));
    for result in &progress {
        assert_eq!(result["failures"], json!([]), "{result}");
    }
    assert_eq!(
        progress[0]["successes"],
        json!([
            {"itemType": "MCP_SERVER_CONFIG", "cwd": cwd, "source": "files", "target": "files", "title": null},
            {"itemType": "MCP_SERVER_CONFIG", "cwd": cwd, "source": "web", "target": "web", "title": null},
        ])
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("AGENTS.md")).unwrap(),
        "# Rules\nUse tabs.\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join(".agents/skills/tidy/scripts/run.sh")).unwrap(),
        "echo tidy\n"
    );

    // The servers are configured but not started; the hook is listed, untrusted and off.
    let status = server
        .request("mcpServerStatus/list", json!({}))
        .await
        .unwrap();
    assert_eq!(status["data"], json!([]), "{status}");
    let config = server.request("config/read", json!({})).await.unwrap();
    let servers = &config["config"]["mcp_servers"];
    assert_eq!(
        servers["files"],
        json!({"command": "npx", "args": ["-y", "server-filesystem", "."], "env": {"A": "1"}, "enabled": false})
    );
    assert_eq!(
        servers["web"],
        json!({"url": "http://127.0.0.1:9/mcp", "enabled": false})
    );
    let hooks = server.request("hooks/list", json!({})).await.unwrap();
    let hook = &hooks["data"][0]["hooks"][0];
    assert_eq!(hook["command"], "echo check");
    assert_eq!(hook["matcher"], "Bash");
    assert_eq!(hook["enabled"], false);
    assert_eq!(hook["trustStatus"], "untrusted");
    let skills = server
        .request("skills/list", json!({"cwds": [cwd]}))
        .await
        .unwrap();
    assert_eq!(skills["data"][0]["skills"][0]["name"], "tidy");

    // Importing again changes nothing and says why.
    let again = server
        .request(
            "externalAgentConfig/import",
            json!({"migrationItems": [items[0].clone(), items[3].clone()]}),
        )
        .await
        .unwrap();
    assert!(again["importId"].is_string());
    let first = server
        .notification("externalAgentConfig/import/progress")
        .await;
    assert_eq!(first["itemTypeResults"][0]["successes"], json!([]));
    assert_eq!(
        first["itemTypeResults"][0]["failures"][0]["message"],
        "already configured"
    );
    let second = server
        .notification("externalAgentConfig/import/progress")
        .await;
    assert!(
        second["itemTypeResults"][0]["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{second}"
    );
    let error = server
        .request(
            "externalAgentConfig/import",
            json!({"migrationItems": "no"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
}
