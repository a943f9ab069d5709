//! Credentials never leave through a command: every way a command runs (`command/exec`,
//! `execOneOffCommand`, the model's `exec_command` and a `write_stdin` session) gets an
//! environment built by `[shell_environment_policy]`, without the server's secrets, and a
//! sandboxed command cannot read `$TANDEM_HOME` (the stored key, every rollout) under
//! `read-only` or `workspace-write`; under `danger-full-access` it can.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{Setup, config, done, exec, find, run_turn, tool_output};
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call};
use tandem_tests::sandbox_required;
use tandem_tests::server::{SpawnOptions, TestServer};

/// The server's environment: a provider key, a password, and a variable commands may see.
const SERVER_ENV: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "sk-server-secret-0001"),
    ("MY_SERVICE_PASSWORD", "hunter2-0002"),
    ("TANDEM_TEST_VISIBLE", "visible-0003"),
    ("TANDEM_TEST_EXTRA", "extra-0004"),
];

/// A script printing the variables of [`SERVER_ENV`] and `SET_BY_POLICY`, empty when unset.
const PRINT_ENV: &str = "echo \"[$OPENAI_API_KEY][$MY_SERVICE_PASSWORD][$TANDEM_TEST_VISIBLE][$TANDEM_TEST_EXTRA][$SET_BY_POLICY]\"";

/// What [`PRINT_ENV`] prints under the default policy.
const DEFAULT_SEEN: &str = "[][][visible-0003][extra-0004][]";

/// A server with [`SERVER_ENV`], the mock model (read-only sandbox, never asking) and
/// `extra_config`, and a thread on a temp workspace.
async fn start(extra_config: &str) -> Setup {
    let model = MockModel::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let mut server = TestServer::spawn_with_env(
        SpawnOptions {
            config_toml: config(&model.base_url(), "never", "read-only", "responses")
                + extra_config,
            args: Vec::new(),
            home: None,
            cwd: None,
        },
        SERVER_ENV,
    )
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let result = server
        .request(
            "thread/start",
            json!({"cwd": workspace.path().to_str().unwrap()}),
        )
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    server.notification("thread/started").await;
    Setup {
        model,
        server,
        thread_id,
        workspace,
    }
}

/// `command/exec` of `sh -c script` in the workspace under `sandbox_policy`.
async fn command_exec(setup: &mut Setup, script: &str, sandbox_policy: Value) -> Value {
    setup
        .server
        .request(
            "command/exec",
            json!({
                "command": ["sh", "-c", script],
                "cwd": setup.workspace.path().to_str().unwrap(),
                "sandboxPolicy": sandbox_policy,
            }),
        )
        .await
        .unwrap()
}

fn full_access() -> Value {
    json!({"type": "dangerFullAccess"})
}

/// The sandbox policies that must hide `$TANDEM_HOME`. The default `workspaceWrite` makes
/// `/tmp` writable, which holds the test's home: a hidden path inside a writable root.
fn sandboxed_policies() -> [Value; 2] {
    [
        json!({"type": "readOnly"}),
        json!({"type": "workspaceWrite"}),
    ]
}

/// Whether sandboxed commands run here (else `command/exec` refuses them with a clear error).
async fn sandbox_enforced(setup: &mut Setup) -> bool {
    let probe = setup
        .server
        .request(
            "command/exec",
            json!({"command": ["true"], "sandboxPolicy": {"type": "readOnly"}}),
        )
        .await;
    match probe {
        Ok(_) => true,
        Err(error) => {
            assert!(!sandbox_required(), "the sandbox is not enforced: {error}");
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("failed to sandbox command: "),
                "{error}"
            );
            false
        }
    }
}

#[tokio::test]
async fn every_way_a_command_runs_gets_the_environment_without_secrets() {
    let mut setup = start("").await;

    // command/exec, unsandboxed and sandboxed (the helper passes the environment on).
    let result = command_exec(&mut setup, PRINT_ENV, full_access()).await;
    assert_eq!(result["stdout"], format!("{DEFAULT_SEEN}\n"));
    if sandbox_enforced(&mut setup).await {
        let result = command_exec(&mut setup, PRINT_ENV, json!({"type": "readOnly"})).await;
        assert_eq!(result["stdout"], format!("{DEFAULT_SEEN}\n"));
    }

    // execOneOffCommand (the first-generation API).
    let result = setup
        .server
        .request(
            "execOneOffCommand",
            json!({
                "command": ["sh", "-c", PRINT_ENV],
                "cwd": setup.workspace.path().to_str().unwrap(),
                "sandboxPolicy": full_access(),
            }),
        )
        .await
        .unwrap();
    assert_eq!(result["stdout"], format!("{DEFAULT_SEEN}\n"));

    // The model's exec_command, and a write_stdin to a session it left running.
    let reads_then_prints = format!("read line; {}", PRINT_ENV.replace("]\"", "][$line]\""));
    let arguments = json!({"cmd": reads_then_prints, "tty": true, "yield_time_ms": 500});
    // Session ids count from 1000 per thread; the first exec_command took it.
    let write = json!({"session_id": 1001, "chars": "go\n", "yield_time_ms": 5000});
    setup.model.push_all([
        exec("call_exec", PRINT_ENV),
        MockResponse::sse(responses_function_call(
            "call_session",
            "exec_command",
            &arguments.to_string(),
        )),
        MockResponse::sse(responses_function_call(
            "call_write",
            "write_stdin",
            &write.to_string(),
        )),
        done(),
    ]);
    let messages = run_turn(&mut setup, "print the environment", Vec::new()).await;
    assert_eq!(find(&messages, "turn/completed").len(), 1);
    // The write is announced on the running command's item.
    let interactions = find(&messages, "item/commandExecution/terminalInteraction");
    assert_eq!(interactions.len(), 1);
    let turn_id = &find(&messages, "turn/started")[0]["params"]["turn"]["id"];
    assert_eq!(
        interactions[0]["params"],
        json!({
            "threadId": find(&messages, "turn/started")[0]["params"]["threadId"],
            "turnId": turn_id,
            "itemId": "call_session",
            "processId": "1001",
            "stdin": "go\n",
        })
    );
    let output = tool_output(&setup.model, "call_exec");
    assert!(output.contains(&format!("{DEFAULT_SEEN}\n")), "{output}");
    let output = tool_output(&setup.model, "call_session");
    assert!(output.contains("session ID 1001"), "{output}");
    let output = tool_output(&setup.model, "call_write");
    let expected = format!("{DEFAULT_SEEN}[go]");
    assert!(output.contains(&expected), "{expected} not in {output}");
    for call_id in ["call_exec", "call_session", "call_write"] {
        let output = tool_output(&setup.model, call_id);
        assert!(!output.contains("sk-server-secret"), "{output}");
        assert!(!output.contains("hunter2"), "{output}");
    }
}

#[tokio::test]
async fn exclude_set_and_include_only_are_honoured() {
    let mut setup = start(
        "\n[shell_environment_policy]\nexclude = [\"tandem_test_vis*\"]\nset = { SET_BY_POLICY = \"set-0005\" }\n",
    )
    .await;
    let result = command_exec(&mut setup, PRINT_ENV, full_access()).await;
    assert_eq!(result["stdout"], "[][][][extra-0004][set-0005]\n");
    drop(setup);

    // include_only keeps only what it names (after `set`), whatever else is allowed.
    let mut setup = start(
        "\n[shell_environment_policy]\ninclude_only = [\"PATH\", \"TANDEM_TEST_V*\", \"SET_*\"]\nset = { SET_BY_POLICY = \"set-0005\" }\n",
    )
    .await;
    let result = command_exec(&mut setup, PRINT_ENV, full_access()).await;
    assert_eq!(result["stdout"], "[][][visible-0003][][set-0005]\n");
    let result = setup
        .server
        .request(
            "command/exec",
            json!({"command": ["env"], "sandboxPolicy": full_access()}),
        )
        .await
        .unwrap();
    let mut names: Vec<&str> = result["stdout"]
        .as_str()
        .unwrap()
        .lines()
        .map(|line| line.split('=').next().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["PATH", "SET_BY_POLICY", "TANDEM_TEST_VISIBLE"]);
    drop(setup);

    // ignore_default_excludes gives the secrets back: the operator's explicit choice.
    let mut setup = start("\n[shell_environment_policy]\nignore_default_excludes = true\n").await;
    let result = command_exec(&mut setup, PRINT_ENV, full_access()).await;
    assert_eq!(
        result["stdout"],
        "[sk-server-secret-0001][hunter2-0002][visible-0003][extra-0004][]\n"
    );
}

#[tokio::test]
async fn sandboxed_commands_cannot_read_tandem_home() {
    let mut setup = start("").await;
    let login = setup
        .server
        .request(
            "account/login/start",
            json!({"type": "apiKey", "apiKey": "sk-stored-secret-0006"}),
        )
        .await
        .unwrap();
    assert_eq!(login, json!({"type": "apiKey"}));
    let auth = setup.server.home.join("auth.json");
    assert!(
        std::fs::read_to_string(&auth)
            .unwrap()
            .contains("sk-stored-secret-0006")
    );
    let read = format!("cat '{}'", auth.display());

    let list = format!("ls -A '{}'", setup.server.home.display());

    // danger-full-access reads it: the control.
    let result = command_exec(&mut setup, &read, full_access()).await;
    assert_eq!(result["exitCode"], 0, "{result}");
    assert!(
        result["stdout"]
            .as_str()
            .unwrap()
            .contains("sk-stored-secret-0006")
    );
    let result = command_exec(&mut setup, &list, full_access()).await;
    assert!(
        result["stdout"].as_str().unwrap().contains("auth.json"),
        "{result}"
    );

    if !sandbox_enforced(&mut setup).await {
        return;
    }
    for policy in sandboxed_policies() {
        let result = command_exec(&mut setup, &read, policy.clone()).await;
        assert_ne!(result["exitCode"], 0, "{policy}: {result}");
        assert!(
            !result["stdout"].as_str().unwrap().contains("sk-stored"),
            "{policy}: {result}"
        );
        // Nor anything else of the home: the rollouts, the index, the config.
        let result = command_exec(&mut setup, &list, policy.clone()).await;
        assert_eq!(result["stdout"], "", "{policy}: {result}");
    }

    // The model's exec_command under the thread's read-only sandbox.
    setup.model.push_all([exec("call_cat", &read), done()]);
    let messages = run_turn(&mut setup, "read the key", Vec::new()).await;
    assert_eq!(find(&messages, "turn/completed").len(), 1);
    let output = tool_output(&setup.model, "call_cat");
    assert!(!output.contains("sk-stored"), "{output}");
    assert!(
        output.contains("No such file or directory") || output.contains("Permission denied"),
        "{output}"
    );
}

#[tokio::test]
async fn sandboxed_commands_read_the_user_skills_and_nothing_else_of_the_home() {
    let mut setup = start("").await;
    let skill = setup.server.home.join("skills/review");
    std::fs::create_dir_all(&skill).unwrap();
    let body = "---\nname: review\ndescription: Review a diff\n---\nRead the diff first.\n";
    std::fs::write(skill.join("SKILL.md"), body).unwrap();
    let read = format!("cat '{}/SKILL.md'", skill.display());
    let plant = format!("echo x > '{}/planted'", skill.display());
    let list = format!("ls -A '{}'", setup.server.home.display());
    if !sandbox_enforced(&mut setup).await {
        return;
    }
    for policy in sandboxed_policies() {
        let result = command_exec(&mut setup, &read, policy.clone()).await;
        assert_eq!(result["exitCode"], 0, "{policy}: {result}");
        assert_eq!(result["stdout"], body, "{policy}");
        let result = command_exec(&mut setup, &plant, policy.clone()).await;
        assert_ne!(result["exitCode"], 0, "{policy}: {result}");
        assert!(!skill.join("planted").exists(), "{policy}");
        // Listing the home shows nothing else: an unprivileged user may not list it at all,
        // root (who ignores permissions) sees the one mount point.
        let result = command_exec(&mut setup, &list, policy.clone()).await;
        let listed = result["stdout"].as_str().unwrap();
        assert!(matches!(listed, "" | "skills\n"), "{policy}: {result}");
    }

    // The model reads the skill through exec_command under the thread's read-only sandbox.
    setup.model.push_all([exec("call_skill", &read), done()]);
    let messages = run_turn(&mut setup, "use the review skill", Vec::new()).await;
    assert_eq!(find(&messages, "turn/completed").len(), 1);
    let output = tool_output(&setup.model, "call_skill");
    assert!(output.contains("Read the diff first."), "{output}");
}
