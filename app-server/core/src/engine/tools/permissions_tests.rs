//! The bounds of a permission grant: only what was asked, only what the sandbox can add, and
//! never beyond the operator's ceiling (`[clients]`), whatever the client answers.

use std::path::Path;

use app_server_protocol::permissions::{
    AdditionalFileSystemPermissions, AdditionalNetworkPermissions, FileSystemAccessMode,
    FileSystemPath, FileSystemSandboxEntry, GrantedPermissionProfile, PermissionGrantScope,
};
use app_server_protocol::policy::SandboxPolicy;
use pretty_assertions::assert_eq;

use super::*;
use crate::access::FrontEnd;

fn ceiling(home: &Path, flags: &[&str]) -> ClientPolicy {
    let flags: Vec<String> = flags.iter().map(|flag| flag.to_string()).collect();
    let config = Config::load(Some(home.to_path_buf()), &flags).unwrap();
    ClientPolicy::resolve(&config, FrontEnd::AppServerStdio)
}

fn workspace_write() -> SandboxPolicy {
    SandboxPolicy::WorkspaceWrite {
        writable_roots: None,
        network_access: Some(false),
        exclude_tmpdir_env_var: None,
        exclude_slash_tmp: None,
    }
}

fn everything(home: &Path) -> Grant {
    Grant {
        network: true,
        read: vec![
            "/srv/data".into(),
            home.join("config.toml").display().to_string(),
        ],
        write: vec!["/srv/out".into(), "/".into()],
    }
}

#[test]
fn only_what_was_asked_is_granted() {
    let cwd = Path::new("/work/project");
    let asked = Grant {
        network: false,
        read: vec!["/srv/data".into()],
        write: vec!["/work/project/out".into()],
    };
    let answer = GrantedPermissionProfile {
        network: Some(AdditionalNetworkPermissions {
            enabled: Some(true),
        }),
        file_system: Some(AdditionalFileSystemPermissions {
            read: Some(vec!["/srv/data".into(), "/etc".into()]),
            write: None,
            entries: Some(vec![
                FileSystemSandboxEntry {
                    access: FileSystemAccessMode::Write,
                    path: FileSystemPath::Path { path: "out".into() },
                },
                FileSystemSandboxEntry {
                    access: FileSystemAccessMode::Write,
                    path: FileSystemPath::GlobPattern {
                        pattern: "/**".into(),
                    },
                },
            ]),
            glob_scan_max_depth: None,
        }),
    };
    assert_eq!(
        granted_of_asked(cwd, &asked, &answer),
        Grant {
            // Not asked for.
            network: false,
            // `/etc` was not asked for.
            read: vec!["/srv/data".into()],
            // The relative entry names what was asked; the glob does not.
            write: vec!["/work/project/out".into()],
        }
    );
}

#[test]
fn a_workspace_write_ceiling_keeps_the_network_and_the_whole_file_system_out_of_reach() {
    let home = tempfile::tempdir().unwrap();
    let access = ceiling(home.path(), &["clients.max_sandbox=\"workspace-write\""]);
    let grant = everything(home.path());
    let effective = within_ceiling(
        &grant,
        &workspace_write(),
        Path::new("/work/project"),
        &access,
        home.path(),
    );
    assert_eq!(
        effective,
        Grant {
            // The operator's own network_access is false.
            network: false,
            // `$TANDEM_HOME` stays concealed.
            read: vec!["/srv/data".into()],
            // `/` is no workspace.
            write: vec!["/srv/out".into()],
        }
    );
    let widened = widened(&workspace_write(), &effective);
    assert!(
        access
            .check_sandbox(&widened, Path::new("/work/project"))
            .is_ok()
    );
    assert_eq!(
        widened,
        SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(vec!["/srv/out".into()]),
            network_access: Some(false),
            exclude_tmpdir_env_var: None,
            exclude_slash_tmp: None,
        }
    );
}

#[test]
fn a_ceiling_with_the_operators_network_grants_it() {
    let home = tempfile::tempdir().unwrap();
    let access = ceiling(
        home.path(),
        &[
            "clients.max_sandbox=\"workspace-write\"",
            "sandbox_workspace_write.network_access=true",
        ],
    );
    let effective = within_ceiling(
        &everything(home.path()),
        &workspace_write(),
        Path::new("/work/project"),
        &access,
        home.path(),
    );
    assert!(effective.network);
}

#[test]
fn a_read_only_sandbox_gains_no_writable_roots() {
    let home = tempfile::tempdir().unwrap();
    let access = ceiling(home.path(), &[]);
    let read_only = SandboxPolicy::ReadOnly {
        network_access: None,
    };
    let effective = within_ceiling(
        &everything(home.path()),
        &read_only,
        Path::new("/work/project"),
        &access,
        home.path(),
    );
    assert_eq!(effective.write, Vec::<String>::new());
    assert!(effective.network);
    assert_eq!(
        widened(&read_only, &effective),
        SandboxPolicy::ReadOnly {
            network_access: Some(true)
        }
    );
}

#[test]
fn a_turn_grant_ends_with_its_turn_and_a_session_grant_stays() {
    let mut grants = PermissionGrants::default();
    let network = Grant {
        network: true,
        ..Grant::default()
    };
    let write = Grant {
        write: vec!["/srv/out".into()],
        ..Grant::default()
    };
    grants.record("turn-1", PermissionGrantScope::Turn, &network);
    grants.record("turn-1", PermissionGrantScope::Session, &write);
    assert_eq!(
        grants.for_turn("turn-1"),
        Grant {
            network: true,
            read: Vec::new(),
            write: vec!["/srv/out".into()],
        }
    );
    assert_eq!(grants.for_turn("turn-2"), write);
}

#[test]
fn requests_are_capped() {
    let cwd = Path::new("/work");
    let many = AskedPermissions {
        network: None,
        file_system: Some(AskedFileSystem {
            read: Some(
                (0..=MAX_REQUESTED_PATHS)
                    .map(|n| format!("/p{n}"))
                    .collect(),
            ),
            write: None,
        }),
    };
    assert!(asked_grant(cwd, &many).is_err());
    let empty = AskedPermissions::default();
    assert_eq!(
        asked_grant(cwd, &empty).unwrap_err(),
        "request_permissions requires at least one permission"
    );
    let long = AskedPermissions {
        network: None,
        file_system: Some(AskedFileSystem {
            read: None,
            write: Some(vec!["x".repeat(MAX_PATH_BYTES + 1)]),
        }),
    };
    assert!(asked_grant(cwd, &long).is_err());
}
