//! Codex compatibility shared by the front ends: Codex's first-generation conversation API
//! (`legacy_requests`, `conversations`, `conversation_summary`), the `codex/event` mapping
//! (`codex_events`), the typed decoding and gates of the app-server's requests (`requests`,
//! `experimental`), and the command and account helpers they call (`commands`, `auth`).
//!
//! Both the app-server processor and the MCP adapter import this module; it imports neither.

pub mod auth;
pub mod codex_events;
pub mod commands;
pub mod conversation_summary;
pub mod conversations;
pub mod experimental;
pub mod legacy_requests;
pub mod requests;
