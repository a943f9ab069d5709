//! `fuzzyFileSearch`: a gitignore-aware walk with fuzzy ranking.
//!
//! Every root is walked in parallel with `ignore`, and each entry's path relative to its root is scored with
//! `nucleo-matcher` (path-aware bonuses, smart case, whitespace-separated words all required).
//! Each walker thread keeps its own bounded best-first list, so a large tree costs one score per entry and
//! allocates only for entries that currently rank among the best `limit`; match indices are computed only for
//! the final results.
//!
//! What is searched, following Codex:
//! - `.gitignore`, `.ignore`, `.git/info/exclude` and the global git excludes are respected, also outside a git
//!   repository, so a plain directory with a `.gitignore` behaves like a checkout;
//! - dotfiles and dot-directories are searched unless ignored, except `.git` directories, which are never entered;
//! - symbolic links are reported but not followed, so the walk cannot leave a root or loop;
//! - both files and directories are matched (`match_type` says which), and the root itself is not a result;
//! - paths that are not valid UTF-8 are skipped, because the wire cannot carry them faithfully.

use std::{
    cmp::{Ordering, Reverse},
    collections::BinaryHeap,
    path::Path,
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering as AtomicOrdering},
    },
};

use app_server_protocol::utility::{FuzzyFileSearchMatchType, FuzzyFileSearchResult};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use nucleo_matcher::{
    Config, Matcher, Utf32Str,
    pattern::{AtomKind, CaseMatching, Normalization, Pattern},
};

/// Searches `roots` for files and directories whose root-relative path fuzzily matches `query`.
///
/// Results are ordered best first: higher score, then shorter path, then lexicographically smaller path
/// (then earlier root), and at most `limit` are returned.
/// `indices` holds the matched character (not byte) indices in `path`, ascending.
/// An empty or all-whitespace query, a `limit` of zero, and roots that are not existing directories all give no
/// results.
/// The walk checks `cancelled` before every entry and stops as soon as it is set; a cancelled search returns no
/// results, because a partial ranking would be misleading.
pub fn fuzzy_file_search(
    query: &str,
    roots: &[String],
    limit: usize,
    cancelled: &AtomicBool,
) -> Vec<FuzzyFileSearchResult> {
    let pattern = Pattern::new(
        query,
        CaseMatching::Smart,
        Normalization::Smart,
        AtomKind::Fuzzy,
    );
    if pattern.atoms.is_empty() || limit == 0 {
        return Vec::new();
    }

    let merged = Mutex::new(BestMatches::new(limit));
    for (root_index, root) in roots.iter().enumerate() {
        if cancelled.load(AtomicOrdering::Relaxed) {
            break;
        }
        let root_path = Path::new(root);
        if !root_path.is_dir() {
            tracing::debug!(root = %root, "fuzzy search root is not a directory; skipping");
            continue;
        }
        walk_builder(root_path)
            .build_parallel()
            .visit(&mut SearchVisitorBuilder {
                pattern: &pattern,
                root: root_path,
                root_index,
                limit,
                cancelled,
                merged: &merged,
            });
    }
    if cancelled.load(AtomicOrdering::Relaxed) {
        return Vec::new();
    }

    let best = lock(&merged).take_sorted();
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut chars = Vec::new();
    best.into_iter()
        .map(|candidate| {
            let mut indices = Vec::new();
            // The walk already proved this path matches; the score from `indices` is the same one.
            pattern.indices(
                utf32(&candidate.path, &mut chars),
                &mut matcher,
                &mut indices,
            );
            // Several query words each append their own indices.
            indices.sort_unstable();
            indices.dedup();
            let file_name = candidate
                .path
                .rsplit('/')
                .next()
                .unwrap_or(&candidate.path)
                .to_owned();
            FuzzyFileSearchResult {
                root: roots[candidate.root_index].clone(),
                path: candidate.path,
                match_type: candidate.match_type,
                file_name,
                score: candidate.score,
                indices: Some(indices),
            }
        })
        .collect()
}

/// One match that may make the final list.
#[derive(Debug, PartialEq, Eq)]
struct Candidate {
    score: u32,
    path: String,
    root_index: usize,
    match_type: FuzzyFileSearchMatchType,
}

/// The best `limit` candidates seen so far, kept as a min-heap so the worst one is cheap to evict.
struct BestMatches {
    limit: usize,
    heap: BinaryHeap<Reverse<Candidate>>,
}

/// Builds one [`SearchVisitor`] per walker thread.
struct SearchVisitorBuilder<'a> {
    pattern: &'a Pattern,
    root: &'a Path,
    root_index: usize,
    limit: usize,
    cancelled: &'a AtomicBool,
    merged: &'a Mutex<BestMatches>,
}

/// Per-thread search state; it merges its best matches into the shared list when the walk drops it.
struct SearchVisitor<'a> {
    pattern: &'a Pattern,
    root: &'a Path,
    root_index: usize,
    cancelled: &'a AtomicBool,
    merged: &'a Mutex<BestMatches>,
    matcher: Matcher,
    chars: Vec<char>,
    best: BestMatches,
}

impl Candidate {
    /// The ranking key; greater is better.
    fn rank(&self) -> (u32, Reverse<usize>, Reverse<&str>, Reverse<usize>) {
        rank_key(self.score, &self.path, self.root_index)
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl BestMatches {
    fn new(limit: usize) -> Self {
        Self {
            limit,
            heap: BinaryHeap::with_capacity(limit.saturating_add(1).min(1024)),
        }
    }

    /// Whether a match with this key would enter the list; checked before allocating its path.
    fn admits(&self, score: u32, path: &str, root_index: usize) -> bool {
        if self.heap.len() < self.limit {
            return true;
        }
        match self.heap.peek() {
            Some(Reverse(worst)) => rank_key(score, path, root_index) > worst.rank(),
            None => false,
        }
    }

    fn push(&mut self, candidate: Candidate) {
        if !self.admits(candidate.score, &candidate.path, candidate.root_index) {
            return;
        }
        if self.heap.len() >= self.limit {
            self.heap.pop();
        }
        self.heap.push(Reverse(candidate));
    }

    /// Empties the list, best first.
    fn take_sorted(&mut self) -> Vec<Candidate> {
        // Ascending order of `Reverse<Candidate>` is descending order of rank.
        std::mem::take(&mut self.heap)
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(candidate)| candidate)
            .collect()
    }
}

impl<'s> ParallelVisitorBuilder<'s> for SearchVisitorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(SearchVisitor {
            pattern: self.pattern,
            root: self.root,
            root_index: self.root_index,
            cancelled: self.cancelled,
            merged: self.merged,
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
            chars: Vec::new(),
            best: BestMatches::new(self.limit),
        })
    }
}

impl ParallelVisitor for SearchVisitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancelled.load(AtomicOrdering::Relaxed) {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                // An unreadable directory should not end the whole search.
                tracing::debug!(%error, "fuzzy search skipped an entry");
                return WalkState::Continue;
            }
        };
        if entry.depth() == 0 {
            return WalkState::Continue;
        }
        let Ok(relative) = entry.path().strip_prefix(self.root) else {
            return WalkState::Continue;
        };
        let Some(path) = relative.to_str() else {
            return WalkState::Continue;
        };
        let Some(score) = self
            .pattern
            .score(utf32(path, &mut self.chars), &mut self.matcher)
        else {
            return WalkState::Continue;
        };
        if self.best.admits(score, path, self.root_index) {
            self.best.push(Candidate {
                score,
                path: path.to_owned(),
                root_index: self.root_index,
                match_type: match_type(&entry),
            });
        }
        WalkState::Continue
    }
}

impl Drop for SearchVisitor<'_> {
    fn drop(&mut self) {
        let mut merged = lock(self.merged);
        for candidate in self.best.take_sorted() {
            merged.push(candidate);
        }
    }
}

/// The ranking key shared by stored and not-yet-allocated candidates; greater is better.
fn rank_key(
    score: u32,
    path: &str,
    root_index: usize,
) -> (u32, Reverse<usize>, Reverse<&str>, Reverse<usize>) {
    (
        score,
        Reverse(path.len()),
        Reverse(path),
        Reverse(root_index),
    )
}

fn walk_builder(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}

/// Converts `path` for the matcher so that indices count `char`s.
///
/// `Utf32Str::new` would segment non-ASCII text into graphemes, which would make the reported indices drift
/// from character positions after any combining mark.
fn utf32<'a>(path: &'a str, chars: &'a mut Vec<char>) -> Utf32Str<'a> {
    if path.is_ascii() {
        return Utf32Str::Ascii(path.as_bytes());
    }
    chars.clear();
    chars.extend(path.chars());
    Utf32Str::Unicode(chars)
}

fn match_type(entry: &DirEntry) -> FuzzyFileSearchMatchType {
    let is_dir = match entry.file_type() {
        // Links are not followed, so ask the file system what a link points at.
        Some(file_type) if file_type.is_symlink() => entry.path().is_dir(),
        Some(file_type) => file_type.is_dir(),
        None => false,
    };
    if is_dir {
        FuzzyFileSearchMatchType::Directory
    } else {
        FuzzyFileSearchMatchType::File
    }
}

/// Locks the shared list, recovering it if a walker thread panicked while holding it.
fn lock(merged: &Mutex<BestMatches>) -> std::sync::MutexGuard<'_, BestMatches> {
    merged
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use std::{fs, path::Path, sync::atomic::AtomicBool};

    use pretty_assertions::assert_eq;

    use super::*;

    fn write(root: &Path, relative: &str, contents: &str) {
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, contents).unwrap();
    }

    fn search(query: &str, root: &Path, limit: usize) -> Vec<FuzzyFileSearchResult> {
        let not_cancelled = AtomicBool::new(false);
        fuzzy_file_search(
            query,
            &[root.to_str().unwrap().to_owned()],
            limit,
            &not_cancelled,
        )
    }

    fn paths(results: &[FuzzyFileSearchResult]) -> Vec<&str> {
        results.iter().map(|result| result.path.as_str()).collect()
    }

    #[test]
    fn exact_file_name_beats_scattered_match() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "src/main.rs", "");
        write(dir.path(), "m/a/i/n.txt", "");
        write(dir.path(), "my_app_info_notes.md", "");
        write(dir.path(), "unrelated.rs", "");

        let results = search("main", dir.path(), 50);

        let paths = paths(&results);
        assert_eq!(paths.first(), Some(&"src/main.rs"));
        assert!(paths.contains(&"my_app_info_notes.md"), "{paths:?}");
        assert!(!paths.contains(&"unrelated.rs"), "{paths:?}");
        let scores: Vec<u32> = results.iter().map(|result| result.score).collect();
        let mut sorted = scores.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(scores, sorted);
    }

    #[test]
    fn result_fields_and_indices() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "docs/hello.txt", "");
        let root = dir.path().to_str().unwrap().to_owned();

        let results = search("hex", dir.path(), 50);

        assert_eq!(
            results,
            vec![FuzzyFileSearchResult {
                root,
                path: "docs/hello.txt".to_owned(),
                match_type: FuzzyFileSearchMatchType::File,
                file_name: "hello.txt".to_owned(),
                score: results[0].score,
                indices: Some(vec![5, 6, 12]),
            }]
        );
        assert!(results[0].score > 0);
    }

    #[test]
    fn indices_count_chars_and_merge_query_words() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "ä/über.txt", "");

        let results = search("ber ä", dir.path(), 50);

        // "ä/über.txt": 'ä' is char 0 (two bytes), "ber" are chars 3..=5.
        let indices: Vec<_> = results
            .iter()
            .map(|result| (result.path.as_str(), result.indices.clone()))
            .collect();
        assert_eq!(indices, vec![("ä/über.txt", Some(vec![0, 3, 4, 5]))]);
    }

    #[test]
    fn directories_are_matched_and_typed() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "engine/mod.rs", "");

        let results = search("engine", dir.path(), 50);

        let kinds: Vec<_> = results
            .iter()
            .map(|result| (result.path.as_str(), result.match_type))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("engine", FuzzyFileSearchMatchType::Directory),
                ("engine/mod.rs", FuzzyFileSearchMatchType::File),
            ]
        );
    }

    #[test]
    fn gitignore_is_respected_and_git_dir_skipped_but_dotfiles_kept() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), ".gitignore", "target/\n*.log\n");
        write(dir.path(), "target/debug/build.rs", "");
        write(dir.path(), "build.log", "");
        write(dir.path(), ".git/build_config", "");
        write(dir.path(), ".github/build.yml", "");
        write(dir.path(), "src/build.rs", "");

        let results = search("build", dir.path(), 50);

        let mut paths = paths(&results);
        paths.sort_unstable();
        assert_eq!(paths, vec![".github/build.yml", "src/build.rs"]);
    }

    #[test]
    fn ties_prefer_shorter_then_lexicographic_paths() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b/x.rs", "a/x.rs", "x.rs"] {
            write(dir.path(), name, "");
        }

        let results = search("x.rs", dir.path(), 50);

        assert_eq!(paths(&results), vec!["x.rs", "a/x.rs", "b/x.rs"]);
    }

    #[test]
    fn limit_keeps_the_best() {
        let dir = tempfile::tempdir().unwrap();
        for index in 0..40 {
            write(dir.path(), &format!("dir{index}/note{index}.txt"), "");
        }
        write(dir.path(), "note.txt", "");

        let all = search("note", dir.path(), 1000);
        let limited = search("note", dir.path(), 5);

        assert_eq!(all.len(), 41);
        assert_eq!(limited, all[..5].to_vec());
        assert_eq!(limited[0].path, "note.txt");
        assert_eq!(search("note", dir.path(), 0), Vec::new());
    }

    #[test]
    fn empty_query_missing_roots_and_no_roots_give_nothing() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.txt", "");
        let not_cancelled = AtomicBool::new(false);
        let missing = dir.path().join("missing").to_str().unwrap().to_owned();

        assert_eq!(search("", dir.path(), 50), Vec::new());
        assert_eq!(search("   ", dir.path(), 50), Vec::new());
        assert_eq!(
            fuzzy_file_search("a", &[missing], 50, &not_cancelled),
            Vec::new()
        );
        assert_eq!(fuzzy_file_search("a", &[], 50, &not_cancelled), Vec::new());
    }

    #[test]
    fn results_from_several_roots_carry_their_root() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        write(first.path(), "alpha.rs", "");
        write(second.path(), "alphabet.rs", "");
        let roots = vec![
            first.path().to_str().unwrap().to_owned(),
            "/definitely/not/here".to_owned(),
            second.path().to_str().unwrap().to_owned(),
        ];

        let results = fuzzy_file_search("alpha", &roots, 50, &AtomicBool::new(false));

        let found: Vec<_> = results
            .iter()
            .map(|result| (result.root.as_str(), result.path.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![
                (roots[0].as_str(), "alpha.rs"),
                (roots[2].as_str(), "alphabet.rs")
            ]
        );
    }

    #[test]
    fn cancelled_search_returns_nothing() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.txt", "");
        let cancelled = AtomicBool::new(true);

        let results = fuzzy_file_search(
            "a",
            &[dir.path().to_str().unwrap().to_owned()],
            50,
            &cancelled,
        );

        assert_eq!(results, Vec::new());
    }
}
