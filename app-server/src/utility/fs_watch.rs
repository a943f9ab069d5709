//! `fs/watch`: one connection's watches over one inotify watcher (`notify`), with changes that
//! follow each other closely sent together as one `fs/changed` per watch.
//!
//! A directory's watch covers the directory and its direct children; a file's (or a path that
//! does not exist yet) watches its directory and keeps the events of that one path, so that a
//! file replaced by a rename is still seen. The watcher's callback hands events to a bounded
//! queue (events beyond it are dropped: the burst is reported by the events kept); a task
//! collects them for [`DEBOUNCE`], then routes each path to the watches it concerns. Dropping
//! [`FsWatches`] (the connection closing) drops the watcher, which ends the task.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use app_server_protocol::fs::FsChangedNotification;
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

/// How long changes are collected before they are sent.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// The most watches one connection holds at once.
pub const FS_MAX_WATCHES: usize = 256;

/// Raw events queued between the watcher's thread and the routing task.
const EVENT_QUEUE: usize = 1024;

/// Why a watch was refused.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The request is wrong (`-32600`).
    #[error("{0}")]
    Invalid(String),
    /// The watcher failed (`-32603`).
    #[error("cannot watch: {0}")]
    Watcher(String),
}

/// One watch.
#[derive(Debug, Clone)]
struct Watch {
    /// The watched path, resolved.
    target: PathBuf,
    /// The directory given to inotify: `target` for a directory, else its parent.
    watched: PathBuf,
    /// Whether `target` was a directory (its children's events count).
    directory: bool,
}

/// The watches of one connection.
#[derive(Default)]
pub struct FsWatches {
    state: Arc<Mutex<WatchState>>,
}

#[derive(Default)]
struct WatchState {
    watcher: Option<RecommendedWatcher>,
    watches: HashMap<String, Watch>,
    /// How many watches use each inotify directory.
    uses: HashMap<PathBuf, usize>,
}

impl std::fmt::Debug for FsWatches {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("FsWatches")
            .field("watches", &lock(&self.state).watches.len())
            .finish()
    }
}

impl FsWatches {
    /// Starts watch `id` on `target` (resolved); changes go to `send`. Blocks briefly (the
    /// watcher's thread confirms each new inotify watch): call it on the blocking pool.
    pub fn watch<F>(&self, id: String, target: PathBuf, send: F) -> Result<(), WatchError>
    where
        F: Fn(FsChangedNotification) -> futures::future::BoxFuture<'static, ()>
            + Send
            + Sync
            + 'static,
    {
        let mut state = lock(&self.state);
        if state.watches.contains_key(&id) {
            return Err(WatchError::Invalid(format!("watchId already exists: {id}")));
        }
        if state.watches.len() >= FS_MAX_WATCHES {
            return Err(WatchError::Invalid(format!(
                "this connection already holds {FS_MAX_WATCHES} watches; fs/unwatch one first"
            )));
        }
        let directory = target.is_dir();
        let watched = if directory {
            target.clone()
        } else {
            match target.parent() {
                Some(parent) if parent.is_dir() => parent.to_path_buf(),
                _ => {
                    return Err(WatchError::Invalid(format!(
                        "cannot watch `{}`: neither it nor its directory exists",
                        target.display()
                    )));
                }
            }
        };
        if state.watcher.is_none() {
            state.watcher = Some(start_watcher(Arc::downgrade(&self.state), send)?);
        }
        if state.uses.get(&watched).copied().unwrap_or(0) == 0 {
            let watcher = state
                .watcher
                .as_mut()
                .ok_or_else(|| WatchError::Watcher("no watcher".to_string()))?;
            watcher
                .watch(&watched, RecursiveMode::NonRecursive)
                .map_err(|error| WatchError::Watcher(error.to_string()))?;
        }
        *state.uses.entry(watched.clone()).or_insert(0) += 1;
        state.watches.insert(
            id,
            Watch {
                target,
                watched,
                directory,
            },
        );
        Ok(())
    }

    /// Stops every watch and the watcher (the connection closed).
    pub fn close(&self) {
        let watcher = {
            let mut state = lock(&self.state);
            state.watches.clear();
            state.uses.clear();
            state.watcher.take()
        };
        drop(watcher);
    }

    /// Stops watch `id`; an unknown id is not an error. Blocks briefly, as [`Self::watch`].
    pub fn unwatch(&self, id: &str) {
        let mut state = lock(&self.state);
        let Some(watch) = state.watches.remove(id) else {
            return;
        };
        let left = match state.uses.get_mut(&watch.watched) {
            Some(uses) => {
                *uses = uses.saturating_sub(1);
                *uses
            }
            None => 0,
        };
        if left == 0 {
            state.uses.remove(&watch.watched);
            if let Some(watcher) = state.watcher.as_mut() {
                // The directory may be gone already, which ended its inotify watch.
                let _ = watcher.unwatch(&watch.watched);
            }
        }
    }
}

/// Creates the watcher and the task that routes its events to the watches of `state`.
fn start_watcher<F>(
    state: std::sync::Weak<Mutex<WatchState>>,
    send: F,
) -> Result<RecommendedWatcher, WatchError>
where
    F: Fn(FsChangedNotification) -> futures::future::BoxFuture<'static, ()> + Send + Sync + 'static,
{
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|error| WatchError::Watcher(error.to_string()))?;
    let (events, mut received) = mpsc::channel::<Vec<PathBuf>>(EVENT_QUEUE);
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        match event {
            Ok(event) if !matches!(event.kind, EventKind::Access(_)) => {
                // A full queue drops this event; the ones queued report the burst.
                let _ = events.try_send(event.paths);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "file watcher error"),
        }
    })
    .map_err(|error| WatchError::Watcher(error.to_string()))?;
    runtime.spawn(async move {
        while let Some(first) = received.recv().await {
            let mut paths: Vec<PathBuf> = first;
            let window = tokio::time::sleep(DEBOUNCE);
            tokio::pin!(window);
            loop {
                tokio::select! {
                    () = &mut window => break,
                    more = received.recv() => match more {
                        Some(more) => paths.extend(more),
                        None => break,
                    },
                }
            }
            let Some(state) = state.upgrade() else {
                return;
            };
            let changes = route(&lock(&state).watches, &paths);
            for (watch_id, changed) in changes {
                send(FsChangedNotification {
                    watch_id,
                    changed_paths: changed.into_iter().collect(),
                })
                .await;
            }
        }
    });
    Ok(watcher)
}

/// The changed paths of each watch that `paths` concern, by watch id.
fn route(
    watches: &HashMap<String, Watch>,
    paths: &[PathBuf],
) -> BTreeMap<String, BTreeSet<String>> {
    let mut changes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        for (id, watch) in watches {
            if concerns(watch, path) {
                changes
                    .entry(id.clone())
                    .or_default()
                    .insert(path.to_string_lossy().into_owned());
            }
        }
    }
    changes
}

fn concerns(watch: &Watch, path: &Path) -> bool {
    path == watch.target || (watch.directory && path.parent() == Some(watch.target.as_path()))
}

fn lock(state: &Mutex<WatchState>) -> MutexGuard<'_, WatchState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_reaches_the_watches_it_concerns() {
        let watches = HashMap::from([
            (
                "dir".to_string(),
                Watch {
                    target: PathBuf::from("/w/d"),
                    watched: PathBuf::from("/w/d"),
                    directory: true,
                },
            ),
            (
                "file".to_string(),
                Watch {
                    target: PathBuf::from("/w/d/a.txt"),
                    watched: PathBuf::from("/w/d"),
                    directory: false,
                },
            ),
        ]);
        let changes = route(
            &watches,
            &[
                PathBuf::from("/w/d/a.txt"),
                PathBuf::from("/w/d/b.txt"),
                PathBuf::from("/w/d/sub/deep.txt"),
                PathBuf::from("/w/d/a.txt"),
            ],
        );
        assert_eq!(
            changes["dir"].iter().collect::<Vec<_>>(),
            ["/w/d/a.txt", "/w/d/b.txt"]
        );
        assert_eq!(changes["file"].iter().collect::<Vec<_>>(), ["/w/d/a.txt"]);
    }
}
