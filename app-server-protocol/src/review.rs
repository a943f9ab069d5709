//! Params and response of `review/start`: a turn in which the model reviews code changes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::thread::Turn;

/// Parameters of `review/start`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ReviewStartParams {
    /// The thread to review in (loaded, owned by the caller, with no running turn).
    pub thread_id: String,
    /// What to review.
    pub target: ReviewTarget,
    /// Reviews run inline on the supplied thread. Omit this field or pass `inline`. To review
    /// on a separate thread, start a thread first and use its id.
    #[serde(default)]
    pub delivery: Option<ReviewDelivery>,
}

/// What a review looks at (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ReviewTarget {
    /// Review the working tree: staged, unstaged, and untracked files.
    UncommittedChanges,
    /// Review changes between the current branch and the given base branch.
    BaseBranch {
        /// The branch the changes would be merged into.
        branch: String,
    },
    /// Review the changes introduced by a specific commit.
    Commit {
        /// The commit (any revision git accepts that names one commit).
        sha: String,
        /// Optional human-readable label (e.g., commit subject) for UIs.
        #[serde(default)]
        title: Option<String>,
    },
    /// Arbitrary instructions, equivalent to the old free-form prompt.
    Custom {
        /// What to review and how, in the user's words.
        instructions: String,
    },
}

/// Where a review runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ReviewDelivery {
    /// On the thread named by `threadId`.
    Inline,
}

/// Result of `review/start`, sent before the review's turn runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewStartResponse {
    /// The review's turn, in progress; its one item is a `userMessage` naming what is
    /// reviewed (the same words as the `enteredReviewMode` item).
    pub turn: Turn,
    /// The thread id supplied to `review/start`.
    pub review_thread_id: String,
}
