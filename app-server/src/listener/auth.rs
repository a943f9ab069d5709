//! Who may open a WebSocket connection on `app-server --listen ws://`, as the reference
//! checks it, and the principal each connection acts for.
//!
//! The token travels only as `Authorization: Bearer <token>` ("bearer" in any case). Without
//! a header the upgrade is refused `401 missing websocket bearer token`; a header of another
//! scheme `401 invalid authorization header`; a token that does not verify `401 invalid
//! websocket bearer token`. A request carrying an `Origin` header (a browser page) is refused
//! `403` unless that origin was allowed with `--allowed-origin` or is the page of `--web`,
//! whose connections present their token in their first message instead ([`super::web`]).

use std::path::Path;
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode, header};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use sha2::{Digest, Sha256};
use tandem_core::principal::Principal;

use crate::listener_auth::{
    DEFAULT_PRINCIPAL, MAX_NAME_BYTES, MIN_TOKEN_BYTES, TokenTable, constant_time_eq,
};

/// The file a generated capability token is written to, under `$TANDEM_HOME`.
pub const GENERATED_WS_TOKEN_FILE: &str = "app-server-ws.token";

/// Default of `--ws-max-clock-skew-seconds`.
pub const DEFAULT_CLOCK_SKEW_SECONDS: u64 = 30;

/// Largest shared-secret file read.
const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

/// How WebSocket upgrades are authenticated.
#[derive(Clone)]
pub enum WsAuth {
    /// `--ws-auth none` (loopback addresses only): every connection acts for the local user.
    Disabled,
    /// Capability tokens: a token file (`NAME TOKEN` lines, or one bare token for the
    /// principal `default`), or a token generated at startup.
    Tokens(Arc<TokenTable>),
    /// `--ws-token-sha256 HEX`: the one token whose SHA-256 is this digest, for `default`.
    TokenDigest([u8; 32]),
    /// `--ws-auth signed-bearer-token`: an HS256 JWT signed with the shared secret, whose
    /// `sub` names the principal (`default` without one).
    Signed(Arc<SignedTokens>),
}

/// The key and checks of signed bearer tokens.
pub struct SignedTokens {
    key: DecodingKey,
    validation: Validation,
}

/// Why an upgrade is refused: the status and the body the reference sends.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// 401 or 403.
    pub status: StatusCode,
    /// The reason, sent as the body.
    pub message: &'static str,
}

const MISSING: Refusal = Refusal {
    status: StatusCode::UNAUTHORIZED,
    message: "missing websocket bearer token",
};
/// A token that does not verify.
pub const INVALID: Refusal = Refusal {
    status: StatusCode::UNAUTHORIZED,
    message: "invalid websocket bearer token",
};
const BAD_HEADER: Refusal = Refusal {
    status: StatusCode::UNAUTHORIZED,
    message: "invalid authorization header",
};

/// Refused `Origin`.
pub const ORIGIN_REFUSED: Refusal = Refusal {
    status: StatusCode::FORBIDDEN,
    message: "websocket origin not allowed",
};

impl WsAuth {
    /// The principal an upgrade request with `headers` acts for, or why it is refused.
    pub fn principal(&self, headers: &HeaderMap) -> Result<Principal, Refusal> {
        if let WsAuth::Disabled = self {
            return Ok(Principal::local_user());
        }
        self.principal_of_token(bearer(headers)?)
    }

    /// The principal `token` names, or why it is refused: the check of a bearer header's
    /// token, also used for the token a web page sends in its first message.
    pub fn principal_of_token(&self, token: &str) -> Result<Principal, Refusal> {
        match self {
            WsAuth::Disabled => Ok(Principal::local_user()),
            WsAuth::Tokens(table) => table.principal_of(token.as_bytes()).ok_or(INVALID),
            WsAuth::TokenDigest(digest) => {
                let actual: [u8; 32] = Sha256::digest(token.as_bytes()).into();
                if constant_time_eq(&actual, digest) {
                    Ok(Principal::named(DEFAULT_PRINCIPAL))
                } else {
                    Err(INVALID)
                }
            }
            WsAuth::Signed(signed) => signed.principal(token),
        }
    }
}

/// The token of the `Authorization` header, which must use the `Bearer` scheme.
fn bearer(headers: &HeaderMap) -> Result<&str, Refusal> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(MISSING);
    };
    let value = value.to_str().map_err(|_| BAD_HEADER)?;
    let (scheme, token) = value.trim().split_once(' ').ok_or(BAD_HEADER)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(BAD_HEADER);
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(MISSING);
    }
    Ok(token)
}

impl SignedTokens {
    /// Reads the shared secret (a trailing newline ignored; at least 16 bytes) and sets the
    /// checks: HS256 only, `exp` required, `iss` and `aud` when given, `skew` seconds of
    /// leeway.
    pub fn new(
        secret_file: &Path,
        issuer: Option<&str>,
        audience: Option<&str>,
        skew_seconds: u64,
    ) -> anyhow::Result<SignedTokens> {
        let secret = read_secret(secret_file)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = skew_seconds;
        validation.validate_nbf = true;
        match issuer {
            Some(issuer) => validation.set_issuer(&[issuer]),
            None => validation.iss = None,
        }
        match audience {
            Some(audience) => validation.set_audience(&[audience]),
            None => validation.validate_aud = false,
        }
        Ok(SignedTokens {
            key: DecodingKey::from_secret(&secret),
            validation,
        })
    }

    fn principal(&self, token: &str) -> Result<Principal, Refusal> {
        #[derive(serde::Deserialize)]
        struct Claims {
            sub: Option<String>,
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation)
            .map_err(|_| INVALID)?;
        match data.claims.sub {
            None => Ok(Principal::named(DEFAULT_PRINCIPAL)),
            Some(sub) if valid_principal_name(&sub) => Ok(Principal::named(&sub)),
            Some(_) => Err(INVALID),
        }
    }
}

/// A `sub` usable as a principal: 1 to 64 visible ASCII characters.
fn valid_principal_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_BYTES && name.bytes().all(|b| b.is_ascii_graphic())
}

fn read_secret(path: &Path) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|error| {
        anyhow::anyhow!(
            "cannot read --ws-shared-secret-file {}: {error}",
            path.display()
        )
    })?;
    let mut secret = Vec::new();
    file.take(MAX_SECRET_FILE_BYTES + 1)
        .read_to_end(&mut secret)
        .map_err(|error| {
            anyhow::anyhow!(
                "cannot read --ws-shared-secret-file {}: {error}",
                path.display()
            )
        })?;
    if secret.len() as u64 > MAX_SECRET_FILE_BYTES {
        anyhow::bail!(
            "--ws-shared-secret-file {} is larger than {MAX_SECRET_FILE_BYTES} bytes",
            path.display()
        );
    }
    while secret
        .last()
        .is_some_and(|byte| *byte == b'\n' || *byte == b'\r')
    {
        secret.pop();
    }
    if secret.len() < MIN_TOKEN_BYTES {
        anyhow::bail!(
            "--ws-shared-secret-file {} holds {} bytes; a shared secret needs at least {MIN_TOKEN_BYTES}",
            path.display(),
            secret.len()
        );
    }
    Ok(secret)
}

/// Parses `--ws-token-sha256`: 64 hexadecimal digits.
pub fn parse_digest(hex: &str) -> anyhow::Result<[u8; 32]> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        anyhow::bail!("--ws-token-sha256 takes the SHA-256 of the token as 64 hexadecimal digits");
    }
    let mut digest = [0u8; 32];
    for (index, byte) in digest.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16)?;
    }
    Ok(digest)
}

/// Whether an upgrade request's `Origin` may connect: requests without one (every client
/// that is not a browser page) may; a browser page only from an allowed origin.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    allowed
        .iter()
        .any(|allowed| allowed.trim_end_matches('/').eq_ignore_ascii_case(origin))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn with_authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case_and_others_are_refused() {
        assert_eq!(bearer(&with_authorization("bearer abc")), Ok("abc"));
        assert_eq!(bearer(&with_authorization("BEARER abc")), Ok("abc"));
        assert_eq!(bearer(&with_authorization("Basic abc")), Err(BAD_HEADER));
        assert_eq!(bearer(&with_authorization("abc")), Err(BAD_HEADER));
        assert_eq!(bearer(&HeaderMap::new()), Err(MISSING));
    }

    #[test]
    fn a_token_digest_accepts_its_token_only() {
        let token = "a-capability-token-of-some-length";
        let hex: String = Sha256::digest(token.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let auth = WsAuth::TokenDigest(parse_digest(&hex).unwrap());
        let principal = auth.principal(&with_authorization(&format!("Bearer {token}")));
        assert_eq!(principal.unwrap().name(), DEFAULT_PRINCIPAL);
        let wrong = auth.principal(&with_authorization("Bearer another-token-entirely"));
        assert_eq!(wrong.unwrap_err(), INVALID);
        assert!(parse_digest("abc").is_err());
    }

    #[test]
    fn origins_are_refused_unless_allowed() {
        let mut headers = HeaderMap::new();
        assert!(origin_allowed(&headers, &[]));
        headers.insert(header::ORIGIN, HeaderValue::from_static("http://evil.test"));
        assert!(!origin_allowed(&headers, &[]));
        assert!(!origin_allowed(&headers, &["http://good.test".into()]));
        assert!(origin_allowed(&headers, &["http://evil.test/".into()]));
    }
}
