//! The core of Tandem: the engine (threads, turns, the agent loop) and everything it stands on —
//! model clients, tools, the sandbox, the store, configuration and the account of a home.
//!
//! Nothing here knows a front end: no JSON-RPC id, no transport, no MCP session. Front ends (the
//! `tandem` binary's app-server and MCP adapter) drive the [`engine::Engine`] with typed
//! protocol values, receive its notifications through an `EventSink` and answer its questions
//! through an `Approver`. That this crate does not depend on them is what the compiler checks.

#![deny(clippy::print_stdout, clippy::print_stderr)]

// Error enums here are exhaustive on purpose: the front ends match them, and a new variant must
// fail to compile where it is turned into a wire error.

pub mod access;
pub mod account;
pub mod audit;
pub mod clock;
pub mod config;
pub mod engine;
pub mod external_agent;
pub mod families;
pub mod feedback;
pub mod file_access;
pub mod hooks;
pub mod model;
pub mod paths;
pub mod principal;
pub mod project_index;
pub mod redact;
pub mod sandbox;
pub mod skills;
pub mod store;
pub mod sync;
pub mod text;
pub mod tools;
