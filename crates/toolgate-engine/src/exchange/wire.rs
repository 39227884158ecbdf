//! The token exchange request and its answer on the wire (RFC 8693 §2.1 and §2.2): a
//! form POSTed to the token endpoint, a JSON token or an OAuth error back. Pure: no
//! I/O, so every field is tested here.

use base64::Engine as _;
use serde_json::Value;
use toolgate_config::{ACCESS_TOKEN_TYPE, ClientAuth, Secret, TokenExchange};

/// The grant type of a token exchange.
pub const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// A JWT as the issued token's type (RFC 8693 §3): still an access token to send.
pub const JWT_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:jwt";
/// The longest issued token accepted: far above real ones, and it goes in a header.
pub const MAX_TOKEN_BYTES: usize = 16 << 10;

/// The OAuth error codes a token endpoint may answer with (RFC 6749 §5.2, RFC 8707
/// §2, RFC 8693 §2.2.2): only these are repeated to the model; anything else the
/// authorization server wrote is not.
const ERROR_CODES: [&str; 8] = [
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
    "invalid_target",
    "access_denied",
];

/// The form body of the exchange of `subject` (`application/x-www-form-urlencoded`).
pub fn form(config: &TokenExchange, subject: &str) -> String {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    form.append_pair("grant_type", GRANT_TYPE);
    form.append_pair("subject_token", subject);
    form.append_pair("subject_token_type", ACCESS_TOKEN_TYPE);
    form.append_pair("requested_token_type", &config.requested_token_type);
    if let Some(audience) = &config.audience {
        form.append_pair("audience", audience);
    }
    if let Some(resource) = &config.resource {
        form.append_pair("resource", resource);
    }
    if let Some(scope) = &config.scope {
        form.append_pair("scope", scope);
    }
    if config.client_auth == ClientAuth::Post {
        form.append_pair("client_id", &config.client_id);
        form.append_pair("client_secret", &config.client_secret.0);
    }
    form.finish()
}

/// The `Authorization` value for `client_secret_basic`: id and secret each
/// form-urlencoded first (RFC 6749 §2.3.1), then base64.
pub fn basic(client_id: &str, secret: &Secret) -> String {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let pair = format!("{}:{}", enc(client_id), enc(&secret.0));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// A token the authorization server issued.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The token for the upstream.
    pub access_token: Secret,
    /// `issued_token_type`, when the server said it.
    pub issued_token_type: Option<String>,
    /// `expires_in`, seconds; `None`: not said (the token is then not reused).
    pub expires_in: Option<u64>,
    /// `scope`, when the server said it.
    pub scope: Option<String>,
}

/// What a token endpoint's answer means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// The server refused the exchange (a 4xx): `code` is a registered OAuth error code,
    /// or `None` when it sent none (or another), `status` the HTTP status.
    Refused {
        code: Option<&'static str>,
        status: u16,
    },
    /// The server failed (a 5xx), or its success was no usable token: `why` is
    /// toolgate's own sentence, without anything the server wrote.
    Broken { why: String },
}

/// Reads the answer of the token endpoint: `status` and its `body`.
pub fn parse(status: u16, body: &[u8]) -> Result<Issued, Rejected> {
    if (400..500).contains(&status) {
        let code = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned))
            .and_then(|c| ERROR_CODES.iter().find(|k| **k == c).copied());
        return Err(Rejected::Refused { code, status });
    }
    let broken = |why: &str| Rejected::Broken { why: why.into() };
    if !(200..300).contains(&status) {
        return Err(Rejected::Broken {
            why: format!("the token endpoint answered HTTP {status}"),
        });
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|_| broken("the token endpoint's answer is not JSON"))?;
    let text = |name: &str| value.get(name).and_then(Value::as_str);
    let token = text("access_token")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| broken("the token endpoint's answer has no access_token"))?;
    // It goes in a header as `Bearer <token>`: visible ASCII without spaces only.
    if token.len() > MAX_TOKEN_BYTES || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(broken(
            "the issued access_token is not a token that fits in a header",
        ));
    }
    match text("token_type") {
        Some(t) if t.eq_ignore_ascii_case("bearer") => {}
        Some(_) => {
            return Err(broken(
                "the issued token is not a bearer token (token_type), and only bearer tokens are sent",
            ));
        }
        None => return Err(broken("the token endpoint's answer has no token_type")),
    }
    let issued_token_type = text("issued_token_type").map(str::to_owned);
    if let Some(t) = &issued_token_type
        && t != ACCESS_TOKEN_TYPE
        && t != JWT_TOKEN_TYPE
    {
        return Err(broken(
            "the issued token is not an access token (issued_token_type)",
        ));
    }
    let expires_in = match value.get("expires_in") {
        None | Some(Value::Null) => None,
        // Some servers send it as a string of digits.
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        Some(v) => v.as_u64(),
    };
    Ok(Issued {
        access_token: Secret(token.to_owned()),
        issued_token_type,
        expires_in,
        scope: text("scope").map(str::to_owned),
    })
}

#[cfg(test)]
mod tests;
