//! What 2026-07-28 requests share in Redis: the Tasks extension's tasks
//! ([`crate::mcp::tasks::TaskMirror`]), each task's record under `<prefix>:task:<id>` (JSON,
//! expiring with the task), so that any node answers `tasks/get` (`tasks/update` and
//! `tasks/cancel` for a task of another node go to that node as a [`Forward::Task`]); and the
//! used `requestState`s ([`crate::mcp::request_state::UsedStates`]), one
//! `<prefix>:used-state:<question>` key each, set with `SET NX` and expiring with the state.

use std::sync::Arc;
use std::time::Duration;

use redis::AsyncCommands;
use serde_json::{Map, Value};

use crate::mcp::distributed::bus::StreamManager;
use crate::mcp::distributed::{BoxFuture, Forward, Keys, StoreError};
use crate::mcp::request_state::UsedStates;
use crate::mcp::tasks::{TaskMirror, TaskRecord};

/// Tasks and used request states in Redis.
pub struct RedisTaskMirror {
    connection: redis::aio::ConnectionManager,
    keys: Keys,
    streams: Arc<dyn StreamManager>,
}

impl RedisTaskMirror {
    /// Tasks in the Redis of `connection`, under `keys`; forwards go through `streams`.
    pub fn new(
        connection: redis::aio::ConnectionManager,
        keys: Keys,
        streams: Arc<dyn StreamManager>,
    ) -> Self {
        Self {
            connection,
            keys,
            streams,
        }
    }
}

impl TaskMirror for RedisTaskMirror {
    fn save<'a>(
        &'a self,
        record: &'a TaskRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let text = serde_json::to_string(record)?;
            let mut connection = self.connection.clone();
            let millis = ttl.as_millis().max(1) as u64;
            let () = connection
                .pset_ex(self.keys.task(&record.task_id), text, millis)
                .await?;
            Ok(())
        })
    }

    fn load<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let text: Option<String> = connection.get(self.keys.task(task_id)).await?;
            match text {
                Some(text) => Ok(Some(serde_json::from_str(&text)?)),
                None => Ok(None),
            }
        })
    }

    fn forward<'a>(
        &'a self,
        node: &'a str,
        task_id: &'a str,
        responses: Option<Map<String, Value>>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let forward = Forward::Task {
                task_id: task_id.to_string(),
                responses,
            };
            self.streams.forward(Some(node), &forward).await
        })
    }
}

impl UsedStates for RedisTaskMirror {
    fn claim<'a>(
        &'a self,
        question: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let set: Option<String> = redis::cmd("SET")
                .arg(self.keys.used_state(question))
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(ttl.as_millis().max(1) as u64)
                .query_async(&mut connection)
                .await?;
            Ok(set.is_some())
        })
    }
}
