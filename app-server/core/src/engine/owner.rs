//! The one owner check: a thread belongs to the principal that created it, and a method that
//! names a thread reaches its handler only for that principal.
//!
//! Every engine method that takes a thread id starts here, with the caller taken from the
//! engine (the principal its front end named when it built it), never from its arguments:
//!
//! - a loaded thread is reached only through [`LoadedThreads`], whose lookups compare the
//!   thread's owner with the caller, so no code can hold another principal's loaded thread;
//! - a stored thread is reached after [`Engine::owned_thread`], which looks its owner up in the
//!   index (or its rollout) and returns an [`OwnedThread`], a token nothing else can make.
//!
//! Both end in [`check_owner`]. A thread of another principal fails with the very error the
//! handler gives for a thread that does not exist: the caller cannot tell the two apart, and
//! sees none of the other's data. Lists filter on the owner in the index query itself
//! (`store::ListQuery::owner`); which methods name a thread is `families::thread_scope`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::engine::settings::normalize_thread_id;
use crate::engine::thread::LoadedThread;
use crate::engine::{Engine, EngineError};
use crate::principal::Principal;
use crate::sync::lock;

/// The one owner check: `caller` may name a thread owned by `owner` only when they are the
/// same principal. The error carries nothing: callers turn it into their own "not found".
pub fn check_owner(caller: &Principal, owner: &Principal) -> Result<(), ThreadNotFound> {
    if caller == owner {
        Ok(())
    } else {
        Err(ThreadNotFound)
    }
}

/// The error of the methods that need a loaded thread (`turn/*`, `thread/rollback`,
/// `thread/compact/start`) when there is none for the caller.
pub(super) fn thread_not_found(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!("thread not found: {id}"))
}

/// A thread that does not exist for the caller: there is none with that id, or it belongs to
/// another principal.
#[derive(Debug, PartialEq, Eq)]
pub struct ThreadNotFound;

/// Proof that the engine's principal owns a thread; made only by [`Engine::owned_thread`].
pub struct OwnedThread {
    id: String,
    loaded: Option<Arc<LoadedThread>>,
}

impl OwnedThread {
    /// The thread's id, normalized.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The thread, when it is loaded in this engine.
    pub fn loaded(&self) -> Option<&Arc<LoadedThread>> {
        self.loaded.as_ref()
    }
}

/// The threads loaded in one engine, reachable by id only through the owner check.
#[derive(Default)]
pub struct LoadedThreads {
    threads: Mutex<HashMap<String, Arc<LoadedThread>>>,
}

impl LoadedThreads {
    /// Registers a thread (its owner is fixed in [`LoadedThread::owner`]).
    pub fn insert(&self, thread: Arc<LoadedThread>) {
        lock(&self.threads).insert(thread.id.clone(), thread);
    }

    /// Thread `id`, when it is loaded and `caller` owns it.
    pub fn get(&self, caller: &Principal, id: &str) -> Option<Arc<LoadedThread>> {
        #[cfg(test)]
        record_check(caller, id);
        let thread = lock(&self.threads).get(id).cloned()?;
        check_owner(caller, &thread.owner).ok()?;
        Some(thread)
    }

    /// Removes thread `id`, when it is loaded and `caller` owns it.
    pub fn remove(&self, caller: &Principal, id: &str) -> Option<Arc<LoadedThread>> {
        #[cfg(test)]
        record_check(caller, id);
        let mut threads = lock(&self.threads);
        let thread = threads.get(id)?;
        check_owner(caller, &thread.owner).ok()?;
        threads.remove(id)
    }

    /// The ids of the loaded threads `caller` owns, sorted.
    pub fn ids(&self, caller: &Principal) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.threads)
            .values()
            .filter(|thread| check_owner(caller, &thread.owner).is_ok())
            .map(|thread| thread.id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// The working directories of the loaded threads `caller` owns, sorted, each once.
    pub fn workspaces(&self, caller: &Principal) -> Vec<std::path::PathBuf> {
        let threads: Vec<Arc<LoadedThread>> = lock(&self.threads)
            .values()
            .filter(|thread| check_owner(caller, &thread.owner).is_ok())
            .cloned()
            .collect();
        let mut cwds: Vec<std::path::PathBuf> = threads
            .iter()
            .map(|thread| std::path::PathBuf::from(&lock(&thread.state).meta.cwd))
            .collect();
        cwds.sort();
        cwds.dedup();
        cwds
    }

    /// The most recently started loaded thread `caller` owns (thread ids are UUIDv7: the
    /// greatest is the latest).
    pub fn latest(&self, caller: &Principal) -> Option<Arc<LoadedThread>> {
        lock(&self.threads)
            .values()
            .filter(|thread| check_owner(caller, &thread.owner).is_ok())
            .max_by(|left, right| left.id.cmp(&right.id))
            .cloned()
    }

    /// Every loaded thread, for shutdown (which ends them all, whoever owns them).
    pub fn all(&self) -> Vec<Arc<LoadedThread>> {
        lock(&self.threads).values().cloned().collect()
    }
}

impl Engine {
    /// The principal this engine acts for: the owner of the threads it creates, and the only
    /// one whose threads it reaches.
    pub fn principal(&self) -> &Principal {
        &self.inner.principal
    }

    /// Thread `id` if it is loaded here and the engine's principal owns it.
    pub(super) fn thread(&self, id: &str) -> Option<Arc<LoadedThread>> {
        self.inner.threads.get(&self.inner.principal, id)
    }

    /// Whether the thread `id` (normalized) is loaded and the engine's principal owns it.
    pub fn is_loaded(&self, id: &str) -> bool {
        self.thread(id).is_some()
    }

    /// Whether the thread `id` (normalized) is loaded, owned by the engine's principal, and
    /// running a turn.
    pub fn has_active_turn(&self, id: &str) -> bool {
        self.thread(id)
            .is_some_and(|thread| crate::sync::lock(&thread.state).active.is_some())
    }

    /// The owner check of a method naming `thread_id`, run before its handler does anything
    /// else: an [`OwnedThread`] when the thread is loaded here or stored, and the engine's
    /// principal owns it; otherwise `not_found(id)`, the error the handler gives for a thread
    /// that does not exist. An id that is not a thread id fails as it always has.
    pub(crate) async fn owned_thread(
        &self,
        thread_id: &str,
        not_found: fn(&str) -> EngineError,
    ) -> Result<OwnedThread, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        #[cfg(test)]
        record_check(&self.inner.principal, &id);
        if let Some(loaded) = self.thread(&id) {
            return Ok(OwnedThread {
                id,
                loaded: Some(loaded),
            });
        }
        let looking_up = id.clone();
        let owner = self
            .inner
            .store
            .blocking(move |store| store.owner(&looking_up))
            .await?;
        match owner {
            Some(owner) if check_owner(&self.inner.principal, &owner).is_ok() => {
                Ok(OwnedThread { id, loaded: None })
            }
            _ => Err(not_found(&id)),
        }
    }

    /// The owner check for a front end that goes on to drive a thread through other engine
    /// methods (the MCP adapter's `codex-reply`, before it claims the thread for its
    /// session): `Ok` when the engine's principal owns thread `thread_id`; otherwise the error
    /// `thread/resume` gives for a thread that does not exist.
    pub async fn check_thread_owner(&self, thread_id: &str) -> Result<(), EngineError> {
        self.owned_thread(thread_id, crate::engine::settings::no_rollout)
            .await
            .map(drop)
    }
}

/// Every (principal, thread id) the owner check was asked about, so that a test can tell that
/// a handler went through it.
#[cfg(test)]
static CHECKS: Mutex<Vec<(Principal, String)>> = Mutex::new(Vec::new());

#[cfg(test)]
fn record_check(caller: &Principal, id: &str) {
    lock(&CHECKS).push((caller.clone(), id.to_owned()));
}

/// The thread ids the owner check was asked about for `caller`.
#[cfg(test)]
pub(super) fn checks_of(caller: &Principal) -> Vec<String> {
    lock(&CHECKS)
        .iter()
        .filter(|(principal, _)| principal == caller)
        .map(|(_, id)| id.clone())
        .collect()
}
