//! The third-party MCP servers the MCP-client tests run against, installed by
//! `scripts/install-mcp-test-servers` under `target/mcp-servers/` (a missing one fails the test
//! with a pointer to that script), and the config blocks that name them.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// `target/mcp-servers`, or `$TANDEM_MCP_TEST_SERVERS`.
fn servers_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TANDEM_MCP_TEST_SERVERS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("mcp-servers")
}

fn installed(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{what} is not installed at {}; run scripts/install-mcp-test-servers",
        path.display()
    );
    path
}

/// The npm `@modelcontextprotocol/server-everything` launcher.
pub fn everything() -> PathBuf {
    installed(
        servers_dir().join("node/node_modules/.bin/mcp-server-everything"),
        "@modelcontextprotocol/server-everything",
    )
}

/// The venv Python with the official `mcp` SDK.
pub fn python() -> PathBuf {
    installed(
        servers_dir().join("venv/bin/python"),
        "the Python MCP SDK venv",
    )
}

/// The Python SDK test server.
pub fn python_server_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp_python_server.py")
}

/// A TOML string literal.
pub fn toml_string(text: &str) -> String {
    format!("{text:?}")
}

/// `[mcp_servers.everything]` over stdio.
pub fn everything_stdio(extra: &str) -> String {
    format!(
        "\n[mcp_servers.everything]\ncommand = {}\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n{extra}\n",
        toml_string(&everything().to_string_lossy())
    )
}

/// `[mcp_servers.py]`: the Python SDK server over stdio.
pub fn python_stdio(extra: &str) -> String {
    format!(
        "\n[mcp_servers.py]\ncommand = {}\nargs = [{}]\nstartup_timeout_sec = 60\n{extra}\n",
        toml_string(&python().to_string_lossy()),
        toml_string(&python_server_script().to_string_lossy())
    )
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|error| panic!("no free port: {error}"))
}

/// Starts `mcp-server-everything streamableHttp` on a free port and waits for its "listening"
/// line on stderr. Killed on drop.
pub async fn everything_http() -> (Child, u16) {
    let port = free_port();
    let mut child = Command::new(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start the everything server: {error}"));
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let mut lines = BufReader::new(stderr).lines();
    let wait = async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("listening on port") {
                return true;
            }
        }
        false
    };
    let listening = tokio::time::timeout(std::time::Duration::from_secs(60), wait)
        .await
        .unwrap_or(false);
    assert!(listening, "the everything server did not start listening");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, port)
}
