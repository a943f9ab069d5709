//! Retries with backoff around a single model request.
//!
//! [`stream_with_retries`] runs one [`ModelClient::stream`] attempt after another until one
//! completes. An attempt is retried only while it has streamed no output, so the engine never
//! sees an item twice: once a delta or an item has been forwarded, a failure ends the stream.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, StreamExt};

use crate::config::ProviderConfig;
use crate::model::{ModelClient, ModelError, ModelEvent, ModelRequest, ModelStream};

/// Longest backoff between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Longest `Retry-After` delay honoured.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// How often and how fast a model request is retried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries of a request that failed before streaming (connection error, HTTP status).
    pub request_max_retries: u32,
    /// Retries of a stream that dropped or went idle before any output.
    pub stream_max_retries: u32,
    /// Delay before the first retry; it doubles with each retry, up to 5 s.
    pub base_delay: Duration,
}

/// One item of [`stream_with_retries`].
#[derive(Clone, Debug, PartialEq)]
pub enum RetryEvent {
    /// An event of the current attempt.
    Event(ModelEvent),
    /// The attempt failed before any output; another starts after `delay`.
    Retrying {
        /// Why the attempt failed.
        error: ModelError,
        /// The number of this retry, counting from 1 over both kinds of failure.
        attempt: u32,
        /// How long until the next attempt.
        delay: Duration,
    },
}

impl RetryPolicy {
    /// The policy configured for `provider`, with a 200 ms base delay.
    pub fn from_provider(provider: &ProviderConfig) -> Self {
        Self {
            request_max_retries: provider.request_max_retries,
            stream_max_retries: provider.stream_max_retries,
            base_delay: Duration::from_millis(200),
        }
    }

    /// The delay before retry number `attempt` (from 1) after `error`: exponential backoff
    /// with ±10% jitter, or the provider's `Retry-After` when it asked for longer.
    fn delay(&self, attempt: u32, error: &ModelError) -> Duration {
        let exponent = attempt.saturating_sub(1).min(16);
        let backoff = self
            .base_delay
            .saturating_mul(1 << exponent)
            .min(MAX_BACKOFF)
            .mul_f64(jitter());
        match error.retry_after() {
            Some(retry_after) => retry_after.min(MAX_RETRY_AFTER).max(backoff),
            None => backoff,
        }
    }
}

impl Default for RetryPolicy {
    /// The provider defaults: 4 request retries, 5 stream retries, 200 ms base delay.
    fn default() -> Self {
        Self {
            request_max_retries: 4,
            stream_max_retries: 5,
            base_delay: Duration::from_millis(200),
        }
    }
}

/// Streams `request` from `client`, retrying failed attempts that produced no output yet
/// under `policy`. Each retry is announced with [`RetryEvent::Retrying`]; the stream ends
/// after `Completed` or with the error that could not be retried.
pub fn stream_with_retries(
    client: Arc<dyn ModelClient>,
    request: ModelRequest,
    policy: RetryPolicy,
) -> impl Stream<Item = Result<RetryEvent, ModelError>> + Send + 'static {
    let retrier = Retrier {
        client,
        request,
        policy,
        attempt: None,
        produced_output: false,
        request_retries: 0,
        stream_retries: 0,
        delay: None,
        finished: false,
    };
    futures::stream::unfold(retrier, |mut retrier| async move {
        let item = retrier.next().await?;
        Some((item, retrier))
    })
}

/// The state of one [`stream_with_retries`].
struct Retrier {
    client: Arc<dyn ModelClient>,
    request: ModelRequest,
    policy: RetryPolicy,
    /// The running attempt.
    attempt: Option<ModelStream>,
    /// Whether the running attempt has forwarded output.
    produced_output: bool,
    request_retries: u32,
    stream_retries: u32,
    /// Wait before starting the next attempt.
    delay: Option<Duration>,
    finished: bool,
}

impl Retrier {
    async fn next(&mut self) -> Option<Result<RetryEvent, ModelError>> {
        if self.finished {
            return None;
        }
        if let Some(delay) = self.delay.take() {
            tokio::time::sleep(delay).await;
        }
        if self.attempt.is_none() {
            self.produced_output = false;
            self.attempt = Some(self.client.stream(self.request.clone()));
        }
        let attempt = self.attempt.as_mut()?;
        match attempt.next().await {
            Some(Ok(event)) => {
                if !matches!(event, ModelEvent::Completed { .. }) {
                    self.produced_output = true;
                }
                Some(Ok(RetryEvent::Event(event)))
            }
            Some(Err(error)) => {
                self.attempt = None;
                if !self.produced_output
                    && error.is_retryable()
                    && let Some(attempt) = self.count_retry(&error)
                {
                    let delay = self.policy.delay(attempt, &error);
                    tracing::debug!(%error, attempt, ?delay, "retrying the model request");
                    self.delay = Some(delay);
                    return Some(Ok(RetryEvent::Retrying {
                        error,
                        attempt,
                        delay,
                    }));
                }
                self.finished = true;
                Some(Err(error))
            }
            None => {
                self.finished = true;
                None
            }
        }
    }

    /// Counts a retry of `error` against its budget; `None` when the budget is spent.
    /// Returns the overall retry number.
    fn count_retry(&mut self, error: &ModelError) -> Option<u32> {
        let (used, max) = if error.is_request_error() {
            (&mut self.request_retries, self.policy.request_max_retries)
        } else {
            (&mut self.stream_retries, self.policy.stream_max_retries)
        };
        if *used >= max {
            return None;
        }
        *used += 1;
        Some(self.request_retries + self.stream_retries)
    }
}

/// A factor in `[0.9, 1.1)`, random enough to spread retries of concurrent turns.
fn jitter() -> f64 {
    // `RandomState` is seeded randomly per instance; no need for a random-number crate.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    0.9 + (random % 1000) as f64 / 5000.0
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::model::error::StatusError;
    use crate::model::{ContentItem, ModelListFuture, ResponseItem};

    /// A client that plays one scripted attempt per call.
    struct FakeClient {
        attempts: Mutex<Vec<Vec<Result<ModelEvent, ModelError>>>>,
        calls: Mutex<u32>,
    }

    impl FakeClient {
        fn new(attempts: Vec<Vec<Result<ModelEvent, ModelError>>>) -> Arc<Self> {
            Arc::new(Self {
                attempts: Mutex::new(attempts.into_iter().rev().collect()),
                calls: Mutex::new(0),
            })
        }

        fn calls(&self) -> u32 {
            *self.calls.lock().unwrap()
        }
    }

    impl ModelClient for FakeClient {
        fn stream(&self, _request: ModelRequest) -> ModelStream {
            *self.calls.lock().unwrap() += 1;
            let events = self.attempts.lock().unwrap().pop().unwrap_or_default();
            Box::pin(futures::stream::iter(events))
        }

        fn list_models(&self) -> ModelListFuture<'_> {
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    fn request() -> ModelRequest {
        ModelRequest {
            model: "fake".to_string(),
            instructions: String::new(),
            input: Vec::new(),
            tools: Vec::new(),
            effort: None,
            summary: None,
            output_schema: None,
            thread_id: "thread".to_string(),
            turn_id: "turn".to_string(),
        }
    }

    /// A policy with a 1 ms base delay, so the tests wait little.
    fn policy(request_max_retries: u32, stream_max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            request_max_retries,
            stream_max_retries,
            base_delay: Duration::from_millis(1),
        }
    }

    fn http_500() -> ModelError {
        ModelError::Status(Box::new(StatusError {
            status: 500,
            message: "boom".to_string(),
            code: None,
            retry_after: None,
            provider: "Fake".to_string(),
            model: "fake".to_string(),
            env_key: None,
        }))
    }

    fn dropped() -> ModelError {
        ModelError::StreamDisconnected {
            detail: "stream closed before response.completed".to_string(),
            transport_error: None,
        }
    }

    fn message_added() -> ModelEvent {
        ModelEvent::OutputItemAdded(ResponseItem::Message {
            id: Some("msg_1".to_string()),
            role: "assistant".to_string(),
            content: Vec::<ContentItem>::new(),
        })
    }

    fn completed() -> ModelEvent {
        ModelEvent::Completed {
            response_id: "resp_1".to_string(),
            usage: None,
        }
    }

    /// Collects the stream, replacing retry delays (which carry jitter) by zero.
    async fn collect(
        client: Arc<FakeClient>,
        policy: RetryPolicy,
    ) -> Vec<Result<RetryEvent, ModelError>> {
        stream_with_retries(client, request(), policy)
            .map(|item| match item {
                Ok(RetryEvent::Retrying {
                    error,
                    attempt,
                    delay,
                }) => {
                    assert!(delay >= Duration::from_micros(900), "{delay:?}");
                    assert!(delay <= Duration::from_millis(10), "{delay:?}");
                    Ok(RetryEvent::Retrying {
                        error,
                        attempt,
                        delay: Duration::ZERO,
                    })
                }
                other => other,
            })
            .collect()
            .await
    }

    fn retrying(error: ModelError, attempt: u32) -> Result<RetryEvent, ModelError> {
        Ok(RetryEvent::Retrying {
            error,
            attempt,
            delay: Duration::ZERO,
        })
    }

    #[tokio::test]
    async fn retries_before_output() {
        let client = FakeClient::new(vec![
            vec![Err(http_500())],
            vec![Err(dropped())],
            vec![Ok(message_added()), Ok(completed())],
        ]);
        let events = collect(client.clone(), policy(4, 5)).await;
        assert_eq!(
            events,
            vec![
                retrying(http_500(), 1),
                retrying(dropped(), 2),
                Ok(RetryEvent::Event(message_added())),
                Ok(RetryEvent::Event(completed())),
            ]
        );
        assert_eq!(client.calls(), 3);
    }

    #[tokio::test]
    async fn gives_up_after_output() {
        let client = FakeClient::new(vec![
            vec![Ok(message_added()), Err(dropped())],
            vec![Ok(completed())],
        ]);
        let events = collect(client.clone(), policy(4, 5)).await;
        assert_eq!(
            events,
            vec![Ok(RetryEvent::Event(message_added())), Err(dropped())]
        );
        assert_eq!(client.calls(), 1);
    }

    #[tokio::test]
    async fn respects_max_retries() {
        let client = FakeClient::new(vec![
            vec![Err(http_500())],
            vec![Err(http_500())],
            vec![Err(http_500())],
        ]);
        let events = collect(client.clone(), policy(2, 5)).await;
        assert_eq!(
            events,
            vec![
                retrying(http_500(), 1),
                retrying(http_500(), 2),
                Err(http_500()),
            ]
        );
        assert_eq!(client.calls(), 3);

        let client = FakeClient::new(vec![vec![Err(dropped())], vec![Err(dropped())]]);
        let events = collect(client.clone(), policy(4, 0)).await;
        assert_eq!(events, vec![Err(dropped())]);
        assert_eq!(client.calls(), 1);
    }

    #[tokio::test]
    async fn does_not_retry_fatal_errors() {
        let failed = ModelError::ResponseFailed {
            code: None,
            message: "mock failure".to_string(),
        };
        let client = FakeClient::new(vec![vec![Err(failed.clone())], vec![Ok(completed())]]);
        let events = collect(client.clone(), policy(4, 5)).await;
        assert_eq!(events, vec![Err(failed)]);
        assert_eq!(client.calls(), 1);
    }

    fn throttled(retry_after: Duration) -> ModelError {
        ModelError::Status(Box::new(StatusError {
            status: 429,
            message: "slow down".to_string(),
            code: None,
            retry_after: Some(retry_after),
            provider: "Fake".to_string(),
            model: "fake".to_string(),
            env_key: None,
        }))
    }

    /// The wait before a retry is real time passing, so the clock is paused and advanced.
    #[tokio::test(start_paused = true)]
    async fn waits_the_servers_retry_after_capped_at_the_maximum() {
        for (retry_after, expected) in [
            (Duration::from_secs(3), Duration::from_secs(3)),
            // A saturated `Retry-After: 1e20` waits the cap, not forever.
            (Duration::MAX, MAX_RETRY_AFTER),
        ] {
            let client = FakeClient::new(vec![
                vec![Err(throttled(retry_after))],
                vec![Ok(completed())],
            ]);
            let started = tokio::time::Instant::now();
            let events: Vec<_> =
                stream_with_retries(client.clone(), request(), RetryPolicy::default())
                    .collect()
                    .await;
            let waited = started.elapsed();
            assert!(
                waited >= expected && waited < expected + Duration::from_millis(5),
                "{waited:?}"
            );
            assert_eq!(events.last(), Some(&Ok(RetryEvent::Event(completed()))));
            assert_eq!(client.calls(), 2);
        }
    }

    #[test]
    fn backoff_grows_and_honours_retry_after() {
        let policy = RetryPolicy::default();
        let delay = |attempt| policy.delay(attempt, &http_500());
        assert!(delay(1) >= Duration::from_millis(180) && delay(1) < Duration::from_millis(220));
        assert!(delay(3) >= Duration::from_millis(720) && delay(3) < Duration::from_millis(880));
        assert!(delay(30) <= Duration::from_millis(5500));
        let throttled = ModelError::Status(Box::new(StatusError {
            status: 429,
            message: "slow down".to_string(),
            code: None,
            retry_after: Some(Duration::from_secs(3)),
            provider: "Fake".to_string(),
            model: "fake".to_string(),
            env_key: None,
        }));
        assert_eq!(policy.delay(1, &throttled), Duration::from_secs(3));
    }
}
