//! Freshness without a walk per query: a file-system watcher (`notify`: inotify, FSEvents,
//! ReadDirectoryChangesW) per repository records the paths that changed, and a refresh looks at
//! those alone. A full walk still runs on the first refresh, after a watcher error or queue
//! overflow, when more than [`MAX_CHANGED`] paths changed, when a directory appears or is renamed,
//! when an ignore file changes, when the include globs differ from the last walk's, and at least
//! every [`FULL_CHECK_INTERVAL`] (the safety net); where no watcher can be set up (no inotify
//! watches left, an unsupported file system) every refresh walks, as before.
//!
//! A refresh first writes a barrier file into the index directory and waits for its event: the
//! events of one watcher arrive in order, so every change made before the refresh began has been
//! recorded once the barrier's event is seen (rapid edits are thus coalesced by the refresh
//! itself rather than by a timer). When the index directory lies outside the repository there is
//! no barrier and a change made in the last moment before a query may be seen by the next one.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use notify::event::{CreateKind, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// A full walk runs at least this often, whatever the watcher says.
pub const FULL_CHECK_INTERVAL: Duration = Duration::from_secs(300);
/// Most changed paths kept between refreshes; past it the next refresh walks.
pub const MAX_CHANGED: usize = 10_000;
/// How long a refresh waits for its barrier event before it walks instead.
const BARRIER_WAIT: Duration = Duration::from_secs(2);
/// The barrier file, in the index directory.
const BARRIER_FILE: &str = "watch-barrier";

/// What a refresh must look at.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan {
    /// Walk the whole tree.
    Walk,
    /// Only these paths (absolute) may have changed since the last refresh.
    Paths(Vec<PathBuf>),
}

/// The watcher of one repository.
pub struct RepoWatch {
    shared: Arc<Shared>,
    barrier: Option<PathBuf>,
    _watcher: RecommendedWatcher,
}

#[derive(Default)]
struct Shared {
    changes: Mutex<Changes>,
    barrier_seen: Condvar,
}

#[derive(Default)]
struct Changes {
    paths: HashSet<PathBuf>,
    /// The next refresh must walk.
    walk: bool,
    /// Barrier events seen.
    barriers: u64,
    /// When the last walk began and with which globs.
    last_walk: Option<(Instant, Vec<String>)>,
}

fn lock(shared: &Shared) -> MutexGuard<'_, Changes> {
    match shared.changes.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl RepoWatch {
    /// Starts watching `repo_root` (recursively); `None`, with a log line, when watching is
    /// unavailable. Blocking: setting up the watches visits every directory.
    pub fn start(repo_root: &Path, index_dir: &Path) -> Option<RepoWatch> {
        let shared = Arc::new(Shared::default());
        lock(&shared).walk = true;
        let barrier = index_dir
            .starts_with(repo_root)
            .then(|| index_dir.join(BARRIER_FILE));
        let handler = {
            let shared = shared.clone();
            let repo_root = repo_root.to_path_buf();
            let index_dir = index_dir.to_path_buf();
            let barrier = barrier.clone();
            move |result: notify::Result<Event>| {
                record(&shared, &repo_root, &index_dir, barrier.as_deref(), result);
            }
        };
        let watcher = notify::recommended_watcher(handler).and_then(|mut watcher| {
            watcher.watch(repo_root, RecursiveMode::Recursive)?;
            Ok(watcher)
        });
        match watcher {
            Ok(watcher) => Some(RepoWatch {
                shared,
                barrier,
                _watcher: watcher,
            }),
            Err(error) => {
                tracing::warn!(repo_root = %repo_root.display(), %error, "cannot watch the repository; every refresh walks it");
                None
            }
        }
    }

    /// What the next refresh with `globs` must look at; the changes it returns are forgotten
    /// (a refresh that fails calls [`RepoWatch::walk_next`]). Blocking (waits for the barrier).
    pub fn plan(&self, globs: &[String]) -> Plan {
        if let Some(barrier) = &self.barrier {
            let before = lock(&self.shared).barriers;
            if let Err(error) = write_barrier(barrier, before) {
                tracing::warn!(%error, "cannot write the watch barrier; walking");
                return self.take_walk(globs);
            }
            let changes = lock(&self.shared);
            let waited =
                self.shared
                    .barrier_seen
                    .wait_timeout_while(changes, BARRIER_WAIT, |changes| {
                        changes.barriers <= before
                    });
            let timed_out = match &waited {
                Ok((_, timeout)) => timeout.timed_out(),
                Err(_) => true,
            };
            drop(waited);
            if timed_out {
                tracing::warn!("the watch barrier did not arrive; walking");
                return self.take_walk(globs);
            }
        }
        let mut changes = lock(&self.shared);
        let due = changes.last_walk.as_ref().is_none_or(|(when, walked)| {
            when.elapsed() >= FULL_CHECK_INTERVAL || walked.as_slice() != globs
        });
        if changes.walk || due {
            drop(changes);
            return self.take_walk(globs);
        }
        Plan::Paths(changes.paths.drain().collect())
    }

    fn take_walk(&self, globs: &[String]) -> Plan {
        let mut changes = lock(&self.shared);
        changes.paths.clear();
        changes.walk = false;
        changes.last_walk = Some((Instant::now(), globs.to_vec()));
        Plan::Walk
    }

    /// Makes the next refresh walk (the last one failed, or found a change it cannot handle
    /// path by path).
    pub fn walk_next(&self) {
        lock(&self.shared).walk = true;
    }
}

fn write_barrier(barrier: &Path, value: u64) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    options
        .open(barrier)?
        .write_all(value.to_string().as_bytes())
}

/// Records one watcher event (on the watcher's thread).
fn record(
    shared: &Shared,
    repo_root: &Path,
    index_dir: &Path,
    barrier: Option<&Path>,
    result: notify::Result<Event>,
) {
    let mut changes = lock(shared);
    let event = match result {
        Ok(event) => event,
        Err(error) => {
            tracing::debug!(%error, "watch error; the next refresh walks");
            changes.walk = true;
            return;
        }
    };
    if event.need_rescan() {
        changes.walk = true;
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return;
    }
    for path in event.paths {
        if barrier.is_some_and(|barrier| path == barrier) {
            changes.barriers += 1;
            shared.barrier_seen.notify_all();
            continue;
        }
        if path.starts_with(index_dir) {
            continue;
        }
        let Ok(relative) = path.strip_prefix(repo_root) else {
            continue;
        };
        if is_rule_file(relative) {
            changes.walk = true;
            continue;
        }
        if relative
            .components()
            .any(|part| part.as_os_str().to_string_lossy().starts_with('.'))
        {
            continue;
        }
        let new_directory = match event.kind {
            EventKind::Create(CreateKind::Folder) => true,
            EventKind::Create(CreateKind::File) => false,
            EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_)) => path.is_dir(),
            _ => false,
        };
        if new_directory || changes.paths.len() >= MAX_CHANGED {
            changes.walk = true;
            continue;
        }
        changes.paths.insert(path);
    }
}

/// Whether `relative` is a file whose change alters which files are indexed.
fn is_rule_file(relative: &Path) -> bool {
    relative == Path::new(".git/info/exclude")
        || relative
            .file_name()
            .is_some_and(|name| name == ".gitignore" || name == ".ignore")
}

/// Whether the ignore files of `repo_root` (`.gitignore`, `.ignore` in the file's directory and
/// every one above it, and `.git/info/exclude`) exclude the file at `relative`, or a component of
/// it is hidden: what the walk (`scan.rs`) would leave out. Blocking.
pub fn is_ignored(repo_root: &Path, relative: &Path) -> bool {
    if relative
        .components()
        .any(|part| part.as_os_str().to_string_lossy().starts_with('.'))
    {
        return true;
    }
    let absolute = repo_root.join(relative);
    let mut ignored = false;
    let mut directory = repo_root.to_path_buf();
    let mut rule_files = vec![vec![repo_root.join(".git/info/exclude")]];
    let parents: Vec<_> = relative
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .collect();
    let mut directories = vec![directory.clone()];
    for part in parents {
        directory.push(part);
        directories.push(directory.clone());
    }
    rule_files.extend(
        directories
            .iter()
            .map(|directory| vec![directory.join(".gitignore"), directory.join(".ignore")]),
    );
    for (level, files) in rule_files.iter().enumerate() {
        let base = if level == 0 {
            repo_root
        } else {
            directories[level - 1].as_path()
        };
        for file in files {
            if !file.is_file() {
                continue;
            }
            let mut builder = ignore::gitignore::GitignoreBuilder::new(base);
            builder.add(file);
            let Ok(matcher) = builder.build() else {
                continue;
            };
            let decision = matcher.matched_path_or_any_parents(&absolute, false);
            if decision.is_ignore() {
                ignored = true;
            } else if decision.is_whitelist() {
                ignored = false;
            }
        }
    }
    ignored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_files_along_the_path_decide_like_the_walk() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir_all(root.join("src/gen")).unwrap();
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(root.join("src/.ignore"), "gen/\n!keep.log\n").unwrap();
        std::fs::write(root.join(".git/info/exclude"), "scratch.rs\n").unwrap();
        let ignored = |path: &str| is_ignored(root, Path::new(path));
        assert!(ignored("target/debug/out.rs"));
        assert!(ignored("run.log"));
        assert!(ignored("src/gen/file.rs"));
        assert!(!ignored("src/keep.log"));
        assert!(ignored("scratch.rs"));
        assert!(ignored(".hidden/file.rs"));
        assert!(!ignored("src/lib.rs"));
    }
}
