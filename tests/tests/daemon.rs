//! `tandem app-server daemon` and `tandem app-server proxy`: one shared server per home,
//! started once however many ask at the same time, reached by IDE processes through proxies
//! in both framings (the socket's WebSocket bytes unchanged, and plain JSONL), every proxy
//! seeing the same threads, and stopped cleanly with every thread and turn stored.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use tandem_tests::listener::WsClient;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config, tandem_binary};

/// Runs `tandem app-server daemon <command>` for `home` and returns its JSON and exit status.
async fn daemon(home: &Path, command: &str) -> (Value, bool) {
    let output = tokio::process::Command::new(tandem_binary())
        .args(["app-server", "daemon", command])
        .env("TANDEM_HOME", home)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (report, output.status.success())
}

/// Stops the home's daemon when the test ends, passed or failed, so that none is left behind.
struct StopOnDrop<'a>(&'a Path);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = std::process::Command::new(tandem_binary())
            .args(["app-server", "daemon", "stop"])
            .env("TANDEM_HOME", self.0)
            .output();
    }
}

fn alive(pid: i64) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid as i32, 0) == 0 }
}

/// A proxy in the reference's framing: the test speaks WebSocket over the proxy's stdio.
async fn raw_proxy(home: &Path) -> (tokio::process::Child, WsClient) {
    let mut child = tokio::process::Command::new(tandem_binary())
        .args(["app-server", "proxy"])
        .env("TANDEM_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdio = tokio::io::join(child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let client = WsClient::handshake(Box::new(stdio), "ws://localhost/", &[])
        .await
        .unwrap();
    (child, client)
}

async fn jsonl_proxy(home: &Path, config: &str) -> TestServer {
    TestServer::spawn_with(SpawnOptions {
        config_toml: config.to_string(),
        args: vec!["proxy".into(), "--jsonl".into()],
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await
}

#[tokio::test]
async fn concurrent_starts_make_one_daemon_and_stop_ends_it() {
    let model = MockModel::start().await;
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        mock_config(&model.base_url()),
    )
    .unwrap();
    let _stop = StopOnDrop(home.path());
    let starts = futures::future::join_all((0..6).map(|_| daemon(home.path(), "start"))).await;
    let mut pids: Vec<i64> = starts
        .iter()
        .map(|(report, ok)| {
            assert!(ok, "{report}");
            report["pid"].as_i64().unwrap()
        })
        .collect();
    let started = starts
        .iter()
        .filter(|(report, _)| report["status"] == "started")
        .count();
    assert_eq!(started, 1, "{starts:?}");
    pids.dedup();
    assert_eq!(
        pids.len(),
        1,
        "every start names the one daemon: {starts:?}"
    );
    let pid = pids[0];
    assert!(alive(pid));

    let (version, ok) = daemon(home.path(), "version").await;
    assert!(ok);
    assert_eq!(version["status"], "running");
    assert_eq!(version["pid"], json!(pid));
    assert_eq!(version["cliVersion"], version["appServerVersion"]);
    let socket = home
        .path()
        .join("app-server-control/app-server-control.sock");
    assert_eq!(version["socketPath"], json!(socket.to_str().unwrap()));

    let (stopped, ok) = daemon(home.path(), "stop").await;
    assert!(ok);
    assert_eq!(stopped["status"], "stopped");
    assert!(!alive(pid) || is_zombie(pid));
    assert!(!socket.exists());
    let (again, _) = daemon(home.path(), "stop").await;
    assert_eq!(again["status"], "notRunning");
    let (_, ok) = daemon(home.path(), "version").await;
    assert!(!ok, "version fails without a daemon");
}

/// Whether `pid` is a zombie (exited, not reaped by its parent yet).
fn is_zombie(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.split(") ")
                .nth(1)
                .is_some_and(|rest| rest.starts_with('Z'))
        })
        .unwrap_or(true)
}

#[tokio::test]
async fn six_proxies_in_both_framings_share_the_daemon_and_its_threads() {
    let model = MockModel::start().await;
    for index in 0..6 {
        model.push(MockResponse::sse(responses_text(
            &format!("msg_{index}"),
            &["hello ", "from ", "the daemon"],
        )));
    }
    let home = tempfile::tempdir().unwrap();
    let config = mock_config(&model.base_url());
    std::fs::write(home.path().join("config.toml"), &config).unwrap();
    let _stop = StopOnDrop(home.path());
    let (started, ok) = daemon(home.path(), "start").await;
    assert!(ok, "{started}");

    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_str().unwrap().to_string();
    // Every window starts its turn at the same moment, as in `concurrent_homes.rs`.
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(6));
    let jsonl = (0..3).map(|_| {
        let home = home.path().to_path_buf();
        let config = config.clone();
        let cwd = cwd.clone();
        let barrier = barrier.clone();
        async move {
            let mut proxy = jsonl_proxy(&home, &config).await;
            proxy.initialize().await;
            let thread = proxy
                .request("thread/start", json!({"cwd": cwd}))
                .await
                .unwrap();
            let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
            barrier.wait().await;
            proxy
                .request(
                    "turn/start",
                    json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
                )
                .await
                .unwrap();
            let messages = proxy.until_turn_completed().await;
            (
                thread_id,
                messages,
                Box::new(proxy) as Box<dyn std::any::Any + Send>,
            )
        }
    });
    let raw = (0..3).map(|_| {
        let home = home.path().to_path_buf();
        let cwd = cwd.clone();
        let barrier = barrier.clone();
        async move {
            let (child, mut client) = raw_proxy(&home).await;
            client.initialize().await;
            let thread = client
                .request("thread/start", json!({"cwd": cwd}))
                .await
                .unwrap();
            let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
            barrier.wait().await;
            client
                .request(
                    "turn/start",
                    json!({"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}),
                )
                .await
                .unwrap();
            let messages = client.until_turn_completed().await;
            (
                thread_id,
                messages,
                Box::new((child, client)) as Box<dyn std::any::Any + Send>,
            )
        }
    });
    let (jsonl, raw) = tokio::join!(
        futures::future::join_all(jsonl),
        futures::future::join_all(raw)
    );
    let mut threads = Vec::new();
    let mut windows = Vec::new();
    for (thread_id, messages, window) in jsonl.into_iter().chain(raw) {
        windows.push(window);
        let completed = messages.last().unwrap();
        assert_eq!(completed["params"]["turn"]["status"], "completed");
        let text: String = messages
            .iter()
            .filter(|message| message["method"] == "item/agentMessage/delta")
            .map(|message| message["params"]["delta"].as_str().unwrap())
            .collect();
        assert_eq!(text, "hello from the daemon");
        threads.push(thread_id);
    }

    // A later window sees every thread the others opened, live in the one server.
    let mut window = jsonl_proxy(home.path(), &config).await;
    window.initialize().await;
    let loaded = window
        .request("thread/loaded/list", json!({}))
        .await
        .unwrap();
    let mut listed: Vec<String> = loaded["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_string())
        .collect();
    listed.sort();
    threads.sort();
    assert_eq!(listed, threads);
    drop(window);

    drop(windows);
    let (stopped, ok) = daemon(home.path(), "stop").await;
    assert!(ok);
    assert_eq!(stopped["status"], "stopped");

    // Nothing was lost: a fresh process on the home lists exactly those threads, each stored
    // with its one completed turn.
    let mut fresh = TestServer::spawn_with(SpawnOptions {
        config_toml: config.clone(),
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    fresh.initialize().await;
    let list = fresh
        .request("thread/list", json!({"limit": 100}))
        .await
        .unwrap();
    let mut stored: Vec<String> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| thread["id"].as_str().unwrap().to_string())
        .collect();
    stored.sort();
    assert_eq!(stored, threads);
    for thread_id in &threads {
        let read = fresh
            .request(
                "thread/read",
                json!({"threadId": thread_id, "includeTurns": true}),
            )
            .await
            .unwrap();
        let statuses: Vec<&Value> = read["thread"]["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|turn| &turn["status"])
            .collect();
        assert_eq!(statuses, [&json!("completed")], "{thread_id}: {read}");
    }
    assert_eq!(fresh.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_proxy_without_a_daemon_says_how_to_start_one() {
    let home = tempfile::tempdir().unwrap();
    let output = tokio::process::Command::new(tandem_binary())
        .args(["app-server", "proxy", "--jsonl"])
        .env("TANDEM_HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("tandem app-server daemon start"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_jsonl_proxys_config_flags_reach_the_threads_it_starts() {
    let model = MockModel::start().await;
    let home = tempfile::tempdir().unwrap();
    let config = mock_config(&model.base_url());
    std::fs::write(home.path().join("config.toml"), &config).unwrap();
    let _stop = StopOnDrop(home.path());
    let (started, ok) = daemon(home.path(), "start").await;
    assert!(ok, "{started}");
    let mut proxy = TestServer::spawn_with(SpawnOptions {
        config_toml: config.clone(),
        args: vec![
            "-c".into(),
            "model=\"proxy-model\"".into(),
            "proxy".into(),
            "--jsonl".into(),
        ],
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    proxy.initialize().await;
    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_str().unwrap();
    let started = proxy
        .request("thread/start", json!({"cwd": cwd}))
        .await
        .unwrap();
    assert_eq!(started["model"], "proxy-model");
    // The client's own choice wins over the proxy's flag.
    let started = proxy
        .request(
            "thread/start",
            json!({"cwd": cwd, "config": {"model": "client-model"}}),
        )
        .await
        .unwrap();
    assert_eq!(started["model"], "client-model");
}

#[tokio::test]
async fn a_pid_file_naming_another_process_neither_counts_nor_gets_it_signalled() {
    let home = tempfile::tempdir().unwrap();
    let mut bystander = tokio::process::Command::new("sleep")
        .arg("30")
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = bystander.id().unwrap();
    let dir = home.path().join("app-server-daemon");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("daemon.pid"),
        json!({"pid": pid, "version": "0.1.0"}).to_string(),
    )
    .unwrap();
    let (stopped, ok) = daemon(home.path(), "stop").await;
    assert!(ok);
    assert_eq!(stopped["status"], "notRunning");
    assert!(
        alive(i64::from(pid)),
        "the unrelated process was not signalled"
    );
    let (_, ok) = daemon(home.path(), "version").await;
    assert!(!ok);
    bystander.kill().await.unwrap();
}
