//! The account of a `TANDEM_HOME`: the API key stored by `account/login/start` and the latest
//! rate limits a provider reported.
//!
//! The key lives in `$TANDEM_HOME/auth.json` (`{"auth_mode": "apikey", "OPENAI_API_KEY": …}`),
//! mode 0600, replaced atomically (temp file, fsync, rename). Precedence: a provider that
//! declares `env_key` uses that variable when it is set and not empty, and the stored key
//! otherwise; a provider without `env_key` sends no key at all.
//!
//! A server loads one [`AccountState`] for its home at startup and hands it to every engine it
//! builds (every MCP session included), so that a login on one connection (or MCP session)
//! applies to every model client of the server.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};

use app_server_protocol::account::RateLimitSnapshot;
use app_server_protocol::account::RateLimitWindow;
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};

use crate::sync::lock;

/// The file name of the stored login.
pub const AUTH_FILE: &str = "auth.json";

/// The login and the rate limits of one home.
#[derive(Debug)]
pub struct AccountState {
    auth_file: PathBuf,
    stored_key: RwLock<Option<String>>,
    rate_limits: Mutex<Option<RateLimitSnapshot>>,
    temp_counter: AtomicU64,
}

/// Why the stored login could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// Reading, writing or removing `auth.json` failed.
    #[error("cannot update {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The blocking file task did not finish.
    #[error("the auth file task failed: {0}")]
    Task(String),
}

/// The contents of `auth.json`.
#[derive(Debug, Serialize, Deserialize)]
struct AuthFile {
    auth_mode: String,
    #[serde(rename = "OPENAI_API_KEY")]
    openai_api_key: Option<String>,
}

impl AccountState {
    /// The state of `home`, with `auth.json` read now. Blocking (it reads a file): a server
    /// calls it once, before its runtime starts, and shares the result.
    pub fn load(home: &Path) -> AccountState {
        let auth_file = home.join(AUTH_FILE);
        let stored_key = match std::fs::read(&auth_file) {
            Ok(bytes) => match serde_json::from_slice::<AuthFile>(&bytes) {
                Ok(auth) => auth.openai_api_key.filter(|key| !key.is_empty()),
                Err(error) => {
                    tracing::warn!(path = %auth_file.display(), %error, "ignoring an unreadable auth file");
                    None
                }
            },
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => {
                tracing::warn!(path = %auth_file.display(), %error, "cannot read the auth file");
                None
            }
        };
        AccountState {
            auth_file,
            stored_key: RwLock::new(stored_key),
            rate_limits: Mutex::new(None),
            temp_counter: AtomicU64::new(0),
        }
    }

    /// The stored API key, if any.
    pub fn stored_key(&self) -> Option<String> {
        self.stored_key
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The key a provider with `env_key` uses: the variable when set, else the stored key.
    pub fn api_key_for(&self, env_key: Option<&str>) -> Option<String> {
        let env_key = env_key?;
        std::env::var(env_key)
            .ok()
            .filter(|key| !key.is_empty())
            .or_else(|| self.stored_key())
    }

    /// Stores `key` in `auth.json` (0600, atomic) and uses it from now on.
    pub async fn store_key(&self, key: String) -> Result<(), AccountError> {
        let path = self.auth_file.clone();
        let temp = self.temp_path();
        let contents = AuthFile {
            auth_mode: "apikey".to_string(),
            openai_api_key: Some(key.clone()),
        };
        tokio::task::spawn_blocking(move || write_atomically(&path, &temp, &contents))
            .await
            .map_err(|error| AccountError::Task(error.to_string()))??;
        *self
            .stored_key
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(key);
        Ok(())
    }

    /// Removes `auth.json`; true when a key was stored.
    pub async fn remove_key(&self) -> Result<bool, AccountError> {
        let path = self.auth_file.clone();
        let removed = tokio::task::spawn_blocking(move || match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(AccountError::Io {
                path: path.display().to_string(),
                source,
            }),
        })
        .await
        .map_err(|error| AccountError::Task(error.to_string()))??;
        let had_key = self
            .stored_key
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
            .is_some();
        Ok(removed || had_key)
    }

    /// The latest rate limits a provider reported.
    pub fn rate_limits(&self) -> Option<RateLimitSnapshot> {
        lock(&self.rate_limits).clone()
    }

    /// Records the rate limits of a response.
    pub fn record_rate_limits(&self, snapshot: RateLimitSnapshot) {
        *lock(&self.rate_limits) = Some(snapshot);
    }

    fn temp_path(&self) -> PathBuf {
        let counter = self.temp_counter.fetch_add(1, Ordering::Relaxed);
        self.auth_file
            .with_file_name(format!(".{AUTH_FILE}.{}.{counter}.tmp", std::process::id()))
    }
}

/// Writes `contents` to `temp` (created 0600), fsyncs it, renames it over `path` and fsyncs
/// the directory, so that a crash leaves the old file or the new one, never a torn one.
fn write_atomically(path: &Path, temp: &Path, contents: &AuthFile) -> Result<(), AccountError> {
    let io_error = |source| AccountError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut bytes = serde_json::to_vec_pretty(contents)
        .map_err(|error| io_error(std::io::Error::other(error)))?;
    bytes.push(b'\n');
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let result = (|| {
        let mut file = options.open(temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(temp, path)?;
        if let Some(dir) = path.parent() {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(temp);
    }
    result.map_err(io_error)
}

/// The rate limits in a provider's `x-ratelimit-*` response headers, or `None` when it sent
/// none. Requests are the primary window, tokens the secondary; `now` is Unix seconds.
pub fn rate_limits_from_headers(
    headers: &HeaderMap,
    provider_id: &str,
    provider_name: &str,
    now: i64,
) -> Option<RateLimitSnapshot> {
    let primary = window(headers, "requests", now);
    let secondary = window(headers, "tokens", now);
    if primary.is_none() && secondary.is_none() {
        return None;
    }
    Some(RateLimitSnapshot {
        limit_id: Some(provider_id.to_string()),
        limit_name: Some(provider_name.to_string()),
        primary,
        secondary,
        ..RateLimitSnapshot::default()
    })
}

fn window(headers: &HeaderMap, kind: &str, now: i64) -> Option<RateLimitWindow> {
    let header = |name: String| {
        headers
            .get(name.as_str())
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
    };
    let limit: f64 = header(format!("x-ratelimit-limit-{kind}"))?.parse().ok()?;
    let remaining: f64 = header(format!("x-ratelimit-remaining-{kind}"))?
        .parse()
        .ok()?;
    if limit <= 0.0 {
        return None;
    }
    let used_percent = ((limit - remaining) / limit * 100.0).clamp(0.0, 100.0);
    let resets_at = header(format!("x-ratelimit-reset-{kind}"))
        .and_then(parse_duration_seconds)
        .map(|seconds| now + seconds.ceil() as i64);
    Some(RateLimitWindow {
        used_percent,
        window_duration_mins: None,
        resets_at,
    })
}

/// Parses OpenAI's reset durations: `1s`, `6m0s`, `1h2m3.5s`, `20ms`, or bare seconds.
fn parse_duration_seconds(text: &str) -> Option<f64> {
    if let Ok(seconds) = text.parse::<f64>() {
        return Some(seconds);
    }
    let mut total = 0.0;
    let mut number = String::new();
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let value: f64 = number.parse().ok()?;
        number.clear();
        let unit = match c {
            'h' => 3600.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        total += value * unit;
        any = true;
    }
    (any && number.is_empty()).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_durations_parse() {
        assert_eq!(parse_duration_seconds("1s"), Some(1.0));
        assert_eq!(parse_duration_seconds("6m0s"), Some(360.0));
        assert_eq!(parse_duration_seconds("1h2m3.5s"), Some(3723.5));
        assert_eq!(parse_duration_seconds("20ms"), Some(0.02));
        assert_eq!(parse_duration_seconds("12"), Some(12.0));
        assert_eq!(parse_duration_seconds("soon"), None);
        assert_eq!(parse_duration_seconds("5"), Some(5.0));
        assert_eq!(parse_duration_seconds("5x"), None);
    }

    #[test]
    fn headers_become_windows() {
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-limit-requests", "100".parse().unwrap());
        headers.insert("x-ratelimit-remaining-requests", "75".parse().unwrap());
        headers.insert("x-ratelimit-reset-requests", "1m30s".parse().unwrap());
        let snapshot = rate_limits_from_headers(&headers, "mock", "Mock", 1000).unwrap();
        assert_eq!(
            snapshot.primary,
            Some(RateLimitWindow {
                used_percent: 25.0,
                window_duration_mins: None,
                resets_at: Some(1090),
            })
        );
        assert_eq!(snapshot.secondary, None);
        assert_eq!(snapshot.limit_id.as_deref(), Some("mock"));
        assert_eq!(
            rate_limits_from_headers(&HeaderMap::new(), "mock", "Mock", 0),
            None
        );
    }
}
