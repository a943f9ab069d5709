//! Logs of `tandem mcp-server`: `$TANDEM_HOME/log/tandem-mcp.log`, filtered by `RUST_LOG`
//! (default `info`), with request spans carrying `session_id` and `request_id`.
//!
//! Every line passes through [`mask_bearer_tokens`] before it reaches the file, so a bearer
//! token that ends up in a log line (a logged header, an error message) is written as
//! `Bearer ****`, and then through the core's key-shape masking (`sk-[REDACTED]`, …).

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where the log file lives under `home`.
pub fn log_path(home: &Path) -> PathBuf {
    home.join("log").join("tandem-mcp.log")
}

/// Installs the global subscriber writing to the log file; falls back to stderr when the file
/// cannot be opened. Returns the path written to, if any.
pub fn init(home: &Path) -> Option<PathBuf> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let path = log_path(home);
    let file = path
        .parent()
        .map(std::fs::create_dir_all)
        .transpose()
        .and_then(|_| OpenOptions::new().create(true).append(true).open(&path));
    match file {
        Ok(file) => {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(Mutex::new(Redacting(file)))
                .with_ansi(false)
                .try_init();
            Some(path)
        }
        Err(error) => {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(|| Redacting(io::stderr()))
                .with_ansi(false)
                .try_init();
            tracing::warn!(%error, path = %path.display(), "cannot open the log file; logging to stderr");
            None
        }
    }
}

/// A writer that masks bearer tokens in what it writes. The formatter writes each event in
/// one piece, so a token is never split across two calls.
pub struct Redacting<W>(pub W);

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let masked = mask_bearer_tokens(&text);
        self.0
            .write_all(tandem_core::redact::redact_patterns(&masked).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Replaces the token after every `Bearer ` (any case) with `****`.
pub fn mask_bearer_tokens(text: &str) -> String {
    const KEYWORD: &str = "bearer ";
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut position = 0;
    while let Some(found) = lower[position..].find(KEYWORD) {
        let keyword_end = position + found + KEYWORD.len();
        out.push_str(&text[position..keyword_end]);
        let rest = &text[keyword_end..];
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        let token_start = keyword_end + spaces;
        let token_len = text[token_start..]
            .find(|character: char| {
                character.is_whitespace()
                    || matches!(character, '"' | '\'' | ',' | ';' | ')' | '\\')
            })
            .unwrap_or(text.len() - token_start);
        out.push_str(&text[keyword_end..token_start]);
        if token_len > 0 {
            out.push_str("****");
        }
        position = token_start + token_len;
    }
    out.push_str(&text[position..]);
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn bearer_tokens_are_masked_in_any_case() {
        assert_eq!(
            mask_bearer_tokens("authorization: Bearer s3cr3t-token end"),
            "authorization: Bearer **** end"
        );
        assert_eq!(mask_bearer_tokens("BEARER abc"), "BEARER ****");
        assert_eq!(
            mask_bearer_tokens(r#"header="bearer xyz", next bearer  q1;"#),
            r#"header="bearer ****", next bearer  ****;"#
        );
        assert_eq!(mask_bearer_tokens("no tokens here"), "no tokens here");
        assert_eq!(mask_bearer_tokens("Bearer "), "Bearer ");
        assert_eq!(
            mask_bearer_tokens("ünïcode Bearer tök ü"),
            "ünïcode Bearer **** ü"
        );
    }

    #[test]
    fn the_writer_masks_what_passes_through() {
        let mut writer = Redacting(Vec::new());
        let written = writer.write(b"got Bearer abc123\n").expect("write");
        assert_eq!(written, 18);
        assert_eq!(String::from_utf8_lossy(&writer.0), "got Bearer ****\n");
        writer
            .write_all(b"key sk-abcdefghijklmnopqrstuvwx0123\n")
            .expect("write");
        assert_eq!(
            String::from_utf8_lossy(&writer.0),
            "got Bearer ****\nkey sk-[REDACTED]\n"
        );
    }
}
