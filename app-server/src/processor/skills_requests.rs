//! The skills methods of the app-server (`skills/list`, `skills/config/write`,
//! `skills/extraRoots/set`): the engine finds and writes, this module checks what the client
//! names and sends the answers.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::skills::{
    SkillsChangedNotification, SkillsConfigWriteParams, SkillsExtraRootsSetParams, SkillsListParams,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::EmptyResponse;
use std::sync::Arc;

use tandem_core::file_access::FileUse;

use crate::utility::skills_watch::OnChange;

use crate::processor::Processor;
use crate::rpc_error::{config_write_error, invalid_params, invalid_request};

impl Processor {
    /// Watches, for `skills/changed`, the skill directories that `roots` names when run with
    /// the engine on the blocking pool (the roots are found on disk, and watching walks them).
    /// Called before the answer of the request that names them, so that any change made once
    /// the client has its answer is reported.
    pub(super) async fn watch_skill_roots<F>(&self, roots: F)
    where
        F: FnOnce(&tandem_core::engine::Engine) -> Vec<std::path::PathBuf> + Send + 'static,
    {
        let (engine, watch) = (self.engine.clone(), self.utilities.skills_watch.clone());
        let outgoing = self.outgoing.clone();
        let on_change: OnChange = Arc::new(move || {
            let outgoing = outgoing.clone();
            Box::pin(async move {
                let notification = ServerNotification::SkillsChanged(SkillsChangedNotification {});
                outgoing.send_notification(&notification).await;
            })
        });
        let watched =
            tokio::task::spawn_blocking(move || watch.add_roots(roots(&engine), &on_change));
        if let Err(error) = watched.await {
            tracing::warn!(%error, "watching skill directories failed");
        }
    }

    /// `skills/list`.
    pub(super) async fn skills_list(&self, id: RequestId, params: SkillsListParams) {
        let result = self.engine.list_skills(params).await;
        self.respond(id, result).await;
    }

    /// `skills/config/write`: exactly one of `path` and `name`, as the reference requires.
    pub(super) async fn skills_config_write(&self, id: RequestId, params: SkillsConfigWriteParams) {
        if params.path.is_some() == params.name.is_some() {
            let error = invalid_params("skills/config/write requires exactly one of path or name");
            self.outgoing.send_error(id, error).await;
            return;
        }
        let result = self
            .engine
            .write_skill_config(params)
            .await
            .map_err(|error| config_write_error(&error));
        self.reply(id, result).await;
    }

    /// `skills/extraRoots/set`: every root must be an absolute directory within the
    /// connection's file roots; `skills/changed` comes just before the answer when the list
    /// changed.
    pub(super) async fn skills_extra_roots_set(
        &self,
        id: RequestId,
        params: SkillsExtraRootsSetParams,
    ) {
        let roots = self
            .with_file_roots(move |file_roots| {
                params
                    .extra_roots
                    .iter()
                    .map(|root| {
                        let resolved = file_roots
                            .check_tree(root, FileUse::Read)
                            .map_err(|error| invalid_request(error.to_string()))?;
                        if !resolved.is_dir() {
                            return Err(invalid_request(format!(
                                "skill root `{root}` is not a directory"
                            )));
                        }
                        Ok(resolved)
                    })
                    .collect::<Result<Vec<_>, JsonRpcErrorBody>>()
            })
            .await;
        let changed = match roots.map(|roots| {
            self.engine
                .set_skill_extra_roots(roots)
                .map_err(|error| invalid_request(error.to_string()))
        }) {
            Ok(Ok(changed)) => changed,
            Ok(Err(error)) | Err(error) => {
                self.outgoing.send_error(id, error).await;
                return;
            }
        };
        // As the reference does, the notification goes out before the answer.
        if changed {
            self.notify(ServerNotification::SkillsChanged(
                SkillsChangedNotification {},
            ))
            .await;
        }
        self.watch_skill_roots(|engine| engine.skill_extra_roots())
            .await;
        self.outgoing.send_response(id, &EmptyResponse {}).await;
    }
}
