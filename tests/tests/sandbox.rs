//! The sandbox, end to end: the real `tandem sandbox-exec` helper runs `bash -c` scripts that
//! try real escapes (writes outside the workspace, into `.git`, through symlinks, TCP
//! connections). Each escape must fail under the sandbox and work without it: the same
//! script, run directly, is the control.
//!
//! On a kernel without Landlock the helper must refuse (exit status 126, nothing runs), and the
//! tests assert exactly that instead, unless `TANDEM_REQUIRE_LANDLOCK=1` (CI) demands that the
//! sandbox be enforced: then a refusal fails every test.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::sandbox_required;
use tandem_tests::server::tandem_binary;

/// What the helper does on this machine, probed once with a harmless command.
enum Support {
    /// The sandbox is enforced.
    Enforced,
    /// The helper refuses to run anything; the message says why.
    Refused(String),
}

fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(|| {
        let workspace = tempfile::tempdir().unwrap();
        let output = sandboxed(&read_only(), workspace.path(), "true", &[]);
        if output.status.success() {
            return Support::Enforced;
        }
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            !sandbox_required(),
            "TANDEM_REQUIRE_LANDLOCK=1 but the sandbox is not enforced here: {stderr}"
        );
        assert_eq!(output.status.code(), Some(126), "probe failed: {stderr}");
        assert!(
            stderr.contains("does not support landlock")
                || stderr.contains("does not enforce landlock"),
            "the helper refused for another reason than missing landlock: {stderr}"
        );
        Support::Refused(stderr)
    })
}

/// A workspace with a git directory, a source directory and a file, plus a directory outside
/// it. Both live in the system temporary directory, so escape tests exclude `/tmp` and
/// `$TMPDIR` from the writable roots.
struct Fixture {
    workspace: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self::in_dir(&std::env::temp_dir())
    }

    fn in_dir(parent: &Path) -> Self {
        let workspace = tempfile::tempdir_in(parent).unwrap();
        let outside = tempfile::tempdir_in(parent).unwrap();
        fs::create_dir_all(workspace.path().join(".git/refs")).unwrap();
        fs::write(workspace.path().join(".git/config"), "[core]\n").unwrap();
        fs::create_dir(workspace.path().join("src")).unwrap();
        fs::write(workspace.path().join("README.md"), "hello\n").unwrap();
        Self { workspace, outside }
    }

    fn workspace(&self) -> &Path {
        self.workspace.path()
    }

    fn outside(&self) -> &Path {
        self.outside.path()
    }
}

fn read_only() -> Value {
    json!({ "type": "readOnly" })
}

/// `workspaceWrite` with neither `/tmp` nor `$TMPDIR` writable.
fn workspace_only() -> Value {
    json!({ "type": "workspaceWrite", "excludeSlashTmp": true, "excludeTmpdirEnvVar": true })
}

/// Both ways of keeping `.git` read-only: the mount namespace (the default) and the
/// Landlock-only fallback.
const MODES: [&[&str]; 2] = [&[], &["--no-namespace"]];

/// Runs `bash -c script` in `workspace` through the helper. `$TMPDIR` is unset unless `env`
/// sets it, so the host's value does not widen the policy.
fn sandboxed_with_env(
    policy: &Value,
    workspace: &Path,
    script: &str,
    options: &[&str],
    env: &[(&str, &Path)],
) -> Output {
    let mut command = Command::new(tandem_binary());
    command
        .arg("sandbox-exec")
        .arg("--policy")
        .arg(policy.to_string())
        .arg("--cwd")
        .arg(workspace)
        .args(options)
        .args(["--", "bash", "-c", script])
        .current_dir(workspace)
        .env_remove("TMPDIR");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn sandboxed(policy: &Value, workspace: &Path, script: &str, options: &[&str]) -> Output {
    sandboxed_with_env(policy, workspace, script, options, &[])
}

/// The control: the same script without the sandbox.
fn unsandboxed(workspace: &Path, script: &str) -> Output {
    Command::new("bash")
        .args(["-c", script])
        .current_dir(workspace)
        .output()
        .unwrap()
}

fn describe(output: &Output) -> String {
    format!(
        "status {:?}, stdout {:?}, stderr {:?}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The sandboxed run failed because the sandbox denied the operation, not because the helper
/// could not confine or start it. Where the helper refuses altogether, it must have said so.
fn assert_denied(output: &Output) {
    match support() {
        Support::Refused(_) => assert_refused(output),
        Support::Enforced => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "escaped: {}", describe(output));
            assert!(
                !stderr.contains("sandbox-exec:"),
                "the helper failed: {}",
                describe(output)
            );
            assert!(
                [
                    "Permission denied",
                    "Read-only file system",
                    "Operation not permitted",
                    "Device or resource busy",
                    "Invalid cross-device link",
                ]
                .iter()
                .any(|reason| stderr.contains(reason)),
                "failed for an unexpected reason: {}",
                describe(output)
            );
        }
    }
}

/// The sandboxed run worked (or, without Landlock, was refused with a clear message).
fn assert_allowed(output: &Output) {
    match support() {
        Support::Refused(_) => assert_refused(output),
        Support::Enforced => assert!(output.status.success(), "{}", describe(output)),
    }
}

fn assert_refused(output: &Output) {
    let Support::Refused(refusal) = support() else {
        panic!("the sandbox is enforced here");
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(126), "{}", describe(output));
    assert!(
        stderr.starts_with("sandbox-exec: cannot confine the command: "),
        "{}",
        describe(output)
    );
    assert_eq!(&stderr, refusal);
}

/// Runs the escape under the sandbox (it must be denied and leave `evidence` absent), then
/// without it (it must work and create `evidence`).
fn assert_escape_blocked(
    policy: &Value,
    workspace: &Path,
    script: &str,
    options: &[&str],
    evidence: &Path,
) {
    let output = sandboxed(policy, workspace, script, options);
    assert_denied(&output);
    assert!(
        !evidence.exists(),
        "{} was created under the sandbox",
        evidence.display()
    );
    let control = unsandboxed(workspace, script);
    assert!(
        control.status.success(),
        "the control failed: {}",
        describe(&control)
    );
    assert!(
        evidence.exists(),
        "the control did not create {}",
        evidence.display()
    );
}

#[test]
fn writing_outside_the_workspace_is_blocked() {
    let fixture = Fixture::new();
    let target = fixture.outside().join("escape");
    let script = format!("echo pwned > '{}'", target.display());
    assert_escape_blocked(
        &workspace_only(),
        fixture.workspace(),
        &script,
        &[],
        &target,
    );
}

#[test]
fn writing_into_git_is_blocked_in_both_modes() {
    for options in MODES {
        let fixture = Fixture::new();
        let git = fixture.workspace().join(".git");
        // A new file, an existing file, and moving or deleting the whole directory.
        for (script, evidence) in [
            ("echo pwned > .git/hook", git.join("hook")),
            (
                "echo pwned >> .git/config && echo > .git/appended",
                git.join("appended"),
            ),
            ("mkdir .git/refs/evil", git.join("refs/evil")),
            // A hard link would make .git/config writable through a writable directory.
            (
                "ln .git/config src/config",
                fixture.workspace().join("src/config"),
            ),
            ("mv .git .git-moved", fixture.workspace().join(".git-moved")),
        ] {
            let output = sandboxed(&workspace_only(), fixture.workspace(), script, options);
            assert_denied(&output);
            assert!(
                !evidence.exists(),
                "{options:?} {script}: {}",
                describe(&output)
            );
        }
        assert_eq!(fs::read_to_string(git.join("config")).unwrap(), "[core]\n");
        let output = sandboxed(
            &workspace_only(),
            fixture.workspace(),
            "rm -rf .git",
            options,
        );
        assert_denied(&output);
        assert!(git.join("config").exists(), "{options:?}: .git was deleted");

        let control = unsandboxed(fixture.workspace(), "echo ok > .git/hook && rm -rf .git");
        assert!(control.status.success(), "{}", describe(&control));
        assert!(!git.exists());
    }
}

#[test]
fn a_gitdir_file_and_its_target_stay_read_only() {
    for options in MODES {
        let fixture = Fixture::new();
        let workspace = fixture.workspace();
        fs::remove_dir_all(workspace.join(".git")).unwrap();
        fs::create_dir_all(workspace.join("gitdirs/main")).unwrap();
        fs::write(workspace.join(".git"), "gitdir: gitdirs/main\n").unwrap();
        let evidence = workspace.join("gitdirs/main/hook");
        assert_escape_blocked(
            &workspace_only(),
            workspace,
            "echo pwned > gitdirs/main/hook",
            options,
            &evidence,
        );
        // Repointing the .git file elsewhere is an escape too.
        let output = sandboxed(
            &workspace_only(),
            workspace,
            "echo 'gitdir: /elsewhere' > .git",
            options,
        );
        assert_denied(&output);
        assert_eq!(
            fs::read_to_string(workspace.join(".git")).unwrap(),
            "gitdir: gitdirs/main\n"
        );
    }
}

#[test]
fn git_stays_protected_when_an_enclosing_directory_is_writable() {
    // The workspace lies inside a second writable root (as a workspace under a writable /tmp
    // does); that root's grant must not reach the workspace's .git either.
    for options in MODES {
        let parent = tempfile::tempdir().unwrap();
        let fixture = Fixture::in_dir(parent.path());
        let policy = json!({
            "type": "workspaceWrite",
            "writableRoots": [parent.path()],
            "excludeSlashTmp": true,
            "excludeTmpdirEnvVar": true,
        });
        let evidence = fixture.workspace().join(".git/hook");
        assert_escape_blocked(
            &policy,
            fixture.workspace(),
            "echo pwned > .git/hook",
            options,
            &evidence,
        );
        // The rest of the enclosing root stays writable.
        let output = sandboxed(&policy, fixture.workspace(), "echo ok > src/file", options);
        assert_allowed(&output);
        let output = sandboxed(
            &policy,
            fixture.workspace(),
            &format!("echo ok > '{}/new'", fixture.outside().display()),
            options,
        );
        assert_allowed(&output);
    }
}

#[test]
fn a_symlink_out_of_the_workspace_does_not_escape() {
    let fixture = Fixture::new();
    std::os::unix::fs::symlink(fixture.outside(), fixture.workspace().join("link")).unwrap();
    let evidence = fixture.outside().join("escape");
    assert_escape_blocked(
        &workspace_only(),
        fixture.workspace(),
        "echo pwned > link/escape",
        &[],
        &evidence,
    );
}

#[test]
fn tcp_connections_need_network_access() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let fixture = Fixture::new();
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    for policy in [read_only(), workspace_only()] {
        let output = sandboxed(&policy, fixture.workspace(), &script, &[]);
        assert_denied(&output);
        assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    }
    let with_network = json!({ "type": "workspaceWrite", "networkAccess": true });
    let output = sandboxed(&with_network, fixture.workspace(), &script, &[]);
    assert_allowed(&output);
    let with_network = json!({ "type": "readOnly", "networkAccess": true });
    let output = sandboxed(&with_network, fixture.workspace(), &script, &[]);
    assert_allowed(&output);

    let control = unsandboxed(fixture.workspace(), &script);
    assert_eq!(String::from_utf8_lossy(&control.stdout), "connected\n");
}

#[test]
fn local_ipc_still_works_without_network() {
    let fixture = Fixture::new();
    // Pipes, process substitution and, where python3 is installed, an AF_UNIX socket pair
    // (the seccomp filter allows `socketpair` for AF_UNIX only).
    let script = "echo hi | tr a-z A-Z && cat <(echo there) && \
                  if command -v python3 > /dev/null; then python3 -c 'import os, socket
a, b = socket.socketpair(socket.AF_UNIX)
os.write(a.fileno(), b\"unix\")
print(os.read(b.fileno(), 4).decode())'; else echo unix; fi";
    let output = sandboxed(&workspace_only(), fixture.workspace(), script, &[]);
    assert_allowed(&output);
    if matches!(support(), Support::Enforced) {
        assert_eq!(String::from_utf8_lossy(&output.stdout), "HI\nthere\nunix\n");
    }
    let output = sandboxed(
        &workspace_only(),
        fixture.workspace(),
        "python3 -c 'import socket; socket.socket(socket.AF_INET6)'",
        &[],
    );
    if matches!(support(), Support::Enforced)
        && unsandboxed(fixture.workspace(), "command -v python3")
            .status
            .success()
    {
        assert_denied(&output);
    }
}

#[test]
fn the_workspace_is_writable_under_workspace_write() {
    let fixture = Fixture::new();
    let script = "echo new > new.txt && mkdir -p build/out && echo x > build/out/a \
                  && mv new.txt src/moved.txt && rm README.md && cat /etc/hostname > /dev/null";
    let output = sandboxed(&workspace_only(), fixture.workspace(), script, &[]);
    assert_allowed(&output);
    if matches!(support(), Support::Enforced) {
        assert!(fixture.workspace().join("src/moved.txt").exists());
        assert!(fixture.workspace().join("build/out/a").exists());
        assert!(!fixture.workspace().join("README.md").exists());
    }
}

#[test]
fn the_landlock_only_fallback_writes_inside_existing_entries_only() {
    // Documented limitation of the fallback: the workspace root itself is not granted (that
    // would grant .git), only its existing children.
    let fixture = Fixture::new();
    let options = ["--no-namespace"];
    let output = sandboxed(
        &workspace_only(),
        fixture.workspace(),
        "echo ok > src/new && echo more >> README.md",
        &options,
    );
    assert_allowed(&output);
    let output = sandboxed(
        &workspace_only(),
        fixture.workspace(),
        "echo no > top-level",
        &options,
    );
    assert_denied(&output);
    assert!(!fixture.workspace().join("top-level").exists());

    // Without a .git there is nothing to protect, and the whole root is writable.
    fs::remove_dir_all(fixture.workspace().join(".git")).unwrap();
    let output = sandboxed(
        &workspace_only(),
        fixture.workspace(),
        "echo ok > top-level",
        &options,
    );
    assert_allowed(&output);
}

#[test]
fn read_only_writes_nothing_but_dev_null() {
    let fixture = Fixture::new();
    let tmp = tempfile::tempdir_in("/tmp").unwrap();
    for (script, evidence) in [
        ("echo x > new.txt", fixture.workspace().join("new.txt")),
        (
            "echo x > src/new.txt",
            fixture.workspace().join("src/new.txt"),
        ),
        (
            &*format!("echo x > '{}/new.txt'", tmp.path().display()),
            tmp.path().join("new.txt"),
        ),
    ] {
        assert_escape_blocked(&read_only(), fixture.workspace(), script, &[], &evidence);
    }
    let output = sandboxed(&read_only(), fixture.workspace(), "rm README.md", &[]);
    assert_denied(&output);
    assert!(fixture.workspace().join("README.md").exists());

    let output = sandboxed(
        &read_only(),
        fixture.workspace(),
        "cat README.md && echo discarded > /dev/null && ls / > /dev/null",
        &[],
    );
    assert_allowed(&output);
    if matches!(support(), Support::Enforced) {
        assert_eq!(String::from_utf8_lossy(&output.stdout), "hello\n");
    }
}

#[test]
fn slash_tmp_is_writable_unless_excluded() {
    let fixture = Fixture::new();
    let tmp = tempfile::tempdir_in("/tmp").unwrap();
    let target = tmp.path().join("file");
    let script = format!("echo x > '{}'", target.display());

    let policy = json!({ "type": "workspaceWrite", "excludeTmpdirEnvVar": true });
    assert_allowed(&sandboxed(&policy, fixture.workspace(), &script, &[]));

    let policy = json!({ "type": "workspaceWrite", "excludeSlashTmp": true });
    fs::remove_file(&target).ok();
    assert_escape_blocked(&policy, fixture.workspace(), &script, &[], &target);
}

#[test]
fn tmpdir_is_writable_unless_excluded() {
    let fixture = Fixture::new();
    let tmpdir = fixture.outside();
    let target = tmpdir.join("file");
    let script = "echo x > \"$TMPDIR/file\"";
    let env = [("TMPDIR", tmpdir)];

    let policy = json!({ "type": "workspaceWrite", "excludeSlashTmp": true });
    let output = sandboxed_with_env(&policy, fixture.workspace(), script, &[], &env);
    assert_allowed(&output);

    fs::remove_file(&target).ok();
    let policy = workspace_only();
    let output = sandboxed_with_env(&policy, fixture.workspace(), script, &[], &env);
    assert_denied(&output);
    assert!(!target.exists());
}

#[test]
fn an_invalid_policy_runs_nothing() {
    let fixture = Fixture::new();
    let marker = fixture.workspace().join("marker");
    let output = Command::new(tandem_binary())
        .args(["sandbox-exec", "--policy", "{\"type\":\"nope\"}", "--cwd"])
        .arg(fixture.workspace())
        .args(["--", "touch"])
        .arg(&marker)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(126), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("sandbox-exec: cannot confine the command: invalid sandbox policy"),
        "{stderr}"
    );
    assert!(!marker.exists());
}

#[test]
fn a_missing_command_exits_127() {
    let fixture = Fixture::new();
    let output = Command::new(tandem_binary())
        .args(["sandbox-exec", "--policy"])
        .arg(read_only().to_string())
        .arg("--cwd")
        .arg(fixture.workspace())
        .args(["--", "no-such-command-for-tandem"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    match support() {
        Support::Refused(_) => assert_refused(&output),
        Support::Enforced => {
            assert_eq!(output.status.code(), Some(127), "{stderr}");
            assert!(
                stderr.starts_with("sandbox-exec: cannot run no-such-command-for-tandem: "),
                "{stderr}"
            );
        }
    }
}

#[test]
fn full_access_runs_the_command_unconfined() {
    let fixture = Fixture::new();
    let target: PathBuf = fixture.outside().join("allowed");
    let output = sandboxed(
        &json!({ "type": "dangerFullAccess" }),
        fixture.workspace(),
        &format!("echo x > '{}' && echo x > .git/hook", target.display()),
        &[],
    );
    assert!(output.status.success(), "{}", describe(&output));
    assert!(target.exists());
}

/// A `TANDEM_HOME` with a stored key, for the `--hide` tests.
fn home_with_key(parent: &Path) -> tempfile::TempDir {
    let home = tempfile::tempdir_in(parent).unwrap();
    fs::write(
        home.path().join("auth.json"),
        "{\"OPENAI_API_KEY\": \"sk-stored-secret\"}\n",
    )
    .unwrap();
    fs::create_dir(home.path().join("sessions")).unwrap();
    home
}

fn hide(home: &Path) -> Vec<String> {
    vec!["--hide".to_string(), home.display().to_string()]
}

/// The hidden file could not be read: the command failed (the file is unreadable or, under
/// an empty mount, absent) and printed nothing of it.
fn assert_hidden(output: &Output) {
    match support() {
        Support::Refused(_) => assert_refused(output),
        Support::Enforced => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "read: {}", describe(output));
            assert!(!stderr.contains("sandbox-exec:"), "{}", describe(output));
            assert!(
                !String::from_utf8_lossy(&output.stdout).contains("sk-stored-secret"),
                "{}",
                describe(output)
            );
            assert!(
                ["Permission denied", "No such file or directory"]
                    .iter()
                    .any(|reason| stderr.contains(reason)),
                "failed for an unexpected reason: {}",
                describe(output)
            );
        }
    }
}

#[test]
fn a_hidden_home_is_unreadable_under_read_only_and_workspace_write() {
    let parent = tempfile::tempdir().unwrap();
    let home = home_with_key(parent.path());
    let fixture = Fixture::new();
    let options_hiding = |mode: &[&str]| -> Vec<String> {
        let mut options: Vec<String> = mode.iter().map(|option| option.to_string()).collect();
        options.extend(hide(home.path()));
        options
    };
    // workspaceWrite with /tmp writable: the home lies inside a writable root.
    let writable_tmp = json!({ "type": "workspaceWrite", "writableRoots": [parent.path()] });
    for mode in MODES {
        let options = options_hiding(mode);
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        for policy in [read_only(), workspace_only(), writable_tmp.clone()] {
            for script in [
                format!("cat '{}/auth.json'", home.path().display()),
                format!("ls '{}/sessions'", home.path().display()),
            ] {
                let output = sandboxed(&policy, fixture.workspace(), &script, &options);
                assert_hidden(&output);
            }
        }
        // Writing into it is refused too, even where the enclosing root is writable.
        let evidence = home.path().join("planted");
        let script = format!("echo x > '{}'", evidence.display());
        let output = sandboxed(&writable_tmp, fixture.workspace(), &script, &options);
        assert!(!output.status.success(), "{mode:?}: {}", describe(&output));
        assert!(!evidence.exists(), "{mode:?}: written into the hidden home");
        // The rest of the enclosing root stays writable (in the Landlock-only fallback, inside
        // its existing entries: the root itself is split around the home).
        fs::create_dir_all(parent.path().join("existing")).unwrap();
        let script = format!("echo x > '{}/existing/beside'", parent.path().display());
        let output = sandboxed(&writable_tmp, fixture.workspace(), &script, &options);
        assert_allowed(&output);
    }
    // Without the sandbox, and under danger-full-access, the same command reads it.
    let script = format!("cat '{}/auth.json'", home.path().display());
    let control = unsandboxed(fixture.workspace(), &script);
    assert!(String::from_utf8_lossy(&control.stdout).contains("sk-stored-secret"));
    let options = hide(home.path());
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let full = sandboxed(
        &json!({ "type": "dangerFullAccess" }),
        fixture.workspace(),
        &script,
        &options,
    );
    assert!(
        String::from_utf8_lossy(&full.stdout).contains("sk-stored-secret"),
        "{}",
        describe(&full)
    );
}

#[test]
fn a_command_inside_a_hidden_home_is_refused() {
    let parent = tempfile::tempdir().unwrap();
    let home = home_with_key(parent.path());
    let options = hide(home.path());
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let inside = home.path().join("sessions");
    let output = sandboxed(&read_only(), &inside, "cat ../auth.json", &options);
    assert_eq!(output.status.code(), Some(126), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("sandbox-exec: cannot confine the command: the working directory ")
            && stderr.contains("which sandboxed commands may not read (TANDEM_HOME)"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains("sk-stored-secret"));
}

#[test]
fn an_exposed_directory_inside_a_hidden_home_is_readable_but_not_writable() {
    let parent = tempfile::tempdir().unwrap();
    let home = home_with_key(parent.path());
    let skill = home.path().join("skills/review");
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: review\n---\nRead the diff.\n",
    )
    .unwrap();
    let fixture = Fixture::new();
    let writable_tmp = json!({ "type": "workspaceWrite", "writableRoots": [parent.path()] });
    for mode in MODES {
        let mut options: Vec<String> = mode.iter().map(|option| option.to_string()).collect();
        options.extend(hide(home.path()));
        options.extend([
            "--expose".to_string(),
            home.path().join("skills").display().to_string(),
        ]);
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        for policy in [read_only(), writable_tmp.clone()] {
            let script = format!("cat '{}/SKILL.md'", skill.display());
            let output = sandboxed(&policy, fixture.workspace(), &script, &options);
            assert_allowed(&output);
            if matches!(support(), Support::Enforced) {
                assert_eq!(
                    String::from_utf8_lossy(&output.stdout),
                    "---\nname: review\n---\nRead the diff.\n",
                    "{mode:?}"
                );
            }
            // The rest of the home stays hidden.
            let script = format!("cat '{}/auth.json'", home.path().display());
            assert_hidden(&sandboxed(&policy, fixture.workspace(), &script, &options));
            let script = format!("cat '{}/skills/../auth.json'", home.path().display());
            assert_hidden(&sandboxed(&policy, fixture.workspace(), &script, &options));
            // And the skills cannot be changed, even where the enclosing root is writable.
            let planted = skill.join("planted");
            let script = format!("echo x > '{}'", planted.display());
            let output = sandboxed(&policy, fixture.workspace(), &script, &options);
            assert!(!output.status.success(), "{mode:?}: {}", describe(&output));
            assert!(
                !planted.exists(),
                "{mode:?}: written into an exposed directory"
            );
        }
    }
}
