//! The configuration methods of the app-server: writes to `config.toml`, reading it again, and
//! what the configuration offers (`configRequirements/read`, `experimentalFeature/*`,
//! `permissionProfile/list`, `modelProvider/*`). The engine applies the operator's policy and
//! does the work; this module sends its answers.

use app_server_protocol::config_requests::{
    ConfigBatchWriteParams, ConfigEdit, ConfigValueWriteParams,
    ExperimentalFeatureEnablementSetParams, ExperimentalFeatureEnablementSetResponse,
    ExperimentalFeatureListParams, ModelProviderCapabilitiesReadResponse,
    ModelProviderConfigWriteParams, ModelProviderDefaultSetParams, PermissionProfileListParams,
};
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::thread_requests::EmptyResponse;

use crate::processor::Processor;
use crate::rpc_error::config_write_error;

impl Processor {
    /// `config/value/write`.
    pub(super) async fn config_value_write(&self, id: RequestId, params: ConfigValueWriteParams) {
        let edit = ConfigEdit {
            key_path: params.key_path,
            value: params.value,
            merge_strategy: params.merge_strategy,
        };
        let result = self
            .engine
            .write_config(
                params.file_path.as_deref(),
                vec![edit],
                params.expected_version,
            )
            .await
            .map_err(|error| config_write_error(&error));
        self.reply(id, result).await;
    }

    /// `config/batchWrite`.
    pub(super) async fn config_batch_write(&self, id: RequestId, params: ConfigBatchWriteParams) {
        let result = self
            .engine
            .write_config(
                params.file_path.as_deref(),
                params.edits,
                params.expected_version,
            )
            .await
            .map_err(|error| config_write_error(&error));
        self.reply(id, result).await;
    }

    /// `config/mcpServer/reload`.
    pub(super) async fn config_mcp_server_reload(&self, id: RequestId) {
        let result = self
            .engine
            .reload_config()
            .await
            .map(|()| EmptyResponse {})
            .map_err(|error| config_write_error(&error));
        self.reply(id, result).await;
    }

    /// `configRequirements/read`.
    pub(super) async fn config_requirements_read(&self, id: RequestId) {
        let response = self.engine.config_requirements();
        self.reply(id, Ok(response)).await;
    }

    /// `experimentalFeature/list`.
    pub(super) async fn experimental_feature_list(
        &self,
        id: RequestId,
        params: ExperimentalFeatureListParams,
    ) {
        let result = self.engine.experimental_features(params);
        self.respond(id, result).await;
    }

    /// `experimentalFeature/enablement/set`: Tandem has no runtime feature flags, so no
    /// name changes anything and the answer lists none (as the reference answers names it
    /// does not toggle at runtime).
    pub(super) async fn experimental_feature_enablement_set(
        &self,
        id: RequestId,
        params: ExperimentalFeatureEnablementSetParams,
    ) {
        if !params.enablement.is_empty() {
            tracing::debug!(
                names = ?params.enablement.keys().collect::<Vec<_>>(),
                "experimentalFeature/enablement/set: no such runtime flags"
            );
        }
        let response = ExperimentalFeatureEnablementSetResponse {
            enablement: Default::default(),
        };
        self.reply(id, Ok(response)).await;
    }

    /// `permissionProfile/list`.
    pub(super) async fn permission_profile_list(
        &self,
        id: RequestId,
        params: PermissionProfileListParams,
    ) {
        let result = self.engine.permission_profiles(params);
        self.respond(id, result).await;
    }

    /// `modelProvider/list`.
    pub(super) async fn model_provider_list(&self, id: RequestId) {
        let response = self.engine.model_providers();
        self.reply(id, Ok(response)).await;
    }

    /// `modelProvider/capabilities/read`: Tandem offers no hosted image-generation or
    /// web-search tool, whatever the provider.
    pub(super) async fn model_provider_capabilities_read(&self, id: RequestId) {
        let response = ModelProviderCapabilitiesReadResponse {
            image_generation: false,
            web_search: false,
        };
        self.reply(id, Ok(response)).await;
    }

    /// `modelProvider/config/write`.
    pub(super) async fn model_provider_config_write(
        &self,
        id: RequestId,
        params: ModelProviderConfigWriteParams,
    ) {
        let result = self
            .engine
            .write_model_provider(params.settings)
            .await
            .map_err(|error| config_write_error(&error));
        self.reply(id, result).await;
    }

    /// `modelProvider/default/set`.
    pub(super) async fn model_provider_default_set(
        &self,
        id: RequestId,
        params: ModelProviderDefaultSetParams,
    ) {
        let result = self
            .engine
            .set_default_provider(params.provider_id)
            .await
            .map_err(|error| config_write_error(&error));
        self.reply(id, result).await;
    }
}
