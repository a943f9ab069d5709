//! The declarative method tables' machinery.
//!
//! Each direction of the protocol is declared once, in `tables.rs`, with one entry per method:
//! its doc comment, enum variant, wire name, stability and params (and response) types.
//! These macros turn a table into the typed enum, `method()`, `stability()` and the
//! [`MethodSpec`](crate::tables_meta::MethodSpec) list plus a generic walk used by the schema exporters.
//! Nothing here should ever need a hand-written `match` over methods.

/// Declares requests that carry `id`, `method` and `params` and expect a typed response.
///
/// Generates `$enum` (internally tagged by `method`, variants `{ id, params }`), an id-less
/// `$payload` enum (adjacently tagged `method`/`params`) for the sending side, a fieldless
/// `$kind` enum naming each method (for registries that sort methods into families without a
/// value in hand), a module `$markers` with one unit type per method implementing
/// [`Request`](crate::tables_meta::Request) (for typed clients: params and response types
/// follow from the method), the `METHODS` table and `visit_types` for the exporters.
macro_rules! request_table {
    (
        $(#[$enum_meta:meta])*
        enum $enum:ident;
        $(#[$payload_meta:meta])*
        payload $payload:ident;
        $(#[$kind_meta:meta])*
        kind $kind:ident;
        $(#[$markers_meta:meta])*
        markers $markers:ident;
        $(
            $(#[doc = $doc:literal])*
            $variant:ident => $method:literal [$stability:ident] {
                params: $params:ty,
                response: $response:ty $(,)?
            }
        ),* $(,)?
    ) => {
        $(#[$enum_meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "method")]
        #[allow(
            clippy::large_enum_variant,
            reason = "messages are built, serialized and dropped; boxing would only add noise"
        )]
        pub enum $enum {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $method)]
                $variant {
                    /// The request id, echoed in the response.
                    id: $crate::jsonrpc::RequestId,
                    /// The method's parameters.
                    params: $params,
                },
            )*
        }

        $(#[$payload_meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "method", content = "params")]
        #[allow(
            clippy::large_enum_variant,
            reason = "messages are built, serialized and dropped; boxing would only add noise"
        )]
        pub enum $payload {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $method)]
                $variant($params),
            )*
        }

        $(#[$kind_meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $kind {
            $(
                $(#[doc = $doc])*
                $variant,
            )*
        }

        impl $kind {
            /// Every method of this table, in declaration order.
            pub const ALL: &'static [$kind] = &[ $( $kind::$variant, )* ];

            /// The method with this wire name, if the table has one.
            pub fn from_method(method: &str) -> Option<$kind> {
                match method {
                    $( $method => Some($kind::$variant), )*
                    _ => None,
                }
            }

            /// The wire name of this method.
            pub const fn method(self) -> &'static str {
                match self {
                    $( $kind::$variant => $method, )*
                }
            }

            /// Whether this method is part of the stable or the experimental surface.
            pub const fn stability(self) -> $crate::tables_meta::Stability {
                match self {
                    $( $kind::$variant => $crate::tables_meta::Stability::$stability, )*
                }
            }
        }

        $(#[$markers_meta])*
        pub mod $markers {
            #[allow(clippy::wildcard_imports, reason = "the table's own imports name every type")]
            use super::*;
            $(
                $(#[doc = $doc])*
                #[derive(Clone, Copy, Debug)]
                pub struct $variant;

                impl $crate::tables_meta::Request for $variant {
                    const METHOD: &'static str = $method;
                    type Params = $params;
                    type Response = $response;
                }
            )*
        }

        impl $enum {
            /// Every method of this table, in declaration order.
            pub const METHODS: &'static [$crate::tables_meta::MethodSpec] = &[
                $(
                    $crate::tables_meta::MethodSpec {
                        method: $method,
                        variant: stringify!($variant),
                        params: stringify!($params),
                        response: Some(stringify!($response)),
                        stability: $crate::tables_meta::Stability::$stability,
                        doc: concat!($($doc, "\n",)*),
                    },
                )*
            ];

            /// The wire name of this request's method.
            pub const fn method(&self) -> &'static str {
                match self {
                    $( Self::$variant { .. } => $method, )*
                }
            }

            /// Whether this method is part of the stable or the experimental surface.
            pub const fn stability(&self) -> $crate::tables_meta::Stability {
                match self {
                    $( Self::$variant { .. } => $crate::tables_meta::Stability::$stability, )*
                }
            }

            /// The request id.
            pub const fn id(&self) -> &$crate::jsonrpc::RequestId {
                match self {
                    $( Self::$variant { id, .. } => id, )*
                }
            }

            /// Splits the request into its id and its id-less payload.
            pub fn into_parts(self) -> ($crate::jsonrpc::RequestId, $payload) {
                match self {
                    $( Self::$variant { id, params } => (id, $payload::$variant(params)), )*
                }
            }

            /// Walks every params and response type, for schema and binding export.
            pub fn visit_types(visitor: &mut impl $crate::tables_meta::TypeVisitor) {
                let mut specs = Self::METHODS.iter();
                $(
                    if let Some(spec) = specs.next() {
                        visitor.request::<$params, $response>(spec);
                    }
                )*
            }
        }

        impl $payload {
            /// The wire name of this request's method.
            pub const fn method(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => $method, )*
                }
            }

            /// Which method this is, without its params.
            pub const fn kind(&self) -> $kind {
                match self {
                    $( Self::$variant(_) => $kind::$variant, )*
                }
            }

            /// Attaches an id, giving the full request.
            pub fn into_request(self, id: $crate::jsonrpc::RequestId) -> $enum {
                match self {
                    $( Self::$variant(params) => $enum::$variant { id, params }, )*
                }
            }
        }
    };
}

/// Declares notifications: `method` plus `params`, no id, no reply.
///
/// Generates `$enum` (adjacently tagged `method`/`params`), a module `$markers` with one unit
/// type per notification implementing [`Notification`](crate::tables_meta::Notification), the
/// `METHODS` table and `visit_types` for the exporters.
macro_rules! notification_table {
    (
        $(#[$enum_meta:meta])*
        enum $enum:ident;
        $(#[$markers_meta:meta])*
        markers $markers:ident;
        $(
            $(#[doc = $doc:literal])*
            $variant:ident => $method:literal [$stability:ident] {
                params: $params:ty $(,)?
            }
        ),* $(,)?
    ) => {
        $(#[$enum_meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "method", content = "params")]
        #[allow(
            clippy::large_enum_variant,
            reason = "messages are built, serialized and dropped; boxing would only add noise"
        )]
        pub enum $enum {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $method)]
                $variant($params),
            )*
        }

        $(#[$markers_meta])*
        pub mod $markers {
            #[allow(clippy::wildcard_imports, reason = "the table's own imports name every type")]
            use super::*;
            $(
                $(#[doc = $doc])*
                #[derive(Clone, Copy, Debug)]
                pub struct $variant;

                impl $crate::tables_meta::Notification for $variant {
                    const METHOD: &'static str = $method;
                    type Params = $params;
                }
            )*
        }

        impl $enum {
            /// Every method of this table, in declaration order.
            pub const METHODS: &'static [$crate::tables_meta::MethodSpec] = &[
                $(
                    $crate::tables_meta::MethodSpec {
                        method: $method,
                        variant: stringify!($variant),
                        params: stringify!($params),
                        response: None,
                        stability: $crate::tables_meta::Stability::$stability,
                        doc: concat!($($doc, "\n",)*),
                    },
                )*
            ];

            /// The wire name of this notification's method.
            pub const fn method(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => $method, )*
                }
            }

            /// Whether this notification is part of the stable or the experimental surface.
            pub const fn stability(&self) -> $crate::tables_meta::Stability {
                match self {
                    $( Self::$variant(_) => $crate::tables_meta::Stability::$stability, )*
                }
            }

            /// Walks every params type, for schema and binding export.
            pub fn visit_types(visitor: &mut impl $crate::tables_meta::TypeVisitor) {
                let mut specs = Self::METHODS.iter();
                $(
                    if let Some(spec) = specs.next() {
                        visitor.notification::<$params>(spec);
                    }
                )*
            }
        }
    };
}
