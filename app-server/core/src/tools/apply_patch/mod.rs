//! The apply_patch format: parser, matcher, atomic applier and diffs (`model-wire.md` §2.3, §3).
//!
//! The flow for one patch is:
//! 1. get the patch text: the tool input, or [`heredoc::parse_heredoc_invocation`] for a shell
//!    command that runs `apply_patch <<'EOF'`;
//! 2. [`parser::parse_patch`] it;
//! 3. [`plan::plan_patch`] it against the working directory, which computes every new content
//!    without writing; [`plan::PatchPlan::changes`] gives the `fileChange` item's changes;
//! 4. after approval, [`diff::TurnDiffTracker::track`] the plan and [`plan::PatchPlan::apply`] it,
//!    which writes all files or none; [`apply::AppliedPatch::summary`] is the tool output and
//!    [`diff::TurnDiffTracker::unified_diff`] the `turn/diff/updated` text.
//!
//! Everything here is synchronous and engine-agnostic; the engine decides when to call it.

pub mod apply;
pub mod diff;
pub mod error;
pub mod heredoc;
mod matcher;
pub mod parser;
pub mod plan;

#[cfg(test)]
mod tests;

/// The update-chunk matcher, for the `apply-patch` fuzz target.
#[cfg(feature = "fuzzing")]
pub use matcher::apply_chunks;
