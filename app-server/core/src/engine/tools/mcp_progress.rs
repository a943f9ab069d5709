//! An MCP tool call that reports the server's progress: each `notifications/progress` the
//! server sends for the call becomes an `item/mcpToolCall/progress` of its `mcpToolCall`
//! item, before the item completes.

use app_server_protocol::item_progress::McpToolCallProgressNotification;
use app_server_protocol::tables::ServerNotification;
use serde_json::Value;
use tandem_mcp_client::{CallError, CallResult, McpTool};
use tokio::sync::mpsc;

use crate::engine::turn::TurnTask;

/// Progress messages waiting to be announced; more are dropped (by the client crate) rather
/// than slow the server's connection down.
const PROGRESS_QUEUE: usize = 32;

impl TurnTask {
    /// Calls `tool` on its server, announcing its progress as the item `item_id`'s.
    pub(super) async fn call_mcp_tool(
        &self,
        tool: &McpTool,
        arguments: Option<serde_json::Map<String, Value>>,
        item_id: &str,
    ) -> Result<CallResult, CallError> {
        let (sender, mut receiver) = mpsc::channel(PROGRESS_QUEUE);
        let call = self.thread.mcp.call_with_progress(
            &tool.server,
            &tool.name,
            arguments,
            &self.cancel,
            sender,
        );
        tokio::pin!(call);
        let result = loop {
            tokio::select! {
                biased;
                Some(message) = receiver.recv() => self.mcp_progress(item_id, message).await,
                result = &mut call => break result,
            }
        };
        // What arrived with the result is still announced before the item completes.
        while let Ok(message) = receiver.try_recv() {
            self.mcp_progress(item_id, message).await;
        }
        result
    }

    async fn mcp_progress(&self, item_id: &str, message: String) {
        self.emit(ServerNotification::McpToolCallProgress(
            McpToolCallProgressNotification {
                thread_id: self.thread.id.clone(),
                turn_id: self.turn_id.clone(),
                item_id: item_id.to_owned(),
                message,
            },
        ))
        .await;
    }
}
