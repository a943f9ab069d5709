//! `query_project`: the agent searches the project index before it opens files, with the MCP
//! tool's arguments and payload (`spec/query-project.md`), through the shared
//! `project_index` entry point, relative to the thread's cwd.
//!
//! The call is reported as a `dynamicToolCall` item (tool `query_project`, namespace `null`):
//! of the reference's item types it is the one for a tool that is neither a command nor a
//! patch and is not served by an MCP server the user configured; the model's output text, the
//! JSON payload or the error message, is the item's single `inputText` content item.
//!
//! The tool is offered only where the index is usable (`project_index::offered_for`): the
//! thread's cwd is a readable project directory and `[query_project_index] model_tool` is on.
//! The model's `repo_root` must stay inside the thread's cwd or one of the operator's
//! `[query_project_index] roots` (`project_index::scoped_repo_root`).

use std::path::PathBuf;
use std::time::Instant;

use app_server_protocol::item::{
    DynamicToolCallOutputContentItem, DynamicToolCallStatus, ThreadItemDetails,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::engine::tools::registry::{ModelCall, spec_of};
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::{ModelRequest, ToolSpec};
use crate::project_index::{self, QUERY_PROJECT_TOOL, QueryProjectArgs};
use crate::sync::lock;
use crate::tools::{Tool, ToolFuture};

/// `query_project` as the model sees it.
pub(crate) struct QueryProject;

impl Tool for QueryProject {
    const NAME: &'static str = QUERY_PROJECT_TOOL;
    const DESCRIPTION: &'static str = "Search the project index before opening files: returns ranked snippets (path relative to the repository root, line_range, snippet, score) from a hybrid lexical + embedding index of the repository, refreshed incrementally first. Use plain-language queries or identifiers; then read only the files and lines it points to.";
    type Args = ModelQueryProjectArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(
        context: Self::Context<'a>,
        args: ModelQueryProjectArgs,
    ) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.query_project(context.call, args.into()))
    }
}

/// The arguments of the MCP tool (`QueryProjectArgs`), described relative to the thread's
/// working directory rather than the server's.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ModelQueryProjectArgs {
    /// Plain-language description of what to find.
    query: String,
    /// Results to return; default 8, capped at 200.
    #[serde(default)]
    limit: Option<i64>,
    /// Include filters such as `src/**/*.rs`, `docs/**`.
    #[serde(default)]
    file_globs: Option<Vec<String>>,
    /// Blend of lexical and embedding scores: 0.0 lexical only, 1.0 embedding only.
    #[serde(default)]
    alpha: Option<f64>,
    /// Repository to search, relative to the working directory and inside it (or inside a directory the operator allowed); default: the working directory.
    #[serde(default)]
    repo_root: Option<String>,
    /// Overrides the configured embedding model.
    #[serde(default)]
    embedding_model: Option<String>,
}

impl From<ModelQueryProjectArgs> for QueryProjectArgs {
    fn from(args: ModelQueryProjectArgs) -> Self {
        QueryProjectArgs {
            query: args.query,
            limit: args.limit,
            file_globs: args.file_globs,
            alpha: args.alpha,
            repo_root: args.repo_root,
            embedding_model: args.embedding_model,
        }
    }
}

/// The tool definition.
pub fn spec() -> ToolSpec {
    spec_of::<QueryProject>()
}

impl TurnTask {
    /// Adds `query_project` to `request`'s tools when the index is usable for the thread's cwd
    /// (checked on the blocking pool: it stats the directory and its ancestors).
    pub async fn offer_query_project(&self, request: &mut ModelRequest) {
        if self.query_project_usable().await {
            request.tools.push(spec());
        }
    }

    async fn query_project_usable(&self) -> bool {
        let cwd = PathBuf::from(&lock(&self.thread.state).meta.cwd);
        let config = self.engine.config().query_project_index.clone();
        tokio::task::spawn_blocking(move || project_index::offered_for(&config, &cwd))
            .await
            .unwrap_or(false)
    }

    /// `query_project`: refreshes the index of the thread's cwd (or `repo_root` under it) and
    /// answers with the payload as JSON; errors answer with their message.
    async fn query_project(&mut self, call: &ToolCall, args: QueryProjectArgs) -> ToolOutcome {
        // A model may call a tool it was not offered; outside a project it stays unsupported.
        if !self.query_project_usable().await {
            return call.reply(format!("unsupported call: {QUERY_PROJECT_TOOL}"));
        }
        let arguments = serde_json::from_str::<Value>(&call.payload).unwrap_or(Value::Null);
        let details =
            |status, content_items, success, duration_ms| ThreadItemDetails::DynamicToolCall {
                id: call.call_id.clone(),
                namespace: None,
                tool: QUERY_PROJECT_TOOL.into(),
                arguments: arguments.clone(),
                status,
                content_items,
                success,
                duration_ms,
            };
        let started = self
            .start_item(details(DynamicToolCallStatus::InProgress, None, None, None))
            .await;
        let clock = Instant::now();
        let cwd = PathBuf::from(&lock(&self.thread.state).meta.cwd);
        let config = self.engine.config().query_project_index.clone();
        let outcome = tokio::select! {
            biased;
            () = self.cancel.cancelled() => None,
            outcome = project_index::query(&config, &cwd, args, tandem_index::no_progress()) => {
                Some(outcome)
            }
        };
        let (text, success) = match &outcome {
            Some(Ok(payload)) => match serde_json::to_string(payload) {
                Ok(text) => (text, true),
                Err(error) => (format!("query_project failed: {error}"), false),
            },
            Some(Err(error)) => (format!("query_project failed: {error}"), false),
            None => ("query_project was interrupted".to_string(), false),
        };
        let status = if success {
            DynamicToolCallStatus::Completed
        } else {
            DynamicToolCallStatus::Failed
        };
        let duration_ms = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
        let content = vec![DynamicToolCallOutputContentItem::InputText { text: text.clone() }];
        let item = self
            .complete_item(
                &started,
                details(status, Some(content), Some(success), Some(duration_ms)),
            )
            .await;
        ToolOutcome {
            output: call.output(text),
            items: vec![item],
            interrupt: outcome.is_none(),
            follow_up: Vec::new(),
        }
    }
}
