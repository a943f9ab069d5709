//! Tools: the one [`Tool`] trait behind the model's tools and the MCP server's tools, and the
//! implementations the agent loop calls once the engine has decided that something may run.
//!
//! A tool is a name, a description, an argument type whose JSON Schema is derived from the type
//! ([`input_schema`]) and a handler. A registry — the model's in `engine/tools/registry.rs`, the
//! MCP server's in the binary's `mcp/tools.rs` — lists, selects and dispatches by these alone,
//! so a tool's name is written once and the schema it advertises cannot drift from what its
//! handler decodes.
//!
//! The engine decides *whether* something may run (policy and approvals); [`apply_patch`] and
//! [`exec`] know *how* to run it.

pub mod apply_patch;
pub mod exec;
pub mod schema_samples;

use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The future a tool's handler returns.
pub type ToolFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One tool, offered to the model or to MCP clients.
pub trait Tool: 'static {
    /// The name the tool is called by.
    const NAME: &'static str;
    /// What the tool does, as the model or the client reads it.
    const DESCRIPTION: &'static str;
    /// The arguments; the advertised schema is [`input_schema`] of this type.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// What a call runs with: the turn and the model's call for a model tool, the session and
    /// the request for an MCP tool.
    type Context<'a>: Send;
    /// What a call produces.
    type Output;

    /// Runs one call with its decoded arguments.
    fn run<'a>(context: Self::Context<'a>, args: Self::Args) -> ToolFuture<'a, Self::Output>;
}

/// The JSON Schema of `T` as a tool advertises it: one self-contained object (subschemas
/// inlined, no `$schema`, `title` or root `description`), optional fields shown by their type
/// alone (schemars writes `Option<T>` as "T or null"; an absent field and `null` decode alike),
/// and no `format` annotations (`int32`, `double`) or `default` values, which models and MCP
/// clients do not use (descriptions say what an absent field means).
pub fn input_schema<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft07();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut schema {
        root.remove("title");
        root.remove("description");
        simplify(root);
    }
    schema
}

/// A schemars transform (`#[schemars(transform = require_every_property)]`) for an argument
/// type whose every field the model is asked for, as Codex's definitions do, although the
/// decoder accepts some of them absent.
pub fn require_every_property(schema: &mut schemars::Schema) {
    let names: Vec<Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().map(Value::String).collect())
        .unwrap_or_default();
    schema.insert("required".to_string(), Value::Array(names));
}

/// Applies [`input_schema`]'s simplifications to one schema object and everything below it.
fn simplify(schema: &mut Map<String, Value>) {
    if let Some(Value::Array(alternatives)) = schema.get("anyOf") {
        let kept: Vec<Value> = alternatives
            .iter()
            .filter(|alternative| !is_null_schema(alternative))
            .cloned()
            .collect();
        if kept.len() == 1
            && let Some(Value::Object(only)) = kept.into_iter().next()
        {
            schema.remove("anyOf");
            for (key, value) in only {
                schema.entry(key).or_insert(value);
            }
        }
    }
    if let Some(Value::Array(types)) = schema.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|kind| kind.as_str() != Some("null"))
            .cloned()
            .collect();
        let kept = match <[Value; 1]>::try_from(kept) {
            Ok([only]) => only,
            Err(kept) => Value::Array(kept),
        };
        schema.insert("type".to_string(), kept);
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    schema.remove("default");
    let unsigned = schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| format.starts_with("uint"));
    if unsigned && schema.get("minimum").and_then(Value::as_u64) == Some(0) {
        schema.remove("minimum");
    }
    schema.remove("format");
    for (keyword, value) in schema.iter_mut() {
        match (keyword.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                for property in properties.values_mut() {
                    if let Value::Object(property) = property {
                        simplify(property);
                    }
                }
            }
            ("items" | "additionalProperties", Value::Object(item)) => simplify(item),
            ("anyOf" | "oneOf" | "allOf", Value::Array(alternatives)) => {
                for alternative in alternatives {
                    if let Value::Object(alternative) = alternative {
                        simplify(alternative);
                    }
                }
            }
            _ => {}
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    /// A sample of what argument types use.
    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code, reason = "only the schema is looked at")]
    struct Sample {
        /// The text.
        text: String,
        /// How many.
        #[serde(default)]
        count: Option<u64>,
        /// Which one.
        #[serde(default)]
        kind: Option<Kind>,
        /// Items.
        #[serde(default)]
        items: Option<Vec<Item>>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        One,
        Two,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is looked at")]
    struct Item {
        /// A label.
        label: String,
    }

    #[test]
    fn optional_fields_show_their_type_alone_and_subschemas_are_inlined() {
        assert_eq!(
            input_schema::<Sample>(),
            json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "The text."},
                    "count": {"type": "integer", "description": "How many."},
                    "kind": {"type": "string", "enum": ["one", "two"], "description": "Which one."},
                    "items": {
                        "type": "array",
                        "description": "Items.",
                        "items": {
                            "type": "object",
                            "properties": {"label": {"type": "string", "description": "A label."}},
                            "required": ["label"]
                        }
                    }
                },
                "required": ["text"],
                "additionalProperties": false
            })
        );
    }
}
