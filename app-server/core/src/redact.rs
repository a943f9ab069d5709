//! Secrets stay out of what is kept: API keys and bearer tokens are masked in rollouts (and so
//! in the history index and the Redis mirror, which are built from them) and in log lines.
//!
//! Two kinds of secret are recognised: the well-known shapes of provider and platform keys
//! (`sk-…`, GitHub, Slack, AWS and Google keys, `Bearer <token>`), and the exact secrets this
//! server knows (the stored API key, the values of the providers' `env_key` variables, the
//! HTTP listener's tokens), registered with [`Redactor::add_secret`]. A match is replaced by
//! its prefix and [`MASK`], so a reader still sees that a key was there.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, RwLock};

use regex::Regex;

/// What a secret is replaced with.
pub const MASK: &str = "[REDACTED]";

/// Known secrets shorter than this are not registered: masking a short common string would
/// garble ordinary text.
const MIN_SECRET_LEN: usize = 8;

/// The shapes of well-known keys. Group `keep` is the part left visible (a key's prefix, the
/// `Bearer ` keyword); the rest of the match is masked.
/// `None` only if the patterns failed to compile, which the tests below rule out.
static PATTERNS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u:\b)(?:",
        r"(?P<sk>sk-)[A-Za-z0-9_-]{20,}",
        r"|(?P<gh>gh[pousr]_)[A-Za-z0-9]{30,}",
        r"|(?P<ghpat>github_pat_)[A-Za-z0-9_]{30,}",
        r"|(?P<slack>xox[abposr]-)[A-Za-z0-9-]{10,}",
        r"|(?P<aws>AKIA)[0-9A-Z]{16}(?-u:\b)",
        r"|(?P<google>AIza)[0-9A-Za-z_-]{30,}",
        r"|(?P<bearer>(?i:bearer)[ \t]+)[A-Za-z0-9._~+/=-]{8,}",
        r")"
    ))
    .ok()
});

/// Masks secrets in text. Cheap to clone; clones share the registered secrets.
#[derive(Clone, Default)]
pub struct Redactor {
    known: Arc<RwLock<Vec<String>>>,
}

impl Redactor {
    /// A redactor that knows only the well-known key shapes.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// Also masks every occurrence of `secret` (ignored when shorter than 8 bytes or already
    /// registered).
    pub fn add_secret(&self, secret: &str) {
        let secret = secret.trim();
        if secret.len() < MIN_SECRET_LEN {
            return;
        }
        let mut known = self
            .known
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !known.iter().any(|existing| existing == secret) {
            known.push(secret.to_string());
            // Longer secrets first, so one that contains another is masked whole.
            known.sort_by_key(|existing| std::cmp::Reverse(existing.len()));
        }
    }

    /// `text` with every recognised secret masked; borrowed when there was none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = redact_patterns(text);
        let known = self
            .known
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for secret in known.iter() {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), MASK));
            }
        }
        out
    }
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = self.known.read().map_or(0, |known| known.len());
        // The secrets themselves are never printed.
        formatter
            .debug_struct("Redactor")
            .field("known_secrets", &known)
            .finish()
    }
}

/// Registers the secrets a server knows at start: the API key stored in its home (`account`)
/// and the value of every provider's `env_key` (and the values of its `http_headers`, which
/// carry credentials as often as not).
pub fn register_known_secrets(
    redactor: &Redactor,
    config: &crate::config::Config,
    account: &crate::account::AccountState,
) {
    for provider in config.model_providers.values() {
        if let Some(key) = provider.api_key() {
            redactor.add_secret(&key);
        }
        for value in provider.http_headers.values() {
            redactor.add_secret(value.trim_start_matches("Bearer ").trim());
        }
    }
    if let Some(key) = account.stored_key() {
        redactor.add_secret(&key);
    }
}

/// `text` with the well-known key shapes masked.
pub fn redact_patterns(text: &str) -> Cow<'_, str> {
    let Some(patterns) = PATTERNS.as_ref() else {
        return Cow::Borrowed(text);
    };
    patterns.replace_all(text, |captures: &regex::Captures<'_>| {
        let keep = ["sk", "gh", "ghpat", "slack", "aws", "google", "bearer"]
            .iter()
            .find_map(|name| captures.name(name))
            .map_or("", |prefix| prefix.as_str());
        format!("{keep}{MASK}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_keys_are_masked_and_keep_their_prefix() {
        let text = "key sk-proj-abcdefghijklmnopqrstuvwx1234 and ghp_0123456789abcdefghijklmnopqrstuvwxyz \
                    AKIAIOSFODNN7EXAMPLE Authorization: Bearer eyJhbGciOi.J9x-y_z";
        let masked = redact_patterns(text);
        assert_eq!(
            masked,
            "key sk-[REDACTED] and ghp_[REDACTED] AKIA[REDACTED] Authorization: Bearer [REDACTED]"
        );
    }

    #[test]
    fn ordinary_text_is_left_alone_and_borrowed() {
        for text in [
            "task-abcdefghijklmnopqrstuvwxyz is not a key",
            "sk-short",
            "the bearer of bad news",
            "AKIA is a prefix but AKIA123 is too short",
        ] {
            assert!(matches!(redact_patterns(text), Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn registered_secrets_are_masked_wherever_they_appear() {
        let redactor = Redactor::new();
        redactor.add_secret("hunter2-but-longer");
        redactor.add_secret("short");
        let masked = redactor.redact(r#"{"text":"echo hunter2-but-longer; short"}"#);
        assert_eq!(masked, r#"{"text":"echo [REDACTED]; short"}"#);
    }

    #[test]
    fn masking_keeps_json_valid() {
        let line =
            serde_json::json!({"output": "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz012345\n"})
                .to_string();
        let masked = Redactor::new().redact(&line).into_owned();
        let value: serde_json::Value = serde_json::from_str(&masked).expect("still JSON");
        assert_eq!(value["output"], "OPENAI_API_KEY=sk-[REDACTED]\n");
    }
}
