//! The experimental fuzzy-file-search sessions of a connection: `sessionStart` fixes the roots
//! (checked against the connection's file roots), each `sessionUpdate` answers `{}` at once and
//! then sends its matches as `fuzzyFileSearch/sessionUpdated`, cancelling the search of the
//! session's previous query, whose matches are then never sent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use app_server_protocol::fuzzy_sessions::{
    FuzzyFileSearchSessionStartParams, FuzzyFileSearchSessionStopParams,
    FuzzyFileSearchSessionUpdateParams, FuzzyFileSearchSessionUpdatedNotification,
};
use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::EmptyResponse;
use tandem_core::file_access::FileUse;

use crate::processor::Processor;
use crate::processor::utility_requests::FUZZY_SEARCH_LIMIT;
use crate::rpc_error::{internal_error, invalid_request};
use crate::utility::fuzzy_search::fuzzy_file_search;

/// The most sessions one connection holds at once.
pub const MAX_FUZZY_SESSIONS: usize = 32;

/// The sessions of one connection.
#[derive(Debug, Default)]
pub struct FuzzySessions {
    sessions: Mutex<HashMap<String, Session>>,
}

#[derive(Debug)]
struct Session {
    /// The roots, as checked (absolute, within the file roots).
    roots: Vec<String>,
    /// The cancellation flag of the search of the latest query.
    latest: Arc<AtomicBool>,
}

impl FuzzySessions {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Cancels every running search and forgets every session (the connection closed).
    pub fn close(&self) {
        for (_, session) in self.sessions().drain() {
            session.latest.store(true, Ordering::Relaxed);
        }
    }
}

impl Processor {
    /// `fuzzyFileSearch/sessionStart`: answers `{}`, then sends the empty query's (empty)
    /// matches, as the reference does once its session is ready.
    pub(super) async fn fuzzy_session_start(
        &self,
        id: RequestId,
        params: FuzzyFileSearchSessionStartParams,
    ) {
        let result = self.open_fuzzy_session(&params).await;
        let started = result.is_ok();
        self.reply(id, result).await;
        if started {
            self.send_session_update(FuzzyFileSearchSessionUpdatedNotification {
                session_id: params.session_id,
                query: String::new(),
                files: Vec::new(),
            })
            .await;
        }
    }

    async fn open_fuzzy_session(
        &self,
        params: &FuzzyFileSearchSessionStartParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        if params.roots.is_empty() {
            return Err(internal_error(
                "failed to start fuzzy file search session: at least one search directory is required",
            ));
        }
        let roots = params.roots.clone();
        let checked = self
            .with_file_roots(move |file_roots| {
                roots
                    .iter()
                    .map(|root| {
                        file_roots
                            .check(root, FileUse::Read)
                            .map(|_| root.clone())
                            .map_err(|error| invalid_request(error.to_string()))
                    })
                    .collect::<Result<Vec<String>, JsonRpcErrorBody>>()
            })
            .await?;
        let sessions = &self.utilities.fuzzy_sessions;
        let mut open = sessions.sessions();
        if !open.contains_key(&params.session_id) && open.len() >= MAX_FUZZY_SESSIONS {
            return Err(invalid_request(format!(
                "this connection already holds {MAX_FUZZY_SESSIONS} fuzzy file search sessions; stop one first"
            )));
        }
        let replaced = open.insert(
            params.session_id.clone(),
            Session {
                roots: checked,
                latest: Arc::new(AtomicBool::new(false)),
            },
        );
        if let Some(replaced) = replaced {
            replaced.latest.store(true, Ordering::Relaxed);
        }
        Ok(EmptyResponse {})
    }

    /// `fuzzyFileSearch/sessionUpdate`: answers `{}`, then searches and sends the matches
    /// unless a later query of the session (or its stop) cancelled this one.
    pub(super) async fn fuzzy_session_update(
        &self,
        id: RequestId,
        params: FuzzyFileSearchSessionUpdateParams,
    ) {
        let search = {
            let mut open = self.utilities.fuzzy_sessions.sessions();
            match open.get_mut(&params.session_id) {
                None => None,
                Some(session) => {
                    session.latest.store(true, Ordering::Relaxed);
                    session.latest = Arc::new(AtomicBool::new(false));
                    Some((session.roots.clone(), Arc::clone(&session.latest)))
                }
            }
        };
        let Some((roots, cancelled)) = search else {
            let message = format!("fuzzy file search session not found: {}", params.session_id);
            self.reply::<EmptyResponse>(id, Err(invalid_request(message)))
                .await;
            return;
        };
        self.reply(id, Ok(EmptyResponse {})).await;
        let query = params.query.clone();
        let flag = Arc::clone(&cancelled);
        let files = tokio::task::spawn_blocking(move || {
            fuzzy_file_search(&query, &roots, FUZZY_SEARCH_LIMIT, &flag)
        })
        .await;
        let Ok(files) = files else {
            return;
        };
        if cancelled.load(Ordering::Relaxed) {
            return;
        }
        self.send_session_update(FuzzyFileSearchSessionUpdatedNotification {
            session_id: params.session_id,
            query: params.query,
            files,
        })
        .await;
    }

    /// `fuzzyFileSearch/sessionStop`: forgets the session and cancels its search.
    pub(super) fn fuzzy_session_stop(&self, params: &FuzzyFileSearchSessionStopParams) {
        if let Some(session) = self
            .utilities
            .fuzzy_sessions
            .sessions()
            .remove(&params.session_id)
        {
            session.latest.store(true, Ordering::Relaxed);
        }
    }

    async fn send_session_update(&self, update: FuzzyFileSearchSessionUpdatedNotification) {
        self.outgoing
            .send_notification(&ServerNotification::FuzzyFileSearchSessionUpdated(update))
            .await;
    }
}
