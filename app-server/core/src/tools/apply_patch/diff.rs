//! Diffs for the client: per-file hunks for `fileChange` items and the git-style aggregate
//! diff of a whole turn for `turn/diff/updated` (`model-wire.md` §3.3).
//!
//! The aggregate diff must match what Codex sends byte for byte, so it mimics `git diff`:
//! `diff --git` headers, `new file mode` / `deleted file mode`, `index <blob>..<blob>` with git
//! blob ids, `/dev/null` for a missing side, and three lines of context.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use super::plan::{FileChangeKind, PatchPlan};

const CONTEXT_LINES: usize = 3;
const ZERO_BLOB_ID: &str = "0000000000000000000000000000000000000000";
const DEV_NULL: &str = "/dev/null";
const REGULAR_FILE_MODE: &str = "100644";

/// The net change of every file the turn's patches touched, relative to the turn's start.
///
/// Call [`track`](Self::track) with each plan *before* applying it; [`unified_diff`](Self::unified_diff)
/// re-reads the files, so changes made after tracking (by later patches) are included.
#[derive(Debug, Clone)]
pub struct TurnDiffTracker {
    /// Paths are shown relative to this directory (absolute when outside it).
    cwd: PathBuf,
    /// Content of each touched path when the turn first touched it; `None` when missing.
    baselines: BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// For a file that was moved this turn: its current path → its path at the turn's start.
    origins: HashMap<PathBuf, PathBuf>,
}

impl TurnDiffTracker {
    /// A tracker for one turn, showing paths relative to the turn's `cwd`.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            baselines: BTreeMap::new(),
            origins: HashMap::new(),
        }
    }

    /// Records the pre-patch content of every path `plan` touches (the first time only) and
    /// follows its moves. Call before applying: a plan that then fails to apply leaves the
    /// files unchanged, which the diff simply does not show.
    pub fn track(&mut self, plan: &PatchPlan) {
        for target in &plan.targets {
            self.baselines
                .entry(target.path.clone())
                .or_insert_with(|| target.original.clone());
        }
        for file in plan.files() {
            match &file.kind {
                FileChangeKind::Update {
                    move_path: Some(destination),
                } => {
                    let origin = self
                        .origins
                        .remove(&file.path)
                        .unwrap_or_else(|| file.path.clone());
                    if origin == *destination {
                        self.origins.remove(destination);
                    } else {
                        self.origins.insert(destination.clone(), origin);
                    }
                }
                FileChangeKind::Update { move_path: None } => {}
                FileChangeKind::Add | FileChangeKind::Delete => {
                    // A new file at a moved file's path has nothing to do with the move.
                    self.origins.remove(&file.path);
                }
            }
        }
    }

    /// The git-style diff of all tracked files from the turn's start to now; empty when
    /// nothing differs. Files whose content is back to where it started are left out.
    pub fn unified_diff(&self) -> String {
        let mut current = HashMap::new();
        for path in self.baselines.keys() {
            match fs::read(path) {
                Ok(bytes) => current.insert(path.as_path(), Some(bytes)),
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    current.insert(path.as_path(), None)
                }
                Err(error) => {
                    tracing::warn!(path = %path.display(), %error, "turn diff cannot read a changed file");
                    continue;
                }
            };
        }
        let state = |path: &Path| -> Option<Option<&[u8]>> { Some(current.get(path)?.as_deref()) };
        let baseline = |path: &Path| self.baselines.get(path).and_then(|bytes| bytes.as_deref());

        // A move shows as one diff from the old path to the new one when the old path is gone
        // and the new one did not exist before the turn.
        let mut renames: HashMap<&Path, &Path> = HashMap::new();
        for (destination, origin) in &self.origins {
            let is_rename = baseline(origin).is_some()
                && self.baselines.get(destination).is_some_and(Option::is_none)
                && state(origin) == Some(None)
                && matches!(state(destination), Some(Some(_)));
            if is_rename {
                renames.insert(origin, destination);
            }
        }
        let renamed_destinations: Vec<&Path> = renames.values().copied().collect();

        let mut paths: Vec<&PathBuf> = self.baselines.keys().collect();
        paths.sort_by_cached_key(|path| self.display_path(path));
        let mut diff = String::new();
        for path in paths {
            if renamed_destinations.contains(&path.as_path()) {
                continue;
            }
            let right_path = renames.get(path.as_path()).copied().unwrap_or(path);
            let Some(right) = state(right_path) else {
                continue;
            };
            diff.push_str(&self.render(path, baseline(path), right_path, right));
        }
        diff
    }

    /// One file's `diff --git` section; empty when both sides are equal.
    fn render(
        &self,
        left_path: &Path,
        left: Option<&[u8]>,
        right_path: &Path,
        right: Option<&[u8]>,
    ) -> String {
        let left_display = self.display_path(left_path);
        let right_display = self.display_path(right_path);
        if left == right {
            if left_path == right_path || left.is_none() {
                return String::new();
            }
            return format!(
                "diff --git a/{left_display} b/{right_display}\nsimilarity index 100%\n\
                 rename from {left_display}\nrename to {right_display}\n"
            );
        }
        let mut diff = format!("diff --git a/{left_display} b/{right_display}\n");
        match (left, right) {
            (None, Some(_)) => diff.push_str(&format!("new file mode {REGULAR_FILE_MODE}\n")),
            (Some(_), None) => diff.push_str(&format!("deleted file mode {REGULAR_FILE_MODE}\n")),
            _ => {}
        }
        diff.push_str(&format!("index {}..{}\n", blob_id(left), blob_id(right)));
        let left_header =
            left.map_or_else(|| DEV_NULL.to_string(), |_| format!("a/{left_display}"));
        let right_header =
            right.map_or_else(|| DEV_NULL.to_string(), |_| format!("b/{right_display}"));
        let left_text = std::str::from_utf8(left.unwrap_or_default());
        let right_text = std::str::from_utf8(right.unwrap_or_default());
        let (Ok(left_text), Ok(right_text)) = (left_text, right_text) else {
            diff.push_str(&format!(
                "Binary files {left_header} and {right_header} differ\n"
            ));
            return diff;
        };
        let hunks = TextDiff::from_lines(left_text, right_text)
            .unified_diff()
            .context_radius(CONTEXT_LINES)
            .header(&left_header, &right_header)
            .to_string();
        diff.push_str(&hunks);
        diff
    }

    /// `path` relative to the turn's cwd with `/` separators, or absolute when outside it.
    fn display_path(&self, path: &Path) -> String {
        let shown = path.strip_prefix(&self.cwd).unwrap_or(path);
        shown.to_string_lossy().replace('\\', "/")
    }
}

/// The unified hunks between two contents, without `---`/`+++` file headers, with three lines
/// of context and git's ranges (`@@ -1 +1 @@` for one line, `-0,0` for none).
pub fn unified_hunks(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .to_string()
}

/// The git blob id of `content` (`sha1("blob <len>\0<content>")`), all zeros for a missing side.
pub fn blob_id(content: Option<&[u8]>) -> String {
    let Some(content) = content else {
        return ZERO_BLOB_ID.to_string();
    };
    let mut hasher = sha1_smol::Sha1::new();
    hasher.update(format!("blob {}\0", content.len()).as_bytes());
    hasher.update(content);
    hasher.digest().to_string()
}
