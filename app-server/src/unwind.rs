//! Panic containment for request handlers: a handler that panics answers its request with
//! `-32603` instead of leaving it unanswered.
//!
//! Each request runs on a task of its own, so a panic would only end that task, and the
//! connection would go on; but the client would wait forever for the answer. Both front ends
//! (`processor/` and the MCP session) run their handlers through [`catch_panic`]. Turns have
//! their own guard (`engine/turn_end.rs`), which also ends the turn. State shared with other
//! tasks sits behind mutexes whose poisoning is ignored (`engine::lock`), so what a panicking
//! handler leaves behind stays usable.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

/// Runs `future` to its end; `Err` with the panic's message if it panicked.
pub async fn catch_panic<F: Future>(future: F) -> Result<F::Output, String> {
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .map_err(|panic| panic_message(panic.as_ref()))
}

/// The message of a panic payload (`panic!` with a literal or a formatted string).
fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        return (*message).to_string();
    }
    if let Some(message) = panic.downcast_ref::<String>() {
        return message.clone();
    }
    "the request handler panicked".to_string()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_its_message_and_a_result_passes_through() {
        assert_eq!(catch_panic(async { 7 }).await, Ok(7));
        let literal = catch_panic(async {
            tokio::task::yield_now().await;
            panic!("boom")
        });
        assert_eq!(literal.await, Err::<(), _>("boom".to_string()));
        let index = 3;
        let formatted = catch_panic(async move { panic!("index {index} out of range") });
        assert_eq!(
            formatted.await,
            Err::<(), _>("index 3 out of range".to_string())
        );
        let payload = catch_panic(async { std::panic::panic_any(42_u8) });
        assert_eq!(
            payload.await,
            Err::<(), _>("the request handler panicked".to_string())
        );
    }
}
