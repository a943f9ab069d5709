//! Real infrastructure for distributed MCP tests: a `redis-server` and an `nginx`
//! round-robin front (Debian's packages), each on a free loopback port with its own data
//! directory, and `tandem mcp-server --http --redis` nodes behind them.
//!
//! A missing `redis-server` or `nginx` makes the test fail (never skip).

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test support: a missing component or a timeout must fail the test loudly"
)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::mcp::{McpHttp, home_with};

const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// A free TCP port on 127.0.0.1 (bound and released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// A `redis-server` on 127.0.0.1 without persistence (killed on drop).
pub struct Redis {
    child: Option<Child>,
    /// Its port.
    pub port: u16,
    /// `redis://127.0.0.1:PORT/0`.
    pub url: String,
    dir: tempfile::TempDir,
    extra_args: Vec<String>,
}

impl Redis {
    /// Starts a fresh server.
    pub async fn start() -> Redis {
        Self::start_with(Vec::new()).await
    }

    /// Starts a fresh server with more `redis-server` arguments (TLS, for one).
    pub async fn start_with(extra_args: Vec<String>) -> Redis {
        let dir = tempfile::tempdir().expect("redis dir");
        let port = free_port();
        let mut redis = Redis {
            child: None,
            port,
            url: format!("redis://127.0.0.1:{port}/0"),
            dir,
            extra_args,
        };
        redis.launch().await;
        redis
    }

    async fn launch(&mut self) {
        let mut child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .args(&self.extra_args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server must be installed (apt-get install redis-server)");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        tokio::time::timeout(READY_TIMEOUT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("Ready to accept connections") {
                    return;
                }
            }
            panic!("redis-server exited before it was ready");
        })
        .await
        .expect("redis-server did not become ready");
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        self.child = Some(child);
    }

    /// Kills the server (SIGKILL) and waits for it to exit.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }

    /// Starts it again on the same port (empty: nothing is persisted).
    pub async fn restart(&mut self) {
        self.kill().await;
        self.launch().await;
    }

    /// Runs `redis-cli` against it and returns its output.
    pub async fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .await
            .expect("redis-cli");
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }
}

/// An `nginx` round-robin front (no affinity) on 127.0.0.1, one process without a master
/// (`master_process off`), so that killing it on drop leaves no worker behind.
pub struct Nginx {
    _child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Nginx {
    /// Starts nginx in front of `upstreams` (`host:port` each).
    pub async fn start(upstreams: &[String]) -> Nginx {
        let dir = tempfile::tempdir().expect("nginx dir");
        let port = free_port();
        let servers: String = upstreams
            .iter()
            .map(|upstream| format!("    server {upstream} max_fails=0;\n"))
            .collect();
        let prefix = dir.path().display();
        let config = format!(
            "master_process off;\nworker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log warn;\n\
             events {{ worker_connections 4096; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {prefix}/body;\n  proxy_temp_path {prefix}/proxy;\n\
               fastcgi_temp_path {prefix}/fastcgi;\n  uwsgi_temp_path {prefix}/uwsgi;\n  scgi_temp_path {prefix}/scgi;\n\
               upstream tandem {{\n{servers}    keepalive 64;\n  }}\n\
               server {{\n    listen 127.0.0.1:{port};\n    location / {{\n\
                 proxy_pass http://tandem;\n      proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n\
                 proxy_set_header Host 127.0.0.1;\n      proxy_buffering off;\n      proxy_request_buffering off;\n\
                 proxy_read_timeout 1h;\n      proxy_next_upstream error timeout;\n    }}\n  }}\n}}\n"
        );
        let config_path: PathBuf = dir.path().join("nginx.conf");
        std::fs::write(&config_path, config).expect("nginx.conf");
        let child = Command::new(nginx_binary())
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&config_path)
            .args(["-g", "daemon off;"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("nginx must be installed (apt-get install nginx)");
        let address = format!("127.0.0.1:{port}");
        tokio::time::timeout(READY_TIMEOUT, async {
            // nginx reports readiness by accepting connections.
            while tokio::net::TcpStream::connect(&address).await.is_err() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("nginx did not start listening");
        Nginx {
            _child: child,
            url: format!("http://{address}/mcp"),
            _dir: dir,
        }
    }
}

fn nginx_binary() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from("nginx"))
}

/// The config of node `node_id` against a mock model at `base_url`.
pub fn node_config(base_url: &str, node_id: &str, extra: &str) -> String {
    format!(
        "{}\n[mcp.distributed]\nnode_id = \"{node_id}\"\n{extra}\n",
        crate::server::mock_config(base_url)
    )
}

/// Starts node `node_id` in its own home, joined to `redis_url`.
pub async fn start_node(
    base_url: &str,
    redis_url: &str,
    node_id: &str,
    extra_config: &str,
    extra_args: &[&str],
) -> McpHttp {
    let home = home_with(&node_config(base_url, node_id, extra_config));
    let path = home.path().to_path_buf();
    let mut args = vec!["--redis", redis_url];
    args.extend_from_slice(extra_args);
    McpHttp::spawn_in(path, Some(home), &args, "info").await
}

/// One HTTP address of the cluster (a node or the front) and the requests tests send it.
#[derive(Clone)]
pub struct Endpoint {
    /// `http://…/mcp`.
    pub url: String,
    /// The client.
    pub client: reqwest::Client,
}

impl Endpoint {
    /// The endpoint at `url`.
    pub fn new(url: &str) -> Endpoint {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Endpoint {
            url: url.to_string(),
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("client"),
        }
    }

    /// The endpoint of `node`.
    pub fn of(node: &McpHttp) -> Endpoint {
        Endpoint::new(&node.url)
    }

    /// The endpoint at `url`, every request carrying `Authorization: Bearer <token>`.
    pub fn with_token(url: &str, token: &str) -> Endpoint {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut headers = reqwest::header::HeaderMap::new();
        let value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
            .expect("a visible ASCII token");
        headers.insert(reqwest::header::AUTHORIZATION, value);
        Endpoint {
            url: url.to_string(),
            client: reqwest::Client::builder()
                .no_proxy()
                .default_headers(headers)
                .build()
                .expect("client"),
        }
    }

    /// `GET /metrics` of this node.
    pub async fn metrics(&self) -> String {
        let url = self.url.trim_end_matches("/mcp").to_string() + "/metrics";
        self.client
            .get(url)
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("metrics text")
    }

    /// A POST answered with SSE or JSON, as the server likes.
    pub fn post(&self, session: &str, body: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", session)
            .body(body.to_string())
    }

    /// A POST answered with one JSON object (its events go to the GET stream).
    pub fn post_json(&self, session: &str, body: &Value) -> reqwest::RequestBuilder {
        self.post(session, body).header("x-mcp-post-stream", "0")
    }

    /// The standalone GET stream, optionally resumed.
    pub async fn get(&self, session: &str, last_event_id: Option<&str>) -> reqwest::Response {
        let mut request = self
            .client
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session);
        if let Some(last_event_id) = last_event_id {
            request = request.header("last-event-id", last_event_id);
        }
        request.send().await.expect("GET")
    }

    /// DELETE of the session; the status.
    pub async fn delete(&self, session: &str) -> u16 {
        self.client
            .delete(&self.url)
            .header("mcp-session-id", session)
            .send()
            .await
            .expect("DELETE")
            .status()
            .as_u16()
    }

    /// `tools/list` on the session; the status.
    pub async fn list_status(&self, session: &str) -> u16 {
        self.post_json(
            session,
            &json!({"jsonrpc": "2.0", "id": 900, "method": "tools/list"}),
        )
        .send()
        .await
        .expect("tools/list")
        .status()
        .as_u16()
    }

    /// Initializes a session with these client capabilities; its id.
    pub async fn initialize(&self, capabilities: Value) -> String {
        let response = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(
                json!({
                    "jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": capabilities,
                        "clientInfo": {"name": "mcp-cluster-test", "version": "1.0"},
                    },
                })
                .to_string(),
            )
            .send()
            .await
            .expect("initialize");
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .expect("ascii")
            .to_string();
        let initialized = self
            .post(
                &session,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .send()
            .await
            .expect("initialized");
        assert_eq!(initialized.status(), 202);
        session
    }
}

/// A `tools/call` request.
pub fn tool_call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}
