//! Utility requests: fuzzy file search and git diffs.

pub mod fuzzy_search;
pub mod git_diff;
