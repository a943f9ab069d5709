//! `feedback/save`: a local bundle of a thread's rollout and the server's logs, secrets
//! masked (the bundle itself is `crate::feedback`).

use std::path::PathBuf;

use app_server_protocol::housekeeping::{FeedbackSaveParams, FeedbackSaveResponse};
use serde_json::json;

use crate::engine::settings::no_rollout;
use crate::engine::{Engine, EngineError};
use crate::feedback::{Attachment, log_files, write_bundle};
use crate::sync::lock;

impl Engine {
    /// `feedback/save`: writes the bundle at `save_path` (already checked against the
    /// connection's file roots), with the rollout of `params.threadId` (one of the caller's
    /// threads) and, with `includeLogs`, the server's logs and `extra_logs` (checked too).
    pub async fn save_feedback(
        &self,
        params: FeedbackSaveParams,
        save_path: PathBuf,
        extra_logs: Vec<PathBuf>,
    ) -> Result<FeedbackSaveResponse, EngineError> {
        let (thread_id, rollout) = match &params.thread_id {
            Some(thread_id) => {
                let owned = self.owned_thread(thread_id, no_rollout).await?;
                let id = owned.id().to_owned();
                let rollout = match owned.loaded() {
                    Some(thread) => {
                        let state = lock(&thread.state);
                        (!state.ephemeral).then(|| state.meta.rollout_path.clone())
                    }
                    None => {
                        let finding = id.clone();
                        self.inner
                            .store
                            .blocking(move |store| store.find(&finding))
                            .await?
                            .map(|meta| meta.rollout_path)
                    }
                };
                (id, rollout)
            }
            None => (format!("no-active-thread-{}", uuid::Uuid::now_v7()), None),
        };
        let report = json!({
            "classification": params.classification,
            "reason": params.reason,
            "threadId": thread_id,
            "tags": params.tags.unwrap_or_default(),
            "createdAt": humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            "server": format!("tandem {}", env!("CARGO_PKG_VERSION")),
            "os": std::env::consts::OS,
        });
        let home = self.config().home.clone();
        let redactor = self.inner.store.redactor().clone();
        let include_logs = params.include_logs;
        let target = save_path.clone();
        tokio::task::spawn_blocking(move || {
            let mut attachments = Vec::new();
            if include_logs {
                for log in log_files(&home).into_iter().chain(extra_logs) {
                    attachments.extend(Attachment::read(&log, "text/plain", &redactor));
                }
            }
            if let Some(rollout) = rollout {
                attachments.extend(Attachment::read(&rollout, "text/plain", &redactor));
            }
            write_bundle(&target, &report, &attachments)
        })
        .await
        .map_err(|error| EngineError::Internal(format!("failed to save feedback: {error}")))?
        .map_err(|error| EngineError::Internal(format!("failed to save feedback: {error}")))?;
        Ok(FeedbackSaveResponse {
            saved_path: save_path.to_string_lossy().into_owned(),
            thread_id,
            prompt_hash: None,
        })
    }
}
