//! The housekeeping methods of the app-server: `feedback/save` (the paths it names checked
//! against the connection's file roots, the bundle written by the engine), `plugin/list`, and
//! `externalAgentConfig/*` (the repositories they name checked the same way).

use app_server_protocol::external_agent::{
    ExternalAgentConfigDetectParams, ExternalAgentConfigImportNotification,
    ExternalAgentConfigImportParams, ExternalAgentConfigImportResponse,
};
use app_server_protocol::housekeeping::{FeedbackSaveParams, PluginListParams, PluginListResponse};
use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::tables::ServerNotification;
use tandem_core::file_access::FileUse;

use crate::processor::Processor;
use crate::rpc_error::invalid_request;

/// The most extra log files one bundle takes.
const MAX_EXTRA_LOG_FILES: usize = 16;
/// The most repositories one detection looks at.
const MAX_DETECT_CWDS: usize = 64;

impl Processor {
    /// `feedback/save`.
    pub(super) async fn feedback_save(&self, id: RequestId, params: FeedbackSaveParams) {
        if !std::path::Path::new(&params.save_path).is_absolute() {
            let error = invalid_request("feedback savePath must be an absolute host path");
            self.outgoing.send_error(id, error).await;
            return;
        }
        let extra = params.extra_log_files.clone().unwrap_or_default();
        if extra.len() > MAX_EXTRA_LOG_FILES {
            let error = invalid_request(format!(
                "feedback/save takes at most {MAX_EXTRA_LOG_FILES} extraLogFiles, got {}",
                extra.len()
            ));
            self.outgoing.send_error(id, error).await;
            return;
        }
        let save_path = params.save_path.clone();
        let checked = self
            .with_file_roots(move |roots| {
                let refused = |error: tandem_core::file_access::FileAccessError| {
                    invalid_request(error.to_string())
                };
                let save_path = roots.check(&save_path, FileUse::Write).map_err(refused)?;
                let extra = extra
                    .iter()
                    .map(|path| roots.check(path, FileUse::Read).map_err(refused))
                    .collect::<Result<Vec<_>, JsonRpcErrorBody>>()?;
                Ok((save_path, extra))
            })
            .await;
        let (save_path, extra) = match checked {
            Ok(checked) => checked,
            Err(error) => {
                self.outgoing.send_error(id, error).await;
                return;
            }
        };
        let result = self.engine.save_feedback(params, save_path, extra).await;
        self.respond(id, result).await;
    }

    /// `plugin/list`: Tandem installs no plugins, and a remote catalogue is not supported.
    pub(super) async fn plugin_list(&self, id: RequestId, params: PluginListParams) {
        let remote = params
            .marketplace_kinds
            .iter()
            .flatten()
            .find(|kind| kind.as_str() != "local");
        let result = match remote {
            Some(kind) => Err(invalid_request(format!(
                "marketplace kind `{kind}` is a remote plugin catalogue, which is not supported by this server"
            ))),
            None => Ok(PluginListResponse::default()),
        };
        self.reply(id, result).await;
    }

    /// `externalAgentConfig/detect`: each repository must lie within the file roots.
    pub(super) async fn external_agent_detect(
        &self,
        id: RequestId,
        params: ExternalAgentConfigDetectParams,
    ) {
        let cwds = params.cwds.unwrap_or_default();
        if cwds.len() > MAX_DETECT_CWDS {
            let error = invalid_request(format!(
                "externalAgentConfig/detect takes at most {MAX_DETECT_CWDS} cwds, got {}",
                cwds.len()
            ));
            self.outgoing.send_error(id, error).await;
            return;
        }
        let checked = self.checked_directories(cwds, FileUse::Read).await;
        let result = match checked {
            Ok(cwds) => self
                .engine
                .detect_external_agent_config(cwds, params.include_home.unwrap_or(false))
                .await
                .map_err(engine_error),
            Err(error) => Err(error),
        };
        self.reply(id, result).await;
    }

    /// `externalAgentConfig/import`: answers with the import's id, then sends each item's
    /// outcome as `externalAgentConfig/import/progress` and all of them as
    /// `externalAgentConfig/import/completed`.
    pub(super) async fn external_agent_import(
        &self,
        id: RequestId,
        params: ExternalAgentConfigImportParams,
    ) {
        let cwds: Vec<String> = params
            .migration_items
            .iter()
            .filter_map(|item| item.cwd.clone().filter(|cwd| !cwd.is_empty()))
            .collect();
        if let Err(error) = self.checked_directories(cwds, FileUse::Write).await {
            self.outgoing.send_error(id, error).await;
            return;
        }
        let results = match self
            .engine
            .import_external_agent_config(params.migration_items)
            .await
        {
            Ok(results) => results,
            Err(error) => {
                self.send_engine_error(id, error).await;
                return;
            }
        };
        let import_id = uuid::Uuid::now_v7().to_string();
        let response = ExternalAgentConfigImportResponse {
            import_id: import_id.clone(),
        };
        self.outgoing.send_response(id, &response).await;
        for result in &results {
            self.notify(ServerNotification::ExternalAgentConfigImportProgress(
                ExternalAgentConfigImportNotification {
                    import_id: import_id.clone(),
                    item_type_results: vec![result.clone()],
                },
            ))
            .await;
        }
        self.notify(ServerNotification::ExternalAgentConfigImportCompleted(
            ExternalAgentConfigImportNotification {
                import_id,
                item_type_results: results,
            },
        ))
        .await;
    }

    /// `paths`, each an absolute directory within the connection's file roots for `use_`.
    async fn checked_directories(
        &self,
        paths: Vec<String>,
        use_: FileUse,
    ) -> Result<Vec<std::path::PathBuf>, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            paths
                .iter()
                .map(|path| {
                    let resolved = roots
                        .check(path, use_)
                        .map_err(|error| invalid_request(error.to_string()))?;
                    if !resolved.is_dir() {
                        return Err(invalid_request(format!("`{path}` is not a directory")));
                    }
                    Ok(resolved)
                })
                .collect()
        })
        .await
    }
}

fn engine_error(error: tandem_core::engine::EngineError) -> JsonRpcErrorBody {
    match error {
        tandem_core::engine::EngineError::InvalidRequest(message) => invalid_request(message),
        tandem_core::engine::EngineError::Internal(message) => {
            crate::rpc_error::internal_error(message)
        }
    }
}
