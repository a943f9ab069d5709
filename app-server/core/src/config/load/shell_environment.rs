//! `[shell_environment_policy]`: how the environment of the commands the agent runs is built
//! from the server's (see `docs/configuration.md` and `tools::exec::environment`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::config::ConfigError;
use crate::config::load::layer::{Tracked, join};
use crate::config::load::resolve::{UnknownKey, collect_unknown};
use crate::tools::exec::environment::{EnvironmentInherit, NamePatterns, ShellEnvironmentPolicy};

const PREFIX: &str = "shell_environment_policy";

const KEYS: &[&str] = &[
    "inherit",
    "ignore_default_excludes",
    "exclude",
    "set",
    "include_only",
];

/// The `inherit` values.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum InheritName {
    All,
    Core,
    None,
}

/// Reads the table (every key optional; no table is the default policy).
pub(super) fn resolve(
    effective: &Tracked,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<ShellEnvironmentPolicy, ConfigError> {
    let Some(table) = effective.field::<toml::Table>(&effective.table, "", PREFIX)? else {
        return Ok(ShellEnvironmentPolicy::default());
    };
    collect_unknown(effective, &table, PREFIX, KEYS, unknown_keys);
    let inherit = match effective.field::<InheritName>(&table, PREFIX, "inherit")? {
        None | Some(InheritName::All) => EnvironmentInherit::All,
        Some(InheritName::Core) => EnvironmentInherit::Core,
        Some(InheritName::None) => EnvironmentInherit::None,
    };
    let patterns = |key: &str| -> Result<NamePatterns, ConfigError> {
        let patterns: Vec<String> = effective.field(&table, PREFIX, key)?.unwrap_or_default();
        NamePatterns::new(patterns)
            .map_err(|message| effective.invalid_value(&join(PREFIX, key), &message))
    };
    let set = effective
        .field::<BTreeMap<String, String>>(&table, PREFIX, "set")?
        .unwrap_or_default();
    // Such a variable cannot be passed to a process: say so here, not at every command.
    for (name, value) in &set {
        if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
            return Err(effective.invalid_value(
                &join(PREFIX, "set"),
                &format!(
                    "`{}` is not a valid variable: names are not empty and hold no `=` or NUL, values hold no NUL",
                    name.escape_debug()
                ),
            ));
        }
    }
    Ok(ShellEnvironmentPolicy {
        inherit,
        ignore_default_excludes: effective
            .field(&table, PREFIX, "ignore_default_excludes")?
            .unwrap_or(false),
        exclude: patterns("exclude")?,
        set,
        include_only: patterns("include_only")?,
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::config::Config;

    fn load(text: &str, flags: &[&str]) -> Result<Config, ConfigError> {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), text).unwrap();
        let flags: Vec<String> = flags.iter().map(|flag| flag.to_string()).collect();
        Config::load(Some(home.path().to_path_buf()), &flags)
    }

    fn patterns(patterns: &[&str]) -> NamePatterns {
        NamePatterns::new(patterns.iter().map(|pattern| pattern.to_string()).collect()).unwrap()
    }

    #[test]
    fn every_key_is_read_from_the_file_and_flags() {
        let config = load(
            "[shell_environment_policy]\ninherit = \"core\"\nignore_default_excludes = true\nexclude = [\"AWS_*\"]\nset = { CI = \"1\" }\n",
            &["shell_environment_policy.include_only=[\"PATH\", \"CI\"]"],
        )
        .unwrap();
        assert_eq!(
            config.shell_environment_policy,
            ShellEnvironmentPolicy {
                inherit: EnvironmentInherit::Core,
                ignore_default_excludes: true,
                exclude: patterns(&["AWS_*"]),
                set: BTreeMap::from([("CI".to_string(), "1".to_string())]),
                include_only: patterns(&["PATH", "CI"]),
            }
        );
    }

    #[test]
    fn bad_values_name_the_key() {
        for (text, key, reason) in [
            ("inherit = \"some\"", "inherit", "unknown variant"),
            ("exclude = [\"[x\"]", "exclude", "invalid pattern `[x`"),
            (
                "set = { \"A=B\" = \"1\" }",
                "set",
                "is not a valid variable",
            ),
        ] {
            let error = load(&format!("[shell_environment_policy]\n{text}\n"), &[])
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(&format!("`shell_environment_policy.{key}`"))
                    && error.contains(reason),
                "{error}"
            );
        }
    }
}
