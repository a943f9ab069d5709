//! The project index's trust boundary, against the real binary and real files: a `repo_root`
//! outside the server's working directory and `[query_project_index] roots` is refused by the
//! MCP tools and the app-server methods with nothing written there; a listed root is indexed;
//! auto-warm runs only in a repository's root; the index is private (0700 directories, 0600
//! files) and never written through a `.tandem` symbolic link; a 150,000-word query is
//! answered; SIGTERM and stdin EOF end `tandem mcp-server` while a long refresh runs.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tandem_tests::index_tools::{error_text, paths, payload};
use tandem_tests::logged::LoggedServer;
use tandem_tests::server::{SpawnOptions, TestServer, tandem_binary};

const LEXICAL: &str = "[query_project_index]\nauto_warm = false\nembedding_model = \"none\"\n";

/// How long a shutdown may take before the test gives up waiting: a failure guard, twice the
/// server's own grace period; the time actually taken is printed.
const EXIT_GUARD: Duration = Duration::from_secs(10);

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// `tandem mcp-server` on stdio in `cwd`, initialized, with its home elsewhere and its log on
/// stderr, which the test reads line by line.
struct Mcp(LoggedServer);

impl std::ops::Deref for Mcp {
    type Target = LoggedServer;
    fn deref(&self) -> &LoggedServer {
        &self.0
    }
}

impl std::ops::DerefMut for Mcp {
    fn deref_mut(&mut self) -> &mut LoggedServer {
        &mut self.0
    }
}

impl Mcp {
    async fn spawn(cwd: &Path, config_toml: &str) -> Mcp {
        let mut server = Mcp(LoggedServer::spawn("mcp-server", cwd, config_toml).await);
        server
            .send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "index-scope", "version": "0"}}}))
            .await;
        server.response(0).await;
        server
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        server
    }

    /// Calls `tool` and returns the `tools/call` result.
    async fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}))
            .await;
        self.response(id).await["result"].clone()
    }
}

/// A directory beside the test's others holding a `secret.txt` with a word to search for.
fn outside_dir() -> tempfile::TempDir {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "the zanzibar launch code\n");
    outside
}

/// `target` written relative to `from` (both directly under the same directory).
fn sibling_path(from: &Path, target: &Path) -> String {
    assert_eq!(from.parent(), target.parent());
    format!("../{}", target.file_name().unwrap().to_string_lossy())
}

#[tokio::test]
async fn repo_roots_outside_the_working_directory_are_refused_and_nothing_is_written() {
    let cwd = tempfile::tempdir().unwrap();
    write(cwd.path(), "src/lib.rs", "pub fn inside() {}\n");
    let outside = outside_dir();
    std::os::unix::fs::symlink(outside.path(), cwd.path().join("escape")).unwrap();
    let mut server = Mcp::spawn(cwd.path(), LEXICAL).await;
    let absolute = outside.path().display().to_string();
    let relative = sibling_path(cwd.path(), outside.path());
    let mut id = 1;
    for repo_root in [absolute.as_str(), relative.as_str(), "escape", "/"] {
        for (tool, arguments) in [
            (
                "query_project",
                json!({"query": "zanzibar", "repo_root": repo_root}),
            ),
            ("repo_index_refresh", json!({"repo_root": repo_root})),
        ] {
            let message = error_text(&server.call(id, tool, arguments).await);
            id += 1;
            assert!(
                message.contains("is outside") && message.contains("[query_project_index] roots"),
                "{tool} {repo_root}: {message}"
            );
            assert!(!message.contains("zanzibar launch"), "{message}");
        }
    }
    assert_eq!(listing(outside.path()), vec!["secret.txt"]);
    // The working directory itself is served.
    let inside = payload(
        &server
            .call(id, "query_project", json!({"query": "inside"}))
            .await,
    );
    assert_eq!(paths(&inside), vec!["src/lib.rs"]);

    // The app-server's methods refuse the same roots with a JSON-RPC error.
    let mut app_server = TestServer::spawn_with(SpawnOptions {
        config_toml: LEXICAL.to_string(),
        args: Vec::new(),
        home: None,
        cwd: Some(cwd.path().to_path_buf()),
    })
    .await;
    app_server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    for repo_root in [absolute.as_str(), relative.as_str(), "escape"] {
        for (method, params) in [
            (
                "index/query",
                json!({"query": "zanzibar", "repoRoot": repo_root}),
            ),
            ("index/refresh", json!({"repoRoot": repo_root})),
        ] {
            let error = app_server.request(method, params).await.unwrap_err();
            assert_eq!(error["code"], -32600, "{method} {repo_root}: {error}");
            let message = error["message"].as_str().unwrap();
            assert!(
                message.contains("[query_project_index] roots"),
                "{method} {repo_root}: {message}"
            );
        }
    }
    assert_eq!(listing(outside.path()), vec!["secret.txt"]);
}

#[tokio::test]
async fn a_directory_listed_in_roots_is_indexed_and_roots_must_be_absolute() {
    let cwd = tempfile::tempdir().unwrap();
    let listed = outside_dir();
    let config = format!(
        "{LEXICAL}roots = [{:?}]\n",
        canonical(listed.path()).display().to_string()
    );
    let mut server = Mcp::spawn(cwd.path(), &config).await;
    let answer = payload(
        &server
            .call(
                1,
                "query_project",
                json!({"query": "zanzibar", "repo_root": listed.path().display().to_string()}),
            )
            .await,
    );
    assert_eq!(paths(&answer), vec!["secret.txt"]);
    assert!(
        listed
            .path()
            .join(".tandem/repo_hybrid_index/index.sqlite")
            .is_file()
    );

    let output = std::process::Command::new(tandem_binary())
        .args([
            "mcp-server",
            "-c",
            "query_project_index.roots=[\"relative/dir\"]",
        ])
        .current_dir(cwd.path())
        .env("TANDEM_HOME", cwd.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("query_project_index.roots") && stderr.contains("not an absolute path"),
        "{stderr}"
    );
}

#[tokio::test]
async fn auto_warm_runs_only_in_a_repository_root() {
    let warm = "[query_project_index]\nembedding_model = \"none\"\n";
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "notes/todo.md", "Buy a zebra.\n");
    let mut server = Mcp::spawn(plain.path(), warm).await;
    server.log_line("project index warm-up skipped").await;
    assert_eq!(listing(plain.path()), vec!["notes"]);

    let repository = tempfile::tempdir().unwrap();
    write(repository.path(), "notes/todo.md", "Buy a zebra.\n");
    std::fs::create_dir(repository.path().join(".git")).unwrap();
    let mut server = Mcp::spawn(repository.path(), warm).await;
    server.log_line("project index warmed").await;
    assert!(
        repository
            .path()
            .join(".tandem/repo_hybrid_index/index.sqlite")
            .is_file()
    );
}

#[tokio::test]
async fn the_index_is_private_and_never_written_through_a_symbolic_link() {
    let cwd = tempfile::tempdir().unwrap();
    write(cwd.path(), "src/lib.rs", "pub fn private_words() {}\n");
    let private = cwd.path().join("private.txt");
    std::fs::write(&private, "owner only\n").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut server = Mcp::spawn(cwd.path(), LEXICAL).await;
    let refreshed = payload(&server.call(1, "repo_index_refresh", json!({})).await);
    assert_eq!(refreshed["stats"]["updated_files"], 2, "{refreshed}");
    let index_dir = cwd.path().join(".tandem/repo_hybrid_index");
    assert_eq!(mode(&cwd.path().join(".tandem")), 0o700);
    assert_eq!(mode(&index_dir), 0o700);
    let files = listing(&index_dir);
    assert!(files.contains(&"index.sqlite".to_string()), "{files:?}");
    for file in &files {
        assert_eq!(mode(&index_dir.join(file)), 0o600, "{file}");
    }

    let linked = tempfile::tempdir().unwrap();
    write(linked.path(), "src/lib.rs", "pub fn linked() {}\n");
    let target = tempfile::tempdir().unwrap();
    write(target.path(), "keep.txt", "untouched\n");
    std::os::unix::fs::symlink(target.path(), linked.path().join(".tandem")).unwrap();
    let mut server = Mcp::spawn(linked.path(), LEXICAL).await;
    for (id, (tool, arguments)) in [
        ("repo_index_refresh", json!({})),
        ("query_project", json!({"query": "linked"})),
    ]
    .into_iter()
    .enumerate()
    {
        let message = error_text(&server.call(id as i64 + 1, tool, arguments).await);
        assert!(
            message.contains("symbolic link") && message.contains(".tandem"),
            "{tool}: {message}"
        );
    }
    assert_eq!(listing(target.path()), vec!["keep.txt"]);
    assert_eq!(
        std::fs::read_to_string(target.path().join("keep.txt")).unwrap(),
        "untouched\n"
    );
}

/// `count` distinct lower-case words (`ba`, `ca`, … in base 26), each ending in a letter so
/// that none is split into parts by the tokenizer.
fn distinct_words(count: usize) -> Vec<String> {
    (0..count)
        .map(|mut number| {
            let mut word = String::new();
            loop {
                word.push((b'a' + (number % 26) as u8) as char);
                number /= 26;
                if number == 0 {
                    break;
                }
            }
            format!("q{word}x")
        })
        .collect()
}

#[tokio::test]
async fn a_150000_word_query_is_answered() {
    let cwd = tempfile::tempdir().unwrap();
    write(cwd.path(), "src/lib.rs", "pub fn zanzibar_launch() {}\n");
    write(cwd.path(), "docs/other.md", "Nothing to see.\n");
    let mut server = Mcp::spawn(cwd.path(), LEXICAL).await;
    let mut words = vec!["zanzibar".to_string()];
    words.extend(distinct_words(149_999));
    let query = words.join(" ");
    assert!(query.len() > 900_000);
    let started = Instant::now();
    let answer = payload(
        &server
            .call(1, "query_project", json!({"query": query}))
            .await,
    );
    let elapsed = started.elapsed();
    eprintln!(
        "a 150,000-word query ({} bytes) was answered in {elapsed:.2?}",
        query.len()
    );
    assert_eq!(paths(&answer), vec!["src/lib.rs"]);
    // The query was cut to `max_query_bytes` (8 KiB by default); the payload says what was
    // searched.
    let searched = answer["query"].as_str().unwrap();
    assert!(searched.len() <= 8192 && query.starts_with(searched));
}

/// A tree of `files` Rust files of 60 lines each: an index refresh of 5,000 of them takes
/// several seconds in a debug build.
fn large_tree(files: usize) -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    for file in 0..files {
        let text: String = (0..60)
            .map(|line| format!("pub fn item_{file}_{line}(value: usize) -> usize {{ value * {line} + {file} }}\n"))
            .collect();
        write(tree.path(), &format!("d{}/f{file}.rs", file / 100), &text);
    }
    tree
}

/// Starts a refresh of the working directory (a large tree) and returns once the walk is
/// done and the indexing of its files has begun.
async fn refresh_under_way(server: &mut Mcp) {
    server
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "repo_index_refresh", "arguments": {}, "_meta": {"progressToken": "long"}}}))
        .await;
    loop {
        let message = server.next().await.expect("the server closed stdout");
        assert!(message.get("id").is_none(), "the refresh ended: {message}");
        if message["method"] == "notifications/progress"
            && message["params"]["message"]
                .as_str()
                .unwrap()
                .starts_with("scanned")
        {
            return;
        }
    }
}

#[tokio::test]
async fn sigterm_and_stdin_eof_end_the_server_during_a_long_refresh() {
    let tree = large_tree(5_000);
    for ending in ["SIGTERM", "stdin EOF"] {
        let mut server = Mcp::spawn(tree.path(), LEXICAL).await;
        refresh_under_way(&mut server).await;
        let started = Instant::now();
        match ending {
            "SIGTERM" => {
                let pid = server.child.id().unwrap() as libc::pid_t;
                // SAFETY: `pid` is our own child, which has not been waited for.
                assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
            }
            _ => server.stdin = None,
        }
        let (code, elapsed) = server.exit(started, EXIT_GUARD).await;
        eprintln!(
            "{ending} during a long refresh: the server exited with {code:?} after {elapsed:.2?}"
        );
        // 0: the graceful shutdown finished; a forced exit at the deadline would be 130.
        assert_eq!(code, Some(0), "{ending}");
    }
    // The stopped refreshes committed nothing half-done: the index still opens and a refresh
    // of a part of the tree completes.
    let mut server = Mcp::spawn(tree.path(), LEXICAL).await;
    let refreshed = payload(
        &server
            .call(2, "repo_index_refresh", json!({"file_globs": ["d0/**"]}))
            .await,
    );
    assert_eq!(refreshed["stats"]["scanned_files"], 100, "{refreshed}");
}
