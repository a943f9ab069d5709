//! Tool names and schemas as offered to model providers.
//!
//! A tool is offered as `mcp__<server>__<tool>`. Providers accept function names of at most
//! 64 characters from `[A-Za-z0-9_-]`, so other characters become `_` and a longer name is
//! cut and ended with a hash of the full name (the mapping back goes through the tool list,
//! never by parsing the name). Schemas pass through with the few repairs providers insist on.

use serde_json::{Map, Value};

/// The longest function name providers accept.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// The name under which `tool` of `server` is offered to the model.
pub fn qualified_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{server}__{tool}");
    let sanitized: String = full
        .chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || character == '_' || character == '-' {
                character
            } else {
                '_'
            }
        })
        .collect();
    if sanitized.len() <= MAX_TOOL_NAME_LEN && sanitized == full {
        return sanitized;
    }
    if sanitized.len() <= MAX_TOOL_NAME_LEN {
        // Changed characters could make two names equal: keep them apart with a hash.
        let hash = format!("_{:08x}", fnv1a(&full) as u32);
        if sanitized.len() + hash.len() <= MAX_TOOL_NAME_LEN {
            return sanitized + &hash;
        }
    }
    let hash = format!("_{:016x}", fnv1a(&full));
    let keep = MAX_TOOL_NAME_LEN - hash.len();
    sanitized[..keep].to_string() + &hash
}

/// The input schema made acceptable to providers: an object schema with `properties`, every
/// nested schema with a `type` (inferred from its keywords, `string` when nothing says), and
/// without `$schema`/`$id`, which some providers refuse.
pub fn sanitize_schema(schema: &Value) -> Value {
    let mut root = match schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    root.remove("$schema");
    root.remove("$id");
    root.insert("type".into(), Value::String("object".into()));
    if !matches!(root.get("properties"), Some(Value::Object(_))) {
        root.insert("properties".into(), Value::Object(Map::new()));
    }
    let mut value = Value::Object(root);
    sanitize_node(&mut value, true);
    value
}

fn sanitize_node(value: &mut Value, is_root: bool) {
    let Value::Object(map) = value else {
        if let Value::Bool(_) = value {
            // `true`/`false` schemas: providers want an object.
            *value = serde_json::json!({"type": "string"});
        }
        return;
    };
    if !is_root && !map.contains_key("type") && !has_combinator(map) && !map.contains_key("$ref") {
        let inferred = if map.contains_key("properties") || map.contains_key("additionalProperties")
        {
            "object"
        } else if map.contains_key("items") || map.contains_key("prefixItems") {
            "array"
        } else if map.contains_key("enum")
            || map.contains_key("const")
            || map.contains_key("format")
        {
            "string"
        } else if map.contains_key("minimum") || map.contains_key("maximum") {
            "number"
        } else {
            "string"
        };
        map.insert("type".into(), Value::String(inferred.into()));
    }
    if map.get("type").and_then(Value::as_str) == Some("object")
        && !matches!(map.get("properties"), Some(Value::Object(_)))
    {
        map.insert("properties".into(), Value::Object(Map::new()));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for property in properties.values_mut() {
            sanitize_node(property, false);
        }
    }
    if let Some(items) = map.get_mut("items") {
        sanitize_node(items, false);
    }
    if let Some(additional @ Value::Object(_)) = map.get_mut("additionalProperties") {
        sanitize_node(additional, false);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(options)) = map.get_mut(key) {
            for option in options {
                sanitize_node(option, false);
            }
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = map.get_mut(key) {
            for definition in definitions.values_mut() {
                sanitize_node(definition, false);
            }
        }
    }
}

fn has_combinator(map: &Map<String, Value>) -> bool {
    ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|key| map.contains_key(*key))
}

/// FNV-1a, 64 bits: a stable short hash for name suffixes.
fn fnv1a(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn plain_names_pass_through() {
        assert_eq!(
            qualified_name("everything", "echo"),
            "mcp__everything__echo"
        );
        assert_eq!(qualified_name("a-b", "get_x"), "mcp__a-b__get_x");
    }

    #[test]
    fn odd_characters_are_replaced_and_disambiguated() {
        let dotted = qualified_name("srv", "files.read");
        let underscored = qualified_name("srv", "files_read");
        assert!(dotted.starts_with("mcp__srv__files_read_"), "{dotted}");
        assert_ne!(dotted, underscored);
        assert!(
            dotted
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }

    #[test]
    fn long_names_are_cut_to_the_provider_limit_and_stay_distinct() {
        let tool_a = "a".repeat(80);
        let tool_b = format!("{}b", "a".repeat(79));
        let name_a = qualified_name("server", &tool_a);
        let name_b = qualified_name("server", &tool_b);
        assert_eq!(name_a.len(), MAX_TOOL_NAME_LEN);
        assert_eq!(name_b.len(), MAX_TOOL_NAME_LEN);
        assert_ne!(name_a, name_b);
    }

    #[test]
    fn schemas_get_an_object_root_and_typed_nodes() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {
                "mode": {"enum": ["a", "b"]},
                "list": {"items": {"properties": {"x": {"type": "integer"}}}},
                "anything": {}
            }
        });
        let sanitized = sanitize_schema(&schema);
        assert_eq!(
            sanitized,
            json!({
                "type": "object",
                "properties": {
                    "mode": {"enum": ["a", "b"], "type": "string"},
                    "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                    "anything": {"type": "string"}
                }
            })
        );
        assert_eq!(
            sanitize_schema(&json!(null)),
            json!({"type": "object", "properties": {}})
        );
    }
}
