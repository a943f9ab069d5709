//! Utility requests: fuzzy file search, git diffs, and the file operations and watches of
//! `fs/*`.

pub mod fs;
pub mod fs_watch;
pub mod fuzzy_search;
pub mod git_diff;
pub mod skills_watch;
