//! The project index end to end: `query_project` and `repo_index_refresh` on `tandem
//! mcp-server` over stdio (exact shapes, incremental refresh, ignore rules, globs, progress,
//! concurrent refreshes, bad input), every `embedding_status` branch (a mock embeddings
//! endpoint over real HTTP for the remote providers, and the real all-MiniLM-L6-v2 model), and
//! `tandem index install-model`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::index_tools::{call_error, call_payload, paths, payload, query_paths};
use tandem_tests::mcp::McpStdio;
use tandem_tests::mock_embeddings::MockEmbeddings;
use tandem_tests::server::tandem_binary;

const LEXICAL: &str = "[query_project_index]\nauto_warm = false\nembedding_model = \"none\"\n";

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A small repository: Rust sources, docs, an ignored file and a binary.
fn sample_repo() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    write(root, ".gitignore", "target/\n");
    write(root, ".ignore", "secret.txt\n");
    write(
        root,
        "src/auth/middleware.rs",
        "//! Authentication.\n\npub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with(\"Bearer \")\n}\n",
    );
    write(
        root,
        "src/storage.rs",
        "pub struct BlobStore {\n    root: String,\n}\n\nimpl BlobStore {\n    pub fn put_object(&self, key: &str) {}\n}\n",
    );
    write(
        root,
        "docs/guide.md",
        "# Guide\n\nThe storage layer keeps blobs on disk.\n",
    );
    write(
        root,
        "target/debug/generated.rs",
        "pub fn check_bearer_token_generated() {}\n",
    );
    write(root, "secret.txt", "check_bearer_token secret\n");
    std::fs::write(root.join("image.bin"), [0u8, 1, 2, 3, 0, 0]).unwrap();
    repo
}

/// A server with `config` that may index `repo`: the server runs in its own home, so `repo`
/// lies outside its working directory and is listed in `query_project_index.roots` (through
/// `-c`, as an operator would).
async fn server(config: &str, repo: &tempfile::TempDir) -> McpStdio {
    let roots = format!("query_project_index.roots=[{:?}]", root(repo));
    let mut server = McpStdio::spawn(config, &["-c", &roots]).await;
    server.initialize("2025-06-18", json!({})).await;
    server
}

fn root(repo: &tempfile::TempDir) -> String {
    repo.path().canonicalize().unwrap().display().to_string()
}

#[tokio::test]
async fn tools_are_listed_with_schemas() {
    let mut server = McpStdio::spawn(LEXICAL, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let list = server.request(json!(1), "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"query_project") && names.contains(&"repo_index_refresh"),
        "{names:?}"
    );
}

#[tokio::test]
async fn queries_refresh_incrementally_and_honour_ignore_rules_and_globs() {
    let repo = sample_repo();
    let mut server = server(LEXICAL, &repo).await;
    let first = call_payload(
        &mut server,
        1,
        "query_project",
        json!({"query": "bearer token", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(first["repo_root"], root(&repo));
    assert_eq!(first["query"], "bearer token");
    assert_eq!(first["limit"], 8);
    assert_eq!(
        first["embedding_status"],
        json!({"mode_used": "skip", "ready": false})
    );
    // .gitignore'd target/, .ignore'd secret.txt and the binary are not indexed.
    assert_eq!(first["refresh"]["scanned_files"], 4, "{first}");
    assert_eq!(first["refresh"]["updated_files"], 3);
    assert_eq!(first["refresh"]["skipped_files"], 1);
    assert_eq!(paths(&first)[0], "src/auth/middleware.rs");
    let top = &first["results"][0];
    assert_eq!(top["line_range"], json!({"start": 1, "end": 5}));
    assert!(
        top["snippet"]
            .as_str()
            .unwrap()
            .contains("pub fn check_bearer_token")
    );
    assert!(top["score"].as_f64().unwrap() > 0.0);
    assert!(
        !paths(&first)
            .iter()
            .any(|path| path.contains("target") || path.contains("secret"))
    );
    // The index directory is excluded from git.
    let exclude = std::fs::read_to_string(repo.path().join(".git/info/exclude")).unwrap();
    assert!(exclude.contains("/.tandem/repo_hybrid_index/"));

    // No change: nothing re-indexed.
    let again = call_payload(
        &mut server,
        2,
        "query_project",
        json!({"query": "bearer", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(again["refresh"]["updated_files"], 0);
    assert_eq!(again["refresh"]["removed_files"], 0);

    // Add, change, delete, rename.
    write(repo.path(), "src/queue.rs", "pub fn enqueue_job() {}\n");
    write(repo.path(), "src/storage.rs", "pub struct ObjectVault {}\n");
    std::fs::remove_file(repo.path().join("docs/guide.md")).unwrap();
    std::fs::rename(
        repo.path().join("src/auth/middleware.rs"),
        repo.path().join("src/auth/guard.rs"),
    )
    .unwrap();
    let changed = call_payload(
        &mut server,
        3,
        "query_project",
        json!({"query": "check_bearer_token", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(changed["refresh"]["updated_files"], 3, "{changed}");
    assert_eq!(changed["refresh"]["removed_files"], 2);
    assert_eq!(paths(&changed), vec!["src/auth/guard.rs"]);
    let vault = call_payload(
        &mut server,
        4,
        "query_project",
        json!({"query": "ObjectVault", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(paths(&vault), vec!["src/storage.rs"]);
    assert_eq!(
        query_paths(
            &mut server,
            5,
            json!({"query": "BlobStore blobs", "repo_root": root(&repo)})
        )
        .await,
        Vec::<String>::new()
    );
    // camelCase parts are searchable.
    assert_eq!(
        query_paths(
            &mut server,
            6,
            json!({"query": "vault", "repo_root": root(&repo)})
        )
        .await,
        vec!["src/storage.rs"]
    );

    // Globs filter results.
    assert_eq!(
        query_paths(
            &mut server,
            7,
            json!({"query": "pub fn", "repo_root": root(&repo), "file_globs": ["src/auth/**"]})
        )
        .await,
        vec!["src/auth/guard.rs"]
    );

    // force_full rebuilds everything.
    let full = call_payload(
        &mut server,
        8,
        "repo_index_refresh",
        json!({"repo_root": root(&repo), "force_full": true}),
    )
    .await;
    assert_eq!(full["stats"]["updated_files"], 3, "{full}");
    assert_eq!(full["repo_root"], root(&repo));
    assert_eq!(
        full["embedding_status"],
        json!({"mode_used": "skip", "ready": false})
    );
}

#[tokio::test]
async fn bad_input_gets_is_error_results() {
    let repo = sample_repo();
    let mut server = server(LEXICAL, &repo).await;
    let file = repo.path().join("src/storage.rs").display().to_string();
    let cases = [
        (
            "query_project",
            json!({"query": "  ", "repo_root": root(&repo)}),
            vec!["query must not be empty"],
        ),
        (
            "query_project",
            json!({"query": "x", "alpha": 1.5, "repo_root": root(&repo)}),
            vec!["alpha must be between 0.0 and 1.0"],
        ),
        (
            "query_project",
            json!({"query": "x", "repo_root": format!("{}/no/such/repo", root(&repo))}),
            vec!["/no/such/repo", "does not exist"],
        ),
        (
            "query_project",
            json!({"query": "x", "repo_root": "/no/such/repo"}),
            vec!["/no/such/repo", "is outside", "[query_project_index] roots"],
        ),
        (
            "repo_index_refresh",
            json!({"repo_root": file}),
            vec!["is not a directory"],
        ),
        (
            "query_project",
            json!({"query": "x", "limt": 3}),
            vec!["unknown field `limt`"],
        ),
        (
            "query_project",
            json!({"query": "x", "file_globs": ["src/[a"], "repo_root": root(&repo)}),
            vec!["invalid file glob `src/[a`"],
        ),
    ];
    for (id, (tool, arguments, expected)) in (100..).zip(cases) {
        let message = call_error(&mut server, id, tool, arguments).await;
        assert!(
            expected.iter().all(|part| message.contains(part)),
            "{expected:?} in {message}"
        );
    }
    let clamped_low = call_payload(
        &mut server,
        7,
        "query_project",
        json!({"query": "pub", "limit": 0, "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(clamped_low["limit"], 1);
    assert_eq!(clamped_low["results"].as_array().unwrap().len(), 1);
    let clamped_high = call_payload(
        &mut server,
        8,
        "query_project",
        json!({"query": "pub", "limit": 5000, "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(clamped_high["limit"], 200);
    // The server is still there.
    let ping = server.request(json!(9), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}));
}

#[tokio::test]
async fn refresh_sends_progress_and_concurrent_refreshes_do_the_work_once() {
    let repo = sample_repo();
    for index in 0..40 {
        write(
            repo.path(),
            &format!("src/gen/file{index}.rs"),
            &format!("pub fn generated_{index}() {{}}\n"),
        );
    }
    let mut server = server(LEXICAL, &repo).await;
    for id in [1, 2] {
        server
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "repo_index_refresh", "arguments": {"repo_root": root(&repo)}, "_meta": {"progressToken": format!("t{id}")}}}))
            .await;
    }
    let first = payload(&server.response(&json!(1)).await["result"]);
    let second = payload(&server.response(&json!(2)).await["result"]);
    let updated = first["stats"]["updated_files"].as_u64().unwrap()
        + second["stats"]["updated_files"].as_u64().unwrap();
    assert_eq!(
        updated, 43,
        "one refresh indexes everything, the other waits and finds nothing new"
    );
    // Either call may take the repository's refresh lock first; the progress that matters is
    // the one of the call that did the work.
    let worker = if first["stats"]["updated_files"] == 43 {
        "t1"
    } else {
        "t2"
    };
    let progress: Vec<&Value> = server
        .log
        .iter()
        .filter(|message| {
            message["method"] == "notifications/progress"
                && message["params"]["progressToken"] == worker
        })
        .collect();
    assert!(!progress.is_empty());
    assert!(
        progress.iter().any(|message| message["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("scanned 44 files")),
        "{progress:?}"
    );
    let counters: Vec<u64> = progress
        .iter()
        .map(|message| message["params"]["progress"].as_u64().unwrap())
        .collect();
    assert!(counters.windows(2).all(|pair| pair[0] < pair[1]));
    // The walk's total is unknown; once it is done the total is the 44 scanned files plus the
    // 44 new ones to read (the binary among them is then skipped), and the last notification
    // reaches it.
    assert!(progress[0]["params"].get("total").is_none(), "{progress:?}");
    let last = &progress.last().unwrap()["params"];
    assert_eq!(
        (&last["progress"], &last["total"]),
        (&json!(88), &json!(88))
    );
}

#[tokio::test]
async fn missing_api_key_and_missing_model_fall_back_to_lexical_or_fail_when_required() {
    let repo = sample_repo();
    let mut server = server(
        "[query_project_index]\nauto_warm = false\nembedding_model = \"text-embedding-3-small\"\n",
        &repo,
    )
    .await;
    let answer = call_payload(
        &mut server,
        1,
        "query_project",
        json!({"query": "bearer", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(answer["embedding_model"], "text-embedding-3-small");
    assert_eq!(answer["embedding_status"]["mode_used"], "skip");
    assert_eq!(answer["embedding_status"]["ready"], false);
    assert_eq!(answer["embedding_status"]["reason"], "missing_api_key");
    assert_eq!(paths(&answer)[0], "src/auth/middleware.rs");
    let required = call_error(
        &mut server,
        2,
        "repo_index_refresh",
        json!({"repo_root": root(&repo), "require_embeddings": true}),
    )
    .await;
    assert!(
        required.contains("missing_api_key") && required.contains("OPENAI_API_KEY"),
        "{required}"
    );
    let voyage = call_payload(
        &mut server,
        3,
        "query_project",
        json!({"query": "bearer", "repo_root": root(&repo), "embedding_model": "voyage-3-large"}),
    )
    .await;
    assert_eq!(voyage["embedding_status"]["reason"], "missing_api_key");
    assert!(
        voyage["embedding_status"]["detail"]
            .as_str()
            .unwrap()
            .contains("VOYAGE_API_KEY")
    );

    let empty_models = tempfile::tempdir().unwrap();
    let config = format!(
        "[query_project_index]\nauto_warm = false\nmodel_dir = \"{}\"\n",
        empty_models.path().display()
    );
    let mut local = self::server(&config, &repo).await;
    let answer = call_payload(
        &mut local,
        1,
        "query_project",
        json!({"query": "bearer", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(answer["embedding_model"], "all-MiniLM-L6-v2");
    assert_eq!(answer["embedding_status"]["reason"], "model_not_installed");
    assert!(
        answer["embedding_status"]["detail"]
            .as_str()
            .unwrap()
            .contains("tandem index install-model")
    );
    let required = call_error(
        &mut local,
        2,
        "repo_index_refresh",
        json!({"repo_root": root(&repo), "require_embeddings": true}),
    )
    .await;
    assert!(
        required.contains("model_not_installed") && required.contains("config.json"),
        "{required}"
    );
}

#[tokio::test]
async fn remote_providers_embed_through_the_mock_endpoint_and_failures_keep_the_lexical_index() {
    let repo = sample_repo();
    let mock = MockEmbeddings::start().await;
    for provider in ["openai", "voyage", "openai-compatible"] {
        let config = format!(
            "[query_project_index]\nauto_warm = false\nembedding_provider = \"{provider}\"\nembedding_model = \"mock-embed\"\nembedding_base_url = \"{}\"\nembedding_api_key_env = \"TANDEM_HOME\"\nindex_dir = \".tandem/{provider}\"\n",
            mock.base_url
        );
        let mut server = server(&config, &repo).await;
        let home = server.home.path().display().to_string();
        let before = mock.requests();
        let refreshed = call_payload(
            &mut server,
            1,
            "repo_index_refresh",
            json!({"repo_root": root(&repo), "require_embeddings": true}),
        )
        .await;
        assert_eq!(
            refreshed["embedding_status"],
            json!({"mode_used": "required", "ready": true}),
            "{provider}"
        );
        assert!(refreshed["stats"]["embedded_chunks"].as_u64().unwrap() >= 3);
        assert!(mock.requests() > before);
        assert_eq!(
            mock.tokens().last().unwrap().as_deref(),
            Some(home.as_str()),
            "the key goes as a bearer token"
        );
        assert_eq!(mock.models().last().unwrap(), "mock-embed");
        let answer = call_payload(
            &mut server,
            2,
            "query_project",
            json!({"query": "storage layer blobs disk", "alpha": 1.0, "repo_root": root(&repo)}),
        )
        .await;
        assert_eq!(
            answer["embedding_status"],
            json!({"mode_used": "optional", "ready": true})
        );
        assert_eq!(paths(&answer)[0], "docs/guide.md", "{answer}");
        // Unchanged chunks are not embedded again.
        let again = call_payload(
            &mut server,
            3,
            "repo_index_refresh",
            json!({"repo_root": root(&repo)}),
        )
        .await;
        assert_eq!(again["stats"]["embedded_chunks"], 0);
    }

    let failing = MockEmbeddings::start().await;
    failing.fail_after(0);
    let config = format!(
        "[query_project_index]\nauto_warm = false\nembedding_provider = \"openai-compatible\"\nembedding_model = \"mock-embed\"\nembedding_base_url = \"{}\"\nindex_dir = \".tandem/failing\"\n",
        failing.base_url
    );
    let mut server = server(&config, &repo).await;
    let refreshed = call_payload(
        &mut server,
        1,
        "repo_index_refresh",
        json!({"repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(refreshed["embedding_status"]["ready"], false);
    assert_eq!(
        refreshed["embedding_status"]["reason"],
        "embedding_query_failed"
    );
    assert_eq!(
        refreshed["stats"]["updated_files"], 3,
        "the lexical index is complete"
    );
    let answer = call_payload(
        &mut server,
        2,
        "query_project",
        json!({"query": "check_bearer_token", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(
        answer["embedding_status"]["reason"],
        "embedding_query_failed"
    );
    assert_eq!(paths(&answer), vec!["src/auth/middleware.rs"]);
    let required = call_error(
        &mut server,
        3,
        "repo_index_refresh",
        json!({"repo_root": root(&repo), "require_embeddings": true}),
    )
    .await;
    assert!(
        required.contains("embedding_query_failed") && required.contains("500"),
        "{required}"
    );
}

/// The installed model: `$TANDEM_TEST_MODEL_DIR`, or `~/.tandem/models/all-MiniLM-L6-v2` where
/// `.ci/run` puts it with `tandem index install-model`.
fn installed_model() -> PathBuf {
    let directory = std::env::var_os("TANDEM_TEST_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME"))
                .join(".tandem/models/all-MiniLM-L6-v2")
        });
    assert!(
        directory.join("model.safetensors").is_file(),
        "the local embedding model is missing at {}: run `tandem index install-model` (or set TANDEM_TEST_MODEL_DIR)",
        directory.display()
    );
    directory
}

#[tokio::test]
async fn the_local_model_ranks_paraphrases_and_install_model_checks_its_input() {
    let model = installed_model();
    let repo = sample_repo();
    let config = format!(
        "[query_project_index]\nauto_warm = false\nmodel_dir = \"{}\"\n",
        model.display()
    );
    let mut server = server(&config, &repo).await;
    // The refresh waits for the background job; a query alone would answer before it is done.
    let refreshed = call_payload(
        &mut server,
        10,
        "repo_index_refresh",
        json!({"repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(refreshed["stats"]["embedded_chunks"], 3, "{refreshed}");
    let answer = call_payload(&mut server, 1, "query_project", json!({"query": "where are files saved on the hard drive", "alpha": 1.0, "repo_root": root(&repo)})).await;
    assert_eq!(
        answer["embedding_status"],
        json!({"mode_used": "optional", "ready": true}),
        "{answer}"
    );
    assert_eq!(paths(&answer)[0], "docs/guide.md", "{answer}");
    let hybrid = call_payload(
        &mut server,
        2,
        "query_project",
        json!({"query": "validate the authorization header", "repo_root": root(&repo)}),
    )
    .await;
    assert_eq!(paths(&hybrid)[0], "src/auth/middleware.rs", "{hybrid}");

    // install-model copies a model directory into TANDEM_HOME and verifies it loads.
    let home = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(tandem_binary())
        .args(["index", "install-model"])
        .arg(&model)
        .env("TANDEM_HOME", home.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        home.path()
            .join("models/all-MiniLM-L6-v2/model.safetensors")
            .is_file()
    );
    let bad = home.path().join("not-a-model.zip");
    std::fs::write(&bad, b"garbage").unwrap();
    for source in [bad, home.path().join("missing")] {
        let output = std::process::Command::new(tandem_binary())
            .args(["index", "install-model"])
            .arg(&source)
            .env("TANDEM_HOME", home.path())
            .output()
            .unwrap();
        assert!(!output.status.success());
        assert!(String::from_utf8_lossy(&output.stderr).contains("tandem: error:"));
    }
    // The earlier install is untouched by the failed ones.
    assert!(
        home.path()
            .join("models/all-MiniLM-L6-v2/model.safetensors")
            .is_file()
    );
}

#[tokio::test]
async fn auto_warm_indexes_the_working_directory_without_delaying_the_handshake() {
    let mut server =
        McpStdio::spawn("[query_project_index]\nembedding_model = \"none\"\n", &[]).await;
    // Auto-warm runs only in a repository's root.
    std::fs::create_dir(server.home.path().join(".git")).unwrap();
    write(
        server.home.path(),
        "notes/warm.md",
        "The warm-up indexes this zebra note.\n",
    );
    let init = server.initialize("2025-06-18", json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let answer = call_payload(&mut server, 1, "query_project", json!({"query": "zebra"})).await;
    assert_eq!(paths(&answer), vec!["notes/warm.md"]);
    assert!(
        server
            .home
            .path()
            .join(".tandem/repo_hybrid_index/index.sqlite")
            .is_file()
    );
}
