//! Queries that do not walk the tree, against the real binary: once the first refresh has
//! walked the repository, the file-system watcher tells later queries what changed, so an edit,
//! a new file and a deleted file are seen by the next query, a new file in an ignored directory
//! stays out, and none of these queries walks again (the server logs every walk with a running
//! count, which a forced full refresh then reads back).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use serde_json::{Value, json};
use tandem_tests::index_tools::{paths, payload};
use tandem_tests::logged::LoggedServer;

const LEXICAL: &str = "[query_project_index]\nauto_warm = false\nembedding_model = \"none\"\n";

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn call(server: &mut LoggedServer, id: i64, tool: &str, arguments: Value) -> Value {
    server
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}))
        .await;
    payload(&server.response(id).await["result"])
}

async fn query(server: &mut LoggedServer, id: i64, text: &str) -> Value {
    call(server, id, "query_project", json!({"query": text})).await
}

#[tokio::test]
async fn edits_are_seen_by_the_next_query_without_a_walk() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    write(root, ".gitignore", "target/\n");
    write(
        root,
        "src/auth/middleware.rs",
        "pub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with(\"Bearer \")\n}\n",
    );
    write(root, "src/storage.rs", "pub struct BlobStore {}\n");
    let mut server = LoggedServer::spawn("mcp-server", root, LEXICAL).await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}))
        .await;
    server.response(0).await;

    let first = query(&mut server, 1, "check_bearer_token").await;
    assert_eq!(paths(&first), vec!["src/auth/middleware.rs"]);
    assert!(
        server
            .log_line("project index walk")
            .await
            .contains("walks=1")
    );

    // An edit.
    write(
        root,
        "src/auth/middleware.rs",
        "pub fn rotate_signing_key() {}\n",
    );
    let edited = query(&mut server, 2, "rotate_signing_key").await;
    assert_eq!(paths(&edited), vec!["src/auth/middleware.rs"], "{edited}");
    assert_eq!(edited["refresh"]["updated_files"], 1);
    assert_eq!(edited["refresh"]["scanned_files"], 2);
    // A new file, and one in an ignored directory.
    write(root, "src/queue.rs", "pub fn enqueue_job() {}\n");
    write(root, "target/gen.rs", "pub fn zebra_quokka() {}\n");
    let added = query(&mut server, 3, "enqueue_job").await;
    assert_eq!(paths(&added), vec!["src/queue.rs"], "{added}");
    assert_eq!(added["refresh"]["updated_files"], 1);
    let ignored = query(&mut server, 4, "zebra_quokka").await;
    assert_eq!(paths(&ignored), Vec::<String>::new(), "{ignored}");
    // A deleted file.
    std::fs::remove_file(root.join("src/queue.rs")).unwrap();
    let deleted = query(&mut server, 5, "enqueue_job").await;
    assert_eq!(paths(&deleted), Vec::<String>::new(), "{deleted}");
    assert_eq!(deleted["refresh"]["removed_files"], 1);
    // Nothing changed.
    let unchanged = query(&mut server, 6, "BlobStore").await;
    assert_eq!(paths(&unchanged), vec!["src/storage.rs"]);
    assert_eq!(unchanged["refresh"]["updated_files"], 0);
    assert_eq!(unchanged["refresh"]["removed_files"], 0);

    // The forced full refresh is the second walk: none of the queries since the first walked.
    call(
        &mut server,
        7,
        "repo_index_refresh",
        json!({"force_full": true}),
    )
    .await;
    let walk = server.log_line("project index walk").await;
    assert!(walk.contains("walks=2"), "{walk}");
}

/// `chunker` chooses how files are cut, and a server whose chunker differs from the one the
/// index was built with cuts every file again at its first query, though no file changed.
#[tokio::test]
async fn a_new_chunker_re_chunks_every_file() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    write(
        root,
        "src/queue.rs",
        "pub struct Queue {\n    items: Vec<u32>,\n}\n\nimpl Queue {\n    pub fn push(&mut self, item: u32) {\n        self.items.push(item);\n    }\n\n    pub fn drain_all(&mut self) -> Vec<u32> {\n        std::mem::take(&mut self.items)\n    }\n}\n",
    );
    let config = |chunker: &str| format!("{LEXICAL}chunk_max_lines = 8\nchunker = \"{chunker}\"\n");
    let mut ranges = Vec::new();
    for (round, chunker) in ["lines", "code"].into_iter().enumerate() {
        let mut server = LoggedServer::spawn("mcp-server", root, &config(chunker)).await;
        server
            .send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}))
            .await;
        server.response(0).await;
        let first = query(&mut server, 1, "push").await;
        assert_eq!(paths(&first)[0], "src/queue.rs", "{first}");
        // The first server indexes the file; the second cuts it again (its content is the same).
        assert_eq!(
            first["refresh"]["updated_files"], 1,
            "round {round}: {first}"
        );
        ranges.push(first["results"][0]["line_range"].clone());
        let again = query(&mut server, 2, "push").await;
        assert_eq!(again["refresh"]["updated_files"], 0, "{again}");
    }
    // Line chunks cut the impl at the 8-line cap; the code chunker cuts it at its methods.
    assert_eq!(
        ranges,
        vec![
            json!({"start": 5, "end": 12}),
            json!({"start": 5, "end": 8})
        ]
    );
}
