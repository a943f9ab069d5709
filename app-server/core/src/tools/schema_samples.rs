//! Values a JSON Schema accepts, for checking that an advertised tool schema describes what the
//! tool's argument type decodes (the model's and the MCP server's registries both test with it).

use serde_json::{Map, Value, json};

/// Values `schema` accepts: for the `choice`-th value of every enum in turn, one with only the
/// required properties and one with every property.
pub fn samples(schema: &Value) -> Vec<Value> {
    let choices = most_enum_values(schema).max(1);
    (0..choices)
        .flat_map(|choice| [false, true].map(|full| sample(schema, full, choice)))
        .collect()
}

/// A value the schema accepts: every property (`full`) or only the required ones, with the
/// `choice`-th value of each enum (the last when it has fewer).
pub fn sample(schema: &Value, full: bool, choice: usize) -> Value {
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

/// `value` with every `required` list sorted: it is a set, and the derived one lists the
/// properties in alphabetical order where the recorded one followed the source.
pub fn sorted_required(mut value: Value) -> Value {
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
