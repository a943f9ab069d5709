//! A mock embeddings endpoint speaking real HTTP: `POST /v1/embeddings` answers
//! `{"data": [{"index", "embedding"}]}` with deterministic bag-of-words vectors (each word
//! hashed into one of 64 dimensions), records the bearer token and inputs it saw, and can be
//! told to fail every request after the first `n`, or to hold its batch requests (those of more
//! than one text: an index's batches, not a query's own embedding) after the first `n` until
//! they are allowed through (an embedding that is slow, or a server killed while it waits).

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

struct Shared {
    requests: AtomicUsize,
    fail_after: Mutex<Option<usize>>,
    tokens: Mutex<Vec<Option<String>>>,
    models: Mutex<Vec<String>>,
    batch_inputs: AtomicUsize,
    batches: AtomicUsize,
    allowed: tokio::sync::watch::Sender<usize>,
    held: tokio::sync::watch::Sender<usize>,
}

impl Default for Shared {
    fn default() -> Self {
        Self {
            requests: AtomicUsize::default(),
            fail_after: Mutex::default(),
            tokens: Mutex::default(),
            models: Mutex::default(),
            batch_inputs: AtomicUsize::default(),
            batches: AtomicUsize::default(),
            allowed: tokio::sync::watch::channel(usize::MAX).0,
            held: tokio::sync::watch::channel(0).0,
        }
    }
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

    /// Every batch request after the first `batches` waits until it is allowed through
    /// ([`allow`](Self::allow), [`release`](Self::release)).
    pub fn hold_after(&self, batches: usize) {
        self.shared.allowed.send_replace(batches);
    }

    /// Lets `batches` more batch requests through.
    pub fn allow(&self, batches: usize) {
        self.shared
            .allowed
            .send_modify(|allowed| *allowed = allowed.saturating_add(batches));
    }

    /// Waits until `count` batch requests in all have been held.
    pub async fn held(&self, count: usize) {
        let mut held = self.shared.held.subscribe();
        held.wait_for(|held| *held >= count)
            .await
            .expect("mock alive");
    }

    /// Lets every held and later batch request through.
    pub fn release(&self) {
        self.shared.allowed.send_replace(usize::MAX);
    }

    /// Texts of batch requests answered so far.
    pub fn batch_inputs(&self) -> usize {
        self.shared.batch_inputs.load(Ordering::SeqCst)
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
    let batch = body["input"]
        .as_array()
        .is_some_and(|items| items.len() > 1);
    if batch {
        let number = shared.batches.fetch_add(1, Ordering::SeqCst);
        let mut allowed = shared.allowed.subscribe();
        if *allowed.borrow_and_update() <= number {
            shared.held.send_modify(|count| *count += 1);
            let _ = allowed.wait_for(|allowed| *allowed > number).await;
        }
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
    if batch {
        shared
            .batch_inputs
            .fetch_add(inputs.len(), Ordering::SeqCst);
    }
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
