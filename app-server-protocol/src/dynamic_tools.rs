//! Client-provided tools: the tools a client declares at `thread/start` (`dynamicTools`) and
//! the `item/tool/call` server request through which the client runs them for the model.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use ts_rs::TS;

use crate::item::DynamicToolCallOutputContentItem;

/// A tool the client offers the model for the whole thread (tagged by `type`; a spec without
/// `type` is read as a function, as the reference reads it).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum DynamicToolSpec {
    /// One tool, offered under its own name.
    Function(FunctionDynamicToolSpec),
    /// A group of tools offered under a common prefix; calls name the namespace and the tool.
    Namespace(NamespaceDynamicToolSpec),
}

/// A function tool of [`DynamicToolSpec`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDynamicToolSpec {
    /// The tool's name (letters, digits, `_` and `-`, as the Responses API requires).
    pub name: String,
    /// What the tool does, shown to the model.
    pub description: String,
    /// JSON Schema (an object) of the arguments the model passes.
    #[ts(type = "unknown")]
    pub input_schema: serde_json::Value,
    /// Asks that the tool be loaded only when the model searches for it; allowed only inside
    /// a namespace. Tandem has no tool search, so a deferred tool is offered like any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub defer_loading: Option<bool>,
}

/// A namespace of [`DynamicToolSpec`]: tools grouped under one name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceDynamicToolSpec {
    /// The namespace's name (letters, digits, `_` and `-`).
    pub name: String,
    /// What the tools of the namespace are for.
    pub description: String,
    /// The tools (at least one, names unique within the namespace).
    pub tools: Vec<DynamicToolNamespaceTool>,
}

/// One tool of a namespace (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum DynamicToolNamespaceTool {
    /// A function tool.
    Function(FunctionDynamicToolSpec),
}

/// The tagged form of [`DynamicToolSpec`], read once a missing `type` has been filled in.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum TaggedDynamicToolSpec {
    Function(FunctionDynamicToolSpec),
    Namespace(NamespaceDynamicToolSpec),
}

impl<'de> Deserialize<'de> for DynamicToolSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut value = serde_json::Value::deserialize(deserializer)?;
        if let Some(object) = value.as_object_mut()
            && !object.contains_key("type")
        {
            object.insert("type".into(), "function".into());
        }
        match serde_json::from_value::<TaggedDynamicToolSpec>(value) {
            Ok(TaggedDynamicToolSpec::Function(spec)) => Ok(DynamicToolSpec::Function(spec)),
            Ok(TaggedDynamicToolSpec::Namespace(spec)) => Ok(DynamicToolSpec::Namespace(spec)),
            Err(error) => Err(serde::de::Error::custom(error)),
        }
    }
}

/// Parameters of `item/tool/call`: the model called a tool the client declared; the client
/// runs it and answers with its output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct DynamicToolCallParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The model's call id, also the id of the `dynamicToolCall` item.
    pub call_id: String,
    /// The namespace the tool was declared in; `null` for a top-level function.
    pub namespace: Option<String>,
    /// The tool's name as declared.
    pub tool: String,
    /// The arguments as the model sent them (`{}` when it sent none).
    #[ts(type = "unknown")]
    pub arguments: serde_json::Value,
}

/// Result of `item/tool/call`: what the tool returned, passed to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct DynamicToolCallResponse {
    /// The output, in order; cut to Tandem's tool output cap (1 MiB) before the model, the
    /// item or the rollout sees it.
    pub content_items: Vec<DynamicToolCallOutputContentItem>,
    /// Whether the call succeeded (the item's status is `completed` or `failed`).
    pub success: bool,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_spec_without_type_is_a_function_and_round_trips_tagged() {
        let spec: DynamicToolSpec = serde_json::from_value(json!({
            "name": "lookup", "description": "Looks up", "inputSchema": {"type": "object"}
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(&spec).unwrap(),
            json!({"type": "function", "name": "lookup", "description": "Looks up",
                   "inputSchema": {"type": "object"}})
        );
        let namespace = json!({"type": "namespace", "name": "ns", "description": "d", "tools": [
            {"type": "function", "name": "a", "description": "d", "inputSchema": {}, "deferLoading": true}
        ]});
        let spec: DynamicToolSpec = serde_json::from_value(namespace.clone()).unwrap();
        assert_eq!(serde_json::to_value(&spec).unwrap(), namespace);
    }

    #[test]
    fn a_missing_field_names_it() {
        let error = serde_json::from_value::<DynamicToolSpec>(
            json!({"type": "function", "name": "x", "inputSchema": {}}),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("missing field `description`"),
            "{error}"
        );
    }
}
