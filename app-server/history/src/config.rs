//! `[history]` configuration with concrete defaults; any unknown key or wrong type is an error
//! so that a typo fails at startup instead of silently searching the wrong place.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which backend serves the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// SQLite file in `$TANDEM_HOME` (default).
    Embedded,
    /// A ClickHouse server over HTTP.
    ClickHouse,
}

/// `[history.clickhouse]`-style settings (flat keys under `[history]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ClickHouseConfig {
    /// Base URL of the HTTP interface, e.g. `http://127.0.0.1:8123`.
    pub url: String,
    /// Database holding the tables (created by ingest).
    pub database: String,
    /// Basic-auth user (none when empty).
    pub user: Option<String>,
    /// Basic-auth password.
    pub password: Option<String>,
    /// Timeout of one HTTP request.
    pub timeout: Duration,
}

/// The whole `[history]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryConfig {
    /// `backend`: `embedded` (default) or `clickhouse`.
    pub backend: BackendKind,
    /// `index_path`: the embedded index (default `$TANDEM_HOME/history/index.sqlite`).
    pub index_path: PathBuf,
    /// Directories scanned for `*.jsonl` rollouts: `$TANDEM_HOME/sessions` and
    /// `$TANDEM_HOME/archived_sessions`, plus `sources = [..]`.
    pub sources: Vec<PathBuf>,
    /// ClickHouse connection (used when `backend = "clickhouse"`).
    pub clickhouse: ClickHouseConfig,
    /// `auto_ingest`: ingest in the background after each completed turn (default true).
    pub auto_ingest: bool,
    /// `max_results`: the largest `limit` (default 50).
    pub max_results: i64,
    /// `default_limit` (default 10).
    pub default_limit: i64,
    /// `max_query_terms`: terms beyond this are dropped (default 32).
    pub max_query_terms: usize,
    /// `default_before` / `default_after`: `open` context (default 3 each).
    pub default_before: i64,
    /// See `default_before`.
    pub default_after: i64,
    /// `max_context`: the largest `before`/`after` (default 50).
    pub max_context: i64,
    /// `include_tool_events` default (false).
    pub include_tool_events: bool,
    /// `snippet_chars` (default 240).
    pub snippet_chars: usize,
    /// BM25 `k1` (default 1.2).
    pub k1: f64,
    /// BM25 `b` (default 0.75).
    pub b: f64,
}

const KEYS: &[&str] = &[
    "backend",
    "index_path",
    "sources",
    "url",
    "database",
    "user",
    "password",
    "timeout_ms",
    "auto_ingest",
    "max_results",
    "default_limit",
    "max_query_terms",
    "default_before",
    "default_after",
    "max_context",
    "include_tool_events",
    "snippet_chars",
    "k1",
    "b",
];

impl HistoryConfig {
    /// Defaults for `home` (`$TANDEM_HOME`).
    pub fn defaults(home: &Path) -> HistoryConfig {
        HistoryConfig {
            backend: BackendKind::Embedded,
            index_path: home.join("history").join("index.sqlite"),
            sources: vec![home.join("sessions"), home.join("archived_sessions")],
            clickhouse: ClickHouseConfig {
                url: "http://127.0.0.1:8123".to_string(),
                database: "tandem_history".to_string(),
                user: None,
                password: None,
                timeout: Duration::from_secs(10),
            },
            auto_ingest: true,
            max_results: 50,
            default_limit: 10,
            max_query_terms: 32,
            default_before: 3,
            default_after: 3,
            max_context: 50,
            include_tool_events: false,
            snippet_chars: 240,
            k1: 1.2,
            b: 0.75,
        }
    }

    /// Reads the `[history]` table (absent means defaults). Errors name the key.
    pub fn from_toml(home: &Path, table: Option<&toml::Value>) -> Result<HistoryConfig, String> {
        let mut config = HistoryConfig::defaults(home);
        let Some(table) = table else {
            return Ok(config);
        };
        let Some(table) = table.as_table() else {
            return Err("history: expected a table".to_string());
        };
        for key in table.keys() {
            if !KEYS.contains(&key.as_str()) {
                return Err(format!("history.{key}: unknown key"));
            }
        }
        let string = |key: &str| -> Result<Option<String>, String> {
            match table.get(key) {
                None => Ok(None),
                Some(toml::Value::String(text)) => Ok(Some(text.clone())),
                Some(_) => Err(format!("history.{key}: expected a string")),
            }
        };
        let integer = |key: &str, min: i64, max: i64| -> Result<Option<i64>, String> {
            match table.get(key) {
                None => Ok(None),
                Some(toml::Value::Integer(value)) if (min..=max).contains(value) => {
                    Ok(Some(*value))
                }
                Some(_) => Err(format!(
                    "history.{key}: expected an integer in {min}..={max}"
                )),
            }
        };
        let boolean = |key: &str| -> Result<Option<bool>, String> {
            match table.get(key) {
                None => Ok(None),
                Some(toml::Value::Boolean(value)) => Ok(Some(*value)),
                Some(_) => Err(format!("history.{key}: expected a boolean")),
            }
        };
        let float = |key: &str, min: f64, max: f64| -> Result<Option<f64>, String> {
            let value = match table.get(key) {
                None => return Ok(None),
                Some(toml::Value::Float(value)) => *value,
                Some(toml::Value::Integer(value)) => *value as f64,
                Some(_) => return Err(format!("history.{key}: expected a number")),
            };
            if !(min..=max).contains(&value) {
                return Err(format!("history.{key}: expected a number in {min}..={max}"));
            }
            Ok(Some(value))
        };
        match string("backend")?.as_deref() {
            None | Some("embedded") => {}
            Some("clickhouse") => config.backend = BackendKind::ClickHouse,
            Some(other) => {
                return Err(format!(
                    "history.backend: unknown backend `{other}` (expected `embedded` or `clickhouse`)"
                ));
            }
        }
        if let Some(path) = string("index_path")? {
            config.index_path = home.join(path);
        }
        match table.get("sources") {
            None => {}
            Some(toml::Value::Array(items)) => {
                for item in items {
                    let Some(path) = item.as_str() else {
                        return Err("history.sources: expected an array of strings".to_string());
                    };
                    config.sources.push(expand_home(path));
                }
            }
            Some(_) => return Err("history.sources: expected an array of strings".to_string()),
        }
        if let Some(url) = string("url")? {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("history.url: expected an http(s) URL, got `{url}`"));
            }
            config.clickhouse.url = url.trim_end_matches('/').to_string();
        }
        if let Some(database) = string("database")? {
            if database.is_empty()
                || !database
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return Err("history.database: expected letters, digits and `_`".to_string());
            }
            config.clickhouse.database = database;
        }
        config.clickhouse.user = string("user")?;
        config.clickhouse.password = string("password")?;
        if let Some(ms) = integer("timeout_ms", 1, 600_000)? {
            config.clickhouse.timeout = Duration::from_millis(ms as u64);
        }
        if let Some(value) = boolean("auto_ingest")? {
            config.auto_ingest = value;
        }
        if let Some(value) = integer("max_results", 1, 1000)? {
            config.max_results = value;
        }
        if let Some(value) = integer("default_limit", 1, 1000)? {
            config.default_limit = value;
        }
        if let Some(value) = integer("max_query_terms", 1, 1024)? {
            config.max_query_terms = value as usize;
        }
        if let Some(value) = integer("max_context", 0, 1000)? {
            config.max_context = value;
        }
        if let Some(value) = integer("default_before", 0, 1000)? {
            config.default_before = value;
        }
        if let Some(value) = integer("default_after", 0, 1000)? {
            config.default_after = value;
        }
        if let Some(value) = boolean("include_tool_events")? {
            config.include_tool_events = value;
        }
        if let Some(value) = integer("snippet_chars", 20, 10_000)? {
            config.snippet_chars = value as usize;
        }
        if let Some(value) = float("k1", 0.0, 10.0)? {
            config.k1 = value;
        }
        if let Some(value) = float("b", 0.0, 1.0)? {
            config.b = value;
        }
        config.default_limit = config.default_limit.min(config.max_results);
        config.default_before = config.default_before.min(config.max_context);
        config.default_after = config.default_after.min(config.max_context);
        Ok(config)
    }
}

fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HistoryConfig, String> {
        let value: toml::Table = toml::from_str(text).map_err(|error| error.to_string())?;
        HistoryConfig::from_toml(Path::new("/h"), value.get("history"))
    }

    #[test]
    fn defaults_and_overrides() {
        let config = parse("").expect("defaults");
        assert_eq!(config.backend, BackendKind::Embedded);
        assert_eq!(config.index_path, Path::new("/h/history/index.sqlite"));
        let config = parse(
            "[history]\nbackend = \"clickhouse\"\nurl = \"http://10.0.0.1:8123/\"\nsources = [\"/codex/sessions\"]\nk1 = 1.5\n",
        )
        .expect("parses");
        assert_eq!(config.backend, BackendKind::ClickHouse);
        assert_eq!(config.clickhouse.url, "http://10.0.0.1:8123");
        assert_eq!(
            config.sources.last(),
            Some(&PathBuf::from("/codex/sessions"))
        );
        assert_eq!(config.k1, 1.5);
    }

    #[test]
    fn bad_values_name_the_key() {
        assert_eq!(
            parse("[history]\nbackend = \"redis\"\n").err().as_deref(),
            Some("history.backend: unknown backend `redis` (expected `embedded` or `clickhouse`)")
        );
        assert!(parse("[history]\nmax_results = -1\n").is_err_and(|e| e.contains("max_results")));
        assert!(parse("[history]\nbakend = 1\n").is_err_and(|e| e.contains("unknown key")));
        assert!(parse("[history]\ndatabase = \"x; drop\"\n").is_err());
    }
}
