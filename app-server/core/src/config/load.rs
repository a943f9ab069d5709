//! Loading and merging config layers.
//!
//! Precedence, lowest first: built-in defaults, `$TANDEM_HOME/config.toml`, the active
//! `[profiles.NAME]` table, `-c key=value` flags, and per-thread overrides
//! ([`Config::with_overrides`]).
//! Every value remembers where it was set, so that an error names the file, line and key.

mod clients;
mod layer;
mod mcp_servers;
mod query_index;
mod resolve;
mod shell_environment;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use app_server_protocol::utility::{
    ConfigLayer, ConfigLayerMetadata, ConfigLayerSource, ConfigReadResponse,
};

use crate::config::{Config, ConfigOrigin};

use self::layer::Tracked;

pub use self::clients::{CLIENT_CONFIG_KEYS, refused_client_key};

/// Why the configuration could not be loaded.
///
/// Messages start with where the bad value was set: `file:line` for `config.toml`,
/// ``-c `key=value` `` for a flag, or `config override` for a per-thread override.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `TANDEM_HOME` could not be turned into an absolute directory.
    #[error("cannot resolve TANDEM_HOME: {reason}")]
    Home {
        /// What was missing.
        reason: String,
    },
    /// The config file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The config file is not valid TOML.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The config file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column (in characters) of the error.
        column: usize,
        /// The TOML parser's message.
        message: String,
    },
    /// A `-c` flag is not `key=value`, or its key is empty.
    #[error("invalid -c override `{flag}`: {reason}")]
    InvalidFlag {
        /// The flag's argument as given.
        flag: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `--strict-config` was given and the configuration has keys this version does not know.
    #[error("unknown config keys (refused by --strict-config): {}", keys.join(", "))]
    UnknownKeys {
        /// Each unknown key with where it was set.
        keys: Vec<String>,
    },
    /// A per-thread override key is empty.
    #[error("invalid config override `{key}`: {reason}")]
    InvalidOverride {
        /// The dotted key as given.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A known key has a value of the wrong type or an unknown enum value.
    #[error("{location}: invalid value for `{key}`: {message}")]
    InvalidValue {
        /// Where the value was set (`/path/config.toml:12`, ``-c `k=v` ``, `config override`).
        location: String,
        /// Dotted key as written in its layer (`profiles.fast.approval_policy`).
        key: String,
        /// What is wrong with the value.
        message: String,
    },
    /// `profile` names a profile with no `[profiles.NAME]` table.
    #[error("{location}: config profile `{name}` not found")]
    ProfileNotFound {
        /// Where `profile` was set.
        location: String,
        /// The missing profile.
        name: String,
    },
    /// `model_provider` (or a thread's `modelProvider`) names no known provider.
    #[error("{}model provider `{id}` not found", location_prefix(.location.as_deref()))]
    ProviderNotFound {
        /// Where the provider id was set; `None` when it came from a request parameter.
        location: Option<String>,
        /// The missing provider id.
        id: String,
    },
    /// A client's `config` override names a key it may not set (`[clients]`,
    /// `allow_client_config`).
    #[error("config key `{key}` cannot be set by a client: {reason}")]
    RefusedClientKey {
        /// The dotted key as the client wrote it (nested objects joined with dots).
        key: String,
        /// Why, and which setting would allow it.
        reason: String,
    },
    /// A `[model_providers.NAME]` table cannot define a provider.
    #[error("{location}: invalid model provider `{id}`: {reason}")]
    InvalidProvider {
        /// Where the provider table was set.
        location: String,
        /// The provider id.
        id: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl Config {
    /// Loads `home/config.toml` and applies the active profile and the `-c key=value` flags.
    ///
    /// `home` defaults to `$TANDEM_HOME`, then `$HOME/.tandem`, and is made absolute.
    /// A missing config file is the same as an empty one.
    pub fn load(home: Option<PathBuf>, overrides: &[String]) -> Result<Config, ConfigError> {
        Self::load_checked(home, overrides, false)
    }

    /// [`Config::load`], and with `strict` a key this version does not know is an error
    /// ([`ConfigError::UnknownKeys`]) instead of a warning (`--strict-config`).
    pub fn load_checked(
        home: Option<PathBuf>,
        overrides: &[String],
        strict: bool,
    ) -> Result<Config, ConfigError> {
        let environment = HomeEnvironment {
            tandem_home: std::env::var_os("TANDEM_HOME"),
            home: std::env::var_os("HOME"),
            current_dir: std::env::current_dir().ok(),
        };
        let home = resolve_home(home, &environment)?;
        let config_file = home.join("config.toml");
        let text = match std::fs::read_to_string(&config_file) {
            Ok(text) => Some(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(ConfigError::Read {
                    path: config_file,
                    source,
                });
            }
        };
        Config::resolve_user_text(home, text.as_deref(), overrides, strict)
    }

    /// The configuration of `home` whose `config.toml` holds `text` (`None`: no file), with
    /// the `-c key=value` flags `overrides` applied; what [`Config::load`] does after reading
    /// the file, and what a config write checks its result with before writing it.
    pub fn from_user_text(
        home: PathBuf,
        text: Option<&str>,
        overrides: &[String],
    ) -> Result<Config, ConfigError> {
        Config::resolve_user_text(home, text, overrides, false)
    }

    /// [`Config::from_user_text`], with unknown keys an error when `strict`.
    fn resolve_user_text(
        home: PathBuf,
        text: Option<&str>,
        overrides: &[String],
        strict: bool,
    ) -> Result<Config, ConfigError> {
        let config_file = home.join("config.toml");
        let user = match text {
            Some(text) => Tracked::parse_file(&config_file, text)?,
            None => Tracked::default(),
        };
        let user_version = table_version(&user.table);
        let flags = Tracked::parse_flags(overrides)?;

        let mut with_flags = user.clone();
        with_flags.merge(flags.clone());
        let profile = layer::active_profile(&with_flags)?;
        let mut effective = user;
        if let Some((_, profile_layer)) = &profile {
            effective.merge(profile_layer.clone());
        }
        effective.merge(flags);

        let profile = profile.map(|(name, _)| name);
        let resolved = resolve::resolve(home, config_file, profile, effective)?;
        if strict && !resolved.unknown_keys.is_empty() {
            let keys = resolved
                .unknown_keys
                .iter()
                .map(|unknown| format!("{}: `{}`", unknown.location, unknown.key))
                .collect();
            return Err(ConfigError::UnknownKeys { keys });
        }
        for unknown in &resolved.unknown_keys {
            tracing::warn!(
                "{}: unknown config key `{}` ignored",
                unknown.location,
                unknown.key
            );
        }
        let mut config = resolved.config;
        config.flags = overrides.to_vec();
        config.user_version = user_version;
        Ok(config)
    }

    /// Applies per-thread overrides (`thread/start`'s `config`: dotted keys → JSON values)
    /// on top of this config, as another session-flags layer.
    ///
    /// JSON `null` values are ignored.
    /// Setting `profile` to another profile applies its table beneath these overrides.
    pub fn with_overrides(
        &self,
        overrides: &BTreeMap<String, serde_json::Value>,
    ) -> Result<Config, ConfigError> {
        let base = Tracked::from_config(self);
        let overrides = Tracked::from_json(overrides)?;

        let mut effective = base.clone();
        let mut profile = self.profile.clone();
        if overrides.table.contains_key("profile") {
            let mut with_overrides = base;
            with_overrides.merge(overrides.clone());
            if let Some((name, profile_layer)) = layer::active_profile(&with_overrides)?
                && profile.as_ref() != Some(&name)
            {
                // The loaded config already has the old profile merged in; the new one goes
                // on top of it (so it also wins over `-c` flags) and below these overrides.
                effective.merge(profile_layer);
                profile = Some(name);
            }
        }
        let new_keys = overrides.source_keys();
        effective.merge(overrides);

        let resolved = resolve::resolve(
            self.home.clone(),
            self.config_file.clone(),
            profile,
            effective,
        )?;
        for unknown in &resolved.unknown_keys {
            if new_keys
                .iter()
                .any(|key| layer::is_within(key, &unknown.key))
            {
                tracing::warn!(
                    "{}: unknown config key `{}` ignored",
                    unknown.location,
                    unknown.key
                );
            }
        }
        let mut config = resolved.config;
        // The index state is the server's, not configuration: a thread's config keeps it.
        config.query_project_index.state = self.query_project_index.state.clone();
        config.flags = self.flags.clone();
        config.user_version = self.user_version.clone();
        Ok(config)
    }
}

/// Builds the `config/read` result.
///
/// `config` is the effective table with every well-known top-level key present (`null` when
/// unset); `layers` is `None` unless `include_layers`, then the user and session-flags layers
/// that set at least one key.
/// Versions are [`table_version`]s: the user layer's is that of `config.toml` as loaded, the
/// version config writes compare `expectedVersion` with.
pub fn config_read_response(config: &Config, include_layers: bool) -> ConfigReadResponse {
    let mut effective = layer::toml_table_to_json(&config.effective);
    for key in WELL_KNOWN_KEYS {
        effective
            .entry(key.to_owned())
            .or_insert(serde_json::Value::Null);
    }

    let user_table = layer::filter_leaves(&config.effective, |key| {
        config.origins.get(key) == Some(&ConfigOrigin::User)
    });
    let flags_table = layer::filter_leaves(&config.effective, |key| {
        config.origins.get(key) == Some(&ConfigOrigin::SessionFlags)
    });
    let user = ConfigLayerMetadata {
        name: ConfigLayerSource::User {
            file: config.config_file.display().to_string(),
            profile: config.profile.clone(),
        },
        version: config.user_version.clone(),
    };
    let flags = ConfigLayerMetadata {
        name: ConfigLayerSource::SessionFlags,
        version: table_version(&flags_table),
    };

    let origins = config
        .origins
        .iter()
        .map(|(key, origin)| {
            let metadata = match origin {
                ConfigOrigin::User => user.clone(),
                ConfigOrigin::SessionFlags => flags.clone(),
            };
            (key.clone(), metadata)
        })
        .collect();

    let layers = include_layers.then(|| {
        [(user, user_table), (flags, flags_table)]
            .into_iter()
            .filter(|(_, table)| !table.is_empty())
            .map(|(metadata, table)| ConfigLayer {
                name: metadata.name,
                version: metadata.version,
                config: serde_json::Value::Object(layer::toml_table_to_json(&table)),
            })
            .collect()
    });

    ConfigReadResponse {
        config: serde_json::Value::Object(effective),
        origins,
        layers,
        instruction_sources: None,
    }
}

/// Top-level keys `config/read` always reports, `null` when unset, like Codex.
const WELL_KNOWN_KEYS: [&str; 13] = [
    "model",
    "review_model",
    "model_provider",
    "approval_policy",
    "sandbox_mode",
    "sandbox_workspace_write",
    "model_reasoning_effort",
    "model_reasoning_summary",
    "instructions",
    "developer_instructions",
    "profile",
    "model_providers",
    "profiles",
];

/// The process environment `TANDEM_HOME` is resolved from.
struct HomeEnvironment {
    tandem_home: Option<OsString>,
    home: Option<OsString>,
    current_dir: Option<PathBuf>,
}

/// Resolves `TANDEM_HOME`: the explicit path, else `$TANDEM_HOME`, else `$HOME/.tandem`.
///
/// Empty variables count as unset, a leading `~/` is expanded with `$HOME`, and a relative
/// result is joined to the current directory.
fn resolve_home(
    explicit: Option<PathBuf>,
    environment: &HomeEnvironment,
) -> Result<PathBuf, ConfigError> {
    let user_home = environment
        .home
        .as_ref()
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let tandem_home = environment
        .tandem_home
        .as_ref()
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let home = match explicit.or(tandem_home) {
        Some(path) => expand_tilde(path, user_home.as_deref())?,
        None => match user_home {
            Some(user_home) => user_home.join(".tandem"),
            None => {
                return Err(ConfigError::Home {
                    reason: "neither TANDEM_HOME nor HOME is set".to_owned(),
                });
            }
        },
    };
    if home.is_absolute() {
        return Ok(home);
    }
    match &environment.current_dir {
        Some(current_dir) => Ok(current_dir.join(home)),
        None => Err(ConfigError::Home {
            reason: format!(
                "cannot make `{}` absolute: the current directory is unknown",
                home.display()
            ),
        }),
    }
}

/// Expands a leading `~` component with the user's home directory.
fn expand_tilde(path: PathBuf, user_home: Option<&Path>) -> Result<PathBuf, ConfigError> {
    let Ok(rest) = path.strip_prefix("~") else {
        return Ok(path);
    };
    match user_home {
        Some(user_home) => Ok(user_home.join(rest)),
        None => Err(ConfigError::Home {
            reason: format!("cannot expand `{}`: HOME is not set", path.display()),
        }),
    }
}

/// The version of a config table, as the reference computes it: `sha256:` and the hex SHA-256
/// of the table as compact JSON with every object's keys in sorted order. Equal tables have
/// equal versions whatever their comments, spacing or key order in the file.
pub fn table_version(table: &toml::Table) -> String {
    json_version(&serde_json::Value::Object(layer::toml_table_to_json(table)))
}

/// `sha256:` and the hex SHA-256 of `value` as compact JSON with every object's keys in
/// sorted order: the reference's version of a config table and its hash of a hook.
pub fn json_version(value: &serde_json::Value) -> String {
    use sha2::Digest as _;
    let mut text = String::new();
    canonical_json(value, &mut text);
    let digest = sha2::Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// Compact JSON with sorted object keys, whatever order the map keeps them in.
fn canonical_json(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(inner) = object.get(key) {
                    canonical_json(inner, out);
                }
            }
            out.push('}');
        }
        serde_json::Value::Array(array) => {
            out.push('[');
            for (index, inner) in array.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                canonical_json(inner, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `"{location}: "`, or nothing when there is no location.
fn location_prefix(location: Option<&str>) -> String {
    location.map_or_else(String::new, |location| format!("{location}: "))
}
