//! The MCP adapter: the engine offered to generic MCP clients as the `codex` and
//! `codex-reply` tools, plus the project-index tools `query_project` and `repo_index_refresh`
//! (`index_tools`), over stdio (one session) or streamable HTTP (many sessions).
//!
//! Layout: `protocol` (JSON-RPC and MCP basics), `tools` (tool definitions and arguments),
//! `options` (what every session of a server shares), `session` (one MCP session: dispatch, cancellation, its own engine), `calls` (running a
//! tool call's turn), `events` (engine events → `codex/event` and progress), `elicitation`
//! (approvals), `request_state` (the signed `requestState` of 2026 multi-round-trip requests), `mrtr` (approvals of 2026 calls through `input_required`), `listen` (`subscriptions/listen`), `tasks` and `task_calls` (the Tasks extension: the tasks of a server, and calls run as tasks), `legacy` (the first-generation conversation API), `output` (routing to streams), `stdio` and `http` (transports), `logging`.

pub mod calls;
pub mod distributed;
pub mod elicitation;
pub mod events;
#[cfg(feature = "conformance-fixtures")]
pub mod fixtures;
#[cfg(feature = "conformance-fixtures")]
pub mod fixtures_mrtr;
#[cfg(feature = "conformance-fixtures")]
pub mod fixtures_tasks;
pub mod history_tools;
pub mod http;
pub mod index_tools;
pub mod legacy;
pub mod listen;
pub mod logging;
pub mod modern;
pub mod mrtr;
pub mod options;
pub mod output;
pub mod protocol;
pub mod request_state;
pub mod session;
pub mod stdio;
pub mod task_calls;
pub mod tasks;
pub mod tools;
