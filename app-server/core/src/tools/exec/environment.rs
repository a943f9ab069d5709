//! The environment a command starts with: built from the server's own by the operator's
//! `[shell_environment_policy]`, never inherited whole.
//!
//! The server's environment holds its credentials (`OPENAI_API_KEY`, tokens of other tools),
//! and a command the model runs can print any variable it sees. So every command (the model's
//! `exec_command`, `command/exec`, `execOneOffCommand`) starts from [`command_environment`],
//! which follows the reference's algorithm:
//!
//! 1. start from the server's variables: all of them, the core ones ([`CORE_VARIABLES`]) or
//!    none (`inherit`);
//! 2. drop those whose names match a default exclude, `*KEY*`, `*SECRET*`, `*TOKEN*` or
//!    `*PASSWORD*` (unless `ignore_default_excludes`);
//! 3. drop those matching an `exclude` pattern;
//! 4. add the `set` variables;
//! 5. when `include_only` is not empty, keep only the variables matching one of its patterns.
//!
//! Patterns are globs (`*`, `?`, `[...]`) matched against the whole name, ignoring case.
//! The request's own variables (`command/exec`'s `env`, the pager settings of
//! `exec_command`) are applied last: whoever names a variable already knows its value.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The variables `inherit = "core"` keeps: what a shell needs to find programs, the user's
/// home and temporary directory, and to print text in the user's locale and terminal.
pub const CORE_VARIABLES: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG",
    "LC_ALL", "TERM", "TZ",
];

/// The patterns dropped unless `ignore_default_excludes`: names that usually hold a secret.
pub const DEFAULT_EXCLUDES: &[&str] = &["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*"];

/// `[shell_environment_policy]`: how a command's environment is built from the server's.
#[derive(Clone, Debug, PartialEq)]
pub struct ShellEnvironmentPolicy {
    /// `inherit`: the starting set (default `all`).
    pub inherit: EnvironmentInherit,
    /// `ignore_default_excludes`: keep names matching [`DEFAULT_EXCLUDES`] (default false).
    pub ignore_default_excludes: bool,
    /// `exclude`: names to drop.
    pub exclude: NamePatterns,
    /// `set`: variables to add (or overwrite), after the excludes.
    pub set: BTreeMap<String, String>,
    /// `include_only`: when not empty, the only names kept (applied after `set`).
    pub include_only: NamePatterns,
}

/// `inherit`: which of the server's variables a command starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvironmentInherit {
    /// Every variable (before the excludes).
    All,
    /// Only [`CORE_VARIABLES`].
    Core,
    /// None: only `set` (and the request's own variables).
    None,
}

/// Glob patterns over variable names, matched against the whole name, ignoring case.
#[derive(Clone)]
pub struct NamePatterns {
    patterns: Vec<String>,
    set: GlobSet,
}

impl Default for ShellEnvironmentPolicy {
    /// The policy without a `[shell_environment_policy]` table: everything but the default
    /// excludes.
    fn default() -> Self {
        ShellEnvironmentPolicy {
            inherit: EnvironmentInherit::All,
            ignore_default_excludes: false,
            exclude: NamePatterns::empty(),
            set: BTreeMap::new(),
            include_only: NamePatterns::empty(),
        }
    }
}

impl ShellEnvironmentPolicy {
    /// The environment the policy builds from `variables` (the server's, in production).
    pub fn apply(
        &self,
        variables: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> BTreeMap<OsString, OsString> {
        let default_excludes = default_excludes();
        let mut environment: BTreeMap<OsString, OsString> = variables
            .into_iter()
            .filter(|(name, _)| match self.inherit {
                EnvironmentInherit::All => true,
                EnvironmentInherit::Core => CORE_VARIABLES
                    .iter()
                    .any(|core| OsStr::new(core) == name.as_os_str()),
                EnvironmentInherit::None => false,
            })
            .filter(|(name, _)| self.ignore_default_excludes || !default_excludes.matches(name))
            .filter(|(name, _)| !self.exclude.matches(name))
            .collect();
        for (name, value) in &self.set {
            environment.insert(OsString::from(name), OsString::from(value));
        }
        if !self.include_only.is_empty() {
            environment.retain(|name, _| self.include_only.matches(name));
        }
        environment
    }
}

/// The environment of a command: the server's variables through `policy`, then `overrides`
/// (`Some` sets a variable, `None` removes it).
pub fn command_environment(
    policy: &ShellEnvironmentPolicy,
    overrides: &BTreeMap<String, Option<String>>,
) -> BTreeMap<OsString, OsString> {
    let mut environment = policy.apply(std::env::vars_os());
    for (name, value) in overrides {
        match value {
            Some(value) => environment.insert(OsString::from(name), OsString::from(value)),
            None => environment.remove(OsStr::new(name)),
        };
    }
    environment
}

impl NamePatterns {
    /// No pattern: matches nothing.
    pub fn empty() -> Self {
        NamePatterns {
            patterns: Vec::new(),
            set: GlobSet::empty(),
        }
    }

    /// Compiles `patterns`; the error names the first invalid one.
    pub fn new(patterns: Vec<String>) -> Result<Self, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in &patterns {
            let glob = GlobBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map_err(|error| format!("invalid pattern `{pattern}`: {error}"))?;
            builder.add(glob);
        }
        let set = builder
            .build()
            .map_err(|error| format!("invalid patterns: {error}"))?;
        Ok(NamePatterns { patterns, set })
    }

    /// Whether no pattern is set.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether `name` matches one of the patterns. A name that is not UTF-8 is matched in its
    /// lossy form.
    pub fn matches(&self, name: &OsStr) -> bool {
        !self.patterns.is_empty() && self.set.is_match(name.to_string_lossy().as_ref())
    }
}

impl PartialEq for NamePatterns {
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl std::fmt::Debug for NamePatterns {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_list().entries(&self.patterns).finish()
    }
}

fn default_excludes() -> NamePatterns {
    let patterns = DEFAULT_EXCLUDES.iter().map(|pattern| pattern.to_string());
    // The built-in patterns are valid globs; an empty set would only keep more variables out
    // of reach of this fallback, never fewer.
    NamePatterns::new(patterns.collect()).unwrap_or_else(|error| {
        tracing::error!("default environment excludes: {error}");
        NamePatterns::empty()
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn server_environment() -> Vec<(OsString, OsString)> {
        [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/user"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("github_token", "ghp"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("DB_PASSWORD", "hunter2"),
            ("EDITOR", "vi"),
            ("CI_JOB", "7"),
        ]
        .into_iter()
        .map(|(name, value)| (OsString::from(name), OsString::from(value)))
        .collect()
    }

    fn names(environment: &BTreeMap<OsString, OsString>) -> Vec<&str> {
        environment
            .keys()
            .map(|name| name.to_str().unwrap())
            .collect()
    }

    fn patterns(patterns: &[&str]) -> NamePatterns {
        NamePatterns::new(patterns.iter().map(|pattern| pattern.to_string()).collect()).unwrap()
    }

    #[test]
    fn the_default_keeps_everything_but_names_that_hold_secrets() {
        let environment = ShellEnvironmentPolicy::default().apply(server_environment());
        assert_eq!(names(&environment), ["CI_JOB", "EDITOR", "HOME", "PATH"]);
    }

    #[test]
    fn ignore_default_excludes_keeps_them() {
        let policy = ShellEnvironmentPolicy {
            ignore_default_excludes: true,
            ..ShellEnvironmentPolicy::default()
        };
        assert_eq!(policy.apply(server_environment()).len(), 8);
    }

    #[test]
    fn core_and_none_start_smaller() {
        let core = ShellEnvironmentPolicy {
            inherit: EnvironmentInherit::Core,
            ..ShellEnvironmentPolicy::default()
        };
        assert_eq!(names(&core.apply(server_environment())), ["HOME", "PATH"]);
        let none = ShellEnvironmentPolicy {
            inherit: EnvironmentInherit::None,
            set: BTreeMap::from([("ONLY".to_string(), "1".to_string())]),
            ..ShellEnvironmentPolicy::default()
        };
        assert_eq!(names(&none.apply(server_environment())), ["ONLY"]);
    }

    #[test]
    fn exclude_set_and_include_only_apply_in_that_order() {
        let policy = ShellEnvironmentPolicy {
            exclude: patterns(&["ed?tor"]),
            set: BTreeMap::from([
                ("CI_EXTRA".to_string(), "x".to_string()),
                ("UNLISTED".to_string(), "y".to_string()),
            ]),
            include_only: patterns(&["PATH", "ci_*", "editor"]),
            ..ShellEnvironmentPolicy::default()
        };
        // `set` adds before `include_only` filters; `exclude` ignores case like the others.
        assert_eq!(
            names(&policy.apply(server_environment())),
            ["CI_EXTRA", "CI_JOB", "PATH"]
        );
    }

    #[test]
    fn an_invalid_pattern_is_named() {
        let error = NamePatterns::new(vec!["ok".into(), "[oops".into()]).unwrap_err();
        assert!(error.starts_with("invalid pattern `[oops`"), "{error}");
    }

    #[test]
    fn request_overrides_apply_last() {
        let overrides = BTreeMap::from([
            ("PAGER".to_string(), Some("cat".to_string())),
            ("PATH".to_string(), None),
        ]);
        let environment = command_environment(&ShellEnvironmentPolicy::default(), &overrides);
        assert_eq!(
            environment.get(OsStr::new("PAGER")),
            Some(&OsString::from("cat"))
        );
        assert!(!environment.contains_key(OsStr::new("PATH")));
    }
}
