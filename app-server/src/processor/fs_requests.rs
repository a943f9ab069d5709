//! The `fs/*` requests of a connection: each path is checked against the connection's file
//! roots under the operator's ceiling (`tandem_core::file_access`), then the file work runs on
//! the blocking pool (`utility::fs`, `utility::fs_watch`).

use std::path::PathBuf;
use std::sync::Arc;

use app_server_protocol::fs::{
    FsCopyParams, FsCreateDirectoryParams, FsGetMetadataParams, FsGetMetadataResponse,
    FsReadDirectoryParams, FsReadDirectoryResponse, FsReadFileParams, FsReadFileResponse,
    FsRemoveParams, FsUnwatchParams, FsWatchParams, FsWatchResponse, FsWriteFileParams,
};
use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_requests::EmptyResponse;
use futures::FutureExt;
use tandem_core::file_access::{FileAccessError, FileRoots, FileUse};

use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_request};
use crate::utility::fs::{self as files, FsError};
use crate::utility::fs_watch::WatchError;

impl From<FsError> for JsonRpcErrorBody {
    fn from(error: FsError) -> Self {
        match error {
            FsError::Invalid(message) => invalid_request(message),
            FsError::Io(error) => internal_error(error.to_string()),
        }
    }
}

fn refused(error: FileAccessError) -> JsonRpcErrorBody {
    invalid_request(error.to_string())
}

/// Runs blocking file work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, JsonRpcErrorBody> + Send + 'static,
) -> Result<T, JsonRpcErrorBody> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|error| Err(internal_error(format!("file operation failed: {error}"))))
}

impl Processor {
    /// The connection's file roots now: the server's working directory, the working
    /// directories of the caller's loaded threads and `clients.fs_roots`.
    pub(super) fn file_roots(&self) -> impl FnOnce() -> FileRoots + Send + 'static {
        let config = self.engine.config();
        let mut roots: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
        roots.extend(self.engine.loaded_workspaces());
        roots.extend(config.clients.fs_roots.iter().cloned());
        let policy = self.engine.client_policy().clone();
        let home = config.home.clone();
        move || FileRoots::new(&policy, &roots, &home)
    }

    /// Runs `work` on the blocking pool with the connection's file roots as they are now.
    pub(super) async fn with_file_roots<T: Send + 'static>(
        &self,
        work: impl FnOnce(FileRoots) -> Result<T, JsonRpcErrorBody> + Send + 'static,
    ) -> Result<T, JsonRpcErrorBody> {
        let roots = self.file_roots();
        blocking(move || work(roots())).await
    }

    /// `fs/readFile`.
    pub(super) async fn fs_read_file(
        &self,
        params: FsReadFileParams,
    ) -> Result<FsReadFileResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            let path = roots.check(&params.path, FileUse::Read).map_err(refused)?;
            let data_base64 = files::read_file(&path, &params.path)?;
            Ok(FsReadFileResponse { data_base64 })
        })
        .await
    }

    /// `fs/writeFile`.
    pub(super) async fn fs_write_file(
        &self,
        params: FsWriteFileParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            let path = roots.check(&params.path, FileUse::Write).map_err(refused)?;
            let bytes = files::decode_contents(&params.data_base64)?;
            files::write_file(&path, &params.path, &bytes)?;
            Ok(EmptyResponse {})
        })
        .await
    }

    /// `fs/createDirectory`.
    pub(super) async fn fs_create_directory(
        &self,
        params: FsCreateDirectoryParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            let path = roots.check(&params.path, FileUse::Write).map_err(refused)?;
            files::create_directory(&path, params.recursive.unwrap_or(true))?;
            Ok(EmptyResponse {})
        })
        .await
    }

    /// `fs/getMetadata`.
    pub(super) async fn fs_get_metadata(
        &self,
        params: FsGetMetadataParams,
    ) -> Result<FsGetMetadataResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            // Where the path leads must be reachable, and so must the entry itself.
            roots.check(&params.path, FileUse::Read).map_err(refused)?;
            let entry = roots
                .check_entry(&params.path, FileUse::Read)
                .map_err(refused)?;
            Ok(files::metadata(&entry)?)
        })
        .await
    }

    /// `fs/readDirectory`.
    pub(super) async fn fs_read_directory(
        &self,
        params: FsReadDirectoryParams,
    ) -> Result<FsReadDirectoryResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            let path = roots.check(&params.path, FileUse::Read).map_err(refused)?;
            let entries = files::read_directory(&path, &params.path)?;
            Ok(FsReadDirectoryResponse { entries })
        })
        .await
    }

    /// `fs/remove`.
    pub(super) async fn fs_remove(
        &self,
        params: FsRemoveParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            let entry = roots
                .check_entry(&params.path, FileUse::Write)
                .map_err(refused)?;
            files::remove(
                &entry,
                params.recursive.unwrap_or(true),
                params.force.unwrap_or(true),
            )?;
            Ok(EmptyResponse {})
        })
        .await
    }

    /// `fs/copy`.
    pub(super) async fn fs_copy(
        &self,
        params: FsCopyParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        self.with_file_roots(move |roots| {
            let source = roots
                .check_tree(&params.source_path, FileUse::Read)
                .map_err(refused)?;
            let destination = roots
                .check(&params.destination_path, FileUse::Write)
                .map_err(refused)?;
            files::copy(&source, &destination, params.recursive.unwrap_or(false))?;
            Ok(EmptyResponse {})
        })
        .await
    }

    /// `fs/watch`: changes arrive as `fs/changed` until `fs/unwatch` or the connection ends.
    pub(super) async fn fs_watch(
        &self,
        params: FsWatchParams,
    ) -> Result<FsWatchResponse, JsonRpcErrorBody> {
        let watches = Arc::clone(&self.utilities.watches);
        let outgoing = Arc::clone(&self.outgoing);
        let send = move |changed| {
            let outgoing = Arc::clone(&outgoing);
            async move {
                outgoing
                    .send_notification(&ServerNotification::FsChanged(changed))
                    .await;
            }
            .boxed()
        };
        self.with_file_roots(move |roots| {
            let target = roots.check(&params.path, FileUse::Read).map_err(refused)?;
            watches
                .watch(params.watch_id, target.clone(), send)
                .map_err(|error| match error {
                    WatchError::Invalid(message) => invalid_request(message),
                    WatchError::Watcher(_) => internal_error(error.to_string()),
                })?;
            Ok(FsWatchResponse {
                path: target.to_string_lossy().into_owned(),
            })
        })
        .await
    }

    /// `fs/unwatch`.
    pub(super) async fn fs_unwatch(
        &self,
        params: FsUnwatchParams,
    ) -> Result<EmptyResponse, JsonRpcErrorBody> {
        let watches = Arc::clone(&self.utilities.watches);
        blocking(move || {
            watches.unwatch(&params.watch_id);
            Ok(EmptyResponse {})
        })
        .await
    }
}
