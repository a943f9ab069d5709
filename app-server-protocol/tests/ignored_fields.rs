//! Fields that Tandem accepts and ignores say so in the descriptions the bindings ship, so
//! that a client author never relies on them.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]

use app_server_protocol::thread_requests::{
    ThreadForkParams, ThreadResumeParams, ThreadStartParams,
};
use app_server_protocol::turn_requests::TurnStartParams;
use schemars::{JsonSchema, schema_for};
use serde_json::Value;

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).unwrap()
}

fn description<'a>(schema: &'a Value, pointer: &str) -> &'a str {
    schema
        .pointer(pointer)
        .and_then(|node| node.get("description"))
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no description at {pointer}"))
}

fn says_ignored(text: &str) -> bool {
    text.contains("ignored") || text.contains("no effect")
}

#[test]
fn accepted_but_ignored_fields_say_so() {
    let cases = [
        (schema::<ThreadStartParams>(), "/properties/serviceName"),
        (schema::<ThreadStartParams>(), "/properties/serviceTier"),
        (
            schema::<ThreadStartParams>(),
            "/properties/sessionStartSource",
        ),
        (
            schema::<ThreadStartParams>(),
            "/properties/approvalsReviewer",
        ),
        (schema::<ThreadStartParams>(), "/properties/personality"),
        (schema::<ThreadResumeParams>(), "/properties/serviceTier"),
        (schema::<ThreadForkParams>(), "/properties/serviceTier"),
        (schema::<TurnStartParams>(), "/properties/serviceTier"),
        (schema::<TurnStartParams>(), "/properties/personality"),
    ];
    for (schema, pointer) in &cases {
        let text = description(schema, pointer);
        assert!(says_ignored(text), "{pointer}: {text}");
    }
    let start = schema::<ThreadStartParams>();
    let reviewers = start
        .pointer("/$defs/ApprovalsReviewer/oneOf")
        .and_then(Value::as_array)
        .expect("ApprovalsReviewer variants");
    let auto_review = reviewers
        .iter()
        .find(|variant| variant["const"] == "auto_review")
        .expect("auto_review");
    assert!(
        says_ignored(auto_review["description"].as_str().unwrap_or_default()),
        "{auto_review}"
    );
}
