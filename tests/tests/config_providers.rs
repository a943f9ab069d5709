//! What the configuration offers a client, end to end against the real binary:
//! `configRequirements/read`, `experimentalFeature/list` and `/enablement/set`,
//! `permissionProfile/list` and the `modelProvider/*` methods, with the operator's ceiling
//! (`[clients]`) shaping each answer and refusing the writes a client may not make.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use app_server_protocol::config_requests::{
    ExperimentalFeatureEnablementSetParams, ExperimentalFeatureListParams,
    ModelProviderCapabilitiesReadParams, ModelProviderConfigWriteParams,
    ModelProviderDefaultSetParams, ModelProviderListParams, PermissionProfileListParams,
    ProviderSettings, ProviderSettingsPatch, WriteStatus,
};
use app_server_protocol::policy::SandboxMode;
use app_server_protocol::tables::client_requests;
use app_server_protocol::thread_requests::NoParams;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::server::{SpawnOptions, TestServer};

const INVALID_REQUEST: i64 = -32600;

const CONFIG: &str = "# providers\nmodel_provider = \"mock\"\nmodel = \"m\"\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"http://127.0.0.1:9/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_KEY\"\n";

async fn server_with(args: &[&str]) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: CONFIG.to_owned(),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        home: None,
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

fn config_text(server: &TestServer) -> String {
    std::fs::read_to_string(server.home.join("config.toml")).unwrap()
}

fn write_error_code(error: &Value) -> String {
    assert_eq!(error["code"], INVALID_REQUEST, "{error}");
    error["data"]["config_write_error_code"]
        .as_str()
        .unwrap_or_else(|| panic!("no config_write_error_code: {error}"))
        .to_owned()
}

fn gateway(
    provider_id: Option<&str>,
    name: Option<&str>,
    base_url: Option<Option<&str>>,
) -> ModelProviderConfigWriteParams {
    ModelProviderConfigWriteParams {
        settings: ProviderSettingsPatch::CustomGateway {
            provider_id: provider_id.map(str::to_owned),
            name: name.map(str::to_owned),
            base_url: base_url.map(|url| url.map(str::to_owned)),
            env_key: None,
        },
    }
}

#[tokio::test]
async fn requirements_and_permission_profiles_follow_the_ceiling() {
    let mut open = server_with(&[]).await;
    let requirements = open
        .call::<client_requests::ConfigRequirementsRead>(NoParams {})
        .await
        .unwrap();
    assert_eq!(requirements.requirements, None);
    let profiles = open
        .call::<client_requests::PermissionProfileList>(PermissionProfileListParams::default())
        .await
        .unwrap();
    assert!(profiles.data.iter().all(|profile| profile.allowed));
    assert_eq!(profiles.next_cursor, None);

    let mut narrow = server_with(&["-c", "clients.max_sandbox=\"workspace-write\""]).await;
    let requirements = narrow
        .call::<client_requests::ConfigRequirementsRead>(NoParams {})
        .await
        .unwrap();
    assert_eq!(
        requirements.requirements.unwrap().allowed_sandbox_modes,
        Some(vec![SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite])
    );
    let first = narrow
        .call::<client_requests::PermissionProfileList>(PermissionProfileListParams {
            limit: Some(2),
            ..PermissionProfileListParams::default()
        })
        .await
        .unwrap();
    assert_eq!(
        first
            .data
            .iter()
            .map(|profile| (profile.id.as_str(), profile.allowed))
            .collect::<Vec<_>>(),
        [(":read-only", true), (":workspace", true)]
    );
    let rest = narrow
        .call::<client_requests::PermissionProfileList>(PermissionProfileListParams {
            cursor: first.next_cursor,
            ..PermissionProfileListParams::default()
        })
        .await
        .unwrap();
    assert_eq!(rest.data.len(), 1);
    assert_eq!(rest.data[0].id, ":danger-full-access");
    assert!(!rest.data[0].allowed);

    for (method, params) in [
        ("configRequirements/read", json!(5)),
        ("permissionProfile/list", json!({"limit": "two"})),
        ("permissionProfile/list", json!({"cursor": "nine"})),
    ] {
        let error = narrow.request(method, params).await.unwrap_err();
        assert_eq!(error["code"], INVALID_REQUEST, "{method}: {error}");
    }
}

#[tokio::test]
async fn there_are_no_feature_flags_to_list_or_set() {
    let mut server = server_with(&[]).await;
    let listed = server
        .call::<client_requests::ExperimentalFeatureList>(ExperimentalFeatureListParams::default())
        .await
        .unwrap();
    assert_eq!(listed.data, []);
    assert_eq!(listed.next_cursor, None);
    let set = server
        .call::<client_requests::ExperimentalFeatureEnablementSet>(
            ExperimentalFeatureEnablementSetParams {
                enablement: [("apps".to_owned(), true)].into(),
            },
        )
        .await
        .unwrap();
    assert!(set.enablement.is_empty());
    // Runtime toggles never touch the file.
    assert_eq!(config_text(&server), CONFIG);

    // A thread that is not one of the caller's loaded threads is refused.
    let error = server
        .call::<client_requests::ExperimentalFeatureList>(ExperimentalFeatureListParams {
            thread_id: Some("019a0000-0000-7000-8000-000000000000".to_owned()),
            ..ExperimentalFeatureListParams::default()
        })
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("thread not loaded"),
        "{error}"
    );
    for (method, params) in [
        ("experimentalFeature/list", json!({"limit": -1})),
        ("experimentalFeature/enablement/set", json!({})),
        (
            "experimentalFeature/enablement/set",
            json!({"enablement": {"apps": "yes"}}),
        ),
    ] {
        let error = server.request(method, params).await.unwrap_err();
        assert_eq!(error["code"], INVALID_REQUEST, "{method}: {error}");
    }
}

#[tokio::test]
async fn providers_are_listed_with_what_the_client_may_change() {
    let mut server = server_with(&[]).await;
    let listed = server
        .call::<client_requests::ModelProviderList>(ModelProviderListParams {})
        .await
        .unwrap();
    assert_eq!(listed.default_provider_id, "mock");
    assert!(listed.can_change_default);
    let ids: Vec<&str> = listed
        .data
        .iter()
        .map(|provider| provider.id.as_str())
        .collect();
    assert_eq!(ids, ["demo", "mock", "ollama", "openai"]);
    let mock = listed
        .data
        .iter()
        .find(|provider| provider.id == "mock")
        .unwrap();
    assert_eq!(mock.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
    assert!(
        !mock.can_edit,
        "a provider's settings are not on the allow-list"
    );
    assert_eq!(
        serde_json::to_value(&mock.settings).unwrap(),
        json!({"type": "customGateway", "auth": {"mode": "environmentVariable", "envKey": "MOCK_KEY"}})
    );
    let openai = listed
        .data
        .iter()
        .find(|provider| provider.id == "openai")
        .unwrap();
    assert_eq!(openai.settings, ProviderSettings::Openai);
    assert_eq!(openai.base_url, None);

    let capabilities = server
        .call::<client_requests::ModelProviderCapabilitiesRead>(
            ModelProviderCapabilitiesReadParams {},
        )
        .await
        .unwrap();
    assert!(!capabilities.image_generation && !capabilities.web_search);

    let mut all = server_with(&["-c", "clients.allow_client_config=\"all\""]).await;
    let listed = all
        .call::<client_requests::ModelProviderList>(ModelProviderListParams {})
        .await
        .unwrap();
    assert!(
        listed
            .data
            .iter()
            .find(|provider| provider.id == "mock")
            .unwrap()
            .can_edit
    );

    let mut off = server_with(&["-c", "clients.allow_config_writes=false"]).await;
    let listed = off
        .call::<client_requests::ModelProviderList>(ModelProviderListParams {})
        .await
        .unwrap();
    assert!(!listed.can_change_default);

    for (method, params) in [
        ("modelProvider/list", json!(5)),
        ("modelProvider/capabilities/read", json!("all")),
    ] {
        let error = server.request(method, params).await.unwrap_err();
        assert_eq!(error["code"], INVALID_REQUEST, "{method}: {error}");
    }
}

#[tokio::test]
async fn a_provider_write_is_refused_unless_the_operator_allows_every_key() {
    let mut server = server_with(&[]).await;
    let error = server
        .call::<client_requests::ModelProviderConfigWrite>(gateway(
            Some("mock"),
            None,
            Some(Some("http://127.0.0.1:1/evil")),
        ))
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configKeyRefused");
    let error = server
        .call::<client_requests::ModelProviderConfigWrite>(gateway(
            None,
            Some("Evil"),
            Some(Some("http://127.0.0.1:1/evil")),
        ))
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configKeyRefused");
    assert_eq!(config_text(&server), CONFIG);

    for params in [
        json!({"settings": {"type": "bogus"}}),
        json!({"settings": {"type": "customGateway", "colour": "red"}}),
        json!({}),
    ] {
        let error = server
            .request("modelProvider/config/write", params.clone())
            .await
            .unwrap_err();
        assert_eq!(error["code"], INVALID_REQUEST, "{params}: {error}");
    }

    let mut all = server_with(&["-c", "clients.allow_client_config=\"all\""]).await;
    let renamed = all
        .call::<client_requests::ModelProviderConfigWrite>(gateway(
            Some("mock"),
            Some("Renamed"),
            None,
        ))
        .await
        .unwrap();
    assert_eq!(renamed.provider.name, "Renamed");
    let created = all
        .call::<client_requests::ModelProviderConfigWrite>(gateway(
            None,
            Some("Local Gateway"),
            Some(Some("http://127.0.0.1:8/v1")),
        ))
        .await
        .unwrap();
    assert_eq!(created.provider.id, "local-gateway");
    assert_eq!(
        created.provider.base_url.as_deref(),
        Some("http://127.0.0.1:8/v1")
    );
    let text = config_text(&all);
    assert!(
        text.starts_with("# providers\n")
            && text.contains("name = \"Renamed\"")
            && text.contains("[model_providers.local-gateway]"),
        "{text}"
    );
    let error = all
        .call::<client_requests::ModelProviderConfigWrite>(gateway(Some("nope"), Some("x"), None))
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configPathNotFound");
    let error = all
        .request(
            "modelProvider/config/write",
            json!({"settings": {"type": "bedrock", "providerId": "amazon-bedrock"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configValidationError");
}

#[tokio::test]
async fn the_default_provider_is_written_and_used_by_new_threads() {
    let mut server = server_with(&[]).await;
    let written = server
        .call::<client_requests::ModelProviderDefaultSet>(ModelProviderDefaultSetParams {
            provider_id: "demo".to_owned(),
        })
        .await
        .unwrap();
    assert_eq!(written.status, WriteStatus::Ok);
    assert_eq!(
        config_text(&server),
        CONFIG.replace("model_provider = \"mock\"", "model_provider = \"demo\"")
    );
    let started = server.request("thread/start", json!({})).await.unwrap();
    assert_eq!(started["modelProvider"], "demo");
    let listed = server
        .call::<client_requests::ModelProviderList>(ModelProviderListParams {})
        .await
        .unwrap();
    assert_eq!(listed.default_provider_id, "demo");

    let error = server
        .call::<client_requests::ModelProviderDefaultSet>(ModelProviderDefaultSetParams {
            provider_id: "nope".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configValidationError");
    let error = server
        .request("modelProvider/default/set", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], INVALID_REQUEST, "{error}");

    let mut off = server_with(&["-c", "clients.allow_config_writes=false"]).await;
    let error = off
        .call::<client_requests::ModelProviderDefaultSet>(ModelProviderDefaultSetParams {
            provider_id: "demo".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(write_error_code(&error), "configKeyRefused");
    assert_eq!(config_text(&off), CONFIG);
}
