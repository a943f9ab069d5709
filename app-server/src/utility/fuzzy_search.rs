//! `fuzzyFileSearch`: a gitignore-aware walk with fuzzy ranking.
