//! The `requestState` of 2026-07-28 multi-round-trip requests: an opaque string the server
//! hands out with a `resultType: "input_required"` result and the client echoes with its
//! `inputResponses`.
//!
//! A state is `BASE64URL(claims) "." BASE64URL(HMAC-SHA256(key, claims))`. The claims name the
//! principal the state was issued to, the request it continues (`tools/call:NAME`,
//! `prompts/get:NAME`), the one pending question it answers (a random id), when it expires
//! and what the server needs to go on (`data`). A state is redeemed once: a second use, a
//! state of another principal or for another request, one whose signature does not match and
//! an expired one are refused with `-32602` (the spec's error for a request state that fails
//! its integrity check) and change nothing.
//!
//! The key is the operator's (`[mcp.request_state] key`, shared by the nodes of a cluster
//! through their configuration) or, without one, 32 random bytes generated once per home in
//! `$TANDEM_HOME/mcp-request-state.key` (mode 0600).
//!
//! A state is marked used in this process and, with `--redis`, also in Redis
//! ([`UsedStates`], one `SET NX` per state), so that a state used on one node of a cluster is
//! refused on every other.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::mcp::distributed::{BoxFuture, StoreError};
use tandem_core::principal::Principal;
use tandem_core::sync::lock;

/// The states used anywhere in a cluster.
pub trait UsedStates: Send + Sync + 'static {
    /// Marks the state of question `question` used until `ttl` has passed: `false` when it
    /// was marked already (by any node).
    fn claim<'a>(
        &'a self,
        question: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
}

/// The file holding a home's generated key.
pub const KEY_FILE: &str = "mcp-request-state.key";
/// How long a state stays valid unless `[mcp.request_state] ttl` says otherwise.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);
/// The longest `requestState` accepted; anything longer is refused unread.
const MAX_STATE_BYTES: usize = 16 * 1024;
/// Fewest bytes of an operator's key (64 hex characters).
const MIN_KEY_BYTES: usize = 32;
/// Most states redeemed and not yet expired that are remembered; beyond it the oldest are
/// dropped first, which can only refuse nothing that would have been accepted before expiry
/// if more than this many states are redeemed within one `ttl`.
const MAX_REDEEMED: usize = 100_000;

/// Issues and redeems the request states of one server.
pub struct RequestStates {
    key: Box<[u8]>,
    ttl: Duration,
    max_pending: usize,
    /// Question ids of redeemed states, with their expiry (unix seconds).
    redeemed: Mutex<HashMap<String, u64>>,
    /// Where the states used by the other nodes of a cluster are marked too (`--redis`).
    shared: OnceLock<Arc<dyn UsedStates>>,
}

impl std::fmt::Debug for RequestStates {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key never reaches a log.
        formatter
            .debug_struct("RequestStates")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// What a redeemed state said.
#[derive(Debug, Clone, PartialEq)]
pub struct Redeemed {
    /// The pending question the state answered.
    pub question: String,
    /// What the server stored in the state when it issued it.
    pub data: Value,
    /// When the state expires (unix seconds).
    pub expires: u64,
}

impl RequestStates {
    /// The states of a server with `key` and `ttl`.
    pub fn new(key: &[u8], ttl: Duration) -> RequestStates {
        RequestStates {
            key: key.into(),
            ttl,
            max_pending: crate::mcp::mrtr::DEFAULT_MAX_PENDING,
            redeemed: Mutex::new(HashMap::new()),
            shared: OnceLock::new(),
        }
    }

    /// Marks used states in `shared` too, so that each is used once in the whole cluster.
    pub fn set_shared(&self, shared: Arc<dyn UsedStates>) {
        let _ = self.shared.set(shared);
    }

    /// Reads `[mcp.request_state]` of the effective configuration: `key` (hex, at least 64
    /// characters) or else the home's generated key, created on first use; `ttl` (a duration,
    /// default 10 minutes); `max_pending` (calls of one principal waiting for input, default 16).
    pub fn load(home: &Path, effective: &toml::Table) -> anyhow::Result<RequestStates> {
        let table = effective
            .get("mcp")
            .and_then(|mcp| mcp.get("request_state"))
            .and_then(toml::Value::as_table);
        let text = |key: &str| {
            table
                .and_then(|table| table.get(key))
                .map(|value| {
                    value.as_str().map(str::to_string).ok_or_else(|| {
                        anyhow::anyhow!("[mcp.request_state] {key} must be a string")
                    })
                })
                .transpose()
        };
        let ttl = match text("ttl")? {
            Some(value) => humantime::parse_duration(&value)
                .map_err(|error| anyhow::anyhow!("[mcp.request_state] ttl = `{value}`: {error}"))?,
            None => DEFAULT_TTL,
        };
        if ttl.is_zero() {
            anyhow::bail!("[mcp.request_state] ttl must be longer than zero");
        }
        let key = match text("key")? {
            Some(hex) => decode_hex(hex.trim())
                .filter(|key| key.len() >= MIN_KEY_BYTES)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "[mcp.request_state] key must be at least {} hex characters",
                        MIN_KEY_BYTES * 2
                    )
                })?,
            None => home_key(home)?,
        };
        let max_pending = match table.and_then(|table| table.get("max_pending")) {
            None => crate::mcp::mrtr::DEFAULT_MAX_PENDING,
            Some(value) => value
                .as_integer()
                .and_then(|value| usize::try_from(value).ok())
                .filter(|value| (1..=10_000).contains(value))
                .ok_or_else(|| {
                    anyhow::anyhow!("[mcp.request_state] max_pending must be an integer 1..=10000")
                })?,
        };
        let mut states = RequestStates::new(&key, ttl);
        states.max_pending = max_pending;
        Ok(states)
    }

    /// How long a state stays valid.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// How many calls of one principal may wait for input at once.
    pub fn max_pending(&self) -> usize {
        self.max_pending
    }

    /// A state for `principal`'s request `target`, answering the pending question `question`
    /// and carrying `data`, valid for the configured time.
    pub fn issue(
        &self,
        principal: &Principal,
        target: &str,
        question: &str,
        data: Value,
    ) -> String {
        let expires = now_secs().saturating_add(self.ttl.as_secs().max(1));
        let claims = json!({
            "p": principal.name(),
            "t": target,
            "q": question,
            "x": expires,
            "d": data,
        });
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let mac = URL_SAFE_NO_PAD.encode(hmac_sha256(&self.key, claims.as_bytes()));
        format!("{claims}.{mac}")
    }

    /// Checks `state` for `principal`'s request `target` and marks it used in this process.
    /// Refused, with nothing marked: a malformed or oversized state, a signature that does not
    /// match, an expired state, a state of another principal or request, and one already
    /// redeemed here.
    #[cfg(any(test, feature = "conformance-fixtures"))]
    pub fn redeem(
        &self,
        state: &str,
        principal: &Principal,
        target: &str,
    ) -> Result<Redeemed, JsonRpcErrorBody> {
        let redeemed = self.check(state, principal, target)?;
        self.mark_used(&redeemed)?;
        Ok(redeemed)
    }

    /// Marks the checked state `redeemed` used, in this process and, with `--redis`, in the
    /// whole cluster: refused when it was used already here or on any node (or when Redis
    /// cannot say, since a state must not be used twice).
    pub async fn claim(&self, redeemed: &Redeemed) -> Result<(), JsonRpcErrorBody> {
        self.mark_used(redeemed)?;
        let Some(shared) = self.shared.get() else {
            return Ok(());
        };
        let ttl = Duration::from_secs(redeemed.expires.saturating_sub(now_secs()).max(1));
        match shared.claim(&redeemed.question, ttl).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(refused("it has already been used")),
            Err(error) => {
                tracing::warn!(%error, "cannot mark a request state used in redis");
                Err(refused("the cluster cannot confirm it is unused"))
            }
        }
    }

    /// Checks `state` for `principal`'s request `target` (see [`RequestStates::redeem`])
    /// without marking it used.
    pub fn check(
        &self,
        state: &str,
        principal: &Principal,
        target: &str,
    ) -> Result<Redeemed, JsonRpcErrorBody> {
        if state.len() > MAX_STATE_BYTES {
            return Err(refused("it is too long"));
        }
        let Some((claims_text, mac)) = state.split_once('.') else {
            return Err(refused("it is malformed"));
        };
        let expected = URL_SAFE_NO_PAD.encode(hmac_sha256(&self.key, claims_text.as_bytes()));
        if !constant_time_eq(mac.as_bytes(), expected.as_bytes()) {
            return Err(refused("its signature does not match"));
        }
        let claims: Value = URL_SAFE_NO_PAD
            .decode(claims_text)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or_else(|| refused("it is malformed"))?;
        let expires = claims["x"].as_u64().unwrap_or(0);
        let now = now_secs();
        if expires <= now {
            return Err(refused("it has expired"));
        }
        if claims["p"].as_str() != Some(principal.name()) {
            return Err(refused("it was issued to another principal"));
        }
        if claims["t"].as_str() != Some(target) {
            return Err(refused("it was issued for another request"));
        }
        let Some(question) = claims["q"].as_str() else {
            return Err(refused("it is malformed"));
        };
        if lock(&self.redeemed).contains_key(question) {
            return Err(refused("it has already been used"));
        }
        Ok(Redeemed {
            question: question.to_string(),
            data: claims["d"].clone(),
            expires,
        })
    }

    /// Marks `redeemed` used in this process; refused when it was already.
    fn mark_used(&self, redeemed: &Redeemed) -> Result<(), JsonRpcErrorBody> {
        let now = now_secs();
        let question = redeemed.question.as_str();
        let expires = redeemed.expires;
        {
            let mut redeemed = lock(&self.redeemed);
            redeemed.retain(|_, expiry| *expiry > now);
            if redeemed.contains_key(question) {
                return Err(refused("it has already been used"));
            }
            if redeemed.len() >= MAX_REDEEMED
                && let Some(oldest) = redeemed
                    .iter()
                    .min_by_key(|(_, expiry)| **expiry)
                    .map(|(id, _)| id.clone())
            {
                redeemed.remove(&oldest);
            }
            redeemed.insert(question.to_string(), expires);
        }
        Ok(())
    }
}

/// The `-32602` error refusing a request state, saying why.
fn refused(why: &str) -> JsonRpcErrorBody {
    crate::rpc_error::invalid_params(format!("requestState refused: {why}"))
}

/// A fresh random question id (32 hex characters).
pub fn new_question_id() -> std::io::Result<String> {
    let mut id = crate::mcp::http::sessions::new_session_id()?;
    id.truncate(32);
    Ok(id)
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0)
}

/// HMAC-SHA256 (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|key_byte| key_byte ^ byte);
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    inner.update(message);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner);
    outer.finalize().into()
}

/// Compares without an early exit.
fn constant_time_eq(presented: &[u8], expected: &[u8]) -> bool {
    let mut difference = u8::from(presented.len() != expected.len());
    for (index, byte) in presented.iter().enumerate() {
        difference |= byte ^ expected.get(index).copied().unwrap_or(0);
    }
    difference == 0
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|index| u8::from_str_radix(text.get(index..index + 2)?, 16).ok())
        .collect()
}

/// The home's generated key: read from [`KEY_FILE`], or drawn from the kernel's random
/// generator and written there (mode 0600, created exclusively, so that two servers starting
/// on one home end up with the same key).
fn home_key(home: &Path) -> anyhow::Result<Vec<u8>> {
    let path = home.join(KEY_FILE);
    let read = |path: &Path| -> anyhow::Result<Vec<u8>> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| anyhow::anyhow!("cannot read {}: {error}", path.display()))?;
        decode_hex(text.trim())
            .filter(|key| key.len() >= MIN_KEY_BYTES)
            .ok_or_else(|| anyhow::anyhow!("{} does not hold a hex key", path.display()))
    };
    if path.exists() {
        return read(&path);
    }
    std::fs::create_dir_all(home)?;
    let key = crate::mcp::http::sessions::new_session_id()
        .map_err(|error| anyhow::anyhow!("cannot draw a random key: {error}"))?;
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path);
    match created {
        Ok(mut file) => {
            file.write_all(format!("{key}\n").as_bytes())?;
            file.sync_all()?;
            decode_hex(&key).ok_or_else(|| anyhow::anyhow!("generated key is not hex"))
        }
        // Another server on this home created it first: use its key.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => read(&path),
        Err(error) => Err(anyhow::anyhow!("cannot write {}: {error}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states() -> RequestStates {
        RequestStates::new(&[7u8; 32], Duration::from_secs(600))
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_state_is_redeemed_once_by_its_principal_for_its_request() {
        let states = states();
        let alice = Principal::named("alice");
        let state = states.issue(&alice, "tools/call:codex", "q1", json!({"round": 1}));
        let other = states.redeem(&state, &Principal::named("bob"), "tools/call:codex");
        assert!(other.unwrap_err().message.contains("another principal"));
        let wrong = states.redeem(&state, &alice, "tools/call:other");
        assert!(wrong.unwrap_err().message.contains("another request"));
        let redeemed = states
            .redeem(&state, &alice, "tools/call:codex")
            .expect("valid");
        assert_eq!(redeemed.data, json!({"round": 1}));
        assert_eq!(redeemed.question, "q1");
        let again = states.redeem(&state, &alice, "tools/call:codex");
        assert!(again.unwrap_err().message.contains("already been used"));
    }

    #[test]
    fn tampered_foreign_and_expired_states_are_refused() {
        let states = states();
        let alice = Principal::named("alice");
        let state = states.issue(&alice, "t", "q", json!(null));
        let tampered = format!("{state}-TAMPERED");
        assert_eq!(
            states.redeem(&tampered, &alice, "t").unwrap_err().code,
            -32602
        );
        let foreign = RequestStates::new(&[8u8; 32], Duration::from_secs(600));
        assert!(foreign.redeem(&state, &alice, "t").is_err());
        // Claims rewritten with a valid-looking signature of another key.
        let (claims, _) = state.split_once('.').expect("dot");
        let forged = format!("{claims}.{}", URL_SAFE_NO_PAD.encode([0u8; 32]));
        assert!(states.redeem(&forged, &alice, "t").is_err());
        let expired = RequestStates::new(&[7u8; 32], Duration::from_secs(600));
        let claims = URL_SAFE_NO_PAD
            .encode(json!({"p": "alice", "t": "t", "q": "old", "x": 1, "d": null}).to_string());
        let mac = URL_SAFE_NO_PAD.encode(hmac_sha256(&[7u8; 32], claims.as_bytes()));
        let old = format!("{claims}.{mac}");
        assert!(
            expired
                .redeem(&old, &alice, "t")
                .unwrap_err()
                .message
                .contains("expired")
        );
    }

    #[test]
    fn the_home_key_is_generated_once_and_private() {
        let home = tempfile::tempdir().expect("tempdir");
        let first = RequestStates::load(home.path(), &toml::Table::new()).expect("load");
        let second = RequestStates::load(home.path(), &toml::Table::new()).expect("load");
        assert_eq!(first.key, second.key);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(home.path().join(KEY_FILE))
                .expect("key file")
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        let config: toml::Table = toml::from_str(&format!(
            "[mcp.request_state]\nkey = \"{}\"\nttl = \"5m\"",
            "ab".repeat(32)
        ))
        .expect("toml");
        let configured = RequestStates::load(home.path(), &config).expect("load");
        assert_eq!(configured.key.as_ref(), [0xab; 32].as_slice());
        assert_eq!(configured.ttl, Duration::from_secs(300));
        let short: toml::Table =
            toml::from_str("[mcp.request_state]\nkey = \"abcd\"").expect("toml");
        assert!(RequestStates::load(home.path(), &short).is_err());
    }
}
