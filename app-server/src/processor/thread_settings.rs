//! `thread/settings/update`: the empty answer, then `thread/settings/updated` when a setting
//! changed.

use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_settings::{
    ThreadSettingsUpdateParams, ThreadSettingsUpdateResponse,
};

use crate::processor::Processor;

impl Processor {
    /// `thread/settings/update`.
    pub(super) async fn thread_settings_update(
        &self,
        id: RequestId,
        params: ThreadSettingsUpdateParams,
    ) {
        match self.engine.update_thread_settings(params).await {
            Ok(updated) => {
                self.outgoing
                    .send_response(id, &ThreadSettingsUpdateResponse {})
                    .await;
                if let Some(updated) = updated {
                    self.notify(ServerNotification::ThreadSettingsUpdated(updated))
                        .await;
                }
            }
            Err(error) => self.send_engine_error(id, error).await,
        }
    }
}
