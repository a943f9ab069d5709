//! `docs/protocol.md` carries the method tables rendered from the code and a section for every
//! method, so it cannot drift.

mod common;

use app_server_protocol::tables::{
    ClientNotification, ClientRequest, ServerNotification, ServerRequest,
};
use app_server_protocol::tables_meta::{MethodSpec, Stability};

fn render(title: &str, methods: &[MethodSpec]) -> String {
    let mut out = format!(
        "### {title}\n\n| method | params | response | stability | what it does |\n|---|---|---|---|---|\n"
    );
    for spec in methods {
        let stability = match spec.stability {
            Stability::Stable => "stable",
            Stability::Experimental => "experimental",
        };
        let doc = spec.doc.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {stability} | {doc} |\n",
            spec.method,
            spec.params,
            spec.response
                .map_or("—".to_string(), |response| format!("`{response}`")),
        ));
    }
    out
}

#[test]
fn protocol_doc_method_tables_match_the_code() {
    let expected = [
        render("Client → server requests", ClientRequest::METHODS),
        render("Server → client requests", ServerRequest::METHODS),
        render("Server → client notifications", ServerNotification::METHODS),
        render("Client → server notifications", ClientNotification::METHODS),
    ]
    .join("\n");
    let path = common::repo_root().join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).expect("read docs/protocol.md");
    let begin =
        "<!-- method-tables:begin (generated from the protocol tables; tests/tests/docs.rs) -->\n";
    let end = "<!-- method-tables:end -->";
    let start = doc.find(begin).expect("begin marker") + begin.len();
    let stop = doc.find(end).expect("end marker");
    let actual = &doc[start..stop];
    assert!(
        actual.trim() == expected.trim(),
        "docs/protocol.md method tables are stale; replace the block between the markers with:\n\n{expected}"
    );
}

#[test]
fn protocol_doc_has_a_section_for_every_method() {
    let path = common::repo_root().join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).expect("read docs/protocol.md");
    let headings: std::collections::HashSet<&str> = doc
        .lines()
        .filter_map(|line| line.strip_prefix("### `")?.strip_suffix('`'))
        .collect();
    let missing: Vec<&str> = [
        ClientRequest::METHODS,
        ServerRequest::METHODS,
        ServerNotification::METHODS,
        ClientNotification::METHODS,
    ]
    .into_iter()
    .flatten()
    .map(|spec| spec.method)
    .filter(|method| !headings.contains(method))
    .collect();
    assert!(
        missing.is_empty(),
        "docs/protocol.md has no \"### `<method>`\" section for: {}",
        missing.join(", ")
    );
}
