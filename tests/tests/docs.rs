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

/// The "not supported" table of `docs/protocol.md`, as the code declares it.
fn render_unsupported() -> String {
    use app_server_protocol::unsupported::UNSUPPORTED_METHODS;
    let mut out =
        String::from("| method | reference stability | why it is not served |\n|---|---|---|\n");
    for entry in UNSUPPORTED_METHODS {
        let stability = match entry.stability {
            Stability::Stable => "stable",
            Stability::Experimental => "experimental",
        };
        out.push_str(&format!(
            "| `{}` | {stability} | {} |\n",
            entry.method,
            entry.reason.explanation()
        ));
    }
    out
}

#[test]
fn protocol_doc_lists_every_method_this_server_does_not_serve() {
    let expected = render_unsupported();
    let path = common::repo_root().join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).expect("read docs/protocol.md");
    let begin = "<!-- unsupported-methods:begin (generated from app_server_protocol::unsupported; tests/tests/docs.rs) -->\n";
    let end = "<!-- unsupported-methods:end -->";
    let start = doc.find(begin).expect("begin marker") + begin.len();
    let stop = doc.find(end).expect("end marker");
    assert!(
        doc[start..stop].trim() == expected.trim(),
        "docs/protocol.md's not-supported table is stale; replace the block between the markers with:\n\n{expected}"
    );
}

/// Walking the reference's client requests (codex-cli 0.169.0), every one is either served,
/// with the reference's stability, or on the "not supported" list, and never both.
#[test]
fn every_method_of_the_reference_is_served_or_listed_as_not_supported() {
    use app_server_protocol::unsupported::unsupported_method;
    let path = common::repo_root().join("tests/fixtures/codex-0.169-client-methods.txt");
    let text = std::fs::read_to_string(&path).expect("read the reference's method list");
    let mut problems = Vec::new();
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        let (stability, method) = line.split_once(' ').expect("`stability method`");
        let stability = match stability {
            "stable" => Stability::Stable,
            "experimental" => Stability::Experimental,
            other => panic!("unknown stability {other}"),
        };
        let served = ClientRequest::METHODS
            .iter()
            .find(|spec| spec.method == method);
        match (served, unsupported_method(method)) {
            (Some(_), Some(_)) => {
                problems.push(format!("{method}: served and listed as not supported"))
            }
            (None, None) => problems.push(format!(
                "{method}: neither served nor listed as not supported"
            )),
            (Some(spec), None) if spec.stability != stability => problems.push(format!(
                "{method}: served as {:?}, the reference marks it {stability:?}",
                spec.stability
            )),
            (None, Some(entry)) if entry.stability != stability => problems.push(format!(
                "{method}: listed as {:?}, the reference marks it {stability:?}",
                entry.stability
            )),
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
