//! Who is calling: the principal a request acts for.
//!
//! A principal owns what it creates (threads, MCP sessions, history entries) and sees nothing
//! another principal created. Stdio front ends have one principal, the local user; network
//! front ends name one per authentication token (`--auth-token-file` lines `NAME TOKEN`).

use std::fmt;
use std::sync::Arc;

/// The name of the principal every stdio front end acts for.
pub const LOCAL_USER: &str = "local";

/// A caller's identity, cheap to clone.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Principal(Arc<str>);

impl Principal {
    /// The local user: the one principal of `app-server` and `mcp-server` on stdio.
    pub fn local_user() -> Principal {
        Principal(Arc::from(LOCAL_USER))
    }

    /// A principal named by the operator (a token file's `NAME`).
    pub fn named(name: &str) -> Principal {
        Principal(Arc::from(name))
    }

    /// The principal's name as stored with what it owns.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// Whether this is the local user.
    pub fn is_local_user(&self) -> bool {
        &*self.0 == LOCAL_USER
    }
}

impl Default for Principal {
    fn default() -> Principal {
        Principal::local_user()
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Principal({})", self.0)
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_user_is_the_default_and_differs_from_a_named_principal() {
        assert!(Principal::default().is_local_user());
        assert_ne!(Principal::named("alice"), Principal::local_user());
        assert_eq!(Principal::named("alice").name(), "alice");
    }
}
