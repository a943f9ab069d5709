//! Tests of the model's tool registry: the definitions sent to the model are the ones recorded
//! from the hand-written originals (`testdata/model_tools.json`), and every advertised schema
//! describes what the tool's argument type decodes.

use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};

use super::*;

#[test]
fn the_model_is_shown_the_recorded_tool_definitions() {
    let recorded: Value =
        serde_json::from_str(include_str!("testdata/model_tools.json")).expect("fixture");
    let advertised: Vec<Value> = MODEL_TOOLS
        .iter()
        .map(|tool| {
            let spec = tool.spec();
            json!({"name": spec.name, "description": spec.description, "parameters": spec.parameters})
        })
        .collect();
    assert_eq!(
        sorted_required(Value::Array(advertised)),
        sorted_required(recorded)
    );
}

/// `value` with every `required` list sorted: it is a set, and the derived one lists the
/// properties in alphabetical order where the recorded one followed the source.
fn sorted_required(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "required"
                    && let Value::Array(names) = child
                {
                    names.sort_by(|left, right| left.as_str().cmp(&right.as_str()));
                } else {
                    *child = sorted_required(child.take());
                }
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                *item = sorted_required(item.take());
            }
        }
        _ => {}
    }
    value
}

#[test]
fn every_advertised_schema_decodes_into_its_argument_type() {
    for tool in MODEL_TOOLS {
        let schema = (tool.schema)();
        assert_eq!(schema["type"], "object", "{}", tool.name);
        let choices = most_enum_values(&schema).max(1);
        for choice in 0..choices {
            for full in [false, true] {
                let arguments = sample(&schema, full, choice);
                assert_eq!(
                    (tool.decodes)(&arguments),
                    Ok(()),
                    "{}: {arguments}",
                    tool.name
                );
            }
        }
    }
}

#[test]
fn a_call_by_a_registered_name_finds_its_tool_and_no_name_is_registered_twice() {
    for tool in MODEL_TOOLS {
        assert_eq!(find(tool.name).map(|found| found.name), Some(tool.name));
        let count = MODEL_TOOLS
            .iter()
            .filter(|other| other.name == tool.name)
            .count();
        assert_eq!(count, 1, "{}", tool.name);
    }
    assert!(find("mcp__server__tool").is_none());
}

#[test]
fn the_sample_check_sees_a_schema_that_does_not_match_its_type() {
    // `update_plan`'s schema with `plan` no longer required: the minimal sample lacks it, and
    // the argument type refuses that.
    let tool = find("update_plan").expect("registered");
    let mut schema = (tool.schema)();
    schema["required"] = json!([]);
    assert!((tool.decodes)(&sample(&schema, false, 0)).is_err());
}

/// A value the schema accepts: every property (`full`) or only the required ones, with the
/// `choice`-th value of each enum (the last when it has fewer).
fn sample(schema: &Value, full: bool, choice: usize) -> Value {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values[choice.min(values.len() - 1)].clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    if full || required.contains(&name.as_str()) {
                        object.insert(name.clone(), sample(property, full, choice));
                    }
                }
            }
            Value::Object(object)
        }
        Some("array") => {
            let count = schema
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            let item = sample(&schema["items"], full, choice);
            Value::Array((0..count).map(|_| item.clone()).collect())
        }
        Some("string") => json!("text"),
        Some("integer" | "number") => json!(1),
        Some("boolean") => json!(true),
        _ => json!({}),
    }
}

/// The length of the longest enum anywhere in `schema`.
fn most_enum_values(schema: &Value) -> usize {
    match schema {
        Value::Object(map) => {
            let own = map
                .get("enum")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            map.values().map(most_enum_values).fold(own, usize::max)
        }
        Value::Array(items) => items.iter().map(most_enum_values).max().unwrap_or(0),
        _ => 0,
    }
}
