//! Skills end to end through the binary: `skills/list` over every root, the extra roots a
//! client sets (within its file roots) with `skills/changed`, `skills/config/write` in
//! `config.toml`, and the enabled skills reaching the model request.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(directory: &Path, name: &str, description: &str) -> String {
    let path = directory.join("SKILL.md");
    write(
        &path,
        &format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"),
    );
    path.to_string_lossy().into_owned()
}

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

fn entry(name: &str, description: &str, path: &str, scope: &str, enabled: bool) -> Value {
    json!({
        "name": name,
        "description": description,
        "path": path,
        "scope": scope,
        "enabled": enabled,
        "pluginId": null,
    })
}

/// The developer messages of a model request, joined.
fn developer_text(request: &Value) -> String {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["role"] == "developer")
        .flat_map(|item| item["content"].as_array().unwrap().iter())
        .filter_map(|part| part["text"].as_str())
        .collect()
}

/// Starts a thread in `cwd`, runs one turn and returns the model request.
async fn first_request(server: &mut TestServer, model: &MockModel, cwd: &str) -> Value {
    let started = server
        .request("thread/start", json!({"cwd": cwd}))
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    model.push(MockResponse::sse(responses_text("msg_1", &["done"])));
    let before = model.requests().len();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    model.requests()[before].clone()
}

struct Layout {
    home: tempfile::TempDir,
    work: tempfile::TempDir,
    repo: PathBuf,
    user: String,
    agents: String,
    codex: String,
    extra: String,
}

fn layout() -> Layout {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("crates/app")).unwrap();
    let user = skill(&home.path().join("skills/notes"), "notes", "Keeps notes.");
    let agents = skill(
        &repo.join(".agents/skills/deploy"),
        "deploy",
        "Deploys the app.",
    );
    let codex = skill(
        &repo.join("crates/app/.codex/skills/bench"),
        "bench",
        "Runs the benchmarks.",
    );
    let extra = skill(
        &work.path().join("shared/skills/nested/review"),
        "review",
        "Reviews a change.",
    );
    write(
        &repo.join(".agents/skills/broken/SKILL.md"),
        "---\nname: broken\n---\nno description\n",
    );
    Layout {
        home,
        work,
        repo,
        user,
        agents,
        codex,
        extra,
    }
}

#[tokio::test]
async fn skills_from_every_root_are_listed_and_the_enabled_ones_reach_the_model() {
    let layout = layout();
    let model = MockModel::start().await;
    let mut server = spawn(
        layout.home.path(),
        layout.work.path(),
        &mock_config(&model.base_url()),
    )
    .await;
    let cwd = layout
        .repo
        .join("crates/app")
        .to_string_lossy()
        .into_owned();
    let broken = layout
        .repo
        .join(".agents/skills/broken/SKILL.md")
        .to_string_lossy()
        .into_owned();

    let listed = server
        .request("skills/list", json!({"cwds": [cwd]}))
        .await
        .unwrap();
    assert_eq!(
        listed,
        json!({"data": [{
            "cwd": cwd,
            "skills": [
                entry("bench", "Runs the benchmarks.", &layout.codex, "repo", true),
                entry("deploy", "Deploys the app.", &layout.agents, "repo", true),
                entry("notes", "Keeps notes.", &layout.user, "user", true),
            ],
            "errors": [{"path": broken, "message": "missing field `description`"}],
        }]})
    );

    // An extra root within the connection's file roots (the server's working directory).
    let shared = layout
        .work
        .path()
        .join("shared")
        .to_string_lossy()
        .into_owned();
    let set = server
        .request("skills/extraRoots/set", json!({"extraRoots": [shared]}))
        .await
        .unwrap();
    assert_eq!(set, json!({}));
    assert_eq!(server.notification("skills/changed").await, json!({}));
    let listed = server
        .request("skills/list", json!({"cwds": [cwd]}))
        .await
        .unwrap();
    let names: Vec<&str> = listed["data"][0]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["bench", "deploy", "notes", "review"]);

    let request = first_request(&mut server, &model, &cwd).await;
    let text = developer_text(&request);
    for (name, description, path) in [
        ("bench", "Runs the benchmarks.", &layout.codex),
        ("deploy", "Deploys the app.", &layout.agents),
        ("notes", "Keeps notes.", &layout.user),
        ("review", "Reviews a change.", &layout.extra),
    ] {
        let line = format!("- {name}: {description} (file: {path})");
        assert!(text.contains(&line), "{line} missing from {text}");
    }
    assert!(text.starts_with("<skills_instructions>"), "{text}");
    assert!(!text.contains("broken"), "{text}");

    // Disabled by name: listed as disabled, and no longer told to the model.
    let written = server
        .request(
            "skills/config/write",
            json!({"name": "deploy", "enabled": false}),
        )
        .await
        .unwrap();
    assert_eq!(written, json!({"effectiveEnabled": false}));
    let config = std::fs::read_to_string(layout.home.path().join("config.toml")).unwrap();
    assert!(config.contains("deploy"), "{config}");
    let written = server
        .request(
            "skills/config/write",
            json!({"path": layout.user, "enabled": false}),
        )
        .await
        .unwrap();
    assert_eq!(written, json!({"effectiveEnabled": false}));
    let listed = server
        .request("skills/list", json!({"cwds": [cwd]}))
        .await
        .unwrap();
    let enabled: Vec<(&str, bool)> = listed["data"][0]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            (
                skill["name"].as_str().unwrap(),
                skill["enabled"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        enabled,
        [
            ("bench", true),
            ("deploy", false),
            ("notes", false),
            ("review", true)
        ]
    );
    let request = first_request(&mut server, &model, &cwd).await;
    let text = developer_text(&request);
    assert!(text.contains("- bench: "), "{text}");
    assert!(!text.contains("- deploy: "), "{text}");
    assert!(!text.contains("- notes: "), "{text}");

    // Enabled again by name: the earlier entry for the name is replaced, not shadowed.
    let written = server
        .request(
            "skills/config/write",
            json!({"name": "deploy", "enabled": true}),
        )
        .await
        .unwrap();
    assert_eq!(written, json!({"effectiveEnabled": true}));
    let config = std::fs::read_to_string(layout.home.path().join("config.toml")).unwrap();
    assert_eq!(config.matches("deploy").count(), 1, "{config}");
}

#[tokio::test]
async fn bad_skills_params_get_clear_errors_and_roots_stay_within_the_file_roots() {
    let layout = layout();
    let outside = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    // Below a `danger-full-access` ceiling the file roots bound what a client reaches.
    let config = format!(
        "{}\n[clients]\nmax_sandbox = \"workspace-write\"\n",
        mock_config(&model.base_url())
    );
    let mut server = spawn(layout.home.path(), layout.work.path(), &config).await;

    for params in [
        json!({"enabled": false}),
        json!({"name": "x", "path": "/x/SKILL.md", "enabled": false}),
    ] {
        let error = server
            .request("skills/config/write", params)
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32602, "{error}");
        assert_eq!(
            error["message"],
            "skills/config/write requires exactly one of path or name"
        );
    }
    let error = server
        .request(
            "skills/config/write",
            json!({"path": "relative/SKILL.md", "enabled": false}),
        )
        .await
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("absolute"),
        "{error}"
    );
    let error = server
        .request("skills/config/write", json!({"name": "x"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    let error = server
        .request("skills/list", json!({"cwds": "not a list"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");

    // Outside the file roots, inside TANDEM_HOME, relative, or not a directory: refused, and
    // the roots stay as they were.
    let home_skills = layout
        .home
        .path()
        .join("skills")
        .to_string_lossy()
        .into_owned();
    for root in [
        outside.path().to_string_lossy().into_owned(),
        home_skills,
        "shared".to_owned(),
        layout.extra.clone(),
    ] {
        let error = server
            .request("skills/extraRoots/set", json!({"extraRoots": [root]}))
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32600, "{root}: {error}");
    }
    let cwd = layout.repo.to_string_lossy().into_owned();
    let listed = server
        .request("skills/list", json!({"cwds": [cwd]}))
        .await
        .unwrap();
    assert!(
        !listed.to_string().contains("review"),
        "an extra root was set: {listed}"
    );
}

#[tokio::test]
async fn skill_config_writes_follow_the_operators_config_write_switch() {
    let layout = layout();
    let model = MockModel::start().await;
    let config = format!(
        "{}\n[clients]\nallow_config_writes = false\n",
        mock_config(&model.base_url())
    );
    let mut server = spawn(layout.home.path(), layout.work.path(), &config).await;
    let error = server
        .request(
            "skills/config/write",
            json!({"name": "deploy", "enabled": false}),
        )
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("allow_config_writes"),
        "{error}"
    );
    let written = std::fs::read_to_string(layout.home.path().join("config.toml")).unwrap();
    assert!(!written.contains("deploy"), "{written}");
}

#[tokio::test]
async fn changes_in_the_skill_directories_of_a_started_thread_send_skills_changed() {
    let layout = layout();
    let cwd = layout.repo.join("crates/app");
    let mut server = spawn(layout.home.path(), layout.work.path(), "").await;
    server
        .request("thread/start", json!({"cwd": cwd.to_str().unwrap()}))
        .await
        .unwrap();
    server.notification("thread/started").await;

    // A new skill in the user's directory.
    let added = skill(
        &layout.home.path().join("skills/added"),
        "added",
        "Came later.",
    );
    assert_eq!(server.notification("skills/changed").await, json!({}));
    let listed = server
        .request("skills/list", json!({"cwds": [cwd.to_str().unwrap()]}))
        .await
        .unwrap();
    let listed_added = listed["data"][0]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .any(|skill| skill["path"] == added.as_str());
    assert!(listed_added, "{listed}");

    // An edit in the repository's skills, nested below the root.
    write(
        Path::new(&layout.agents),
        "---\nname: deploy\ndescription: Deploys it differently.\n---\n",
    );
    assert_eq!(server.notification("skills/changed").await, json!({}));
}
