//! Tests of the model's tool registry: the definitions sent to the model are the ones recorded
//! from the hand-written originals (`testdata/model_tools.json`), and every advertised schema
//! describes what the tool's argument type decodes.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::tools::schema_samples::{sample, samples, sorted_required};

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

#[test]
fn every_advertised_schema_decodes_into_its_argument_type() {
    for tool in MODEL_TOOLS {
        let schema = (tool.schema)();
        assert_eq!(schema["type"], "object", "{}", tool.name);
        for arguments in samples(&schema) {
            assert_eq!(
                (tool.decodes)(&arguments),
                Ok(()),
                "{}: {arguments}",
                tool.name
            );
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
