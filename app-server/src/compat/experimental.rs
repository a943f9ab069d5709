//! Experimental gating of what the typed tables do not describe: methods and fields of the
//! reference's experimental surface that Tandem does not implement (or accepts and ignores).
//!
//! A connection that did not opt into `experimentalApi` gets the reference's answer,
//! `-32600 "<descriptor> requires experimentalApi capability"`, before the request is decoded,
//! so that the error names the experimental part instead of a decoding failure. The gates of
//! the methods and fields the tables do describe live next to the typed decoding
//! (`gate_request`), as does the answer to methods Tandem does not serve at all.

use app_server_protocol::tables_meta::Stability;
use app_server_protocol::unsupported::unsupported_method;
use serde_json::Value;

/// The experimental method of `message` that Tandem does not serve (see
/// `app_server_protocol::unsupported`): a connection without `experimentalApi` is told that
/// it needs the capability, as the reference tells it.
fn unserved_experimental_method(message: &Value) -> Option<&'static str> {
    let method = message.get("method")?.as_str()?;
    unsupported_method(method)
        .filter(|entry| entry.stability == Stability::Experimental)
        .map(|entry| entry.method)
}

/// Experimental params fields, as `(method, field, descriptor)`: the request uses the field when
/// it is present and not `null` (an empty list counts, as on the reference).
const EXPERIMENTAL_FIELDS: &[(&str, &str, &str)] = &[
    ("thread/start", "dynamicTools", "thread/start.dynamicTools"),
    ("turn/start", "environments", "turn/start.environments"),
    ("turn/start", "permissions", "turn/start.permissions"),
    ("turn/start", "multiAgentMode", "turn/start.multiAgentMode"),
    (
        "turn/start",
        "additionalContext",
        "turn/start.additionalContext",
    ),
    (
        "turn/start",
        "responsesapiClientMetadata",
        "turn/start.responsesapiClientMetadata",
    ),
    (
        "turn/start",
        "responsesapiClientMetadataPatch",
        "turn/start.responsesapiClientMetadataPatch",
    ),
];

/// Methods whose `approvalPolicy` may carry the experimental `{"granular": {…}}` form.
const APPROVAL_POLICY_METHODS: &[&str] =
    &["thread/start", "thread/resume", "thread/fork", "turn/start"];

/// The descriptor of the first experimental method or field `message` (a request object) uses
/// that the typed tables do not gate themselves, for a connection without `experimentalApi`.
pub(crate) fn ungated_experimental_use(message: &Value) -> Option<&'static str> {
    if let Some(name) = unserved_experimental_method(message) {
        return Some(name);
    }
    let method = message.get("method")?.as_str()?;
    let params = message.get("params")?.as_object()?;
    let used = |field: &str| params.get(field).is_some_and(|value| !value.is_null());
    if let Some((_, _, descriptor)) = EXPERIMENTAL_FIELDS
        .iter()
        .copied()
        .find(|(name, field, _)| *name == method && used(field))
    {
        return Some(descriptor);
    }
    let granular = params
        .get("approvalPolicy")
        .and_then(Value::as_object)
        .is_some_and(|policy| policy.contains_key("granular"));
    if granular && APPROVAL_POLICY_METHODS.contains(&method) {
        return Some("askForApproval.granular");
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ungated_experimental_use;

    #[test]
    fn names_the_reference_descriptors() {
        let cases = [
            (
                json!({"id": 15, "method": "thread/start", "params": {"cwd": "/p", "dynamicTools": []}}),
                Some("thread/start.dynamicTools"),
            ),
            (
                json!({"id": 16, "method": "thread/backgroundTerminals/clean", "params": {"threadId": "t"}}),
                Some("thread/backgroundTerminals/clean"),
            ),
            (
                json!({"id": 17, "method": "thread/start", "params": {"approvalPolicy": {"granular": {"rules": true}}}}),
                Some("askForApproval.granular"),
            ),
            (
                json!({"id": 18, "method": "turn/start", "params": {"threadId": "t", "input": [], "approvalPolicy": {"granular": {}}}}),
                Some("askForApproval.granular"),
            ),
            (
                json!({"id": 19, "method": "thread/start", "params": {"cwd": "/p", "dynamicTools": null}}),
                None,
            ),
            (
                json!({"id": 20, "method": "thread/start", "params": {"approvalPolicy": "never"}}),
                None,
            ),
            (
                json!({"id": 21, "method": "thread/list", "params": {}}),
                None,
            ),
        ];
        for (message, expected) in cases {
            assert_eq!(ungated_experimental_use(&message), expected, "{message}");
        }
    }
}
