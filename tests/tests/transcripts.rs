//! The recorded Codex transcripts against our protocol types and generated JSON Schema.
//!
//! Every core server→client message (notifications, server requests, and responses paired
//! with the request they answer) must validate against the generated schema, and every core
//! client request that the reference server accepted must deserialize into our types and
//! serialize back to an equivalent value.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]

mod common;

use std::collections::{BTreeMap, HashMap};

use app_server_protocol::export::{self, ExportOptions, JSON_BUNDLE_FILE};
use app_server_protocol::tables::{ClientRequest, ServerNotification, ServerRequest};
use serde_json::{Value, json};

use common::transcripts_dir;

struct Line {
    file: String,
    seq: u64,
    dir: String,
    msg: Value,
}

fn transcript_lines() -> Vec<Line> {
    let mut files: Vec<_> = std::fs::read_dir(transcripts_dir())
        .expect("transcripts dir")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "jsonl")
                && !path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("rollout"))
        })
        .collect();
    files.sort();
    let mut lines = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read transcript");
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        for raw in text.lines() {
            let record: Value = serde_json::from_str(raw).expect("transcript line is JSON");
            let Some(msg) = record.get("msg").cloned() else {
                continue; // lines that were not valid JSON on the wire
            };
            lines.push(Line {
                file: file.clone(),
                seq: record["seq"].as_u64().unwrap_or_default(),
                dir: record["dir"].as_str().unwrap_or_default().to_string(),
                msg,
            });
        }
    }
    lines
}

fn schema_for(bundle: &Value, definition: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{definition}"),
        "$defs": bundle["$defs"].clone(),
    });
    jsonschema::validator_for(&schema).expect("valid schema")
}

fn method_types(
    methods: &[app_server_protocol::tables_meta::MethodSpec],
) -> HashMap<&'static str, (&'static str, Option<&'static str>)> {
    methods
        .iter()
        .map(|spec| (spec.method, (spec.params, spec.response)))
        .collect()
}

#[test]
fn server_messages_validate_against_the_generated_schema() {
    let files = export::json_schema(&ExportOptions { experimental: true }).expect("export");
    let bundle: Value = serde_json::from_str(&files[JSON_BUNDLE_FILE]).expect("bundle");
    let client_requests = method_types(ClientRequest::METHODS);
    let server_requests = method_types(ServerRequest::METHODS);
    let notifications = method_types(ServerNotification::METHODS);

    let mut validators: HashMap<String, jsonschema::Validator> = HashMap::new();
    let mut pending: HashMap<(String, String), &'static str> = HashMap::new();
    let mut validated: BTreeMap<String, usize> = BTreeMap::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();

    let lines = transcript_lines();
    for line in &lines {
        let msg = &line.msg;
        let id_key = |msg: &Value| {
            (
                line.file.clone(),
                msg.get("id").map(Value::to_string).unwrap_or_default(),
            )
        };
        if line.dir == "c2s" {
            if let (Some(method), Some(_)) =
                (msg.get("method").and_then(Value::as_str), msg.get("id"))
                && let Some((_, Some(response))) = client_requests.get(method)
            {
                pending.insert(id_key(msg), response);
            }
            continue;
        }
        let (kind, definition, payload) =
            if let Some(method) = msg.get("method").and_then(Value::as_str) {
                if msg.get("id").is_some() {
                    match server_requests.get(method) {
                        Some((params, _)) => (
                            format!("request {method}"),
                            Some(*params),
                            msg.get("params"),
                        ),
                        None => (format!("request {method}"), None, None),
                    }
                } else {
                    match notifications.get(method) {
                        Some((params, _)) => (
                            format!("notification {method}"),
                            Some(*params),
                            msg.get("params"),
                        ),
                        None => (format!("notification {method}"), None, None),
                    }
                }
            } else if msg.get("error").is_some() {
                (
                    "error response".to_string(),
                    Some("JSONRPCMessage"),
                    Some(msg),
                )
            } else {
                match pending.get(&id_key(msg)) {
                    Some(response) => (
                        format!("response {response}"),
                        Some(*response),
                        msg.get("result"),
                    ),
                    None => (
                        "response to a method outside the core subset".to_string(),
                        None,
                        None,
                    ),
                }
            };
        let Some(definition) = definition else {
            *skipped.entry(kind).or_default() += 1;
            continue;
        };
        let validator = validators
            .entry(definition.to_string())
            .or_insert_with(|| schema_for(&bundle, definition));
        let payload = payload.cloned().unwrap_or(Value::Null);
        let errors: Vec<String> = validator
            .iter_errors(&payload)
            .map(|error| format!("{error} at {}", error.instance_path()))
            .collect();
        if errors.is_empty() {
            *validated.entry(kind).or_default() += 1;
        } else {
            failures.push(format!(
                "{}#{} {kind}: {}",
                line.file,
                line.seq,
                errors.join("; ")
            ));
        }
    }
    let total: usize = validated.values().sum();
    eprintln!(
        "validated {total} server messages: {validated:#?}\nskipped (outside the core subset): {skipped:#?}"
    );
    assert!(
        failures.is_empty(),
        "{} messages failed validation:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Exact counts: a message that stops matching a method of the tables, or a transcript
    // that changes, shows up here instead of being skipped silently.
    assert_eq!(total, 486, "validated: {validated:#?}");
    let expected_skipped: BTreeMap<String, usize> =
        [("notification remoteControl/status/changed", 17)]
            .into_iter()
            .map(|(kind, count)| (kind.to_string(), count))
            .collect();
    assert_eq!(skipped, expected_skipped);
}

/// `roundtrip` may add explicit nulls and defaults for omitted fields; everything the
/// original said must survive unchanged. `jsonrpc` and unknown fields are dropped on purpose.
fn assert_equivalent(
    original: &Value,
    roundtrip: &Value,
    path: &str,
    ignored: &[&str],
) -> Result<(), String> {
    match (original, roundtrip) {
        (Value::Object(original), Value::Object(roundtrip)) => {
            for (key, value) in original {
                if ignored.contains(&key.as_str()) {
                    continue;
                }
                let Some(other) = roundtrip.get(key) else {
                    return Err(format!("{path}.{key} lost in round trip"));
                };
                assert_equivalent(value, other, &format!("{path}.{key}"), &[])?;
            }
            for (key, value) in roundtrip {
                let is_default = value.is_null()
                    || *value == json!([])
                    || *value == json!({})
                    || *value == json!(false);
                if !original.contains_key(key) && !is_default {
                    return Err(format!("{path}.{key} appeared in round trip as {value}"));
                }
            }
            Ok(())
        }
        (Value::Array(original), Value::Array(roundtrip)) if original.len() == roundtrip.len() => {
            for (index, (a, b)) in original.iter().zip(roundtrip).enumerate() {
                assert_equivalent(a, b, &format!("{path}[{index}]"), &[])?;
            }
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: {a} became {b}")),
    }
}

#[test]
fn accepted_client_requests_round_trip_through_the_protocol_types() {
    let lines = transcript_lines();
    // Ids the reference server answered with a result (not an error), per file.
    let accepted: std::collections::HashSet<(String, String)> = lines
        .iter()
        .filter(|line| line.dir == "s2c" && line.msg.get("result").is_some())
        .map(|line| (line.file.clone(), line.msg["id"].to_string()))
        .collect();
    let core: std::collections::HashSet<&str> = ClientRequest::METHODS
        .iter()
        .map(|spec| spec.method)
        .collect();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in lines.iter().filter(|line| line.dir == "c2s") {
        let Some(method) = line.msg.get("method").and_then(Value::as_str) else {
            continue;
        };
        if line.msg.get("id").is_none() || !core.contains(method) {
            continue;
        }
        if !accepted.contains(&(line.file.clone(), line.msg["id"].to_string())) {
            continue; // the reference server rejected it; our decoder may reject it too
        }
        match serde_json::from_value::<ClientRequest>(line.msg.clone()) {
            Ok(request) => {
                let back = serde_json::to_value(&request).expect("serialize");
                if let Err(problem) = assert_equivalent(&line.msg, &back, method, &["jsonrpc"]) {
                    // Unknown fields are ignored by design (`bogusField` in g_errors).
                    if !problem.contains("bogusField") {
                        failures.push(format!("{}#{}: {problem}", line.file, line.seq));
                    }
                }
                checked += 1;
            }
            Err(error) => failures.push(format!("{}#{} {method}: {error}", line.file, line.seq)),
        }
    }
    eprintln!("round-tripped {checked} client requests");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 100, "only {checked} client requests checked");
}

#[test]
fn schema_validation_rejects_a_wrong_shape() {
    let files = export::json_schema(&ExportOptions {
        experimental: false,
    })
    .expect("export");
    let bundle: Value = serde_json::from_str(&files[JSON_BUNDLE_FILE]).expect("bundle");
    let validator = schema_for(&bundle, "TurnNotification");
    let good = json!({"threadId": "t", "turn": {"id": "u", "rootTurnId": "u", "items": [], "itemsView": "notLoaded", "status": "inProgress", "error": null, "startedAt": 1, "completedAt": null, "durationMs": null}});
    assert!(validator.is_valid(&good));
    let mut bad = good.clone();
    bad["turn"]["status"] = json!("running");
    assert!(!validator.is_valid(&bad));
    let mut missing = good;
    missing["turn"]
        .as_object_mut()
        .expect("object")
        .remove("items");
    assert!(!validator.is_valid(&missing));
}
