//! `skills/changed`: one connection's watch over the skill directories of the threads it
//! started, resumed or forked and of its extra roots, as the reference keeps one.
//!
//! Each existing skill root is watched recursively (one inotify watcher per connection, at
//! most [`MAX_SKILL_ROOTS`] roots); a root that does not exist yet is not watched, as in the
//! reference, nor one holding more entries than skill discovery reads. Changes that follow each other within [`DEBOUNCE`] become one notification. The
//! watcher's callback hands events to a bounded queue; a full queue drops the event, which the
//! ones queued already report. Dropping [`SkillsWatch`] (the connection closing) drops the
//! watcher, which ends its task.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

/// How long changes are collected into one `skills/changed`.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// The most skill roots one connection watches; roots beyond are not watched.
pub const MAX_SKILL_ROOTS: usize = 256;

/// Events queued between the watcher's thread and the task that notifies.
const EVENT_QUEUE: usize = 64;

/// What the watch calls once per burst of changes.
pub type OnChange = Arc<dyn Fn() -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// The skill-root watch of one connection.
#[derive(Default)]
pub struct SkillsWatch {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    watcher: Option<RecommendedWatcher>,
    roots: BTreeSet<PathBuf>,
}

impl std::fmt::Debug for SkillsWatch {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SkillsWatch")
            .field("roots", &lock(&self.state).roots.len())
            .finish()
    }
}

impl SkillsWatch {
    /// Adds the existing directories among `roots` to the watch, starting it (with `on_change`
    /// called once per burst of changes) on first use. Walks each new root to watch its
    /// subdirectories: call it on the blocking pool. A root that cannot be watched is logged
    /// and skipped: watching is a convenience, never a reason to fail a request.
    pub fn add_roots(&self, roots: Vec<PathBuf>, on_change: &OnChange) {
        let mut state = lock(&self.state);
        for root in roots {
            if state.roots.len() >= MAX_SKILL_ROOTS {
                tracing::debug!(root = %root.display(), "too many skill roots; not watched");
                break;
            }
            let Ok(root) = std::fs::canonicalize(&root) else {
                continue;
            };
            if !root.is_dir() || state.roots.contains(&root) {
                continue;
            }
            // A client's extra root may be any directory within its file roots: a tree larger
            // than skill discovery reads is not watched, so that watching it costs no more.
            if !within_entries(&root, tandem_core::skills::MAX_ENTRIES) {
                tracing::debug!(root = %root.display(), "skill root too large to watch");
                continue;
            }
            if state.watcher.is_none() {
                match start_watcher(on_change.clone()) {
                    Ok(watcher) => state.watcher = Some(watcher),
                    Err(error) => {
                        tracing::warn!(%error, "cannot watch skill directories");
                        return;
                    }
                }
            }
            let Some(watcher) = state.watcher.as_mut() else {
                return;
            };
            match watcher.watch(&root, RecursiveMode::Recursive) {
                Ok(()) => {
                    state.roots.insert(root);
                }
                Err(error) => {
                    tracing::debug!(root = %root.display(), %error, "skill root not watched");
                }
            }
        }
    }

    /// Stops watching (the connection closed).
    pub fn close(&self) {
        let watcher = {
            let mut state = lock(&self.state);
            state.roots.clear();
            state.watcher.take()
        };
        drop(watcher);
    }
}

/// Whether the tree below `root` holds at most `limit` entries (symbolic links not followed);
/// stops counting past the limit.
fn within_entries(root: &Path, limit: usize) -> bool {
    let mut count = 0usize;
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            count += 1;
            if count > limit {
                return false;
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                pending.push(entry.path());
            }
        }
    }
    true
}

/// Creates the watcher and the task that turns its bursts of events into calls of `on_change`.
fn start_watcher(on_change: OnChange) -> Result<RecommendedWatcher, String> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|error| error.to_string())?;
    let (events, mut received) = mpsc::channel::<()>(EVENT_QUEUE);
    let watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(event) if !matches!(event.kind, EventKind::Access(_)) => {
                let _ = events.try_send(());
            }
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "skill watcher error"),
        })
        .map_err(|error| error.to_string())?;
    runtime.spawn(async move {
        while received.recv().await.is_some() {
            let window = tokio::time::sleep(DEBOUNCE);
            tokio::pin!(window);
            loop {
                tokio::select! {
                    () = &mut window => break,
                    more = received.recv() => if more.is_none() { break },
                }
            }
            on_change().await;
        }
    });
    Ok(watcher)
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_counted_below_the_root_without_following_links() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("a/b")).unwrap();
        std::fs::write(root.path().join("a/b/SKILL.md"), "x").unwrap();
        // a, a/b, a/b/SKILL.md: three entries.
        assert!(within_entries(root.path(), 3));
        assert!(!within_entries(root.path(), 2));
        // A link to the root is one entry, not a way back into the tree.
        std::os::unix::fs::symlink(root.path(), root.path().join("a/loop")).unwrap();
        assert!(within_entries(root.path(), 4));
        assert!(!within_entries(root.path(), 3));
    }
}
