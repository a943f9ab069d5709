//! Rollout files: append-only JSONL, one per thread.

/// Appends records to one rollout file.
pub struct RolloutWriter {}
