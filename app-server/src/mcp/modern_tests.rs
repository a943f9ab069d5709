//! Unit tests of the 2026-07-28 wire rules.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn meta(version: &str) -> Value {
    json!({"_meta": {
        VERSION_KEY: version,
        CAPABILITIES_KEY: {"elicitation": {}},
        CLIENT_INFO_KEY: {"name": "probe", "version": "1.0"},
        LOG_LEVEL_KEY: "warning",
    }})
}

#[test]
fn the_2026_form_is_recognised_by_its_meta_keys() {
    let request = |params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params});
    assert!(is_modern_request(&request(meta(MODERN_VERSION))));
    assert!(is_modern_request(&request(
        json!({"_meta": {CAPABILITIES_KEY: {}}})
    )));
    assert!(!is_modern_request(&request(
        json!({"_meta": {"progressToken": 1}})
    )));
    assert!(!is_modern_request(&request(json!({}))));
    assert!(!is_modern_request(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    ));
}

#[test]
fn meta_is_read_and_checked() {
    let read = read_meta(&meta(MODERN_VERSION)).expect("valid meta");
    assert!(read.capabilities.form_elicitation);
    assert_eq!(read.client_name.as_deref(), Some("probe"));
    assert_eq!(read.client_version.as_deref(), Some("1.0"));
    assert_eq!(read.log_level.as_deref(), Some("warning"));

    for params in [
        json!({}),
        json!({"_meta": "x"}),
        json!({"_meta": {CAPABILITIES_KEY: {}}}),
        json!({"_meta": {VERSION_KEY: MODERN_VERSION}}),
        json!({"_meta": {VERSION_KEY: MODERN_VERSION, CAPABILITIES_KEY: []}}),
    ] {
        assert_eq!(read_meta(&params).unwrap_err().code, -32602, "{params}");
    }
    let unsupported = read_meta(&meta("v999.0.0")).unwrap_err();
    assert_eq!(unsupported.code, UNSUPPORTED_VERSION);
    assert_eq!(
        unsupported.data,
        Some(json!({"supported": ALL_VERSIONS, "requested": "v999.0.0"}))
    );
    // A session-era version in the 2026 form is not served statelessly either.
    assert_eq!(
        read_meta(&meta("2025-11-25")).unwrap_err().code,
        UNSUPPORTED_VERSION
    );
    let mut long = meta(MODERN_VERSION);
    long["_meta"][CLIENT_INFO_KEY]["name"] = json!("n".repeat(1000));
    assert_eq!(read_meta(&long).unwrap_err().code, -32602);
}

#[test]
fn results_carry_the_result_type_server_info_and_cache_hints() {
    let listed = complete_result("tools/list", json!({"tools": []}));
    assert_eq!(listed["resultType"], "complete");
    assert_eq!(listed["ttlMs"], LIST_TTL_MS);
    assert_eq!(listed["cacheScope"], "public");
    assert_eq!(listed["_meta"][SERVER_INFO_KEY]["name"], SERVER_NAME);
    let called = complete_result("tools/call", json!({"content": [], "isError": false}));
    assert_eq!(called["resultType"], "complete");
    assert!(called.get("ttlMs").is_none(), "{called}");
    let asked = complete_result("tools/call", json!({"resultType": "input_required"}));
    assert_eq!(asked["resultType"], "input_required");

    let discovered = discover_result(json!({"tools": {"listChanged": false}, "logging": {}}));
    assert_eq!(discovered["supportedVersions"], json!(ALL_VERSIONS));
    assert_eq!(
        discovered["capabilities"],
        json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    let read = complete_result("resources/read", json!({"contents": []}));
    assert_eq!(read["cacheScope"], "public");
    assert_eq!(discovered["resultType"], "complete");
    assert!(discovered["instructions"].is_string());
    assert_eq!(
        discovered["_meta"][SERVER_INFO_KEY]["version"],
        env!("CARGO_PKG_VERSION")
    );
}
