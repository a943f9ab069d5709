//! `threadSection/create|list|update|delete` and `thread/section/move`. As the reference
//! does, a refused section request (an empty name, an unknown section, the built-in section)
//! is `-32602`, and a refused move is `-32600`; a move is followed by
//! `thread/section/changed`.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_section::{
    ThreadSectionCreateParams, ThreadSectionCreateResponse, ThreadSectionDeleteParams,
    ThreadSectionDeleteResponse, ThreadSectionListParams, ThreadSectionMoveParams,
    ThreadSectionMoveResponse, ThreadSectionUpdateParams, ThreadSectionUpdateResponse,
};

use crate::processor::Processor;

impl Processor {
    /// `threadSection/create`.
    pub(super) async fn thread_section_create(
        &self,
        id: RequestId,
        params: ThreadSectionCreateParams,
    ) {
        match self.engine.create_section(params).await {
            Ok(section) => {
                self.outgoing
                    .send_response(id, &ThreadSectionCreateResponse { section })
                    .await;
            }
            Err(error) => self.send_params_error(id, error).await,
        }
    }

    /// `threadSection/list`.
    pub(super) async fn thread_section_list(&self, id: RequestId, params: ThreadSectionListParams) {
        match self.engine.list_sections(params).await {
            Ok(response) => self.outgoing.send_response(id, &response).await,
            Err(error) => self.send_params_error(id, error).await,
        }
    }

    /// `threadSection/update`.
    pub(super) async fn thread_section_update(
        &self,
        id: RequestId,
        params: ThreadSectionUpdateParams,
    ) {
        match self.engine.update_section(params).await {
            Ok(section) => {
                self.outgoing
                    .send_response(id, &ThreadSectionUpdateResponse { section })
                    .await;
            }
            Err(error) => self.send_params_error(id, error).await,
        }
    }

    /// `threadSection/delete`.
    pub(super) async fn thread_section_delete(
        &self,
        id: RequestId,
        params: ThreadSectionDeleteParams,
    ) {
        match self.engine.delete_section(params).await {
            Ok(()) => {
                self.outgoing
                    .send_response(id, &ThreadSectionDeleteResponse {})
                    .await;
            }
            Err(error) => self.send_params_error(id, error).await,
        }
    }

    /// `thread/section/move`: the empty answer, then `thread/section/changed`.
    pub(super) async fn thread_section_move(&self, id: RequestId, params: ThreadSectionMoveParams) {
        match self.engine.move_to_section(params).await {
            Ok(changed) => {
                self.outgoing
                    .send_response(id, &ThreadSectionMoveResponse {})
                    .await;
                self.notify(ServerNotification::ThreadSectionChanged(changed))
                    .await;
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }
}
