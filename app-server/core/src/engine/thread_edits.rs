//! Edits of a thread's stored metadata and model history: `thread/metadata/update`,
//! `thread/inject_items` and `thread/revert`.
//!
//! Each change is a rollout record (a `settings` line with the new metadata, a `response_item`
//! line per injected item, a `rollback` line), so that a reader or a later resume rebuilds the
//! same thread, and the index row follows the metadata.

use std::sync::Arc;

use app_server_protocol::notifications::ThreadStatusChangedNotification;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{GitInfo, ThreadStatus};
use app_server_protocol::thread_lifecycle::{
    ThreadInjectItemsParams, ThreadMetadataGitInfoUpdateParams, ThreadMetadataUpdateParams,
    ThreadMetadataUpdateResponse, ThreadRevertParams, ThreadRevertResponse,
};

use crate::engine::owner::thread_not_found;
use crate::engine::queries::encode_offset_cursor;
use crate::engine::settings::no_rollout;
use crate::engine::thread::{LoadedThread, thread_from_meta};
use crate::engine::{Engine, EngineError};
use crate::model::ResponseItem;
use crate::store::{RolloutRecord, RolloutWriter, ThreadMeta};
use crate::sync::lock;

/// Most items one `thread/inject_items` may append.
pub const MAX_INJECTED_ITEMS: usize = 1024;

impl Engine {
    /// `thread/metadata/update`: patches the Git information and the Daybreak choice of a
    /// loaded or stored (not archived) thread, records them and returns the thread.
    pub async fn update_thread_metadata(
        &self,
        params: ThreadMetadataUpdateParams,
    ) -> Result<ThreadMetadataUpdateResponse, EngineError> {
        let owned = self.owned_thread(&params.thread_id, no_rollout).await?;
        let id = owned.id().to_owned();
        let patch = MetadataPatch::check(params)?;
        if let Some(thread) = owned.loaded() {
            let (thread_view, persisted) = {
                let mut state = lock(&thread.state);
                patch.apply(&mut state.meta);
                let meta = state.meta.clone();
                state.record(&RolloutRecord::Settings { meta: meta.clone() });
                (state.to_thread(), state.writer.is_some().then_some(meta))
            };
            if let Some(meta) = persisted {
                self.inner
                    .store
                    .blocking(move |store| store.update_meta(&meta))
                    .await?;
            }
            return Ok(ThreadMetadataUpdateResponse {
                thread: thread_view,
            });
        }
        let updating = id.clone();
        let updated = self
            .inner
            .store
            .blocking(move |store| {
                let Some(mut meta) = store.find(&updating)? else {
                    return Ok(None);
                };
                if meta.archived {
                    return Ok(None);
                }
                patch.apply(&mut meta);
                let mut writer = store.append_writer(&updating)?;
                writer.append(&RolloutRecord::Settings { meta: meta.clone() })?;
                writer.sync()?;
                store.update_meta(&meta)?;
                Ok(Some(meta))
            })
            .await?;
        match updated {
            Some(meta) => Ok(ThreadMetadataUpdateResponse {
                thread: thread_from_meta(&meta, ThreadStatus::NotLoaded, false),
            }),
            None => Err(no_rollout(&id)),
        }
    }

    /// `thread/inject_items`: appends raw Responses API items to a loaded thread's model
    /// history (and its rollout, created now for a thread that has none yet). They are sent
    /// with the next model request and are no turn or item of the thread.
    pub async fn inject_items(&self, params: ThreadInjectItemsParams) -> Result<(), EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        let Some(thread) = owned.loaded().cloned() else {
            return Err(thread_not_found(owned.id()));
        };
        if params.items.is_empty() {
            return Err(EngineError::InvalidRequest(
                "items must not be empty".into(),
            ));
        }
        if params.items.len() > MAX_INJECTED_ITEMS {
            return Err(EngineError::InvalidRequest(format!(
                "items must hold at most {MAX_INJECTED_ITEMS} entries"
            )));
        }
        let mut items = Vec::with_capacity(params.items.len());
        for (index, value) in params.items.into_iter().enumerate() {
            let item: ResponseItem = serde_json::from_value(value).map_err(|error| {
                EngineError::InvalidRequest(format!(
                    "items[{index}] is not a valid response item: {error}"
                ))
            })?;
            items.push(item);
        }
        self.persist_now(&thread).await?;
        let mut state = lock(&thread.state);
        let turn_id = state
            .turns
            .last()
            .map(|turn| turn.id.clone())
            .unwrap_or_default();
        for item in items {
            state.push_history(&turn_id, item);
        }
        Ok(())
    }

    /// `thread/revert`: drops turn `beforeTurnId` and every later turn of a loaded, idle
    /// thread, and cuts the model history back to where that turn began (recorded as a
    /// rollback). Emits `thread/status/changed` `notLoaded` then the thread's status, as the
    /// reference does when it reloads the thread; the caller sends `thread/reverted` after
    /// the answer.
    pub async fn revert_thread(
        &self,
        params: ThreadRevertParams,
    ) -> Result<ThreadRevertResponse, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        let Some(thread) = owned.loaded().cloned() else {
            return Err(thread_not_found(owned.id()));
        };
        let (response, status, sync) = {
            let mut state = lock(&thread.state);
            if state.active.is_some() {
                return Err(EngineError::InvalidRequest(
                    "cannot revert while a turn is in progress".into(),
                ));
            }
            let Some(keep) = state
                .turns
                .iter()
                .position(|turn| turn.id == params.before_turn_id)
            else {
                return Err(EngineError::InvalidRequest(format!(
                    "turn not found: {}",
                    params.before_turn_id
                )));
            };
            let num_turns = u32::try_from(state.turns.len() - keep).unwrap_or(u32::MAX);
            let history_len = state
                .turn_starts
                .iter()
                .find(|(started, _)| *started == params.before_turn_id)
                .map_or(state.history.len(), |(_, start)| *start)
                .min(state.history.len());
            state.turns.truncate(keep);
            state.history.truncate(history_len);
            let kept: std::collections::HashSet<String> =
                state.turns.iter().map(|turn| turn.id.clone()).collect();
            state
                .turn_starts
                .retain(|(turn_id, _)| kept.contains(turn_id));
            state.record(&RolloutRecord::Rollback {
                num_turns,
                history_len,
            });
            let has_items = state.turns.iter().any(|turn| !turn.items.is_empty());
            let response = ThreadRevertResponse {
                thread: state.to_thread(),
                turns_backwards_cursor: (!state.turns.is_empty()).then(|| encode_offset_cursor(0)),
                items_backwards_cursor: has_items.then(|| encode_offset_cursor(0)),
            };
            (
                response,
                state.status.clone(),
                state.writer.as_ref().map(RolloutWriter::sync_handle),
            )
        };
        // The revert is durable before it is answered; the fsync runs off the async workers.
        if let Some(sync) = sync {
            tokio::task::spawn_blocking(move || sync.sync())
                .await
                .map_err(|error| EngineError::Internal(error.to_string()))?
                .map_err(|error| EngineError::Internal(error.to_string()))?;
        }
        for status in [ThreadStatus::NotLoaded, status] {
            self.emit(ServerNotification::ThreadStatusChanged(
                ThreadStatusChangedNotification {
                    thread_id: thread.id.clone(),
                    status,
                },
            ))
            .await;
        }
        Ok(response)
    }
}

impl Engine {
    /// Creates the rollout of a loaded thread that has none yet (it ran no turn), so that a
    /// change recorded next is kept; an ephemeral thread stays without one.
    pub(super) async fn persist_now(&self, thread: &Arc<LoadedThread>) -> Result<(), EngineError> {
        let unpersisted = {
            let state = lock(&thread.state);
            (!state.ephemeral && state.writer.is_none()).then(|| state.meta.clone())
        };
        if let Some(meta) = unpersisted {
            // Off the async workers, and never under the thread's lock.
            let writer = self
                .inner
                .store
                .blocking(move |store| store.create(&meta))
                .await?;
            let mut state = lock(&thread.state);
            if state.writer.is_none() {
                state.writer = Some(writer);
            }
        }
        Ok(())
    }
}

/// A checked `thread/metadata/update`.
struct MetadataPatch {
    git_info: Option<ThreadMetadataGitInfoUpdateParams>,
    daybreak_enabled: Option<bool>,
}

impl MetadataPatch {
    /// The reference's checks: at least one field, no empty Git field, and no project (Tandem
    /// keeps none, so only the empty string, which clears it, is accepted).
    fn check(params: ThreadMetadataUpdateParams) -> Result<MetadataPatch, EngineError> {
        if params.git_info.is_none()
            && params.project_id.is_none()
            && params.daybreak_enabled.is_none()
        {
            return Err(EngineError::InvalidRequest(
                "thread metadata update must include at least one field".into(),
            ));
        }
        if let Some(git) = &params.git_info {
            for (name, value) in [
                ("sha", &git.sha),
                ("branch", &git.branch),
                ("originUrl", &git.origin_url),
            ] {
                if let Some(Some(text)) = value
                    && text.trim().is_empty()
                {
                    return Err(EngineError::InvalidRequest(format!(
                        "gitInfo.{name} must not be empty"
                    )));
                }
            }
        }
        if let Some(project) = params.project_id.as_deref()
            && !project.is_empty()
        {
            return Err(EngineError::InvalidRequest(format!(
                "project not found: {project}"
            )));
        }
        Ok(MetadataPatch {
            git_info: params.git_info,
            daybreak_enabled: params.daybreak_enabled,
        })
    }

    fn apply(&self, meta: &mut ThreadMeta) {
        if let Some(patch) = &self.git_info {
            let mut git = meta.git_info.clone().unwrap_or(GitInfo {
                sha: None,
                branch: None,
                origin_url: None,
            });
            if let Some(sha) = &patch.sha {
                git.sha = sha.clone();
            }
            if let Some(branch) = &patch.branch {
                git.branch = branch.clone();
            }
            if let Some(origin_url) = &patch.origin_url {
                git.origin_url = origin_url.clone();
            }
            meta.git_info = Some(git);
        }
        if let Some(enabled) = self.daybreak_enabled {
            meta.daybreak_enabled = Some(enabled);
        }
    }
}
