//! `thread/backgroundTerminals/list`: the `exec_command` processes of a loaded thread that are
//! still running after their tool call returned (the items `write_stdin` can still complete).

use app_server_protocol::background_terminals::{
    ThreadBackgroundTerminal, ThreadBackgroundTerminalsListParams,
    ThreadBackgroundTerminalsListResponse,
};
use app_server_protocol::item::ThreadItemDetails;

use crate::engine::settings::normalize_thread_id;
use crate::engine::{Engine, EngineError};
use crate::sync::lock;

impl Engine {
    /// `thread/backgroundTerminals/list`, in the order the commands started.
    pub fn list_background_terminals(
        &self,
        params: ThreadBackgroundTerminalsListParams,
    ) -> Result<ThreadBackgroundTerminalsListResponse, EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|error| EngineError::InvalidRequest(format!("invalid cursor: {error}")))?,
        };
        let mut running: Vec<(i32, ThreadBackgroundTerminal)> = lock(&thread.tools.open_commands)
            .iter()
            .filter_map(|(session_id, open)| match &open.item.details {
                ThreadItemDetails::CommandExecution {
                    id, command, cwd, ..
                } => Some((
                    *session_id,
                    ThreadBackgroundTerminal {
                        item_id: id.clone(),
                        process_id: session_id.to_string(),
                        command: command.clone(),
                        cwd: cwd.clone(),
                        os_pid: None,
                        cpu_percent: None,
                        rss_kb: None,
                    },
                )),
                _ => None,
            })
            .collect();
        // Session ids grow as commands start.
        running.sort_by_key(|(session_id, _)| *session_id);
        let total = running.len();
        let limit = match params.limit {
            None | Some(0) => total,
            Some(limit) => usize::try_from(limit).unwrap_or(usize::MAX),
        };
        let data: Vec<ThreadBackgroundTerminal> = running
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(_, terminal)| terminal)
            .collect();
        let end = offset.saturating_add(data.len());
        Ok(ThreadBackgroundTerminalsListResponse {
            data,
            next_cursor: (end < total).then(|| end.to_string()),
        })
    }
}
