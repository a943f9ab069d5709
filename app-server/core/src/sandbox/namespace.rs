//! Read-only `.git` and unreadable `$TANDEM_HOME` through a private mount namespace:
//! bind-mount each protected path onto itself and remount the bind read-only, and cover each
//! hidden path with an empty, read-only file system. An exposed directory inside a hidden one
//! is bind-mounted back, read-only, at its place in that file system, whose other directories
//! can be crossed but not listed.
//!
//! Landlock only adds rights, so a write rule on a workspace also covers its `.git`, and the
//! read rule on `/` covers everything; a mount is the one thing that takes access away again
//! below a granted directory. The mounts live in a namespace of the helper's own, so nothing
//! outside sees them, and Landlock (applied afterwards) forbids the command to unmount or
//! remount them.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::sandbox::SandboxError;
use crate::sandbox::hidden::Exposure;

/// How the mount namespace was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamespaceKind {
    /// A mount namespace alone: we had `CAP_SYS_ADMIN` (typically root), so no user namespace
    /// is needed and file ownership and permissions stay exactly as they are outside.
    Mount,
    /// An unprivileged user namespace (our uid and gid mapped to themselves) plus a mount
    /// namespace. Files owned by other users show up as `nobody` inside.
    UserAndMount,
}

/// Moves this process into a new mount namespace and, there, makes every path in `protected`
/// read-only and every path in `hidden` empty: a directory becomes an empty read-only
/// `tmpfs` without permissions, a file an empty read-only file (`/dev/null`). The `exposed`
/// directories reappear read-only inside the `tmpfs` over their hidden ancestor.
///
/// Must run while the process is single-threaded (`unshare(CLONE_NEWUSER)` requires it). On
/// error the process may already be in new namespaces with only some paths protected; the
/// caller then protects them another way.
pub fn isolate(
    protected: &[PathBuf],
    hidden: &[PathBuf],
    exposed: &[Exposure],
) -> Result<NamespaceKind, SandboxError> {
    let kind = enter_namespace()?;
    // Without this, our bind mounts could propagate back into the parent namespace when `/`
    // is a shared mount (the systemd default).
    mount(
        "change the propagation of",
        None,
        Path::new("/"),
        libc::MS_REC | libc::MS_PRIVATE,
    )?;
    for path in protected {
        mount("bind-mount", Some(path), path, libc::MS_BIND)?;
        // A remount inside a user namespace must keep the flags that the kernel locked on the
        // original mount (nosuid, nodev, ...), or it fails with EPERM.
        let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | mount_flags(path)?;
        mount("remount read-only", None, path, flags)?;
    }
    // Opened before anything covers them: afterwards their paths lead into the empty mounts.
    let mut sources = Vec::with_capacity(exposed.len());
    for exposure in exposed {
        sources.push((open_directory(&exposure.source)?, exposure));
    }
    // After the binds, so that a hidden path below a protected one is covered too.
    for path in hidden {
        let inside: Vec<&(File, &Exposure)> = sources
            .iter()
            .filter(|(_, exposure)| exposure.mount_point.starts_with(path))
            .collect();
        if path.is_dir() && inside.is_empty() {
            mount_empty_directory(path)?;
        } else if path.is_dir() {
            mount_directory_exposing(path, &inside)?;
        } else {
            let null = Path::new("/dev/null");
            mount("bind-mount", Some(null), path, libc::MS_BIND)?;
            let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | mount_flags(path)?;
            mount("remount read-only", None, path, flags)?;
        }
    }
    Ok(kind)
}

/// Covers `path` with an empty `tmpfs` that nobody may read, write or search.
fn mount_empty_directory(path: &Path) -> Result<(), SandboxError> {
    let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    mount_tmpfs(path, c"mode=000,size=4k", flags)
}

/// Mounts a `tmpfs` with `data` (its options) and `flags` on `path`.
fn mount_tmpfs(
    path: &Path,
    data: &std::ffi::CStr,
    flags: libc::c_ulong,
) -> Result<(), SandboxError> {
    let target = c_path(path)?;
    let fstype = c"tmpfs";
    // SAFETY: every pointer is a NUL-terminated string that outlives the call.
    let result = unsafe {
        libc::mount(
            fstype.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            flags,
            data.as_ptr().cast(),
        )
    };
    if result != 0 {
        return Err(SandboxError::Mount {
            action: "hide",
            path: path.to_path_buf(),
            source: io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Covers `path` with a `tmpfs` that holds only the mount points of `exposed`, each a read-only
/// bind of its source; every directory of the `tmpfs` may be crossed but not listed, and the
/// `tmpfs` ends read-only.
fn mount_directory_exposing(
    path: &Path,
    exposed: &[&(File, &Exposure)],
) -> Result<(), SandboxError> {
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    mount_tmpfs(path, c"mode=700,size=64k", flags)?;
    for (directory, exposure) in exposed {
        let point = &exposure.mount_point;
        std::fs::create_dir_all(point).map_err(io_error("create the mount point", point))?;
        let source = PathBuf::from(format!("/proc/self/fd/{}", directory.as_raw_fd()));
        mount("bind-mount", Some(&source), point, libc::MS_BIND)?;
        let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | mount_flags(point)?;
        mount("remount read-only", None, point, flags)?;
    }
    // Once every mount point exists: the directories leading to them become searchable, not
    // listable.
    for (_, exposure) in exposed {
        for ancestor in exposure.mount_point.ancestors().skip(1) {
            if !ancestor.starts_with(path) {
                break;
            }
            std::fs::set_permissions(ancestor, std::fs::Permissions::from_mode(0o111))
                .map_err(io_error("restrict", ancestor))?;
        }
    }
    mount(
        "remount read-only",
        None,
        path,
        libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
    )
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SandboxError {
    let path = path.to_path_buf();
    move |source| SandboxError::Mount {
        action,
        path,
        source,
    }
}

/// A handle on the directory `path` that names it whatever is mounted over it later.
fn open_directory(path: &Path) -> Result<File, SandboxError> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(path)
        .map_err(io_error("open", path))
}

fn enter_namespace() -> Result<NamespaceKind, SandboxError> {
    // SAFETY: unshare has no memory-safety preconditions; it only changes this process's
    // namespaces.
    if unsafe { libc::unshare(libc::CLONE_NEWNS) } == 0 {
        return Ok(NamespaceKind::Mount);
    }
    // Once in a new user namespace there is no way back, and without id maps every file
    // operation fails (EOVERFLOW), which would also break the Landlock-only fallback. So check
    // first that we may write our maps at all: an enclosing Landlock domain (a nested
    // sandbox) makes /proc read-only. Opening checks the permission; this file (our current
    // namespace's map) is never written.
    if let Err(source) = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/self/uid_map")
    {
        return Err(SandboxError::Syscall {
            call: "open(/proc/self/uid_map)",
            source,
        });
    }
    // SAFETY: getuid and getgid cannot fail and touch no memory.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // SAFETY: as above; the process is single-threaded here (fresh exec of the helper, no
    // runtime started), which CLONE_NEWUSER requires.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
        return Err(syscall_error("unshare(CLONE_NEWUSER | CLONE_NEWNS)"));
    }
    // An unprivileged process may map only its own ids, and only after giving up setgroups.
    write_proc_file("/proc/self/setgroups", "deny")?;
    write_proc_file("/proc/self/uid_map", &format!("{uid} {uid} 1\n"))?;
    write_proc_file("/proc/self/gid_map", &format!("{gid} {gid} 1\n"))?;
    Ok(NamespaceKind::UserAndMount)
}

fn write_proc_file(path: &'static str, contents: &str) -> Result<(), SandboxError> {
    match std::fs::write(path, contents) {
        Ok(()) => Ok(()),
        Err(source) => Err(SandboxError::Syscall { call: path, source }),
    }
}

fn mount(
    action: &'static str,
    source: Option<&Path>,
    target: &Path,
    flags: libc::c_ulong,
) -> Result<(), SandboxError> {
    let source = source.map(c_path).transpose()?;
    let target_c = c_path(target)?;
    let source_ptr = source
        .as_ref()
        .map_or(std::ptr::null(), |source| source.as_ptr());
    // SAFETY: every pointer is either null (allowed for the source, type and data of a bind
    // or propagation change) or a NUL-terminated string that outlives the call.
    let result = unsafe {
        libc::mount(
            source_ptr,
            target_c.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    if result != 0 {
        return Err(SandboxError::Mount {
            action,
            path: target.to_path_buf(),
            source: io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// The mount flags of the mount that holds `path`, translated from `statvfs` to `MS_*`.
fn mount_flags(path: &Path) -> Result<libc::c_ulong, SandboxError> {
    let path_c = c_path(path)?;
    // SAFETY: statvfs is plain old data, so all-zero bytes are a valid value.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: path_c is NUL-terminated and stat is a valid, writable statvfs.
    if unsafe { libc::statvfs(path_c.as_ptr(), &mut stat) } != 0 {
        return Err(syscall_error("statvfs"));
    }
    const FLAGS: [(libc::c_ulong, libc::c_ulong); 6] = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Ok(FLAGS
        .iter()
        .filter(|(statvfs_flag, _)| stat.f_flag & statvfs_flag != 0)
        .fold(0, |flags, (_, mount_flag)| flags | mount_flag))
}

fn c_path(path: &Path) -> Result<CString, SandboxError> {
    match CString::new(path.as_os_str().as_bytes()) {
        Ok(path) => Ok(path),
        Err(_) => Err(SandboxError::InvalidPath(path.to_path_buf())),
    }
}

fn syscall_error(call: &'static str) -> SandboxError {
    SandboxError::Syscall {
        call,
        source: io::Error::last_os_error(),
    }
}
