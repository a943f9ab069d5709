//! What `tandem app-server` does before it answers `initialize`: only what the answer needs.
//! The history index is opened (or created) by the first request that uses it.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use serde_json::json;
use tandem_tests::mock_model::MockModel;
use tandem_tests::server::{TestServer, mock_config};

#[tokio::test]
async fn the_history_index_waits_for_its_first_request() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    let index_dir = server.home.join("history");
    // Requests are handled in order: once thread/list is answered, nothing that startup or
    // initialize started is still pending.
    server.request("thread/list", json!({})).await.unwrap();
    assert!(!index_dir.exists(), "{} exists", index_dir.display());

    let found = server
        .request("history/search", json!({"query": "anything"}))
        .await
        .unwrap();
    assert_eq!(found["hits"], json!([]));
    assert_eq!(found["backend"], "embedded");
    assert!(index_dir.join("index.sqlite").is_file());
    assert_eq!(server.shutdown().await, Some(0));
}
