//! Fixtures of the official MCP conformance suite (cargo feature `conformance-fixtures`,
//! runtime flag `--conformance-fixtures`): the tools, resources, prompts and completion that
//! its scenarios call by name, served through the same session code paths as the real tools
//! (progress, `notifications/message`, `elicitation/create`, `sampling/createMessage`).
//!
//! Nothing here is part of the product: a normal build has neither the module nor the flag.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use serde_json::{Value, json};

use crate::mcp::output::Route;
use crate::mcp::protocol::notification;
use crate::mcp::session::McpSession;
use crate::rpc_error;

/// A 1×1 red PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file.
const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/// JSON-RPC error code for an unknown resource.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// Extra capabilities announced with the fixtures.
pub fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": false},
        "logging": {},
        "resources": {"subscribe": true, "listChanged": false},
        "prompts": {"listChanged": false},
        "completions": {},
    })
}

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn string_argument(name: &str, description: &str) -> Value {
    json!({"type": "object", "properties": {name: {"type": "string", "description": description}}, "required": [name]})
}

/// The fixture tools for `tools/list`.
pub fn tools() -> Vec<Value> {
    let tool = |name: &str, description: &str, schema: Value| json!({"name": name, "description": description, "inputSchema": schema});
    vec![
        tool("test_simple_text", "Returns one text block", empty_schema()),
        tool(
            "test_image_content",
            "Returns one image block",
            empty_schema(),
        ),
        tool(
            "test_audio_content",
            "Returns one audio block",
            empty_schema(),
        ),
        tool(
            "test_embedded_resource",
            "Returns one embedded resource",
            empty_schema(),
        ),
        tool(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
            empty_schema(),
        ),
        tool(
            "test_tool_with_logging",
            "Sends three log messages while it runs",
            empty_schema(),
        ),
        tool(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100",
            empty_schema(),
        ),
        tool(
            "test_error_handling",
            "Always fails with an isError result",
            empty_schema(),
        ),
        tool(
            "test_sampling",
            "Asks the client's model through sampling/createMessage",
            string_argument("prompt", "The prompt for the model"),
        ),
        tool(
            "test_elicitation",
            "Asks the user through elicitation/create",
            string_argument("message", "The message to show the user"),
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Elicits a form whose fields all have defaults",
            empty_schema(),
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Elicits a form with every enum variant",
            empty_schema(),
        ),
        tool(
            "test_custom_header",
            "Takes a parameter that HTTP clients mirror in the Mcp-Param-Region header",
            json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["region"]}),
        ),
        tool(
            "json_schema_2020_12_tool",
            "Declares a JSON Schema 2020-12 input schema",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "address", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                "additionalProperties": false,
                "allOf": [{"anyOf": [{"required": ["name"]}, {"required": ["address"]}]}],
                "if": {"required": ["address"]},
                "then": {"properties": {"address": {"required": ["city"]}}},
                "else": {"properties": {"name": {"minLength": 1}}},
            }),
        ),
    ]
    .into_iter()
    .chain(crate::mcp::fixtures_mrtr::tools())
    .chain(crate::mcp::fixtures_tasks::tools())
    .collect()
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

impl McpSession {
    /// Runs fixture tool `name`, or `None` when there is no such fixture.
    pub(crate) async fn call_fixture(
        &self,
        id: &RequestId,
        name: &str,
        params: &Value,
    ) -> Option<Value> {
        let arguments = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let route = Route::Request(id.clone());
        Some(match name {
            "test_simple_text" => text("This is a simple text response for testing."),
            "test_image_content" => {
                json!({"content": [{"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}]})
            }
            "test_audio_content" => {
                json!({"content": [{"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}]})
            }
            "test_embedded_resource" => json!({"content": [{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            }}]}),
            "test_multiple_content_types" => json!({"content": [
                {"type": "text", "text": "Multiple content types test:"},
                {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"},
                {"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource", "mimeType": "application/json",
                    "text": json!({"test": "data", "value": 123}).to_string(),
                }},
            ]}),
            "test_tool_with_logging" => {
                for (index, message) in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                .into_iter()
                .enumerate()
                {
                    if index > 0 {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    let log = notification(
                        "notifications/message",
                        json!({"level": "info", "logger": "tandem", "data": message}),
                    );
                    self.shared.outbound.send(route.clone(), log).await;
                }
                text("Tool with logging executed successfully")
            }
            "test_tool_with_progress" => {
                let token = params
                    .pointer("/_meta/progressToken")
                    .cloned()
                    .unwrap_or(json!(0));
                for progress in [0, 50, 100] {
                    if progress > 0 {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    let update = notification(
                        "notifications/progress",
                        json!({"progressToken": token, "progress": progress, "total": 100, "message": format!("Completed step {progress} of 100")}),
                    );
                    self.shared.outbound.send(route.clone(), update).await;
                }
                text(&match &token {
                    Value::String(token) => token.clone(),
                    other => other.to_string(),
                })
            }
            "test_error_handling" => json!({
                "content": [{"type": "text", "text": "This tool intentionally returns an error for testing"}],
                "isError": true,
            }),
            "test_sampling" => {
                let prompt = arguments
                    .get("prompt")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let request = json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                    "maxTokens": 100,
                });
                match self
                    .shared
                    .ask_client(route, "sampling/createMessage", request)
                    .await
                {
                    Ok(result) => {
                        let answer = result
                            .pointer("/content/text")
                            .and_then(Value::as_str)
                            .unwrap_or("No response");
                        text(&format!("LLM response: {answer}"))
                    }
                    Err(message) => text(&format!("Sampling not supported or error: {message}")),
                }
            }
            "test_elicitation" => {
                let message = arguments
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let schema = json!({"type": "object", "properties": {"response": {"type": "string", "description": "User's response"}}, "required": ["response"]});
                self.fixture_elicitation(route, message, schema, "User response")
                    .await
            }
            "test_elicitation_sep1034_defaults" => {
                let schema = json!({"type": "object", "required": [], "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "description": "Verification status", "default": true},
                }});
                self.fixture_elicitation(
                    route,
                    "Please review and update the form fields with defaults",
                    schema,
                    "Elicitation completed",
                )
                .await
            }
            "test_elicitation_sep1330_enums" => {
                let schema = json!({"type": "object", "required": [], "properties": {
                    "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"},
                    ]},
                    "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]}},
                }});
                self.fixture_elicitation(
                    route,
                    "Please select options from the enum fields",
                    schema,
                    "Elicitation completed",
                )
                .await
            }
            "test_custom_header" => text(&format!("Custom header tool called with: {arguments}")),
            "json_schema_2020_12_tool" => text(&format!(
                "JSON Schema 2020-12 tool called with: {arguments}"
            )),
            _ => return None,
        })
    }

    async fn fixture_elicitation(
        &self,
        route: Route,
        message: &str,
        schema: Value,
        label: &str,
    ) -> Value {
        let params = json!({"mode": "form", "message": message, "requestedSchema": schema});
        match self
            .shared
            .ask_client(route, "elicitation/create", params)
            .await
        {
            Ok(result) => {
                let action = result
                    .get("action")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                let content = result.get("content").cloned().unwrap_or_else(|| json!({}));
                text(&format!("{label}: action={action}, content={content}"))
            }
            Err(message) => text(&format!("Elicitation not supported or error: {message}")),
        }
    }

    /// Serves the fixture resources, prompts and completion; `None` for other methods.
    pub(crate) fn fixture_method(
        &self,
        method: &str,
        params: &Value,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        Some(match method {
            "resources/list" => Ok(json!({"resources": [
                {"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "description": "A static text resource", "mimeType": "text/plain"},
                {"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource", "description": "A static binary resource (image)", "mimeType": "image/png"},
                {"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource", "description": "A resource clients may subscribe to", "mimeType": "text/plain"},
            ]})),
            "resources/templates/list" => Ok(json!({"resourceTemplates": [
                {"uriTemplate": "test://template/{id}/data", "name": "template", "title": "Resource Template", "description": "A resource template with parameter substitution", "mimeType": "application/json"},
            ]})),
            "resources/read" => read_resource(
                params
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            "resources/subscribe" | "resources/unsubscribe" => Ok(json!({})),
            "prompts/list" => Ok(json!({"prompts": [
                {"name": "test_simple_prompt", "title": "Simple Test Prompt", "description": "A simple prompt without arguments"},
                {"name": "test_prompt_with_arguments", "title": "Prompt With Arguments", "description": "A prompt with required arguments", "arguments": [
                    {"name": "arg1", "description": "First test argument", "required": true},
                    {"name": "arg2", "description": "Second test argument", "required": true},
                ]},
                {"name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource", "description": "A prompt that includes an embedded resource", "arguments": [
                    {"name": "resourceUri", "description": "URI of the resource to embed", "required": true},
                ]},
                {"name": "test_prompt_with_image", "title": "Prompt With Image", "description": "A prompt that includes image content"},
                {"name": crate::mcp::fixtures_mrtr::PROMPT, "description": "A prompt that asks for its context through input_required"},
            ]})),
            "prompts/get" => {
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                match self.mrtr_fixture("prompts/get", name, params) {
                    Some(result) => result,
                    None => get_prompt(params),
                }
            }
            "completion/complete" => {
                Ok(json!({"completion": {"values": [], "total": 0, "hasMore": false}}))
            }
            _ => return None,
        })
    }
}

fn read_resource(uri: &str) -> Result<Value, JsonRpcErrorBody> {
    let contents = match uri {
        "test://static-text" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."})
        }
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG_BASE64}),
        "test://watched-resource" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"})
        }
        _ => {
            let id = uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))
                .filter(|id| !id.is_empty() && !id.contains('/'));
            let Some(id) = id else {
                return Err(rpc_error::with_code(
                    RESOURCE_NOT_FOUND,
                    format!("resource not found: {uri}"),
                ));
            };
            let data =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            json!({"uri": uri, "mimeType": "application/json", "text": data.to_string()})
        }
    };
    Ok(json!({"contents": [contents]}))
}

fn get_prompt(params: &Value) -> Result<Value, JsonRpcErrorBody> {
    let argument = |name: &str| {
        params
            .pointer(&format!("/arguments/{name}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let user_text =
        |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
    let messages = match params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "test_simple_prompt" => vec![user_text("This is a simple prompt for testing.".into())],
        "test_prompt_with_arguments" => vec![user_text(format!(
            "Prompt with arguments: arg1='{}', arg2='{}'",
            argument("arg1"),
            argument("arg2")
        ))],
        "test_prompt_with_embedded_resource" => vec![
            json!({"role": "user", "content": {"type": "resource", "resource": {
                "uri": argument("resourceUri"), "mimeType": "text/plain", "text": "Embedded resource content for testing.",
            }}}),
            user_text("Please process the embedded resource above.".into()),
        ],
        "test_prompt_with_image" => vec![
            json!({"role": "user", "content": {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}}),
            user_text("Please analyze the image above.".into()),
        ],
        other => {
            return Err(rpc_error::invalid_params(format!(
                "unknown prompt: {other}"
            )));
        }
    };
    Ok(json!({"messages": messages}))
}
