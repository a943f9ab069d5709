//! A thread's attachments: `thread/attachment/add`, `thread/attachment/list` and
//! `thread/attachment/remove`.
//!
//! An attachment is client data kept with a persisted thread (loaded or stored) and identified
//! within it by `(attachmentType, identityKey)`; each change is an `attachments` rollout record
//! holding the whole list, so a reader or a later process sees the same list. Everything in it
//! comes from the client and is capped; the server never opens a path an attachment names.

use app_server_protocol::thread_attachment::{
    ThreadAttachment, ThreadAttachmentAddOutcome, ThreadAttachmentAddParams,
    ThreadAttachmentListParams, ThreadAttachmentListResponse, ThreadAttachmentRemoveParams,
};

use crate::clock::unix_millis;
use crate::engine::owner::thread_not_found;
use crate::engine::queries::{decode_offset_cursor, encode_offset_cursor};
use crate::engine::{Engine, EngineError};
use crate::store::{RolloutRecord, StoreError};
use crate::sync::lock;

/// Longest `attachmentType` or `identityKey`, in bytes.
pub const MAX_ATTACHMENT_KEY_BYTES: usize = 1024;
/// Largest payload, serialized, in bytes.
pub const MAX_ATTACHMENT_PAYLOAD_BYTES: usize = 64 * 1024;
/// Most attachments one thread keeps.
pub const MAX_ATTACHMENTS_PER_THREAD: usize = 256;

/// How a change edits a thread's attachment list.
enum Change {
    Add(ThreadAttachment),
    Remove {
        attachment_type: String,
        identity_key: String,
    },
}

impl Engine {
    /// `thread/attachment/add`: the attachment as stored and whether it was created now.
    pub async fn add_attachment(
        &self,
        params: ThreadAttachmentAddParams,
    ) -> Result<(ThreadAttachmentAddOutcome, ThreadAttachment), EngineError> {
        check_key("attachmentType", &params.attachment_type)?;
        check_key("identityKey", &params.identity_key)?;
        let size = serde_json::to_vec(&params.payload).map_or(usize::MAX, |bytes| bytes.len());
        if size > MAX_ATTACHMENT_PAYLOAD_BYTES {
            return Err(EngineError::InvalidRequest(format!(
                "payload must be at most {MAX_ATTACHMENT_PAYLOAD_BYTES} bytes"
            )));
        }
        let attachment = ThreadAttachment {
            id: uuid::Uuid::now_v7().to_string(),
            attachment_type: params.attachment_type,
            identity_key: params.identity_key,
            payload: params.payload,
            created_at: unix_millis() / 1000,
        };
        let (before, after) = self
            .change_attachments(&params.thread_id, Change::Add(attachment.clone()))
            .await?;
        let kept = after
            .iter()
            .find(|kept| same_identity(kept, &attachment.attachment_type, &attachment.identity_key))
            .cloned()
            .unwrap_or(attachment);
        let outcome = if before.len() == after.len() {
            ThreadAttachmentAddOutcome::Existing
        } else {
            ThreadAttachmentAddOutcome::Created
        };
        Ok((outcome, kept))
    }

    /// `thread/attachment/remove`: the removed attachment, if there was one.
    pub async fn remove_attachment(
        &self,
        params: ThreadAttachmentRemoveParams,
    ) -> Result<Option<ThreadAttachment>, EngineError> {
        let change = Change::Remove {
            attachment_type: params.attachment_type.clone(),
            identity_key: params.identity_key.clone(),
        };
        let (before, _) = self.change_attachments(&params.thread_id, change).await?;
        Ok(before
            .into_iter()
            .find(|kept| same_identity(kept, &params.attachment_type, &params.identity_key)))
    }

    /// `thread/attachment/list`: one page, oldest first; a thread that does not exist for the
    /// caller has none.
    pub async fn list_attachments(
        &self,
        params: ThreadAttachmentListParams,
    ) -> Result<ThreadAttachmentListResponse, EngineError> {
        let attachments = match self.owned_thread(&params.thread_id, thread_not_found).await {
            Ok(owned) => match owned.loaded() {
                Some(thread) => lock(&thread.state).attachments.clone(),
                None => {
                    let id = owned.id().to_owned();
                    match self
                        .inner
                        .store
                        .blocking(move |store| store.load(&id))
                        .await
                    {
                        Ok(stored) => stored.attachments,
                        Err(StoreError::NotFound(_)) => Vec::new(),
                        Err(error) => return Err(error.into()),
                    }
                }
            },
            Err(_) => Vec::new(),
        };
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => decode_offset_cursor(cursor)?,
        };
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let start = offset.min(attachments.len());
        let end = start.saturating_add(limit).min(attachments.len());
        Ok(ThreadAttachmentListResponse {
            data: attachments[start..end].to_vec(),
            next_cursor: (end < attachments.len()).then(|| encode_offset_cursor(end)),
        })
    }

    /// Applies `change` to the attachment list of a persisted thread of the caller, records
    /// the new list and returns the list before and after.
    async fn change_attachments(
        &self,
        thread_id: &str,
        change: Change,
    ) -> Result<(Vec<ThreadAttachment>, Vec<ThreadAttachment>), EngineError> {
        let owned = self.owned_thread(thread_id, thread_not_found).await?;
        let id = owned.id().to_owned();
        if let Some(thread) = owned.loaded() {
            let mut state = lock(&thread.state);
            // As the reference: a thread that ran no turn is not stored yet.
            if state.writer.is_none() {
                return Err(thread_not_found(&id));
            }
            let before = state.attachments.clone();
            let after = apply(&before, change)?;
            if after != before {
                state.attachments = after.clone();
                state.record(&RolloutRecord::Attachments {
                    attachments: after.clone(),
                });
            }
            return Ok((before, after));
        }
        let changing = id.clone();
        let changed = self
            .inner
            .store
            .blocking(move |store| {
                let stored = match store.load(&changing) {
                    Ok(stored) if !stored.meta.archived => stored,
                    Ok(_) | Err(StoreError::NotFound(_)) => return Ok(None),
                    Err(error) => return Err(error),
                };
                let before = stored.attachments;
                let after = match apply(&before, change) {
                    Ok(after) => after,
                    Err(error) => return Ok(Some(Err(error))),
                };
                if after != before {
                    let mut writer = store.append_writer(&changing)?;
                    writer.append(&RolloutRecord::Attachments {
                        attachments: after.clone(),
                    })?;
                    writer.sync()?;
                }
                Ok(Some(Ok((before, after))))
            })
            .await?;
        match changed {
            Some(result) => result,
            None => Err(thread_not_found(&id)),
        }
    }
}

/// The list after `change`: an attachment added unless one with its identity is there, or
/// the one with the identity removed.
fn apply(
    attachments: &[ThreadAttachment],
    change: Change,
) -> Result<Vec<ThreadAttachment>, EngineError> {
    let mut after = attachments.to_vec();
    match change {
        Change::Add(attachment) => {
            if after.iter().any(|kept| {
                same_identity(kept, &attachment.attachment_type, &attachment.identity_key)
            }) {
                return Ok(after);
            }
            if after.len() >= MAX_ATTACHMENTS_PER_THREAD {
                return Err(EngineError::InvalidRequest(format!(
                    "a thread keeps at most {MAX_ATTACHMENTS_PER_THREAD} attachments"
                )));
            }
            after.push(attachment);
        }
        Change::Remove {
            attachment_type,
            identity_key,
        } => after.retain(|kept| !same_identity(kept, &attachment_type, &identity_key)),
    }
    Ok(after)
}

fn same_identity(attachment: &ThreadAttachment, attachment_type: &str, identity_key: &str) -> bool {
    attachment.attachment_type == attachment_type && attachment.identity_key == identity_key
}

/// The reference's check of a key, plus a size cap.
fn check_key(name: &str, value: &str) -> Result<(), EngineError> {
    if value.is_empty() {
        return Err(EngineError::InvalidRequest(format!(
            "{name} must not be empty"
        )));
    }
    if value.len() > MAX_ATTACHMENT_KEY_BYTES {
        return Err(EngineError::InvalidRequest(format!(
            "{name} must be at most {MAX_ATTACHMENT_KEY_BYTES} bytes"
        )));
    }
    Ok(())
}
