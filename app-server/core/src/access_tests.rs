//! The client policy: defaults per front end, and the ceiling judged on what a sandbox
//! policy grants rather than on its name.

use std::path::{Path, PathBuf};

use app_server_protocol::policy::{NetworkAccess, SandboxMode, SandboxPolicy};
use pretty_assertions::assert_eq;

use super::*;

fn config(home: &Path, flags: &[&str]) -> Config {
    let flags: Vec<String> = flags.iter().map(|flag| flag.to_string()).collect();
    Config::load(Some(home.to_path_buf()), &flags).unwrap()
}

fn policy(flags: &[&str], front_end: FrontEnd) -> ClientPolicy {
    let home = tempfile::tempdir().unwrap();
    ClientPolicy::resolve(&config(home.path(), flags), front_end)
}

fn workspace_write(roots: &[&str], network: bool) -> SandboxPolicy {
    SandboxPolicy::WorkspaceWrite {
        writable_roots: Some(roots.iter().map(|root| root.to_string()).collect()),
        network_access: Some(network),
        exclude_tmpdir_env_var: None,
        exclude_slash_tmp: None,
    }
}

fn read_only(network: bool) -> SandboxPolicy {
    SandboxPolicy::ReadOnly {
        network_access: Some(network),
    }
}

#[test]
fn each_front_end_has_its_defaults() {
    let app_server = policy(&[], FrontEnd::AppServerStdio);
    assert_eq!(app_server.max_sandbox(), SandboxMode::DangerFullAccess);
    assert!(app_server.reveal_credentials());
    // `tandem exec`: the local user's own command line, with nothing to reveal.
    let exec = policy(&[], FrontEnd::Exec);
    assert_eq!(exec.max_sandbox(), SandboxMode::DangerFullAccess);
    assert!(!exec.reveal_credentials());
    for front_end in [FrontEnd::McpServerStdio, FrontEnd::McpServerHttp] {
        let mcp = policy(&[], front_end);
        assert_eq!(mcp.max_sandbox(), SandboxMode::WorkspaceWrite);
        assert!(!mcp.reveal_credentials());
        assert!(!mcp.allows_unsandboxed());
    }
}

#[test]
fn the_default_ceiling_follows_a_wider_operator_sandbox_but_an_explicit_one_does_not() {
    let wide = ["sandbox_mode=\"danger-full-access\""];
    assert_eq!(
        policy(&wide, FrontEnd::McpServerStdio).max_sandbox(),
        SandboxMode::DangerFullAccess
    );
    let explicit = [
        "sandbox_mode=\"danger-full-access\"",
        "clients.max_sandbox=\"read-only\"",
    ];
    assert_eq!(
        policy(&explicit, FrontEnd::AppServerStdio).max_sandbox(),
        SandboxMode::ReadOnly
    );
    // A narrower operator mode leaves the front end's default alone.
    let narrow = ["sandbox_mode=\"read-only\""];
    assert_eq!(
        policy(&narrow, FrontEnd::McpServerHttp).max_sandbox(),
        SandboxMode::WorkspaceWrite
    );
}

#[test]
fn credentials_are_revealed_where_allowed_but_never_on_a_network_listener() {
    let reveal = ["clients.reveal_credentials=true"];
    assert!(policy(&reveal, FrontEnd::McpServerStdio).reveal_credentials());
    assert!(!policy(&reveal, FrontEnd::McpServerHttp).reveal_credentials());
    let hide = ["clients.reveal_credentials=false"];
    assert!(!policy(&hide, FrontEnd::AppServerStdio).reveal_credentials());
}

#[test]
fn a_bad_clients_value_names_the_key() {
    let home = tempfile::tempdir().unwrap();
    for (flag, key) in [
        ("clients.max_sandbox=\"everything\"", "clients.max_sandbox"),
        (
            "clients.allow_client_config=\"some\"",
            "clients.allow_client_config",
        ),
        (
            "clients.reveal_credentials=\"yes\"",
            "clients.reveal_credentials",
        ),
    ] {
        let error = Config::load(Some(home.path().to_path_buf()), &[flag.to_string()])
            .unwrap_err()
            .to_string();
        assert!(error.contains(&format!("`{key}`")), "{error}");
    }
}

#[test]
fn a_full_ceiling_admits_everything() {
    let full = policy(&[], FrontEnd::AppServerStdio);
    for sandbox in [
        SandboxPolicy::DangerFullAccess,
        SandboxPolicy::ExternalSandbox {
            network_access: Some(NetworkAccess::Enabled),
        },
        workspace_write(&["/"], true),
    ] {
        assert_eq!(full.check_sandbox(&sandbox, Path::new("/")), Ok(()));
    }
}

#[test]
fn a_workspace_write_ceiling_bounds_what_the_policy_grants() {
    let ceiling = policy(&[], FrontEnd::McpServerStdio);
    let cwd = Path::new("/work/project");
    assert_eq!(
        ceiling.check_sandbox(&workspace_write(&["/var/cache/build"], false), cwd),
        Ok(())
    );
    assert_eq!(
        ceiling.check_sandbox(&read_only(false), Path::new("/")),
        Ok(())
    );
    for (sandbox, cwd, what) in [
        (
            SandboxPolicy::DangerFullAccess,
            cwd,
            "sandbox `dangerFullAccess`",
        ),
        (
            SandboxPolicy::ExternalSandbox {
                network_access: None,
            },
            cwd,
            "sandbox `externalSandbox`",
        ),
        (workspace_write(&["/"], false), cwd, "writable root `/`"),
        (
            workspace_write(&["../../.."], false),
            cwd,
            "writable root `../../..`",
        ),
        (
            workspace_write(&[], false),
            Path::new("/"),
            "a writable working directory `/`",
        ),
        (
            workspace_write(&[], false),
            Path::new("/tmp/.."),
            "a writable working directory `/`",
        ),
        (workspace_write(&[], true), cwd, "network access"),
        (read_only(true), cwd, "network access"),
    ] {
        let error = ceiling
            .check_sandbox(&sandbox, cwd)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with(what), "{sandbox:?} at {cwd:?}: {error}");
        assert!(
            error.ends_with("(clients.max_sandbox = \"workspace-write\")"),
            "{error}"
        );
    }
    // A workspace that holds `$TANDEM_HOME` or lies inside it could rewrite the ceiling.
    let home = tempfile::tempdir().unwrap();
    let config = config(home.path(), &[]);
    let ceiling = ClientPolicy::resolve(&config, FrontEnd::McpServerStdio);
    let parent = config.home.parent().unwrap().to_path_buf();
    for (cwd, roots, what) in [
        (parent.clone(), vec![], "a writable working directory"),
        (
            config.home.join("sessions"),
            vec![],
            "a writable working directory",
        ),
        (
            PathBuf::from("/work/project"),
            vec![parent.to_str().unwrap()],
            "writable root",
        ),
    ] {
        let error = ceiling
            .check_sandbox(&workspace_write(&roots, false), &cwd)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with(what), "{error}");
        assert!(error.contains("overlaps $TANDEM_HOME"), "{error}");
    }
    // The operator's own network setting widens the ceiling's network.
    let networked = policy(
        &["sandbox_workspace_write.network_access=true"],
        FrontEnd::McpServerStdio,
    );
    assert_eq!(
        networked.check_sandbox(&workspace_write(&[], true), cwd),
        Ok(())
    );
}

#[test]
fn a_read_only_ceiling_refuses_any_write() {
    let ceiling = policy(
        &["clients.max_sandbox=\"read-only\""],
        FrontEnd::AppServerStdio,
    );
    let cwd = Path::new("/work/project");
    assert_eq!(ceiling.check_sandbox(&read_only(false), cwd), Ok(()));
    let error = ceiling
        .check_sandbox(&workspace_write(&[], false), cwd)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "sandbox `workspaceWrite` is beyond what this server lets a client obtain (clients.max_sandbox = \"read-only\")"
    );
    assert!(!ceiling.may_write(&read_only(false), cwd, &cwd.join("a.txt")));
}

#[test]
fn asked_policies_are_refused_and_defaults_narrowed() {
    let ceiling = policy(&[], FrontEnd::McpServerStdio);
    let cwd = Path::new("/work/project");
    assert!(
        ceiling
            .admit(SandboxPolicy::DangerFullAccess, cwd, true)
            .is_err()
    );
    assert_eq!(
        ceiling.admit(SandboxPolicy::DangerFullAccess, cwd, false),
        Ok(SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(Vec::new()),
            network_access: Some(false),
            exclude_tmpdir_env_var: Some(false),
            exclude_slash_tmp: Some(false),
        })
    );
    // A writable `/` is refused even when nobody asked: no narrowing makes it a workspace.
    assert!(
        ceiling
            .admit(SandboxPolicy::DangerFullAccess, Path::new("/"), false)
            .is_err()
    );
    // A stored policy is contained, down to read-only where nothing else fits.
    assert_eq!(
        ceiling.contain(&SandboxPolicy::DangerFullAccess, Path::new("/")),
        read_only(false)
    );
    assert_eq!(
        ceiling.contain(&workspace_write(&["/tmp/x"], false), cwd),
        workspace_write(&["/tmp/x"], false)
    );
}

#[test]
fn approved_patches_stay_within_the_ceiling() {
    let home = tempfile::tempdir().unwrap();
    let config = config(
        home.path(),
        &["sandbox_workspace_write.writable_roots=[\"/srv/extra\"]"],
    );
    let ceiling = ClientPolicy::resolve(&config, FrontEnd::McpServerStdio);
    let cwd = Path::new("/work/project");
    let thread = read_only(false);
    assert!(ceiling.may_write(&thread, cwd, Path::new("/work/project/src/a.rs")));
    assert!(ceiling.may_write(&thread, cwd, Path::new("/srv/extra/out.txt")));
    for outside in [
        "/etc/passwd",
        "/work/project/.git/config",
        "/work/project/../other/x",
    ] {
        assert!(
            !ceiling.may_write(&thread, cwd, Path::new(outside)),
            "{outside}"
        );
    }
    // Never `$TANDEM_HOME`, even when the workspace contains it.
    let home_dir = config.home.clone();
    let parent = home_dir.parent().unwrap();
    assert!(!ceiling.may_write(&thread, parent, &home_dir.join("config.toml")));
    // Never through a workspace that is `/`.
    assert!(!ceiling.may_write(&thread, Path::new("/"), Path::new("/etc/passwd")));
    // A full ceiling lets the user approve any path.
    let full = ClientPolicy::resolve(&config, FrontEnd::AppServerStdio);
    assert!(full.may_write(&thread, cwd, Path::new("/etc/passwd")));
}

#[test]
fn secrets_of_a_config_are_redacted_and_the_rest_kept() {
    let mut config = serde_json::json!({
        "model": "m",
        "model_providers": {"p": {"base_url": "u", "http_headers": {"Authorization": "Bearer s"}}},
        "mcp_servers": {"x": {"command": "c", "env": {"TOKEN": "t"}}},
        "history": {"password": "p", "user": "u"},
    });
    redact_config_secrets(&mut config);
    assert_eq!(
        config,
        serde_json::json!({
            "model": "m",
            "model_providers": {"p": {"base_url": "u", "http_headers": {"Authorization": "<redacted>"}}},
            "mcp_servers": {"x": {"command": "c", "env": {"TOKEN": "<redacted>"}}},
            "history": {"password": "<redacted>", "user": "u"},
        })
    );
}

#[test]
fn direct_mcp_calls_and_command_imports_are_local_unless_the_operator_says_otherwise() {
    let local = policy(&[], FrontEnd::AppServerStdio);
    assert!(local.allows_mcp_server_calls());
    assert!(local.allows_command_imports());
    let network = policy(&[], FrontEnd::McpServerHttp);
    assert!(!network.allows_mcp_server_calls());
    assert!(!network.allows_command_imports());
    let enabled = policy(
        &["clients.allow_mcp_server_calls=true"],
        FrontEnd::McpServerHttp,
    );
    assert!(enabled.allows_mcp_server_calls());
    // Importing MCP servers or hooks stays local whatever `[clients]` says.
    assert!(!enabled.allows_command_imports());
    let disabled = policy(
        &["clients.allow_mcp_server_calls=false"],
        FrontEnd::AppServerStdio,
    );
    assert!(!disabled.allows_mcp_server_calls());
}
