//! `initialize`: the per-connection handshake that fixes the connection's capabilities,
//! notification filters and user agent.

use std::collections::HashSet;

use app_server_protocol::initialize::{InitializeParams, InitializeResponse};
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::tables::ClientRequest;
use serde_json::Value;

use super::{Processor, Session};
use crate::outgoing::NotificationFilter;
use crate::rpc_error::{internal_error, invalid_request};

impl Processor {
    pub(super) async fn initialize(&self, id: RequestId, message: Value) {
        let _guard = self.initialize_lock.lock().await;
        if self.session.get().is_some() {
            self.outgoing
                .send_error(id, invalid_request("Already initialized"))
                .await;
            return;
        }
        let params: InitializeParams = match serde_json::from_value::<ClientRequest>(message) {
            Ok(ClientRequest::Initialize { params, .. }) => params,
            Ok(_) => {
                self.outgoing
                    .send_error(id, internal_error("initialize decoded as another method"))
                    .await;
                return;
            }
            Err(error) => {
                self.outgoing
                    .send_error(id, invalid_request(format!("Invalid request: {error}")))
                    .await;
                return;
            }
        };
        let capabilities = params.capabilities.unwrap_or_default();
        let experimental = capabilities.experimental_api.unwrap_or(false);
        self.outgoing.set_filter(NotificationFilter {
            experimental,
            opted_out: capabilities
                .opt_out_notification_methods
                .unwrap_or_default()
                .into_iter()
                .collect::<HashSet<_>>(),
        });
        self.engine.set_originator(&params.client_info.name);
        // The structured dialogs are experimental server requests: only a client that opted
        // in can answer them, so only its model is offered `ask_user` and `ask_user_question`.
        self.engine.set_dialogs(experimental);
        if let Some(approver) = &self.approver {
            approver
                .set_user_input_method(capabilities.request_user_input_method.unwrap_or_default());
        }
        let agent = crate::compat::requests::user_agent(
            &self.os_release,
            &params.client_info.name,
            &params.client_info.version,
        );
        self.conversation_api.set_user_agent(agent.clone());
        let _ = self.session.set(Session { experimental });
        let response = InitializeResponse {
            user_agent: agent,
            codex_home: self.engine.config().home.to_string_lossy().into_owned(),
            platform_family: if cfg!(windows) { "windows" } else { "unix" }.to_string(),
            platform_os: std::env::consts::OS.to_string(),
        };
        self.outgoing.send_response(id, &response).await;
    }
}
