//! What the method tables know about each method, for dispatch gating, docs and export.

use schemars::JsonSchema;
use ts_rs::TS;

/// Whether a method belongs to the stable or the experimental surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stability {
    /// Always available.
    Stable,
    /// Only for connections that set `capabilities.experimentalApi`.
    Experimental,
}

/// One entry of a method table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodSpec {
    /// Wire name, such as `thread/start`.
    pub method: &'static str,
    /// Enum variant name, such as `ThreadStart`.
    pub variant: &'static str,
    /// Name of the params type.
    pub params: &'static str,
    /// Name of the response type; `None` for notifications.
    pub response: Option<&'static str>,
    /// Stable or experimental.
    pub stability: Stability,
    /// The entry's doc comment.
    pub doc: &'static str,
}

/// Receives every params and response type of a table, so that exporters can generate schemas
/// and bindings without a hand-written list of types.
pub trait TypeVisitor {
    /// A request's params and response types.
    fn request<P, R>(&mut self, spec: &MethodSpec)
    where
        P: TS + JsonSchema + 'static,
        R: TS + JsonSchema + 'static;

    /// A notification's params type.
    fn notification<P>(&mut self, spec: &MethodSpec)
    where
        P: TS + JsonSchema + 'static;
}

/// A request of a method table, as a type: the unit types in `tables::client_requests` and
/// `tables::server_requests` implement it, so that a typed client derives params and response
/// types from the method it names.
pub trait Request {
    /// The wire name, such as `thread/start`.
    const METHOD: &'static str;
    /// The params the request carries.
    type Params: serde::Serialize + serde::de::DeserializeOwned;
    /// The result of a successful response.
    type Response: serde::Serialize + serde::de::DeserializeOwned;
}

/// A notification of a method table, as a type (the unit types in
/// `tables::server_notifications` and `tables::client_notifications`).
pub trait Notification {
    /// The wire name, such as `turn/completed`.
    const METHOD: &'static str;
    /// The params the notification carries.
    type Params: serde::Serialize + serde::de::DeserializeOwned;
}
