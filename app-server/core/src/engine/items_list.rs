//! `thread/items/list`: a thread's items across its turns (or one turn's), one page at a time,
//! from the loaded thread or its rollout.

use app_server_protocol::policy::SortDirection;
use app_server_protocol::thread_items::{
    ThreadItemEntry, ThreadItemsListAnchor, ThreadItemsListCursor, ThreadItemsListParams,
    ThreadItemsListResponse,
};

use crate::engine::queries::{decode_offset_cursor, encode_offset_cursor};
use crate::engine::settings::not_loaded;
use crate::engine::{Engine, EngineError};
use crate::sync::lock;

impl Engine {
    /// `thread/items/list`.
    pub async fn list_items(
        &self,
        params: ThreadItemsListParams,
    ) -> Result<ThreadItemsListResponse, EngineError> {
        let owned = self.owned_thread(&params.thread_id, not_loaded).await?;
        let id = owned.id().to_owned();
        let turns = match owned.loaded() {
            Some(thread) => lock(&thread.state).turns.clone(),
            None => self.load_stored(&id, not_loaded).await?.turns,
        };
        if let Some(turn_id) = &params.turn_id
            && !turns.iter().any(|turn| &turn.id == turn_id)
        {
            return Err(EngineError::InvalidRequest(format!(
                "turn not found: {turn_id}"
            )));
        }
        let mut entries: Vec<ThreadItemEntry> = turns
            .into_iter()
            .filter(|turn| {
                params
                    .turn_id
                    .as_ref()
                    .is_none_or(|wanted| &turn.id == wanted)
            })
            .flat_map(|turn| {
                let turn_id = turn.id;
                turn.items.into_iter().map(move |item| ThreadItemEntry {
                    started_at_ms: item.started_at_ms,
                    completed_at_ms: item.completed_at_ms,
                    item,
                    turn_id: turn_id.clone(),
                    output_deferred: false,
                })
            })
            .collect();
        if params.sort_direction.unwrap_or(SortDirection::Asc) == SortDirection::Desc {
            entries.reverse();
        }
        let offset = match &params.cursor {
            None => 0,
            Some(ThreadItemsListCursor::Opaque(cursor)) => decode_offset_cursor(cursor)?,
            Some(ThreadItemsListCursor::Anchor(ThreadItemsListAnchor::Item { item_id })) => {
                if params.turn_id.as_deref().is_none_or(str::is_empty) {
                    return Err(EngineError::InvalidRequest(
                        "an item cursor needs the turnId of its item".to_string(),
                    ));
                }
                let position = entries
                    .iter()
                    .position(|entry| entry.item.details.id() == item_id)
                    .ok_or_else(|| {
                        EngineError::InvalidRequest(format!("item not found: {item_id}"))
                    })?;
                position + 1
            }
        };
        let total = entries.len();
        let start = offset.min(total);
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = start.saturating_add(limit).min(total);
        let data: Vec<ThreadItemEntry> = entries.drain(start..end).collect();
        let next_cursor = (end < total).then(|| encode_offset_cursor(end));
        // In the opposite order, the items before this page start where its first item was.
        let backwards_cursor = (!data.is_empty()).then(|| encode_offset_cursor(total - start));
        Ok(ThreadItemsListResponse {
            data,
            next_cursor,
            backwards_cursor,
        })
    }
}
