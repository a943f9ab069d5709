//! The generated TypeScript compiles with `tsc --strict --noEmit`, stable and experimental.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use tandem_tests::server::tandem_binary;

/// `$TSC`, else `tsc` on the PATH; `.ci/run` installs it from npm.
fn tsc() -> PathBuf {
    if let Some(path) = std::env::var_os("TSC") {
        return PathBuf::from(path);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("tsc"))
            .find(|candidate| candidate.exists())
    });
    found.unwrap_or_else(|| {
        panic!("tsc not found: install TypeScript (`npm install -g typescript@5`) or set TSC")
    })
}

fn compile(dir: &Path) {
    let output = Command::new(tsc())
        .current_dir(dir)
        .args([
            "--strict",
            "--noEmit",
            "--target",
            "es2022",
            "--module",
            "esnext",
            "--moduleResolution",
            "bundler",
            "index.ts",
        ])
        .output()
        .expect("run tsc");
    assert!(
        output.status.success(),
        "tsc failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn generated_typescript_compiles_strictly() {
    for experimental in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut command = Command::new(tandem_binary());
        command
            .args(["app-server", "generate-ts", "--out"])
            .arg(dir.path());
        if experimental {
            command.arg("--experimental");
        }
        assert!(command.status().expect("run tandem").success());
        compile(dir.path());
    }
}

#[test]
fn a_client_using_the_bindings_type_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let status = Command::new(tandem_binary())
        .args(["app-server", "generate-ts", "--out"])
        .arg(dir.path())
        .status()
        .expect("run tandem");
    assert!(status.success());
    // A wrong method name or params shape must not compile; a right one must.
    let good = r#"
import type { ClientRequest, ClientRequestMap, ServerNotification } from "./index";
const request: ClientRequest = { method: "thread/start", id: 1, params: { cwd: "/tmp", approvalPolicy: "on-request", sandbox: "workspace-write" } };
type Response = ClientRequestMap["turn/start"]["response"];
function onNotification(note: ServerNotification): string {
  if (note.method === "item/agentMessage/delta") { return note.params.delta; }
  return note.method;
}
const started: Response | null = null;
export { request, onNotification, started };
"#;
    std::fs::write(dir.path().join("client.ts"), good).expect("write");
    let run = |file: &str| {
        Command::new(tsc())
            .current_dir(dir.path())
            .args([
                "--strict",
                "--noEmit",
                "--target",
                "es2022",
                "--module",
                "esnext",
                "--moduleResolution",
                "bundler",
                file,
            ])
            .output()
            .expect("run tsc")
    };
    let output = run("client.ts");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let bad = good.replace("\"workspace-write\"", "\"workspaceWrite\"");
    std::fs::write(dir.path().join("bad.ts"), bad).expect("write");
    let output = run("bad.ts");
    assert!(
        !output.status.success(),
        "a misspelled sandbox mode type-checked"
    );
}
