//! Bearer-token authentication of the network listeners (`mcp-server --http`, `app-server
//! --listen ws://`): who each request acts for.
//!
//! Three modes. By default the server draws a token at startup, writes it to a file under
//! `$TANDEM_HOME` (mode 0600: `mcp-http.token`, `app-server-ws.token`) and accepts it as the
//! principal `default`. A token file (`--auth-token-file`, `--ws-token-file`) names one
//! principal per line (`NAME TOKEN`) and is re-read when it changes, so that a token is
//! rotated or revoked without a restart. `none` (loopback addresses only) accepts every
//! request as the local user.
//!
//! Tokens are compared in constant time and never logged: the table's `Debug` shows names
//! only.

use std::fmt;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::http::{HeaderMap, header};
use tandem_core::principal::Principal;

/// The file `mcp-server --http` writes its generated token to, under `$TANDEM_HOME`.
pub const GENERATED_TOKEN_FILE: &str = "mcp-http.token";
/// The principal of a token file's single bare token line, and of a generated token.
pub const DEFAULT_PRINCIPAL: &str = "default";
/// Shortest accepted token, in bytes: a short token can be guessed.
pub const MIN_TOKEN_BYTES: usize = 16;
/// Longest accepted token, in bytes.
pub const MAX_TOKEN_BYTES: usize = 1024;
/// Longest principal name, in bytes.
pub const MAX_NAME_BYTES: usize = 64;
/// Largest token file read.
pub const MAX_TOKEN_FILE_BYTES: u64 = 1024 * 1024;
/// How often a token file is checked for changes.
const RELOAD_PERIOD: Duration = Duration::from_millis(250);

/// How requests are authenticated.
#[derive(Clone)]
pub enum Authentication {
    /// `--auth none`: no token is asked for; every request acts for the local user.
    Disabled,
    /// Every request must carry `Authorization: Bearer <token>` with a token of the table.
    Tokens(Arc<TokenTable>),
}

impl fmt::Debug for Authentication {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Authentication::Disabled => formatter.write_str("Disabled"),
            Authentication::Tokens(table) => formatter
                .debug_tuple("Tokens")
                .field(&table.principal_names())
                .finish(),
        }
    }
}

impl Authentication {
    /// The principal the request's bearer token names; `None` when a token is required and
    /// the request has none, or one no principal holds.
    pub fn principal(&self, headers: &HeaderMap) -> Option<Principal> {
        match self {
            Authentication::Disabled => Some(Principal::local_user()),
            Authentication::Tokens(table) => table.principal_of(bearer_token(headers)?.as_bytes()),
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// One accepted token and the principal it names.
#[derive(Clone)]
pub struct TokenEntry {
    principal: Principal,
    token: Box<[u8]>,
}

impl fmt::Debug for TokenEntry {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "TokenEntry({}, ****)", self.principal)
    }
}

/// The accepted tokens, swapped whole when the token file changes.
pub struct TokenTable {
    entries: RwLock<Arc<[TokenEntry]>>,
    /// The token file, re-read when it changes; `None` for a generated token.
    source: Option<PathBuf>,
    /// The version of the token file the entries were read from.
    loaded: Option<FileVersion>,
}

impl TokenTable {
    /// Reads the token file given with `flag` (`--auth-token-file`, `--ws-token-file`); a
    /// missing, unreadable, empty or malformed file is an error naming the flag, the file
    /// (and the line).
    pub fn from_file(flag: &str, path: &Path) -> anyhow::Result<TokenTable> {
        let (text, version) = read_token_file(path)
            .map_err(|error| anyhow::anyhow!("cannot read {flag} {}: {error}", path.display()))?;
        let entries = parse_token_file(&text)
            .map_err(|error| anyhow::anyhow!("{flag} {}: {error}", path.display()))?;
        if entries.is_empty() {
            anyhow::bail!(
                "{flag} {} holds no token (lines `NAME TOKEN`, or one bare token)",
                path.display()
            );
        }
        Ok(TokenTable {
            entries: RwLock::new(entries.into()),
            source: Some(path.to_path_buf()),
            loaded: Some(version),
        })
    }

    /// The tokens accepted now, as text (for masking them in what is kept; never logged).
    pub fn tokens(&self) -> Vec<String> {
        let entries = self
            .entries
            .read()
            .map(|entries| Arc::clone(&entries))
            .unwrap_or_else(|poisoned| Arc::clone(&poisoned.into_inner()));
        entries
            .iter()
            .map(|entry| String::from_utf8_lossy(&entry.token).into_owned())
            .collect()
    }

    /// Draws a token from the OS random generator for the principal `default` and writes it
    /// to `home/file_name` (mode 0600, replaced atomically). Returns the table and the
    /// file's path.
    pub fn generate(home: &Path, file_name: &str) -> anyhow::Result<(TokenTable, PathBuf)> {
        let token =
            random_hex().map_err(|error| anyhow::anyhow!("cannot draw a random token: {error}"))?;
        let path = home.join(file_name);
        write_private_file(&path, format!("{token}\n").as_bytes())
            .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", path.display()))?;
        let entry = TokenEntry {
            principal: Principal::named(DEFAULT_PRINCIPAL),
            token: token.into_bytes().into_boxed_slice(),
        };
        let table = TokenTable {
            entries: RwLock::new(Arc::from(vec![entry])),
            source: None,
            loaded: None,
        };
        Ok((table, path))
    }

    /// The principal holding `token`. Every entry is compared, each in constant time, so
    /// the time taken does not tell which entry (or how much of a token) matched.
    pub fn principal_of(&self, token: &[u8]) -> Option<Principal> {
        let entries = self.snapshot();
        let mut found = None;
        for entry in entries.iter() {
            if constant_time_eq(token, &entry.token) {
                found = Some(entry.principal.clone());
            }
        }
        found
    }

    /// The token file this table is read from, if any.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    fn snapshot(&self) -> Arc<[TokenEntry]> {
        match self.entries.read() {
            Ok(entries) => entries.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn replace(&self, entries: Vec<TokenEntry>) {
        let entries: Arc<[TokenEntry]> = entries.into();
        match self.entries.write() {
            Ok(mut current) => *current = entries,
            Err(poisoned) => *poisoned.into_inner() = entries,
        }
    }

    fn principal_names(&self) -> Vec<String> {
        self.snapshot()
            .iter()
            .map(|entry| entry.principal.name().to_string())
            .collect()
    }
}

/// 32 bytes from the OS random generator, as 64 lowercase hex digits.
pub fn random_hex() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Why a token file does not parse.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct TokenFileError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Parses a token file: lines `NAME TOKEN`, or a single bare `TOKEN` line (principal
/// `default`); blank lines and lines starting with `#` are skipped. A name may hold several
/// tokens (to rotate one without a gap); a token may belong to one name only.
pub fn parse_token_file(text: &str) -> Result<Vec<TokenEntry>, TokenFileError> {
    let mut entries: Vec<TokenEntry> = Vec::new();
    let mut bare_line = None;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let error = |reason: String| TokenFileError {
            line: line_number,
            reason,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (name, token) = match fields.as_slice() {
            [token] => {
                bare_line = Some(line_number);
                (DEFAULT_PRINCIPAL, *token)
            }
            [name, token] => (*name, *token),
            _ => {
                return Err(error(
                    "expected `NAME TOKEN` (or a single bare token line)".into(),
                ));
            }
        };
        check_name(name).map_err(error)?;
        check_token(token).map_err(error)?;
        if entries
            .iter()
            .any(|entry| constant_time_eq(token.as_bytes(), &entry.token))
        {
            return Err(error(
                "this token is already listed on an earlier line".into(),
            ));
        }
        entries.push(TokenEntry {
            principal: Principal::named(name),
            token: token.as_bytes().into(),
        });
    }
    if let Some(line) = bare_line
        && entries.len() > 1
    {
        return Err(TokenFileError {
            line,
            reason: "a bare token is allowed only as the file's single line; write `NAME TOKEN`"
                .into(),
        });
    }
    Ok(entries)
}

fn check_name(name: &str) -> Result<(), String> {
    if name.len() > MAX_NAME_BYTES {
        return Err(format!("name longer than {MAX_NAME_BYTES} bytes"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'))
    {
        return Err("a name is letters, digits, `-`, `_`, `.` and `@`".into());
    }
    if name == tandem_core::principal::LOCAL_USER {
        return Err(format!(
            "`{name}` is the local user of the stdio front ends; choose another name"
        ));
    }
    Ok(())
}

fn check_token(token: &str) -> Result<(), String> {
    if token.len() < MIN_TOKEN_BYTES {
        return Err(format!(
            "token shorter than {MIN_TOKEN_BYTES} characters (e.g. `openssl rand -hex 32`)"
        ));
    }
    if token.len() > MAX_TOKEN_BYTES {
        return Err(format!("token longer than {MAX_TOKEN_BYTES} characters"));
    }
    if !token.bytes().all(|byte| byte.is_ascii_graphic()) {
        return Err("a token is visible ASCII characters only".into());
    }
    Ok(())
}

/// Compares a presented token with an accepted one without an early exit: the time depends
/// on the presented token's length only.
pub fn constant_time_eq(presented: &[u8], accepted: &[u8]) -> bool {
    let mut difference = u8::from(presented.len() != accepted.len());
    for (index, byte) in presented.iter().enumerate() {
        let other = accepted.get(index).copied().unwrap_or(0);
        difference |= byte ^ other;
    }
    difference == 0
}

/// The text of a token file and the version it was read from (taken first, so that a change
/// during the read is seen as a newer version).
fn read_token_file(path: &Path) -> std::io::Result<(String, FileVersion)> {
    let metadata = std::fs::metadata(path)?;
    if metadata.len() > MAX_TOKEN_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_TOKEN_FILE_BYTES} bytes"
        )));
    }
    Ok((std::fs::read_to_string(path)?, FileVersion::of(&metadata)))
}

/// Writes `contents` to `path` with mode 0600, through a temporary file in the same directory
/// renamed over it, so that a reader sees the old file or the whole new one.
pub fn write_private_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let directory = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(directory)?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = directory.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(contents)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// What identifies one version of a file: replacing it (rename) changes the inode, writing it
/// changes its size or times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileVersion {
    inode: u64,
    len: u64,
    modified_ns: (i64, i64),
    changed_ns: (i64, i64),
}

impl FileVersion {
    fn of(metadata: &std::fs::Metadata) -> FileVersion {
        FileVersion {
            inode: metadata.ino(),
            len: metadata.len(),
            modified_ns: (metadata.mtime(), metadata.mtime_nsec()),
            changed_ns: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

/// Re-reads the table's token file whenever it changes, for as long as the server runs.
/// A new version replaces every token at once (a token no longer listed is refused from the
/// next request on); a file that is missing, unreadable or malformed leaves the tokens as
/// they were and is reported on stderr.
pub async fn watch_token_file(table: Arc<TokenTable>) {
    let Some(path) = table.source().map(Path::to_path_buf) else {
        return;
    };
    let mut known = table.loaded;
    let mut missing = false;
    loop {
        tokio::time::sleep(RELOAD_PERIOD).await;
        let version = match tokio::fs::metadata(&path).await {
            Ok(metadata) => FileVersion::of(&metadata),
            Err(error) => {
                if !missing {
                    report_reload(&path, Err(&error.to_string()));
                    missing = true;
                }
                continue;
            }
        };
        missing = false;
        if known == Some(version) {
            continue;
        }
        let reading = path.clone();
        let loaded = tokio::task::spawn_blocking(move || {
            let (text, version) = read_token_file(&reading).map_err(|error| error.to_string())?;
            let entries = parse_token_file(&text).map_err(|error| error.to_string())?;
            Ok((entries, version))
        })
        .await
        .unwrap_or_else(|error| Err(error.to_string()));
        // A file that does not parse is not read again until it changes.
        known = Some(version);
        match loaded {
            Ok((entries, read)) => {
                known = Some(read);
                let count = entries.len();
                table.replace(entries);
                tracing::info!(tokens = count, "token file reloaded");
                report_reload(&path, Ok(count));
            }
            Err(error) => report_reload(&path, Err(&error)),
        }
    }
}

/// Tells whoever started the server that the token file was reloaded (or why not).
#[allow(
    clippy::print_stderr,
    reason = "the operator who rotates tokens reads the outcome on stderr"
)]
fn report_reload(path: &Path, outcome: Result<usize, &str>) {
    match outcome {
        Ok(count) => eprintln!(
            "tandem mcp-server: token file {} reloaded: {count} token(s)",
            path.display()
        ),
        Err(error) => eprintln!(
            "tandem mcp-server: token file {} not reloaded: {error}; the previous tokens stay in force",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use pretty_assertions::assert_eq;

    use super::*;

    fn names(entries: &[TokenEntry]) -> Vec<(String, String)> {
        entries
            .iter()
            .map(|entry| {
                (
                    entry.principal.name().to_string(),
                    String::from_utf8_lossy(&entry.token).to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn token_files_name_principals_and_allow_comments_and_blank_lines() {
        let entries = parse_token_file(
            "# operators\n\nalice aaaaaaaaaaaaaaaa1\n  bob   bbbbbbbbbbbbbbbb2  \nalice aaaaaaaaaaaaaaaa3\n",
        )
        .unwrap();
        assert_eq!(
            names(&entries),
            vec![
                ("alice".into(), "aaaaaaaaaaaaaaaa1".into()),
                ("bob".into(), "bbbbbbbbbbbbbbbb2".into()),
                ("alice".into(), "aaaaaaaaaaaaaaaa3".into()),
            ]
        );
        let bare = parse_token_file("# one token\n0123456789abcdef0123\n").unwrap();
        assert_eq!(
            names(&bare),
            vec![("default".into(), "0123456789abcdef0123".into())]
        );
        assert_eq!(parse_token_file("# nothing\n\n").unwrap().len(), 0);
    }

    #[test]
    fn malformed_token_files_name_the_line() {
        let cases = [
            ("alice a b c\n", 1),
            ("alice short\n", 1),
            ("# c\nalice aaaaaaaaaaaaaaaa1\nbob aaaaaaaaaaaaaaaa1\n", 3),
            ("alice aaaaaaaaaaaaaaaa1\nbbbbbbbbbbbbbbbbbbbb\n", 2),
            ("al/ice aaaaaaaaaaaaaaaa1\n", 1),
            ("local aaaaaaaaaaaaaaaa1\n", 1),
            ("alice aaaaaaaaaaaaaaaa\u{e9}\n", 1),
        ];
        for (text, line) in cases {
            let error = parse_token_file(text).unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error}");
        }
    }

    #[test]
    fn a_token_names_its_principal_and_nothing_else_does() {
        let table = TokenTable {
            entries: RwLock::new(
                parse_token_file("alice aaaaaaaaaaaaaaaa1\nbob bbbbbbbbbbbbbbbb2\n")
                    .unwrap()
                    .into(),
            ),
            source: None,
            loaded: None,
        };
        let authentication = Authentication::Tokens(Arc::new(table));
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
            authentication.principal(&headers)
        };
        assert_eq!(
            with("Bearer aaaaaaaaaaaaaaaa1"),
            Some(Principal::named("alice"))
        );
        assert_eq!(
            with("bearer  bbbbbbbbbbbbbbbb2"),
            Some(Principal::named("bob"))
        );
        assert_eq!(with("Bearer aaaaaaaaaaaaaaaa"), None);
        assert_eq!(with("Bearer aaaaaaaaaaaaaaaa12"), None);
        assert_eq!(with("Basic aaaaaaaaaaaaaaaa1"), None);
        assert_eq!(with("Bearer "), None);
        assert_eq!(authentication.principal(&HeaderMap::new()), None);
        assert_eq!(
            Authentication::Disabled.principal(&HeaderMap::new()),
            Some(Principal::local_user())
        );
        let shown = format!("{authentication:?}");
        assert!(!shown.contains("aaaa"), "{shown}");
    }

    #[test]
    fn a_generated_token_is_private_and_replaces_the_previous_one() {
        let home = tempfile::tempdir().unwrap();
        let (first, path) = TokenTable::generate(home.path(), GENERATED_TOKEN_FILE).unwrap();
        let mode = std::fs::metadata(&path).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let token = std::fs::read_to_string(&path).unwrap();
        assert_eq!(token.trim().len(), 64);
        assert_eq!(
            first.principal_of(token.trim().as_bytes()),
            Some(Principal::named(DEFAULT_PRINCIPAL))
        );
        let (second, _) = TokenTable::generate(home.path(), GENERATED_TOKEN_FILE).unwrap();
        assert_ne!(std::fs::read_to_string(&path).unwrap(), token);
        assert_eq!(second.principal_of(token.trim().as_bytes()), None);
        let leftovers: Vec<_> = std::fs::read_dir(home.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "only the token file remains");
    }
}
