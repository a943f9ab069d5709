//! Authentication across distributed `tandem mcp-server --http --redis` nodes, against a real
//! `redis-server`: a shared token file whose principals travel with the session metadata, a
//! node that logs in to Redis as an ACL user, and a node that speaks TLS to Redis
//! (`rediss://`).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::cluster::{Endpoint, Redis, free_port, start_node};
use tandem_tests::mcp::{McpHttp, home_with};
use tandem_tests::mock_model::MockModel;
use tandem_tests::server::{mock_config, tandem_binary};

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-9876543210";

/// Runs `tandem mcp-server --http 127.0.0.1:0 --auth none --redis URL` with `SSL_CERT_FILE`
/// set to `ca` (when given), expecting it to refuse to start; its stderr.
async fn refused_node(url: &str, ca: Option<&Path>) -> String {
    let home = home_with(&mock_config("http://127.0.0.1:9"));
    let mut command = tokio::process::Command::new(tandem_binary());
    command
        .args([
            "mcp-server",
            "--http",
            "127.0.0.1:0",
            "--auth",
            "none",
            "--redis",
            url,
        ])
        .env("TANDEM_HOME", home.path());
    match ca {
        Some(ca) => command.env("SSL_CERT_FILE", ca),
        None => command
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR"),
    };
    let output = tokio::time::timeout(Duration::from_secs(30), command.output())
        .await
        .expect("the node gives up within its connection timeout")
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    String::from_utf8_lossy(&output.stderr).to_string()
}

#[tokio::test]
async fn a_sessions_principal_travels_with_it_to_every_node() {
    let redis = Redis::start().await;
    let model = MockModel::start().await;
    let tokens_dir = tempfile::tempdir().unwrap();
    let tokens = tokens_dir.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let tokens = tokens.to_str().unwrap();
    let args = ["--auth-token-file", tokens];
    let a = start_node(&model.base_url(), &redis.url, "a", "", &args).await;
    let b = start_node(&model.base_url(), &redis.url, "b", "", &args).await;

    let alice_on_a = Endpoint::with_token(&a.url, ALICE);
    let alice_on_b = Endpoint::with_token(&b.url, ALICE);
    let bob_on_a = Endpoint::with_token(&a.url, BOB);
    let bob_on_b = Endpoint::with_token(&b.url, BOB);
    let session = alice_on_a.initialize(json!({})).await;
    let stored = redis
        .cli(&["GET", &format!("tandem:session:{session}")])
        .await;
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["principal"], "alice");

    // Bob cannot use, rebuild, stream or delete Alice's session, on either node.
    assert_eq!(bob_on_b.list_status(&session).await, 404);
    assert_eq!(bob_on_a.list_status(&session).await, 404);
    assert_eq!(bob_on_b.get(&session, None).await.status(), 404);
    assert_eq!(bob_on_b.delete(&session).await, 404);
    assert_eq!(bob_on_a.delete(&session).await, 404);
    // Alice can, on the node that did not create it (rebuilt there with her as principal).
    assert_eq!(alice_on_b.list_status(&session).await, 200);
    assert_eq!(bob_on_b.list_status(&session).await, 404);
    assert_eq!(alice_on_b.delete(&session).await, 204);
    assert_eq!(alice_on_a.list_status(&session).await, 404);
    // No token: 401 on every node.
    assert_eq!(Endpoint::of(&b).list_status(&session).await, 401);
}

/// The ACL of docs/distributed.md: the nodes' keys and channels only.
#[tokio::test]
async fn a_node_logs_in_to_redis_as_an_acl_user() {
    let redis = Redis::start().await;
    let created = redis
        .cli(&[
            "ACL",
            "SETUSER",
            "tandem",
            "on",
            ">node-secret-pass",
            "~tandem:*",
            "&tandem:*",
            "+@all",
        ])
        .await;
    assert_eq!(created, "OK");
    let model = MockModel::start().await;
    let url = format!("redis://tandem:node-secret-pass@127.0.0.1:{}/0", redis.port);
    let node = start_node(&model.base_url(), &url, "a", "", &[]).await;
    let endpoint = Endpoint::of(&node);
    let session = endpoint.initialize(json!({})).await;
    assert_eq!(endpoint.list_status(&session).await, 200);
    let clients = redis.cli(&["CLIENT", "LIST"]).await;
    assert!(clients.contains("user=tandem"), "{clients}");
    assert!(
        !node.log_text().contains("node-secret-pass"),
        "the Redis password stays out of the log"
    );

    let wrong = format!("redis://tandem:wrong-pass@127.0.0.1:{}/0", redis.port);
    let stderr = refused_node(&wrong, None).await;
    assert!(
        stderr.contains(&format!(
            "cannot reach Redis at redis://tandem:****@127.0.0.1:{}/0",
            redis.port
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("wrong-pass"), "{stderr}");
}

/// A CA and a certificate it signed for 127.0.0.1, made by `openssl` in `dir`: (CA, cert, key).
fn certificates(dir: &Path) -> (String, String, String) {
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let openssl = |args: &[&str]| {
        let output = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl must be installed (apt-get install openssl)");
        assert!(output.status.success(), "openssl {args:?}: {output:?}");
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let (ca_key, ca, key, request, cert) = (
        path("ca.key"),
        path("ca.pem"),
        path("redis.key"),
        path("redis.csr"),
        path("redis.pem"),
    );
    openssl(
        &[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                &ca_key,
                "-out",
                &ca,
                "-days",
                "1",
                "-subj",
                "/CN=tandem test CA",
            ],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req"][..],
            &ec,
            &["-keyout", &key, "-out", &request, "-subj", "/CN=127.0.0.1"],
        ]
        .concat(),
    );
    let extensions = path("redis.ext");
    std::fs::write(
        &extensions,
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        &request,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-out",
        &cert,
        "-days",
        "1",
        "-extfile",
        &extensions,
    ]);
    (ca, cert, key)
}

#[tokio::test]
async fn a_node_speaks_tls_to_a_rediss_url_and_checks_the_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let tls_port = free_port();
    let redis = Redis::start_with(
        [
            "--tls-port",
            &tls_port.to_string(),
            "--tls-cert-file",
            &cert,
            "--tls-key-file",
            &key,
            "--tls-ca-cert-file",
            &ca,
            "--tls-auth-clients",
            "no",
        ]
        .map(str::to_string)
        .to_vec(),
    )
    .await;
    let url = format!("rediss://127.0.0.1:{tls_port}/0");

    // Trusting the test CA (through SSL_CERT_FILE, as an operator with a private CA would).
    let wrapper = dir.path().join("tandem-trusting-the-test-ca");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nSSL_CERT_FILE='{ca}' exec '{}' \"$@\"\n",
            tandem_binary().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let model = MockModel::start().await;
    let home = home_with(&format!(
        "{}\n[mcp.distributed]\nnode_id = \"a\"\n",
        mock_config(&model.base_url())
    ));
    let path = home.path().to_path_buf();
    let node = McpHttp::spawn_binary(&wrapper, path, Some(home), &["--redis", &url], "info").await;
    let endpoint = Endpoint::of(&node);
    let session = endpoint.initialize(json!({})).await;
    assert_eq!(endpoint.list_status(&session).await, 200);
    let stored = redis
        .cli(&["EXISTS", &format!("tandem:session:{session}")])
        .await;
    assert_eq!(stored, "1");

    // A certificate from a CA the node does not trust: it refuses to start.
    let stderr = refused_node(&url, None).await;
    assert!(
        stderr.contains(&format!(
            "cannot reach Redis at rediss://127.0.0.1:{tls_port}/0"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("certificate"), "{stderr}");
}

/// Threads belong to their principal across nodes: Alice's thread, created on A, answers Bob on
/// B exactly as a thread that does not exist, and still answers Alice there.
#[tokio::test]
async fn a_threads_owner_travels_with_it_to_every_node() {
    use tandem_tests::cluster::tool_call;
    use tandem_tests::cluster_turns::json_call;
    use tandem_tests::mock_model::{MockResponse, responses_text};

    let redis = Redis::start().await;
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["first"])));
    model.push(MockResponse::sse(responses_text("msg_2", &["again"])));
    let tokens_dir = tempfile::tempdir().unwrap();
    let tokens = tokens_dir.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let tokens = tokens.to_str().unwrap();
    let args = ["--auth-token-file", tokens];
    let a = start_node(&model.base_url(), &redis.url, "a", "", &args).await;
    let b = start_node(&model.base_url(), &redis.url, "b", "", &args).await;
    let alice_on_a = Endpoint::with_token(&a.url, ALICE);
    let alice_on_b = Endpoint::with_token(&b.url, ALICE);
    let bob_on_b = Endpoint::with_token(&b.url, BOB);

    let session = alice_on_a.initialize(json!({})).await;
    let first = json_call(
        &alice_on_a,
        &session,
        &tool_call(
            1,
            "codex",
            json!({"prompt": "Start.", "approval-policy": "never"}),
        ),
    )
    .await;
    assert_eq!(first["result"]["isError"], false, "{first}");
    let thread_id = first["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(alice_on_a.delete(&session).await, 204);

    let bobs = bob_on_b.initialize(json!({})).await;
    let stolen = json_call(
        &bob_on_b,
        &bobs,
        &tool_call(
            2,
            "codex-reply",
            json!({"threadId": thread_id, "prompt": "Mine."}),
        ),
    )
    .await;
    let missing_id = "019a0000-0000-7000-8000-000000000000";
    let missing = json_call(
        &bob_on_b,
        &bobs,
        &tool_call(
            3,
            "codex-reply",
            json!({"threadId": missing_id, "prompt": "Anyone?"}),
        ),
    )
    .await;
    assert_eq!(stolen["result"]["isError"], true, "{stolen}");
    assert_eq!(
        stolen["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(&thread_id, "<id>"),
        missing["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(missing_id, "<id>"),
    );

    let alices = alice_on_b.initialize(json!({})).await;
    let again = json_call(
        &alice_on_b,
        &alices,
        &tool_call(
            4,
            "codex-reply",
            json!({"threadId": thread_id, "prompt": "Go on."}),
        ),
    )
    .await;
    assert_eq!(
        again["result"]["structuredContent"]["content"], "again",
        "{again}"
    );
    assert_eq!(model.requests().len(), 2);
}
