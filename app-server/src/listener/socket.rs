//! The listeners' sockets: the default Unix socket under `$TANDEM_HOME`, binding it safely,
//! removing it on exit, and who is at the other end of a connection.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{TcpStream, UnixListener, UnixStream};

/// The directory of the default socket, under `$TANDEM_HOME` (mode 0700).
pub const CONTROL_DIR: &str = "app-server-control";
/// The default socket's file name.
pub const SOCKET_FILE: &str = "app-server-control.sock";
/// Longest socket path the kernel accepts (`sun_path` less its terminating NUL).
const MAX_SOCKET_PATH_BYTES: usize = 107;

/// `unix://` without a path: `$TANDEM_HOME/app-server-control/app-server-control.sock`.
pub fn default_path(home: &Path) -> PathBuf {
    home.join(CONTROL_DIR).join(SOCKET_FILE)
}

/// Who is at the other end of a connection: the peer's uid on a Unix socket, as the kernel
/// reports it (`SO_PEERCRED`); nothing on TCP, where the bearer token decides.
#[derive(Clone, Copy, Debug)]
pub struct Peer {
    /// The peer process's user id.
    pub uid: Option<u32>,
}

impl Peer {
    /// The peer of a Unix-socket connection, as the kernel reports it.
    pub fn of_unix(stream: &UnixStream) -> Peer {
        Peer {
            uid: stream.peer_cred().ok().map(|credentials| credentials.uid()),
        }
    }

    /// The peer of a TCP connection: anyone; the bearer token decides.
    pub fn of_tcp(_stream: &TcpStream) -> Peer {
        Peer { uid: None }
    }
}

/// The server's effective user id.
pub fn own_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The socket file, removed when the server stops.
pub struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Binds the Unix socket at `path`, creating its directory (mode 0700) when missing and
/// leaving the socket itself 0600. A socket file left by a server that is gone is replaced;
/// one a running server answers on is an error, as is any other file at `path`.
pub fn bind(path: &Path) -> anyhow::Result<(UnixListener, SocketFile)> {
    if path.as_os_str().len() > MAX_SOCKET_PATH_BYTES {
        anyhow::bail!(
            "the socket path {} is longer than the {MAX_SOCKET_PATH_BYTES} bytes a Unix socket allows; give a shorter one with --listen unix://PATH",
            path.display()
        );
    }
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty() && !parent.exists())
    {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|error| anyhow::anyhow!("cannot create {}: {error}", parent.display()))?;
    }
    match std::fs::symlink_metadata(path) {
        Ok(metadata) => {
            use std::os::unix::fs::FileTypeExt;
            if !metadata.file_type().is_socket() {
                anyhow::bail!("{} exists and is not a socket", path.display());
            }
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                anyhow::bail!(
                    "another server is listening on {} (stop it with `tandem app-server daemon stop`)",
                    path.display()
                );
            }
            std::fs::remove_file(path)
                .map_err(|error| anyhow::anyhow!("cannot remove {}: {error}", path.display()))?;
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => anyhow::bail!("cannot inspect {}: {error}", path.display()),
    }
    let listener = UnixListener::bind(path)
        .map_err(|error| anyhow::anyhow!("cannot listen on {}: {error}", path.display()))?;
    let file = SocketFile(path.to_path_buf());
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|error| anyhow::anyhow!("cannot restrict {}: {error}", path.display()))?;
    Ok((listener, file))
}

/// Tells whoever started the server where it listens.
#[allow(
    clippy::print_stderr,
    reason = "where the server listens is told on stderr to whoever started it"
)]
pub fn report_listening(url: &str) {
    eprintln!("tandem app-server listening on {url}");
}

/// Tells whoever started the server where the web client's page is (`--web`), with the
/// token in the URL's fragment, as notebook servers do.
#[allow(
    clippy::print_stderr,
    reason = "the page's address is told on stderr to whoever started the server"
)]
pub fn report_page(url: &str) {
    eprintln!("tandem app-server web client at {url}");
}
