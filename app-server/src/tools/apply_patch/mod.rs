//! The apply_patch format: parser, matcher, atomic applier and diffs.
