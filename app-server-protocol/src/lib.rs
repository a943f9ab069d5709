//! Wire types and method tables of the Tandem app-server protocol.
//!
//! Tandem speaks the Codex app-server v2 protocol as observed on codex-cli 0.169.0: JSONL over
//! stdio, JSON-RPC 2.0 shapes without the `jsonrpc` field. This crate is pure data (serde,
//! ts-rs and schemars types plus the method tables) and does no I/O.
//!
//! Conventions: params accept omitted and `null` optional fields alike and ignore unknown
//! fields; results and notifications serialize every field, with explicit `null`s.

#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod macros;

pub mod account;
pub mod background_terminals;
pub mod codex_event;
pub mod config_requests;
pub mod conversation_summary;
pub mod dialogs;
pub mod dynamic_tools;
pub mod export;
pub mod external_agent;
pub mod fs;
pub mod fuzzy_sessions;
pub mod history;
pub mod hooks;
pub mod housekeeping;
pub mod index;
pub mod initialize;
pub mod item;
pub mod item_progress;
pub mod jsonrpc;
pub mod legacy;
pub mod mcp_calls;
pub mod mcp_servers;
pub mod notifications;
pub mod permissions;
pub mod policy;
pub mod process;
pub mod review;
pub mod server_requests;
pub mod shell_command;
pub mod skills;
pub mod tables;
pub mod tables_meta;
pub mod thread;
pub mod thread_attachment;
pub mod thread_context;
pub mod thread_goal;
pub mod thread_items;
pub mod thread_lifecycle;
pub mod thread_queue;
pub mod thread_read_state;
pub mod thread_requests;
pub mod thread_search;
pub mod thread_section;
pub mod thread_settings;
pub mod turn_requests;
pub mod unsupported;
pub mod utility;

/// The Codex app-server version whose wire this crate implements; clients gate features on it.
pub const PROTOCOL_VERSION: &str = "0.169.0";
