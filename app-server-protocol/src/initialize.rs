//! The `initialize` handshake.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `initialize`, the first request of every connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct InitializeParams {
    /// Who the client is; `name` becomes the thread `originator` and prefixes `userAgent`.
    pub client_info: ClientInfo,
    /// Client capabilities; omitted means all off.
    #[serde(default)]
    pub capabilities: Option<InitializeCapabilities>,
}

/// Identification of the client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ClientInfo {
    /// Machine-readable client name, such as `vscode_extension`.
    pub name: String,
    /// Human-readable client name.
    #[serde(default)]
    pub title: Option<String>,
    /// Client version.
    pub version: String,
}

/// Capabilities a client declares at `initialize`; fixed for the connection.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct InitializeCapabilities {
    /// Opt into experimental methods, fields and notifications.
    #[serde(default)]
    pub experimental_api: Option<bool>,
    /// Exact notification methods this connection does not want to receive.
    #[serde(default)]
    pub opt_out_notification_methods: Option<Vec<String>>,
    /// Which server request carries the model's `request_user_input` questions:
    /// `item/tool/requestUserInput` (the default) or `tool/requestUserInput`. Either needs
    /// `experimentalApi`.
    #[serde(default)]
    pub request_user_input_method: Option<crate::dialogs::RequestUserInputMethod>,
}

/// Result of `initialize`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    /// `<clientInfo.name>/<protocol version> (<os> <os version>; <arch>) tandem/<version> (<clientInfo.name>; <clientInfo.version>)`.
    pub user_agent: String,
    /// The server's home directory (`TANDEM_HOME`), absolute.
    pub codex_home: String,
    /// Platform family: `unix` or `windows`.
    pub platform_family: String,
    /// Operating system: `linux`, `macos` or `windows`.
    pub platform_os: String,
}
