//! The transport against a real child process that answers in the shapes servers use: the id
//! last (as the TypeScript SDK writes it), or no id at all.

use std::time::Duration;

use process_wrap::tokio::{CommandWrap, KillOnDrop};
use rmcp::model::JsonRpcMessage;
use serde_json::{Value, json};

use super::*;

/// A server that answers each request line: the first with `first` (`tail`: an over-long
/// answer whose id comes last; `anonymous`: an over-long answer with no id), the others with
/// a small result.
const SERVER: &str = r#"
import json, sys
first = sys.argv[1]
answered = 0
for line in sys.stdin:
    request = json.loads(line)
    big = "x" * 5000
    if answered == 0 and first == "tail":
        out = '{"result":{"content":[{"type":"text","text":"' + big + '"}]},"jsonrpc":"2.0","id":' + json.dumps(request["id"]) + '}'
    elif answered == 0 and first == "anonymous":
        out = '{"result":{"text":"' + big + '"}}'
    else:
        out = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"content": []}})
    answered += 1
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
"#;

fn spawn(first: &str) -> StdioTransport {
    let mut wrap = CommandWrap::with_new("python3", |command| {
        command
            .args(["-c", SERVER, first])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
    });
    wrap.wrap(KillOnDrop);
    let mut transport = StdioTransport::new(wrap.spawn().unwrap()).unwrap();
    transport.limit = 1000;
    transport
}

fn call(id: i64) -> TxJsonRpcMessage<RoleClient> {
    serde_json::from_value(json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": "tool", "arguments": {}},
    }))
    .unwrap()
}

async fn receive(transport: &mut StdioTransport) -> Value {
    let message = tokio::time::timeout(Duration::from_secs(20), transport.receive())
        .await
        .unwrap()
        .unwrap();
    serde_json::to_value(&message).unwrap()
}

fn is_too_large(message: &Value, id: i64) -> bool {
    message["id"] == id && message["error"]["data"]["tandem"] == TOO_LARGE_MARKER
}

#[tokio::test]
async fn an_over_long_answer_with_its_id_last_fails_that_call_only() {
    let mut transport = spawn("tail");
    transport.send(call(1)).await.unwrap();
    transport.send(call(2)).await.unwrap();
    let first = receive(&mut transport).await;
    assert!(is_too_large(&first, 1), "{first:#}");
    assert_eq!(first["error"]["data"]["bytes"], json!(5000 + 73));
    let second = receive(&mut transport).await;
    assert_eq!(second["id"], 2);
    assert!(second.get("result").is_some(), "{second:#}");
    assert!(lock(&transport.pending).is_empty());
}

#[tokio::test]
async fn an_over_long_answer_without_an_id_fails_every_waiting_call() {
    let mut transport = spawn("anonymous");
    transport.send(call(7)).await.unwrap();
    let first = receive(&mut transport).await;
    assert!(is_too_large(&first, 7), "{first:#}");
    assert!(matches!(
        serde_json::from_value::<RxJsonRpcMessage<RoleClient>>(first).unwrap(),
        JsonRpcMessage::Error(_)
    ));
    // The connection goes on.
    transport.send(call(8)).await.unwrap();
    let next = receive(&mut transport).await;
    assert_eq!(next["id"], 8);
    assert!(next.get("result").is_some(), "{next:#}");
}
