//! `fs/*` through the real binary: each method's success and bad-params cases in the
//! reference's shapes, the confinement to the connection's file roots under the operator's
//! ceiling (the server's working directory, loaded threads' working directories,
//! `clients.fs_roots`; never `$TANDEM_HOME`), and `fs/watch` with `fs/changed`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::MockModel;
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

/// A server whose working directory is `cwd`, with `extra` appended to the mock config.
async fn server_in(cwd: &Path, model: &MockModel, extra: &str) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: format!("{}\n{extra}", mock_config(&model.base_url())),
        args: Vec::new(),
        home: None,
        cwd: Some(cwd.to_path_buf()),
    })
    .await;
    server.initialize().await;
    server
}

fn text(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// The canonical form of `path` (temporary directories may sit behind a symbolic link).
fn real(path: &Path) -> String {
    text(&std::fs::canonicalize(path).unwrap())
}

#[tokio::test]
async fn each_method_works_in_the_reference_shapes() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    let dir = project.path();
    std::fs::write(dir.join("a.txt"), "hello").unwrap();
    std::fs::write(dir.join("b.bin"), [0u8, 1, 255]).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/inner.txt"), "x").unwrap();
    std::os::unix::fs::symlink("a.txt", dir.join("link")).unwrap();
    let mut server = server_in(dir, &model, "").await;

    let read = server
        .request("fs/readFile", json!({"path": text(&dir.join("a.txt"))}))
        .await;
    assert_eq!(read, Ok(json!({"dataBase64": "aGVsbG8="})));
    let binary = server
        .request("fs/readFile", json!({"path": text(&dir.join("b.bin"))}))
        .await;
    assert_eq!(binary, Ok(json!({"dataBase64": "AAH/"})));

    let written = server
        .request(
            "fs/writeFile",
            json!({"path": text(&dir.join("new.txt")), "dataBase64": "aGk="}),
        )
        .await;
    assert_eq!(written, Ok(json!({})));
    assert_eq!(std::fs::read_to_string(dir.join("new.txt")).unwrap(), "hi");

    let created = server
        .request(
            "fs/createDirectory",
            json!({"path": text(&dir.join("n1/n2"))}),
        )
        .await;
    assert_eq!(created, Ok(json!({})));
    assert!(dir.join("n1/n2").is_dir());
    let not_recursive = server
        .request(
            "fs/createDirectory",
            json!({"path": text(&dir.join("m1/m2")), "recursive": false}),
        )
        .await
        .unwrap_err();
    assert_eq!(not_recursive["code"], -32603, "{not_recursive}");

    let metadata = server
        .request("fs/getMetadata", json!({"path": text(&dir.join("link"))}))
        .await
        .unwrap();
    assert_eq!(metadata["isSymlink"], true);
    assert_eq!(metadata["isFile"], true);
    assert_eq!(metadata["isDirectory"], false);
    assert!(metadata["modifiedAtMs"].as_i64().unwrap() > 0, "{metadata}");
    assert!(metadata["createdAtMs"].is_i64(), "{metadata}");

    let listing = server
        .request("fs/readDirectory", json!({"path": text(dir)}))
        .await
        .unwrap();
    let mut entries: Vec<Value> = listing["entries"].as_array().unwrap().clone();
    entries.sort_by_key(|entry| entry["fileName"].as_str().unwrap().to_string());
    let names: Vec<&str> = entries
        .iter()
        .map(|entry| entry["fileName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a.txt", "b.bin", "link", "n1", "new.txt", "sub"]);
    assert_eq!(
        entries[2],
        json!({"fileName": "link", "isDirectory": false, "isFile": true})
    );
    assert_eq!(
        entries[5],
        json!({"fileName": "sub", "isDirectory": true, "isFile": false})
    );

    let copy_dir =
        json!({"sourcePath": text(&dir.join("sub")), "destinationPath": text(&dir.join("sub2"))});
    let error = server
        .request("fs/copy", copy_dir.clone())
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "fs/copy requires recursive: true when sourcePath is a directory"})
    );
    let mut recursive = copy_dir;
    recursive["recursive"] = json!(true);
    assert_eq!(server.request("fs/copy", recursive).await, Ok(json!({})));
    assert_eq!(
        std::fs::read_to_string(dir.join("sub2/inner.txt")).unwrap(),
        "x"
    );

    // `force` (default true) makes a missing path a success; `recursive` (default true).
    let missing = text(&dir.join("nope"));
    assert_eq!(
        server.request("fs/remove", json!({"path": missing})).await,
        Ok(json!({}))
    );
    let error = server
        .request("fs/remove", json!({"path": missing, "force": false}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32603, "{error}");
    assert_eq!(
        server
            .request("fs/remove", json!({"path": text(&dir.join("sub2"))}))
            .await,
        Ok(json!({}))
    );
    assert!(!dir.join("sub2").exists());
    // Removing a link removes the link, not what it leads to.
    assert_eq!(
        server
            .request("fs/remove", json!({"path": text(&dir.join("link"))}))
            .await,
        Ok(json!({}))
    );
    assert!(dir.join("a.txt").exists());
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn bad_params_get_clear_errors() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    let dir = project.path();
    let mut server = server_in(dir, &model, "").await;
    let relative = server
        .request("fs/readFile", json!({"path": "a.txt"}))
        .await
        .unwrap_err();
    assert_eq!(
        relative,
        json!({"code": -32600, "message": "path `a.txt` is not absolute"})
    );
    let missing_field = server.request("fs/readFile", json!({})).await.unwrap_err();
    assert_eq!(missing_field["code"], -32600);
    assert!(
        missing_field["message"]
            .as_str()
            .unwrap()
            .contains("missing field `path`"),
        "{missing_field}"
    );
    let directory = server
        .request("fs/readFile", json!({"path": text(dir)}))
        .await
        .unwrap_err();
    assert_eq!(
        directory,
        json!({"code": -32600, "message": format!("path `{}` is not a file", text(dir))})
    );
    let absent = server
        .request("fs/readFile", json!({"path": text(&dir.join("nope"))}))
        .await
        .unwrap_err();
    assert_eq!(
        absent,
        json!({"code": -32603, "message": "No such file or directory (os error 2)"})
    );
    let base64 = server
        .request(
            "fs/writeFile",
            json!({"path": text(&dir.join("x")), "dataBase64": "!!!"}),
        )
        .await
        .unwrap_err();
    assert_eq!(base64["code"], -32600);
    assert!(
        base64["message"]
            .as_str()
            .unwrap()
            .starts_with("fs/writeFile requires valid base64 dataBase64"),
        "{base64}"
    );
    let not_a_directory = server
        .request("fs/readDirectory", json!({"path": text(&dir.join("nope"))}))
        .await
        .unwrap_err();
    assert_eq!(not_a_directory["code"], -32603);
    // A FIFO is no regular file: reading it would block forever.
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let error = server
        .request("fs/readFile", json!({"path": text(&fifo)}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn the_home_is_never_reachable_even_for_the_local_user() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    let mut server = server_in(project.path(), &model, "").await;
    let home = server.home.clone();
    std::fs::write(home.join("auth.json"), r#"{"OPENAI_API_KEY": "sk-secret"}"#).unwrap();
    for (method, params) in [
        (
            "fs/readFile",
            json!({"path": text(&home.join("auth.json"))}),
        ),
        ("fs/readDirectory", json!({"path": text(&home)})),
        (
            "fs/writeFile",
            json!({"path": text(&home.join("config.toml")), "dataBase64": ""}),
        ),
        ("fs/remove", json!({"path": text(home.parent().unwrap())})),
        (
            "fs/copy",
            json!({"sourcePath": text(&home), "destinationPath": text(&project.path().join("stolen")), "recursive": true}),
        ),
        (
            "fs/watch",
            json!({"path": text(&home.join("auth.json")), "watchId": "w"}),
        ),
    ] {
        let error = server.request(method, params).await.unwrap_err();
        assert_eq!(error["code"], -32600, "{method}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains("$TANDEM_HOME"),
            "{method}: {error}"
        );
    }
    // Through a symbolic link inside the working directory too.
    std::os::unix::fs::symlink(&home, project.path().join("h")).unwrap();
    let error = server
        .request(
            "fs/readFile",
            json!({"path": text(&project.path().join("h/auth.json"))}),
        )
        .await
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("$TANDEM_HOME"),
        "{error}"
    );
    assert!(home.join("config.toml").exists());
    assert!(!project.path().join("stolen").exists());
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn below_full_access_paths_are_confined_to_the_file_roots() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let listed = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("secret"), "s").unwrap();
    std::fs::write(listed.path().join("shared"), "ok").unwrap();
    std::fs::write(workspace.path().join("w.txt"), "w").unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), project.path().join("escape")).unwrap();
    let clients = format!(
        "[clients]\nmax_sandbox = \"workspace-write\"\nfs_roots = [\"{}\"]\n",
        text(listed.path())
    );
    let mut server = server_in(project.path(), &model, &clients).await;

    // The working directory and `fs_roots` are roots.
    let inside = text(&project.path().join("in.txt"));
    assert_eq!(
        server
            .request(
                "fs/writeFile",
                json!({"path": inside, "dataBase64": "aGk="})
            )
            .await,
        Ok(json!({}))
    );
    assert_eq!(
        server
            .request(
                "fs/readFile",
                json!({"path": text(&listed.path().join("shared"))})
            )
            .await,
        Ok(json!({"dataBase64": "b2s="}))
    );
    // Anywhere else is not, however it is reached.
    let outside_write =
        json!({"path": text(&elsewhere.path().join("planted")), "dataBase64": "aGk="});
    let outside_read = json!({"path": text(&elsewhere.path().join("secret"))});
    let via_link = json!({"path": text(&project.path().join("escape/secret"))});
    let dotted = json!({"path": format!("{}/../{}/secret", text(project.path()), elsewhere.path().file_name().unwrap().to_str().unwrap())});
    for (method, params) in [
        ("fs/writeFile", outside_write),
        ("fs/readFile", outside_read),
        ("fs/readFile", via_link),
        ("fs/readFile", dotted),
    ] {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(error["code"], -32600, "{params}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("outside this connection's file roots"),
            "{params}: {error}"
        );
    }
    assert!(!elsewhere.path().join("planted").exists());

    // A loaded thread's working directory joins the roots.
    let workspace_file = json!({"path": text(&workspace.path().join("w.txt"))});
    let before = server
        .request("fs/readFile", workspace_file.clone())
        .await
        .unwrap_err();
    assert_eq!(before["code"], -32600);
    server
        .request("thread/start", json!({"cwd": text(workspace.path())}))
        .await
        .unwrap();
    assert_eq!(
        server.request("fs/readFile", workspace_file).await,
        Ok(json!({"dataBase64": "dw=="}))
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_read_only_ceiling_writes_nothing() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("keep.txt"), "k").unwrap();
    let mut server = server_in(
        project.path(),
        &model,
        "[clients]\nmax_sandbox = \"read-only\"\n",
    )
    .await;
    let keep = text(&project.path().join("keep.txt"));
    assert_eq!(
        server.request("fs/readFile", json!({"path": keep})).await,
        Ok(json!({"dataBase64": "aw=="}))
    );
    for (method, params) in [
        ("fs/writeFile", json!({"path": keep, "dataBase64": ""})),
        ("fs/remove", json!({"path": keep})),
        (
            "fs/createDirectory",
            json!({"path": text(&project.path().join("d"))}),
        ),
        (
            "fs/copy",
            json!({"sourcePath": keep, "destinationPath": text(&project.path().join("c"))}),
        ),
    ] {
        let error = server.request(method, params).await.unwrap_err();
        assert_eq!(error["code"], -32600, "{method}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains("read-only"),
            "{method}: {error}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(project.path().join("keep.txt")).unwrap(),
        "k"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_watch_reports_changes_until_it_is_removed() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    let dir = project.path();
    std::fs::write(dir.join("a.txt"), "a").unwrap();
    let mut server = server_in(dir, &model, "").await;
    let watched = server
        .request("fs/watch", json!({"path": text(dir), "watchId": "dir"}))
        .await;
    assert_eq!(watched, Ok(json!({"path": real(dir)})));
    let duplicate = server
        .request("fs/watch", json!({"path": text(dir), "watchId": "dir"}))
        .await
        .unwrap_err();
    assert_eq!(
        duplicate,
        json!({"code": -32600, "message": "watchId already exists: dir"})
    );
    server
        .request(
            "fs/watch",
            json!({"path": text(&dir.join("a.txt")), "watchId": "file"}),
        )
        .await
        .unwrap();

    // A change made by another process is seen.
    std::fs::write(dir.join("b.txt"), "b").unwrap();
    let changed = server.notification("fs/changed").await;
    assert_eq!(changed["watchId"], "dir", "{changed}");
    assert_eq!(
        changed["changedPaths"],
        json!([format!("{}/b.txt", real(dir))])
    );

    // A file watch sees its file, and the directory's watch sees it too (a burst may be split
    // over several notifications: every one names only a.txt).
    std::fs::write(dir.join("a.txt"), "again").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 2 {
        let changed = server.notification("fs/changed").await;
        seen.insert(changed["watchId"].as_str().unwrap().to_string());
        assert_eq!(
            changed["changedPaths"],
            json!([format!("{}/a.txt", real(dir))]),
            "{changed}"
        );
    }

    assert_eq!(
        server
            .request("fs/unwatch", json!({"watchId": "dir"}))
            .await,
        Ok(json!({}))
    );
    assert_eq!(
        server
            .request("fs/unwatch", json!({"watchId": "unknown"}))
            .await,
        Ok(json!({}))
    );
    // After the unwatch only the file's watch reports: c.txt, written first, is never
    // reported before the file's change arrives.
    std::fs::write(dir.join("c.txt"), "c").unwrap();
    std::fs::write(dir.join("a.txt"), "third").unwrap();
    loop {
        let changed = server.notification("fs/changed").await;
        let paths = changed["changedPaths"].to_string();
        assert!(!paths.contains("c.txt"), "{changed}");
        if changed["watchId"] == "file" {
            break;
        }
    }
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn fuzzy_search_sessions_send_each_query_s_matches() {
    let model = MockModel::start().await;
    let project = tempfile::tempdir().unwrap();
    let dir = project.path();
    for file in ["hello.txt", "help.md", "src/main.rs"] {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    let mut plain = server_in(dir, &model, "").await;
    let error = plain
        .request(
            "fuzzyFileSearch/sessionStart",
            json!({"sessionId": "s", "roots": [text(dir)]}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "fuzzyFileSearch/sessionStart requires experimentalApi capability"})
    );
    assert_eq!(plain.shutdown().await, Some(0));

    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: format!(
            "{}\n[clients]\nmax_sandbox = \"workspace-write\"\n",
            mock_config(&model.base_url())
        ),
        args: Vec::new(),
        home: None,
        cwd: Some(dir.to_path_buf()),
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let root = text(dir);
    assert_eq!(
        server
            .request(
                "fuzzyFileSearch/sessionStart",
                json!({"sessionId": "s1", "roots": [root]}),
            )
            .await,
        Ok(json!({}))
    );
    let ready = server.notification("fuzzyFileSearch/sessionUpdated").await;
    assert_eq!(ready, json!({"sessionId": "s1", "query": "", "files": []}));

    assert_eq!(
        server
            .request(
                "fuzzyFileSearch/sessionUpdate",
                json!({"sessionId": "s1", "query": "hel"}),
            )
            .await,
        Ok(json!({}))
    );
    let updated = server.notification("fuzzyFileSearch/sessionUpdated").await;
    assert_eq!(updated["query"], "hel");
    let mut paths: Vec<&str> = updated["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["hello.txt", "help.md"]);
    assert_eq!(updated["files"][0]["root"], root);

    // Bad params, each with the reference's code.
    let unknown = server
        .request(
            "fuzzyFileSearch/sessionUpdate",
            json!({"sessionId": "nope", "query": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        unknown,
        json!({"code": -32600, "message": "fuzzy file search session not found: nope"})
    );
    let no_roots = server
        .request(
            "fuzzyFileSearch/sessionStart",
            json!({"sessionId": "s2", "roots": []}),
        )
        .await
        .unwrap_err();
    assert_eq!(no_roots["code"], -32603, "{no_roots}");
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = server
        .request(
            "fuzzyFileSearch/sessionStart",
            json!({"sessionId": "s3", "roots": [text(elsewhere.path())]}),
        )
        .await
        .unwrap_err();
    assert_eq!(outside["code"], -32600, "{outside}");
    assert!(
        outside["message"]
            .as_str()
            .unwrap()
            .contains("outside this connection's file roots"),
        "{outside}"
    );

    // Stop is idempotent, and a stopped session is gone.
    for _ in 0..2 {
        assert_eq!(
            server
                .request("fuzzyFileSearch/sessionStop", json!({"sessionId": "s1"}))
                .await,
            Ok(json!({}))
        );
    }
    let gone = server
        .request(
            "fuzzyFileSearch/sessionUpdate",
            json!({"sessionId": "s1", "query": "main"}),
        )
        .await
        .unwrap_err();
    assert_eq!(gone["code"], -32600);
    assert_eq!(server.shutdown().await, Some(0));
}
