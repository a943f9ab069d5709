//! Thread sections: `threadSection/create|list|update|delete`, `thread/section/move`, and the
//! section a thread shows in `thread/read` and `thread/list`.
//!
//! Sections belong to the engine's principal (the store keys them by owner), so a caller
//! never sees, changes or moves threads into another principal's sections; a moved thread goes
//! through the one owner check first.

use app_server_protocol::thread::Thread;
use app_server_protocol::thread_section::{
    ThreadSection, ThreadSectionChangedNotification, ThreadSectionCreateParams,
    ThreadSectionDeleteParams, ThreadSectionListParams, ThreadSectionListResponse,
    ThreadSectionMoveParams, ThreadSectionUpdateParams,
};

use crate::clock::unix_millis;
use crate::engine::owner::thread_not_found;
use crate::engine::{Engine, EngineError};
use crate::store::sections::SectionError;

/// A section operation refused or failed: the refusals are the client's to fix, an index
/// failure is the server's.
fn section_error(error: SectionError) -> EngineError {
    match error {
        SectionError::Store(error) => error.into(),
        refused => EngineError::InvalidRequest(refused.to_string()),
    }
}

impl Engine {
    /// `threadSection/create`.
    pub async fn create_section(
        &self,
        params: ThreadSectionCreateParams,
    ) -> Result<ThreadSection, EngineError> {
        let owner = self.principal().clone();
        self.section_work(move |store| {
            store.create_section(&owner, &params.name, params.appearance.as_ref())
        })
        .await
    }

    /// `threadSection/list`.
    pub async fn list_sections(
        &self,
        params: ThreadSectionListParams,
    ) -> Result<ThreadSectionListResponse, EngineError> {
        let owner = self.principal().clone();
        let limit = params.limit.map(|limit| limit.max(1) as usize);
        let (data, next_cursor) = self
            .section_work(move |store| store.list_sections(&owner, params.cursor.as_deref(), limit))
            .await?;
        Ok(ThreadSectionListResponse { data, next_cursor })
    }

    /// `threadSection/update`.
    pub async fn update_section(
        &self,
        params: ThreadSectionUpdateParams,
    ) -> Result<ThreadSection, EngineError> {
        let owner = self.principal().clone();
        self.section_work(move |store| {
            let appearance = params.appearance.as_ref().map(Option::as_ref);
            store.update_section(&owner, &params.section_id, &params.name, appearance)
        })
        .await
    }

    /// `threadSection/delete`.
    pub async fn delete_section(
        &self,
        params: ThreadSectionDeleteParams,
    ) -> Result<(), EngineError> {
        let owner = self.principal().clone();
        self.section_work(move |store| store.delete_section(&owner, &params.section_id))
            .await
    }

    /// `thread/section/move`: the notification that follows the answer. A loaded thread that
    /// has no rollout yet gets one, so that it has its row in the index that lists it.
    pub async fn move_to_section(
        &self,
        params: ThreadSectionMoveParams,
    ) -> Result<ThreadSectionChangedNotification, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        if let Some(thread) = owned.loaded() {
            self.persist_now(thread).await?;
        }
        let thread_id = owned.id().to_owned();
        let before = match params.before_thread_id.as_deref() {
            Some(before) => Some(crate::engine::normalize_thread_id(before)?),
            None => None,
        };
        let owner = self.principal().clone();
        let moving = thread_id.clone();
        let section_id = params.section_id.clone();
        let now = unix_millis() / 1000;
        self.section_work(move |store| {
            store.move_to_section(
                &owner,
                &moving,
                section_id.as_deref(),
                before.as_deref(),
                now,
            )
        })
        .await?;
        Ok(ThreadSectionChangedNotification {
            thread_id,
            section_id: params.section_id,
        })
    }

    /// Fills in the section of each of `threads` that is in one of the caller's sections.
    pub(super) async fn with_sections(&self, threads: &mut [Thread]) -> Result<(), EngineError> {
        if threads.is_empty() {
            return Ok(());
        }
        let owner = self.principal().clone();
        let ids: Vec<String> = threads.iter().map(|thread| thread.id.clone()).collect();
        let mut places = self
            .inner
            .store
            .blocking(move |store| {
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                store.sections_of(&owner, &ids)
            })
            .await?;
        for thread in threads {
            if let Some(place) = places.remove(&thread.id) {
                thread.section = Some(place.section);
                thread.section_entered_at = Some(place.entered_at);
            }
        }
        Ok(())
    }

    /// Runs a section operation of the store on the blocking pool.
    async fn section_work<T, F>(&self, work: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: FnOnce(&crate::store::Store) -> Result<T, SectionError> + Send + 'static,
    {
        let store = std::sync::Arc::clone(&self.inner.store);
        match tokio::task::spawn_blocking(move || work(&store)).await {
            Ok(result) => result.map_err(section_error),
            Err(error) => Err(EngineError::Internal(format!(
                "storage task failed: {error}"
            ))),
        }
    }
}
