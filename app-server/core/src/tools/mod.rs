//! Tool implementations the agent loop calls: patches and command execution.
//!
//! The engine decides *whether* something may run (policy and approvals); these modules know
//! *how* to run it.

pub mod apply_patch;
pub mod exec;
