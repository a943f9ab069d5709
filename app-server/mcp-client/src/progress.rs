//! Progress of tool calls: a call that wants it is sent with the SDK's request handle, whose
//! progress token (the SDK puts one in every request's `_meta`) is registered here while the
//! call waits, so that the server's `notifications/progress` for that token become short
//! messages on the caller's bounded queue.
//!
//! A server's progress is untrusted: notifications for a token that no waiting call holds are
//! dropped, a message is cut to [`PROGRESS_MESSAGE_MAX_BYTES`], and a full queue drops the
//! message rather than wait (progress is advisory; the result is not). Progress sent before
//! the call's token is registered (between the request leaving and the registration, a few
//! instructions) is dropped too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::Peer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ProgressNotificationParam, ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient, ServiceError};
use tokio::sync::mpsc;

/// The longest progress message passed on, in bytes; longer ones are cut at a character
/// boundary.
pub const PROGRESS_MESSAGE_MAX_BYTES: usize = 2048;

/// The calls of one server that wait for progress, by token.
#[derive(Default)]
pub(crate) struct ProgressRoutes {
    routes: Mutex<HashMap<ProgressToken, mpsc::Sender<String>>>,
}

/// A registered token; dropping it stops its progress.
pub(crate) struct ProgressRoute {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
}

/// Calls a tool as the SDK's `call_tool` does (a dropped call tells the server with
/// `notifications/cancelled`), passing the server's progress for it to `progress`.
pub(crate) async fn call_tool_with_progress(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    routes: &Arc<ProgressRoutes>,
    progress: mpsc::Sender<String>,
) -> Result<CallToolResult, ServiceError> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await?;
    let _route = routes.register(handle.progress_token.clone(), progress);
    let mut abandoned = Abandoned {
        peer: peer.clone(),
        id: Some(handle.id.clone()),
    };
    let result = handle.await_response().await;
    abandoned.id = None;
    match result? {
        ServerResult::CallToolResult(result) => Ok(result),
        // A result without content (only `_meta`, say) is still a result.
        other => serde_json::to_value(other)
            .and_then(serde_json::from_value)
            .map_err(|_| ServiceError::UnexpectedResponse),
    }
}

/// Tells the server that a call nobody waits for any more is cancelled.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let reason = Some("request abandoned by the caller".to_owned());
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), reason))
                    .await;
            });
        }
    }
}

impl ProgressRoutes {
    /// Routes the progress of `token` to `sender` until the returned route is dropped.
    pub(crate) fn register(
        self: &Arc<Self>,
        token: ProgressToken,
        sender: mpsc::Sender<String>,
    ) -> ProgressRoute {
        self.lock().insert(token.clone(), sender);
        ProgressRoute {
            routes: self.clone(),
            token,
        }
    }

    /// Passes one `notifications/progress` on to its call, if the call still waits.
    pub(crate) fn deliver(&self, params: &ProgressNotificationParam) {
        let Some(sender) = self.lock().get(&params.progress_token).cloned() else {
            return;
        };
        let message = match (&params.message, params.total) {
            (Some(message), _) => message.clone(),
            (None, Some(total)) => format!("MCP tool progress: {}/{total}", params.progress),
            (None, None) => format!("MCP tool progress: {}", params.progress),
        };
        if sender.try_send(cut(message)).is_err() {
            tracing::debug!("dropping an MCP progress message: the queue is full");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, mpsc::Sender<String>>> {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

/// `message` cut to [`PROGRESS_MESSAGE_MAX_BYTES`].
fn cut(mut message: String) -> String {
    if message.len() > PROGRESS_MESSAGE_MAX_BYTES {
        let mut end = PROGRESS_MESSAGE_MAX_BYTES;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
    }
    message
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::model::{ProgressNotificationParam, ProgressToken};
    use serde_json::json;
    use tokio::sync::mpsc;

    use super::{PROGRESS_MESSAGE_MAX_BYTES, ProgressRoutes};

    fn progress(value: serde_json::Value) -> ProgressNotificationParam {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn progress_reaches_its_call_only_while_it_waits() {
        let routes = Arc::new(ProgressRoutes::default());
        let (sender, mut receiver) = mpsc::channel(1);
        let token: ProgressToken = serde_json::from_value(json!(7)).unwrap();
        let route = routes.register(token, sender);
        routes.deliver(&progress(
            json!({"progressToken": 7, "progress": 1, "total": 4}),
        ));
        // The queue holds one message: the second is dropped, not waited for.
        routes.deliver(&progress(json!({"progressToken": 7, "progress": 2})));
        routes.deliver(&progress(json!({"progressToken": 8, "progress": 3})));
        assert_eq!(
            receiver.try_recv().ok(),
            Some("MCP tool progress: 1/4".to_owned())
        );
        assert!(receiver.try_recv().is_err());
        let long = "é".repeat(PROGRESS_MESSAGE_MAX_BYTES);
        routes.deliver(&progress(
            json!({"progressToken": 7, "progress": 2, "message": long}),
        ));
        let message = receiver.try_recv().unwrap();
        assert_eq!(message.len(), PROGRESS_MESSAGE_MAX_BYTES);
        drop(route);
        routes.deliver(&progress(json!({"progressToken": 7, "progress": 4})));
        assert!(receiver.try_recv().is_err());
    }
}
