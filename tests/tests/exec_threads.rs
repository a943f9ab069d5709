//! `tandem exec` across runs and with the SDKs' options: `resume <THREAD_ID>` and `resume
//! --last` continue a stored thread, `--output-schema` reaches the model and
//! `--output-last-message` receives the answer, `--image` attaches the file, the home is
//! `CODEX_HOME` when `TANDEM_HOME` is unset (and its rollouts are where a wrapper reads them),
//! and `openai_base_url` / `CODEX_API_KEY` / the originator variable are honoured.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod exec_common;

use base64::Engine as _;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};

use crate::exec_common::{ExecSetup, last_user_text, rollouts};

/// The user texts of a Responses request, in order.
fn user_texts(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["role"] == "user")
        .filter_map(|item| item["content"].as_array())
        .flat_map(|parts| parts.iter())
        .filter(|part| part["type"] == "input_text")
        .filter_map(|part| part["text"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn resume_continues_the_thread_by_id_and_as_the_latest() {
    let model = MockModel::start().await;
    model.push_all([
        MockResponse::sse(responses_text("msg_1", &["first answer"])),
        MockResponse::sse(responses_text("msg_2", &["second answer"])),
        MockResponse::sse(responses_text("msg_3", &["third answer"])),
    ]);
    let setup = ExecSetup::new(&model.base_url());
    let first = setup.run(&["--json", "first question"], "").await;
    assert_eq!(first.status, Some(0), "{first}");
    let thread_id = first.thread_id();

    // By id; the flags may follow `resume <THREAD_ID>`, as the TypeScript SDK puts `--image`.
    let second = setup
        .run(
            &["--json", "resume", &thread_id, "--color", "never"],
            "second question",
        )
        .await;
    assert_eq!(second.status, Some(0), "{second}");
    assert_eq!(second.thread_id(), thread_id);
    let texts = user_texts(&model.requests()[1]);
    assert!(texts.contains(&"first question".to_string()), "{texts:?}");
    assert_eq!(texts.last().unwrap(), "second question");

    // The latest thread of this directory, with the prompt as the positional argument.
    let third = setup
        .run(&["--json", "resume", "--last", "third question"], "ignored")
        .await;
    assert_eq!(third.status, Some(0), "{third}");
    assert_eq!(third.thread_id(), thread_id);
    let texts = user_texts(&model.requests()[2]);
    assert!(texts.contains(&"second question".to_string()), "{texts:?}");
    assert_eq!(texts.last().unwrap(), "third question");

    // An unknown thread is an error, exit 1, before any model request.
    let missing = setup
        .run(
            &[
                "--json",
                "resume",
                "0190d2a0-0000-7000-8000-000000000000",
                "hi",
            ],
            "",
        )
        .await;
    assert_eq!(missing.status, Some(1), "{missing}");
    assert_eq!(model.request_count(), 3);
}

#[tokio::test]
async fn the_output_schema_reaches_the_model_and_the_last_message_is_written() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["{\"answer\":", "\"ok\"}"],
    )));
    let setup = ExecSetup::new(&model.base_url());
    let schema = json!({
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": false,
    });
    let schema_file = setup.workspace.path().join("schema.json");
    std::fs::write(&schema_file, schema.to_string()).unwrap();
    let last_file = setup.workspace.path().join("last.txt");
    let output = setup
        .run(
            &[
                "--json",
                "--output-schema",
                schema_file.to_str().unwrap(),
                "--output-last-message",
                last_file.to_str().unwrap(),
                "answer in JSON",
            ],
            "",
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    assert_eq!(model.requests()[0]["text"]["format"]["schema"], schema);
    assert_eq!(
        std::fs::read_to_string(&last_file).unwrap(),
        "{\"answer\":\"ok\"}"
    );

    // A schema that is not a JSON object is refused before the model is asked.
    std::fs::write(&schema_file, "[1, 2]").unwrap();
    let output = setup
        .run(
            &["--output-schema", schema_file.to_str().unwrap(), "hi"],
            "",
        )
        .await;
    assert_eq!(output.status, Some(1), "{output}");
    assert!(output.stderr.contains("not a JSON object"), "{output}");
    assert_eq!(model.request_count(), 1);
}

/// A 1×1 PNG.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[tokio::test]
async fn an_image_is_attached_to_the_prompt() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["a pixel"])));
    let setup = ExecSetup::new(&model.base_url());
    let image = setup.workspace.path().join("pixel.png");
    std::fs::write(
        &image,
        base64::engine::general_purpose::STANDARD
            .decode(PIXEL_PNG)
            .unwrap(),
    )
    .unwrap();
    let output = setup
        .run(
            &["--json", "--image", image.to_str().unwrap()],
            "what is this?",
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    let request = &model.requests()[0];
    assert_eq!(last_user_text(request), "what is this?");
    let images: Vec<&Value> = request["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["content"].as_array())
        .flat_map(|parts| parts.iter())
        .filter(|part| part["type"] == "input_image")
        .collect();
    assert_eq!(images.len(), 1, "{request}");
    assert!(
        images[0]["image_url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "{request}"
    );

    // A missing image is an error before anything runs.
    let output = setup.run(&["--image", "missing.png", "hi"], "").await;
    assert_eq!(output.status, Some(1), "{output}");
    assert!(output.stderr.contains("--image missing.png"), "{output}");
}

#[tokio::test]
async fn codex_home_is_the_home_when_tandem_home_is_unset() {
    let model = MockModel::start().await;
    model.push_all([
        MockResponse::sse(responses_text("msg_1", &["one"])),
        MockResponse::sse(responses_text("msg_2", &["two"])),
    ]);
    let setup = ExecSetup::new(&model.base_url());
    let codex_home = setup.home.path();
    let output = setup
        .run_with(&["--json", "hi"], "", &[("CODEX_HOME", codex_home)])
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    let thread_id = output.thread_id();
    // The rollout lies where Codex keeps it, named after the thread, opening with the
    // `session_meta` header that names the thread and its directory.
    let files = rollouts(codex_home);
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("rollout-") && name.ends_with(&format!("-{thread_id}.jsonl")),
        "{name}"
    );
    let relative = files[0].strip_prefix(codex_home.join("sessions")).unwrap();
    assert_eq!(relative.components().count(), 4, "sessions/YYYY/MM/DD/file");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["type"], "session_meta");
    let cwd = std::fs::canonicalize(setup.workspace.path()).unwrap();
    let cwd = cwd.to_str().unwrap();
    // Where Tandem reads them, and repeated where Codex's readers look.
    assert_eq!(header["payload"]["meta"]["id"], thread_id);
    assert_eq!(header["payload"]["meta"]["cwd"], cwd);
    assert_eq!(header["payload"]["id"], thread_id);
    assert_eq!(header["payload"]["cwd"], cwd);
    assert_eq!(header["payload"]["originator"], "tandem_exec");
    assert!(
        header["payload"]["timestamp"]
            .as_str()
            .unwrap()
            .ends_with('Z'),
        "{header}"
    );
    // The answer is recorded where Codex records it: the message itself is the payload.
    let answer = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| {
            line["type"] == "response_item"
                && line["payload"]["type"] == "message"
                && line["payload"]["role"] == "assistant"
        })
        .unwrap_or_else(|| panic!("no assistant message in Codex's shape:\n{text}"));
    assert_eq!(
        answer["payload"]["content"][0]["type"], "output_text",
        "{answer}"
    );
    assert!(
        answer["payload"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("one"),
        "{answer}"
    );

    // Both set: TANDEM_HOME wins, and CODEX_HOME gains nothing.
    let tandem_home = tempfile::tempdir().unwrap();
    std::fs::copy(
        codex_home.join("config.toml"),
        tandem_home.path().join("config.toml"),
    )
    .unwrap();
    let output = setup
        .run_with(
            &["--json", "hi"],
            "",
            &[
                ("CODEX_HOME", codex_home),
                ("TANDEM_HOME", tandem_home.path()),
            ],
        )
        .await;
    assert_eq!(output.status, Some(0), "{output}");
    assert_eq!(rollouts(codex_home).len(), 1);
    assert_eq!(rollouts(tandem_home.path()).len(), 1);
}

#[tokio::test]
async fn the_sdks_base_url_api_key_and_client_name_are_honoured() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["keyed"])));
    let setup = ExecSetup::new(&model.base_url());
    // The built-in provider, pointed at the mock the way the TypeScript SDK's `baseUrl` does.
    std::fs::write(
        setup.home.path().join("config.toml"),
        "model = \"mock-model\"\n",
    )
    .unwrap();
    let base_url = format!("openai_base_url=\"{}\"", model.base_url());
    // The variables are set for this child only.
    let mut command = tokio::process::Command::new(tandem_tests::server::tandem_binary());
    command
        .args(["exec", "--json", "--config", &base_url, "hi"])
        .current_dir(setup.workspace.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEX_HOME")
        .env("TANDEM_HOME", setup.home.path())
        .env("CODEX_API_KEY", "sk-from-the-sdk")
        .env("CODEX_INTERNAL_ORIGINATOR_OVERRIDE", "codex_sdk_ts")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().unwrap();
    let output = exec_common::finish(child, "").await;
    assert_eq!(output.status, Some(0), "{output}");
    let received: Vec<_> = model
        .received()
        .into_iter()
        .filter(|request| request.method == "POST")
        .collect();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].headers.get("authorization").map(String::as_str),
        Some("Bearer sk-from-the-sdk")
    );
    let files = rollouts(setup.home.path());
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["payload"]["originator"], "codex_sdk_ts");
}
