//! `review/start` through the real binary, on real git repositories: each target's diff
//! collected (under the thread's read-only sandbox) and sent with the review rubric, the
//! reference's items (`enteredReviewMode`, the request, `exitedReviewMode`, the findings as an
//! `agentMessage`), the findings in the next turn's history, the diff cap, and the requests
//! refused. (Another principal's thread: `thread_lifecycle.rs`.)

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::path::Path;
use std::process::Command;

use common::tool_turns::{Setup, done, find, setup, setup_for_wire};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockResponse, chat_text, responses_text};

/// What the mock reviewer answers: one finding.
const FINDINGS: &str = r#"{"findings":[{"title":"[P1] Keep the last line","body":"The change drops `b`.\nCallers read it.","confidence_score":0.8,"priority":1,"code_location":{"absolute_file_path":"/repo/f.txt","line_range":{"start":2,"end":2}}}],"overall_correctness":"patch is incorrect","overall_explanation":"One regression.","overall_confidence_score":0.7}"#;

/// The review text the findings render to.
const RENDERED: &str = "One regression.\n\nReview comment:\n\n- [P1] Keep the last line — /repo/f.txt:2-2\n  The change drops `b`.\n  Callers read it.";

fn git(repo: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// A repository on `main` with one commit of `f.txt`, then `extra` applied.
fn repository(repo: &Path) {
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("f.txt"), "a\nb\n").unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", "init"]);
}

/// Sends `review/start` with `target`, checks the response, and reads up to `turn/completed`.
async fn review(setup: &mut Setup, target: Value, hint: &str) -> Vec<Value> {
    setup
        .model
        .push(MockResponse::sse(responses_text("msg_review", &[FINDINGS])));
    let result = setup
        .server
        .request(
            "review/start",
            json!({"threadId": setup.thread_id, "target": target}),
        )
        .await
        .unwrap();
    assert_eq!(result["reviewThreadId"], json!(setup.thread_id));
    let turn = &result["turn"];
    assert_eq!(turn["status"], "inProgress");
    assert_eq!(
        turn["items"],
        json!([{"type": "userMessage", "id": turn["id"], "clientId": null,
            "content": [{"type": "text", "text": hint, "text_elements": []}],
            "startedAtMs": null, "completedAtMs": null}])
    );
    setup.server.until_turn_completed().await
}

/// The items of `method` notifications, as `(type, text)` pairs.
fn items(messages: &[Value], method: &str) -> Vec<(String, String)> {
    find(messages, method)
        .into_iter()
        .map(|message| {
            let item = &message["params"]["item"];
            let text = match item["type"].as_str().unwrap() {
                "userMessage" => item["content"][0]["text"].as_str().unwrap().to_string(),
                "agentMessage" => item["text"].as_str().unwrap().to_string(),
                _ => item["review"].as_str().unwrap().to_string(),
            };
            (item["type"].as_str().unwrap().to_string(), text)
        })
        .collect()
}

/// The text of the review request's user message, and its instructions.
fn request_parts(request: &Value) -> (String, String) {
    let input = request["input"].as_array().unwrap();
    let last = input.last().unwrap();
    assert_eq!(last["role"], "user");
    (
        last["content"][0]["text"].as_str().unwrap().to_string(),
        request["instructions"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn uncommitted_changes_are_reviewed_with_the_reference_items() {
    let mut setup = setup("never", "read-only").await;
    let repo = setup.workspace.path().to_path_buf();
    repository(&repo);
    std::fs::write(repo.join("f.txt"), "a\nB\n").unwrap();
    std::fs::write(repo.join("new.txt"), "brand new line\n").unwrap();
    let messages = review(
        &mut setup,
        json!({"type": "uncommittedChanges"}),
        "current changes",
    )
    .await;

    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|message| message["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            // `enteredReviewMode` comes before the turn starts, as the reference sends it.
            "item/started",
            "item/completed",
            "thread/status/changed",
            "turn/started",
            "item/started",
            "item/completed",
            "thread/tokenUsage/updated",
            "item/started",
            "item/completed",
            "item/started",
            "item/completed",
            // The review's findings await the user (see `thread_read_state.rs`).
            "thread/readState/changed",
            "thread/status/changed",
            "turn/completed",
        ]
    );
    let completed = items(&messages, "item/completed");
    assert_eq!(
        completed[0],
        ("enteredReviewMode".into(), "current changes".into())
    );
    assert_eq!(completed[1].0, "userMessage");
    assert!(
        completed[1]
            .1
            .starts_with("Review the changes in the working tree"),
        "{completed:?}"
    );
    assert_eq!(completed[2], ("exitedReviewMode".into(), RENDERED.into()));
    assert_eq!(completed[3], ("agentMessage".into(), RENDERED.into()));
    assert_eq!(items(&messages, "item/started"), completed);
    let turn = &find(&messages, "turn/completed")[0]["params"]["turn"];
    assert_eq!(turn["status"], "completed");
    assert_eq!(turn["items"][0]["text"], RENDERED);

    // One request: the rubric, the request with the staged, unstaged and untracked changes,
    // no tools and none of the thread's history.
    let requests = setup.model.requests();
    assert_eq!(requests.len(), 1);
    let (text, instructions) = request_parts(&requests[0]);
    assert!(
        instructions.starts_with("# Reviewing a code change"),
        "{instructions}"
    );
    assert!(text.contains("<diff>\n"), "{text}");
    assert!(text.contains("-b\n+B\n"), "{text}");
    assert!(text.contains("+brand new line\n"), "{text}");
    assert!(!text.contains("cut after"), "{text}");
    assert_eq!(requests[0]["tools"], json!([]));

    // The thread's next turn has the findings in its history.
    setup.model.push(done());
    setup
        .server
        .request(
            "turn/start",
            json!({"threadId": setup.thread_id, "input": [{"type": "text", "text": "fix it"}]}),
        )
        .await
        .unwrap();
    setup.server.until_turn_completed().await;
    let next = setup.model.requests().pop().unwrap().to_string();
    assert!(next.contains("Keep the last line"), "{next}");
    assert!(next.contains("code review of: current changes"), "{next}");
    assert!(
        !next.contains("brand new line"),
        "the diff stays out of the history: {next}"
    );

    // `thread/read` shows the review's items.
    let read = setup
        .server
        .request(
            "thread/read",
            json!({"threadId": setup.thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    let kinds: Vec<&str> = read["thread"]["turns"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "enteredReviewMode",
            "userMessage",
            "exitedReviewMode",
            "agentMessage"
        ]
    );
    // The request names the thread, as the reference's does.
    assert!(
        read["thread"]["preview"]
            .as_str()
            .unwrap()
            .starts_with("Review the changes in the working tree"),
        "{read}"
    );
}

#[tokio::test]
async fn a_base_branch_a_commit_and_custom_instructions_are_reviewed() {
    let mut setup = setup("never", "read-only").await;
    let repo = setup.workspace.path().to_path_buf();
    repository(&repo);
    git(&repo, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(repo.join("f.txt"), "a\nb\nfeature line\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "Add the feature line"]);
    let sha = git(&repo, &["rev-parse", "HEAD"]).trim().to_string();
    git(&repo, &["checkout", "-q", "main"]);
    std::fs::write(repo.join("f.txt"), "a\nb\nmain line\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "Add the main line"]);
    git(&repo, &["checkout", "-q", "feature"]);

    // Against main: what feature adds since it left main, not what main added since.
    let messages = review(
        &mut setup,
        json!({"type": "baseBranch", "branch": "main"}),
        "changes against 'main'",
    )
    .await;
    assert_eq!(items(&messages, "item/completed")[2].1, RENDERED);
    let (text, _) = request_parts(&setup.model.requests()[0]);
    assert!(text.contains("+feature line\n"), "{text}");
    assert!(!text.contains("main line"), "{text}");

    // One commit, named with its title.
    let short = &sha[..7];
    let messages = review(
        &mut setup,
        json!({"type": "commit", "sha": sha, "title": "Add the feature line"}),
        &format!("commit {short}: Add the feature line"),
    )
    .await;
    assert_eq!(
        items(&messages, "item/completed")[0],
        (
            "enteredReviewMode".into(),
            format!("commit {short}: Add the feature line")
        )
    );
    let (text, _) = request_parts(&setup.model.requests()[1]);
    assert!(text.contains(&format!("commit {sha}")), "{text}");
    assert!(text.contains("+feature line\n"), "{text}");

    // Custom instructions: the user's words, no diff.
    let messages = review(
        &mut setup,
        json!({"type": "custom", "instructions": "  Check the error handling.  "}),
        "Check the error handling.",
    )
    .await;
    assert_eq!(
        items(&messages, "item/completed")[1],
        ("userMessage".into(), "Check the error handling.".into())
    );
    let (text, instructions) = request_parts(&setup.model.requests()[2]);
    assert_eq!(text, "Check the error handling.");
    assert!(instructions.starts_with("# Reviewing a code change"));
}

#[tokio::test]
async fn a_diff_beyond_the_cap_is_cut_and_the_prompt_says_so() {
    let mut setup = setup("never", "read-only").await;
    let repo = setup.workspace.path().to_path_buf();
    repository(&repo);
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";
    std::fs::write(repo.join("big.txt"), line.repeat(8 * 1024)).unwrap();
    review(
        &mut setup,
        json!({"type": "uncommittedChanges"}),
        "current changes",
    )
    .await;
    let (text, _) = request_parts(&setup.model.requests()[0]);
    assert!(
        text.contains("The diff was cut after 262144 bytes"),
        "{}",
        text.len()
    );
    assert!(text.len() < 262_144 + 4096, "{}", text.len());
}

#[tokio::test]
async fn bad_requests_are_refused() {
    let mut setup = setup("never", "read-only").await;
    let repo = setup.workspace.path().to_path_buf();
    let thread_id = setup.thread_id.clone();
    let refused = |target: Value| json!({"threadId": thread_id, "target": target});
    // Not a repository yet.
    let error = setup
        .server
        .request(
            "review/start",
            refused(json!({"type": "uncommittedChanges"})),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot collect the changes to review: git "),
        "{error}"
    );
    repository(&repo);
    let cases = [
        (
            json!({"type": "baseBranch", "branch": "  "}),
            "branch must not be empty".to_string(),
        ),
        (
            json!({"type": "commit", "sha": "\t"}),
            "sha must not be empty".to_string(),
        ),
        (
            json!({"type": "custom", "instructions": "\n\n"}),
            "instructions must not be empty".to_string(),
        ),
        (
            json!({"type": "baseBranch", "branch": "--output=/tmp/x"}),
            "branch is not a git revision name: --output=/tmp/x".to_string(),
        ),
        (
            json!({"type": "commit", "sha": "0123456789abcdef"}),
            "unknown commit: 0123456789abcdef".to_string(),
        ),
    ];
    for (target, message) in cases {
        let error = setup
            .server
            .request("review/start", refused(target))
            .await
            .unwrap_err();
        assert_eq!(error, json!({"code": -32600, "message": message}));
    }
    let error = setup
        .server
        .request(
            "review/start",
            refused(json!({"type": "baseBranch", "branch": "nowhere"})),
        )
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot find where HEAD left branch `nowhere`: "),
        "{error}"
    );
    // Shapes the reference's types refuse, with its words.
    for (params, words) in [
        (
            json!({"threadId": thread_id, "target": {"type": "uncommittedChanges"}, "delivery": "detached"}),
            "unknown variant `detached`, expected `inline`",
        ),
        (
            json!({"threadId": thread_id, "target": {"type": "bogus"}}),
            "unknown variant `bogus`",
        ),
        (json!({"threadId": thread_id}), "missing field `target`"),
    ] {
        let error = setup
            .server
            .request("review/start", params)
            .await
            .unwrap_err();
        assert_eq!(error["code"], -32600);
        assert!(
            error["message"].as_str().unwrap().contains(words),
            "{error}"
        );
    }
    let missing = "01a21c38-acbf-7ea3-9e6e-cdd8e293cd7c";
    let error = setup
        .server
        .request(
            "review/start",
            json!({"threadId": missing, "target": {"type": "commit", "sha": ""}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": format!("thread not found: {missing}")})
    );
    // Nothing reached the model.
    assert_eq!(setup.model.requests().len(), 0);
}

#[tokio::test]
async fn a_review_is_refused_while_a_turn_runs_and_an_interrupt_ends_it() {
    let mut setup = setup("never", "read-only").await;
    let repo = setup.workspace.path().to_path_buf();
    repository(&repo);
    std::fs::write(repo.join("f.txt"), "changed\n").unwrap();
    let (response, gate) = MockResponse::gated(responses_text("msg_review", &[FINDINGS]));
    setup.model.push(response);
    let result = setup
        .server
        .request(
            "review/start",
            json!({"threadId": setup.thread_id, "target": {"type": "uncommittedChanges"}}),
        )
        .await
        .unwrap();
    let turn_id = result["turn"]["id"].clone();
    assert!(
        gate.wait_requested(std::time::Duration::from_secs(10))
            .await
    );
    let error = setup
        .server
        .request(
            "review/start",
            json!({"threadId": setup.thread_id, "target": {"type": "uncommittedChanges"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "cannot start a review while a turn is in progress"})
    );
    setup
        .server
        .request(
            "turn/interrupt",
            json!({"threadId": setup.thread_id, "turnId": turn_id}),
        )
        .await
        .unwrap();
    let messages = setup.server.until_turn_completed().await;
    let completed = items(&messages, "item/completed");
    let kinds: Vec<&str> = completed.iter().map(|(kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "enteredReviewMode",
            "userMessage",
            "exitedReviewMode",
            "agentMessage"
        ]
    );
    assert!(
        completed[2].1.starts_with("Review was interrupted"),
        "{completed:?}"
    );
    assert_eq!(completed[3].1, completed[2].1);
    let turn = &find(&messages, "turn/completed")[0]["params"]["turn"];
    assert_eq!(turn["status"], "interrupted");
}

#[tokio::test]
async fn in_a_repository_without_commits_every_file_is_new() {
    let mut setup = setup("never", "read-only").await;
    let repo = setup.workspace.path().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("staged.txt"), "staged line\n").unwrap();
    git(&repo, &["add", "staged.txt"]);
    std::fs::write(repo.join("loose.txt"), "loose line\n").unwrap();
    review(
        &mut setup,
        json!({"type": "uncommittedChanges"}),
        "current changes",
    )
    .await;
    let (text, _) = request_parts(&setup.model.requests()[0]);
    assert!(text.contains("+staged line\n"), "{text}");
    assert!(text.contains("+loose line\n"), "{text}");
    assert!(!text.contains("git diff HEAD"), "{text}");
}

#[tokio::test]
async fn the_repositorys_configuration_runs_no_program() {
    // A writable sandbox, so that a program the repository configures could leave its mark.
    let mut setup = setup("never", "workspace-write").await;
    let repo = setup.workspace.path().to_path_buf();
    repository(&repo);
    std::fs::write(repo.join(".gitattributes"), "*.txt diff=conv\n").unwrap();
    git(&repo, &["add", ".gitattributes"]);
    git(&repo, &["commit", "-q", "-m", "attributes"]);
    for (key, mark) in [
        ("diff.external", "ran-external"),
        ("diff.conv.textconv", "ran-textconv"),
        ("core.fsmonitor", "ran-fsmonitor"),
        ("core.pager", "ran-pager"),
    ] {
        let program = format!("touch {}/{mark}; cat", repo.display());
        git(&repo, &["config", key, &program]);
    }
    std::fs::write(repo.join("f.txt"), "a\nchanged\n").unwrap();
    review(
        &mut setup,
        json!({"type": "uncommittedChanges"}),
        "current changes",
    )
    .await;
    let (text, _) = request_parts(&setup.model.requests()[0]);
    assert!(text.contains("-b\n+changed\n"), "{text}");
    for mark in ["ran-external", "ran-textconv", "ran-fsmonitor", "ran-pager"] {
        assert!(!repo.join(mark).exists(), "{mark}");
    }
}

#[tokio::test]
async fn a_base_branch_with_an_upstream_is_compared_as_its_remote_has_it() {
    let mut setup = setup("never", "read-only").await;
    let origin = tempfile::tempdir().unwrap();
    repository(origin.path());
    std::fs::write(origin.path().join("f.txt"), "a\nb\nupstream line\n").unwrap();
    git(origin.path(), &["commit", "-q", "-am", "Upstream work"]);
    let repo = setup.workspace.path().join("clone");
    git(
        setup.workspace.path(),
        &["clone", "-q", origin.path().to_str().unwrap(), "clone"],
    );
    // The local main lags behind origin/main; the feature starts from origin/main.
    git(&repo, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(repo.join("g.txt"), "feature line\n").unwrap();
    git(&repo, &["add", "g.txt"]);
    git(&repo, &["commit", "-q", "-m", "Feature"]);
    git(&repo, &["branch", "-q", "-f", "main", "HEAD~2"]);
    git(
        &repo,
        &["branch", "-q", "--set-upstream-to=origin/main", "main"],
    );
    let result = setup
        .server
        .request("thread/start", json!({"cwd": repo.to_str().unwrap()}))
        .await
        .unwrap();
    setup.thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    review(
        &mut setup,
        json!({"type": "baseBranch", "branch": "main"}),
        "changes against 'main'",
    )
    .await;
    let (text, _) = request_parts(&setup.model.requests()[0]);
    assert!(text.contains("+feature line\n"), "{text}");
    assert!(!text.contains("upstream line"), "{text}");
}

#[tokio::test]
async fn a_chat_completions_provider_reviews_too() {
    let mut setup = setup_for_wire("never", "read-only", "chat").await;
    let repo = setup.workspace.path().to_path_buf();
    repository(&repo);
    std::fs::write(repo.join("f.txt"), "a\nB\n").unwrap();
    setup.model.push(MockResponse::sse(chat_text(&[FINDINGS])));
    setup
        .server
        .request(
            "review/start",
            json!({"threadId": setup.thread_id, "target": {"type": "uncommittedChanges"}}),
        )
        .await
        .unwrap();
    let messages = setup.server.until_turn_completed().await;
    assert_eq!(
        items(&messages, "item/completed")[2],
        ("exitedReviewMode".into(), RENDERED.into())
    );
    // The rubric is the system message; no tools are offered.
    let request = &setup.model.requests()[0];
    let first = &request["messages"][0];
    assert_eq!(first["role"], "system");
    assert!(
        first["content"]
            .as_str()
            .unwrap()
            .starts_with("# Reviewing a code change"),
        "{request}"
    );
    assert!(request.get("tools").is_none(), "{request}");
    assert!(request.to_string().contains("-b\\n+B\\n"), "{request}");
}
