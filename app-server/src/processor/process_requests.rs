//! The experimental `process/*` requests: a process outside Tandem's sandbox, which only a
//! server whose ceiling is `danger-full-access` runs (the reference runs them for any client).
//! `process/spawn` answers once the process runs; its output (when streamed) and its exit
//! follow as `process/outputDelta` and `process/exited`. The processes belong to the
//! connection and die with it.

use std::sync::Arc;

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::notifications::CommandExecOutputDeltaNotification;
use app_server_protocol::policy::SandboxPolicy;
use app_server_protocol::process::{
    ProcessExitedNotification, ProcessKillParams, ProcessOutputDeltaNotification,
    ProcessResizePtyParams, ProcessSpawnParams, ProcessWriteStdinParams,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::EmptyResponse;
use app_server_protocol::utility::{
    CommandExecParams, CommandExecResizeParams, CommandExecTerminateParams, CommandExecWriteParams,
};
use tokio::sync::{mpsc, oneshot};

use crate::compat::commands::{DELTA_QUEUE, exec_error, exec_plan};
use crate::processor::Processor;
use crate::rpc_error::invalid_request;

impl Processor {
    /// `process/spawn`: refused below a `danger-full-access` ceiling; otherwise answered `{}`
    /// once the process runs, or with why it could not start.
    pub(super) async fn process_spawn(&self, id: RequestId, params: ProcessSpawnParams) {
        let policy = self.engine.client_policy();
        if !policy.allows_unsandboxed() {
            let message = format!(
                "process/spawn runs a process outside the sandbox, which this server does not let clients do (clients.max_sandbox = \"{}\")",
                tandem_core::access::mode_name(policy.max_sandbox())
            );
            self.reply::<EmptyResponse>(id, Err(invalid_request(message)))
                .await;
            return;
        }
        if !std::path::Path::new(&params.cwd).is_absolute() {
            let message = format!("process/spawn cwd must be absolute: {:?}", params.cwd);
            self.reply::<EmptyResponse>(id, Err(invalid_request(message)))
                .await;
            return;
        }
        let handle = params.process_handle.clone();
        let exec_params = command_exec_params(params);
        let plan = exec_plan(&self.engine, &exec_params);
        let (cwd, argv) = match plan {
            Ok(plan) => plan,
            Err(error) => {
                self.reply::<EmptyResponse>(id, Err(error)).await;
                return;
            }
        };
        let registry = Arc::clone(&self.utilities.processes);
        let outgoing = Arc::clone(&self.outgoing);
        let environment = self.engine.config().shell_environment_policy.clone();
        let (started, running) = oneshot::channel();
        let (deltas, mut received) =
            mpsc::channel::<CommandExecOutputDeltaNotification>(DELTA_QUEUE);
        // The process's own task: it outlives this request and ends when the process does
        // (the connection closing kills it).
        let run = tokio::spawn(async move {
            let forward = {
                let outgoing = Arc::clone(&outgoing);
                async move {
                    while let Some(delta) = received.recv().await {
                        let notification = ServerNotification::ProcessOutputDelta(
                            ProcessOutputDeltaNotification {
                                process_handle: delta.process_id,
                                stream: delta.stream,
                                delta_base64: delta.delta_base64,
                                cap_reached: delta.cap_reached,
                            },
                        );
                        outgoing.send_notification(&notification).await;
                    }
                }
            };
            let exec = registry.exec_reporting_start(
                exec_params,
                argv,
                cwd,
                &environment,
                deltas,
                Some(started),
            );
            let (outcome, ()) = tokio::join!(exec, forward);
            let outcome = outcome.map_err(|error| exec_error(&error))?;
            let exited = ServerNotification::ProcessExited(ProcessExitedNotification {
                process_handle: handle,
                exit_code: outcome.response.exit_code,
                stdout: outcome.response.stdout,
                stderr: outcome.response.stderr,
                stdout_cap_reached: outcome.stdout_cap_reached,
                stderr_cap_reached: outcome.stderr_cap_reached,
                output_drain_timed_out: Some(false),
            });
            outgoing.send_notification(&exited).await;
            Ok::<(), JsonRpcErrorBody>(())
        });
        let result = match running.await {
            Ok(()) => Ok(EmptyResponse {}),
            // The run ended before the process ran: its error says why.
            Err(_) => match run.await {
                Ok(Err(error)) => Err(error),
                Ok(Ok(())) | Err(_) => Err(crate::rpc_error::internal_error(
                    "process/spawn ended before the process started",
                )),
            },
        };
        self.reply(id, result).await;
    }

    /// `process/writeStdin`.
    pub(super) async fn process_write_stdin(
        &self,
        params: ProcessWriteStdinParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        let write = CommandExecWriteParams {
            process_id: params.process_handle,
            delta_base64: params.delta_base64,
            close_stdin: params.close_stdin,
        };
        self.utilities
            .processes
            .write(write)
            .await
            .map(|()| EmptyResponse {})
            .map_err(|error| exec_error(&error))
    }

    /// `process/kill`.
    pub(super) fn process_kill(
        &self,
        params: ProcessKillParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        let terminate = CommandExecTerminateParams {
            process_id: params.process_handle,
        };
        self.utilities
            .processes
            .terminate(terminate)
            .map(|()| EmptyResponse {})
            .map_err(|error| exec_error(&error))
    }

    /// `process/resizePty`.
    pub(super) fn process_resize_pty(
        &self,
        params: ProcessResizePtyParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        let resize = CommandExecResizeParams {
            process_id: params.process_handle,
            size: params.size,
        };
        self.utilities
            .processes
            .resize(resize)
            .map(|()| EmptyResponse {})
            .map_err(|error| exec_error(&error))
    }
}

/// `process/spawn`'s params as the `command/exec` they run as: outside the sandbox, the
/// handle as the process id (a separate namespace from `command/exec`'s).
fn command_exec_params(params: ProcessSpawnParams) -> CommandExecParams {
    CommandExecParams {
        command: params.command,
        process_id: Some(params.process_handle),
        tty: params.tty,
        stream_stdin: params.stream_stdin,
        stream_stdout_stderr: params.stream_stdout_stderr,
        output_bytes_cap: params.output_bytes_cap.flatten(),
        disable_output_cap: matches!(params.output_bytes_cap, Some(None)).then_some(true),
        timeout_ms: params.timeout_ms.flatten(),
        disable_timeout: matches!(params.timeout_ms, Some(None)).then_some(true),
        cwd: Some(params.cwd),
        env: params.env,
        size: params.size,
        sandbox_policy: Some(SandboxPolicy::DangerFullAccess),
    }
}
