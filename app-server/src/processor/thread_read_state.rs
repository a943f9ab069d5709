//! `thread/read` with the thread's read state, and `thread/readState/update`:
//! `thread/readState/changed` to the thread's subscribers, then the answer, in the reference's
//! order. As the reference does, an edit
//! naming a revision the caller did not see is `-32600` "read state changed" with
//! `{ "reason": "readStateConflict", "readState": ... }` in `data`, and a `threadId` that is no
//! thread id is `-32602`.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::thread_read_state::{
    ThreadReadStateUpdateParams, ThreadReadStateUpdateResponse,
};
use app_server_protocol::thread_requests::{ThreadReadParams, ThreadReadResponse};
use tandem_core::engine::normalize_thread_id;
use tandem_core::engine::read_state::ReadStateEdited;

use crate::processor::Processor;
use crate::rpc_error::{invalid_params, invalid_request};

impl Processor {
    /// `thread/read`.
    pub(super) async fn thread_read(&self, id: RequestId, params: ThreadReadParams) {
        let result = match self.engine.read_thread(params).await {
            Ok(thread) => match self.engine.read_state_of(&thread).await {
                Ok(read_state) => Ok(ThreadReadResponse { thread, read_state }),
                Err(error) => Err(error),
            },
            Err(error) => Err(error),
        };
        self.respond(id, result).await;
    }

    /// `thread/readState/update`. A `threadId` that is no thread id is `-32602`, as the
    /// reference answers it.
    pub(super) async fn thread_read_state_update(
        &self,
        id: RequestId,
        params: ThreadReadStateUpdateParams,
    ) {
        if let Err(error) = normalize_thread_id(&params.thread_id) {
            self.outgoing
                .send_error(id, invalid_params(error.to_string()))
                .await;
            return;
        }
        match self.engine.update_read_state(params).await {
            Ok(ReadStateEdited::Applied(changed)) => {
                // As the reference orders them: the subscribers hear of the change first.
                let response = ThreadReadStateUpdateResponse {
                    read_state: changed.read_state.clone(),
                };
                self.engine.announce_read_state(changed).await;
                self.outgoing.send_response(id, &response).await;
            }
            Ok(ReadStateEdited::Conflict(current)) => {
                let mut error = invalid_request("read state changed");
                error.data = Some(serde_json::json!({
                    "reason": "readStateConflict",
                    "readState": current,
                }));
                self.outgoing.send_error(id, error).await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }
}
