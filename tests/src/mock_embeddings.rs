//! A mock embeddings endpoint speaking real HTTP: `POST /v1/embeddings` answers
//! `{"data": [{"index", "embedding"}]}` with deterministic bag-of-words vectors (each word
//! hashed into one of 64 dimensions), records the bearer token and inputs it saw, and can be
//! told to fail every request after the first `n`.

#![allow(clippy::expect_used, reason = "test support fails loudly")]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};

/// Dimensions of the mock vectors.
pub const DIMENSIONS: usize = 64;

#[derive(Default)]
struct Shared {
    requests: AtomicUsize,
    fail_after: Mutex<Option<usize>>,
    tokens: Mutex<Vec<Option<String>>>,
    models: Mutex<Vec<String>>,
}

/// A running mock embeddings server (stopped on drop).
pub struct MockEmbeddings {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl MockEmbeddings {
    /// Starts on a free loopback port.
    pub async fn start() -> MockEmbeddings {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/embeddings", post(embeddings))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address: SocketAddr = listener.local_addr().expect("address");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        MockEmbeddings {
            base_url: format!("http://{address}/v1"),
            shared,
            task,
        }
    }

    /// Every request after the first `requests` answers 500.
    pub fn fail_after(&self, requests: usize) {
        *self.shared.fail_after.lock().expect("lock") = Some(requests);
    }

    /// Requests served so far.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// Bearer tokens seen, per request.
    pub fn tokens(&self) -> Vec<Option<String>> {
        self.shared.tokens.lock().expect("lock").clone()
    }

    /// Models requested, per request.
    pub fn models(&self) -> Vec<String> {
        self.shared.models.lock().expect("lock").clone()
    }
}

impl Drop for MockEmbeddings {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The mock's vector for `text`.
pub fn embed(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; DIMENSIONS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        let hash = word
            .to_lowercase()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            });
        vector[(hash % DIMENSIONS as u64) as usize] += 1.0;
    }
    vector
}

async fn embeddings(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: axum::Json<Value>,
) -> (StatusCode, axum::Json<Value>) {
    let served = shared.requests.fetch_add(1, Ordering::SeqCst);
    let token = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_string);
    shared.tokens.lock().expect("lock").push(token);
    shared
        .models
        .lock()
        .expect("lock")
        .push(body["model"].as_str().unwrap_or_default().to_string());
    if shared
        .fail_after
        .lock()
        .expect("lock")
        .is_some_and(|limit| served >= limit)
    {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({"error": {"message": "mock failure"}})),
        );
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => {
            return (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"error": {"message": "bad input"}})),
            );
        }
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": embed(text)}))
        .collect();
    (
        StatusCode::OK,
        axum::Json(json!({"object": "list", "data": data, "model": body["model"]})),
    )
}
