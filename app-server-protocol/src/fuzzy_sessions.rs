//! Params and notifications of the experimental fuzzy-file-search sessions: a client opens a
//! session over some roots, sends the query as the user types, and receives each query's
//! matches as `fuzzyFileSearch/sessionUpdated`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::utility::FuzzyFileSearchResult;

/// Parameters of `fuzzyFileSearch/sessionStart`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FuzzyFileSearchSessionStartParams {
    /// The client's name for the session, unique on the connection; starting a session under a
    /// name in use replaces that session.
    pub session_id: String,
    /// Absolute directories to search (gitignore-aware), within the connection's file roots;
    /// at least one.
    pub roots: Vec<String>,
}

/// Parameters of `fuzzyFileSearch/sessionUpdate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FuzzyFileSearchSessionUpdateParams {
    /// A session started by `fuzzyFileSearch/sessionStart`.
    pub session_id: String,
    /// The new query; its matches follow as `fuzzyFileSearch/sessionUpdated`, and a search
    /// still running for an earlier query of the session is cancelled.
    pub query: String,
}

/// Parameters of `fuzzyFileSearch/sessionStop`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FuzzyFileSearchSessionStopParams {
    /// The session to end; an unknown one is not an error.
    pub session_id: String,
}

/// `fuzzyFileSearch/sessionUpdated`: the matches of a session's latest query (the empty query,
/// with no matches, once the session has started).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FuzzyFileSearchSessionUpdatedNotification {
    /// The session.
    pub session_id: String,
    /// The query these matches are for.
    pub query: String,
    /// At most 50 matches, best first, as `fuzzyFileSearch` returns them.
    pub files: Vec<FuzzyFileSearchResult>,
}
