//! What a JWT access token must be beyond a valid signature and the claims the JWT
//! library checks (RFC 8725, RFC 9068): the rules the library leaves open.
//!
//! - `crit` (RFC 7515 §4.1.11): the issuer marks header extensions the recipient must
//!   understand or refuse the token. toolgate understands none, so any `crit` refuses.
//! - `typ` (RFC 8725 §3.11, RFC 9068 §4): a JWT typed as another kind of token (a DPoP
//!   proof, a logout token, a security event) is not an access token, even when the
//!   same issuer signed it for the same audience. Absent, `JWT`, `at+jwt` and
//!   `application/at+jwt` pass (most providers write `JWT`).
//! - `exp`, `nbf`, `iat` are NumericDates (RFC 7519 §2): a number or nothing. The
//!   library skips an `nbf` it cannot read as one, which would let `"nbf": "<later>"`
//!   through; here such a token is refused. An `iat` later than now (past the leeway)
//!   names a token not issued yet, and is refused too.
//! - `cnf` (RFC 7800): the token is bound to a key its client must prove it holds —
//!   a DPoP key (RFC 9449 `jkt`) or a TLS client certificate (RFC 8705 `x5t#S256`).
//!   toolgate takes bearer tokens only and checks no such proof, so accepting a bound
//!   token would make a stolen one, which its binding had made useless, good again.
//!   It is refused, from a JWT and from an introspection answer alike.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::LEEWAY_SECS;

/// The header types of an access token (compared without case; RFC 7515 §4.1.9 lets
/// `application/` be left out).
const ACCESS_TOKEN_TYPES: [&str; 2] = ["jwt", "at+jwt"];

/// Whether the token's header is one toolgate may act on: no `crit`, and a `typ` of
/// an access token.
pub fn check_header(token: &str) -> Result<(), &'static str> {
    let header = token.split('.').next().unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header.trim_end_matches('='))
        .map_err(|_| "the token's header is not a signed JWT header")?;
    let Ok(Value::Object(header)) = serde_json::from_slice::<Value>(&bytes) else {
        return Err("the token's header is not a signed JWT header");
    };
    if header.contains_key("crit") {
        return Err(
            "the token marks header extensions critical (crit) that toolgate does not understand",
        );
    }
    match header.get("typ") {
        None => Ok(()),
        Some(Value::String(typ)) if is_access_token_type(typ) => Ok(()),
        Some(_) => Err("the token is typed (typ) as another kind of JWT than an access token"),
    }
}

fn is_access_token_type(typ: &str) -> bool {
    let lower = typ.to_ascii_lowercase();
    let bare = lower.strip_prefix("application/").unwrap_or(&lower);
    ACCESS_TOKEN_TYPES.contains(&bare)
}

/// Whether the verified claims' times are NumericDates, and `iat` is not later than
/// `now` (with the leeway). `exp` and `nbf` against `now` are the library's.
pub fn check_times(claims: &Map<String, Value>, now: u64) -> Result<(), &'static str> {
    for name in ["exp", "nbf", "iat"] {
        if claims.contains_key(name) && numeric_date(claims, name).is_none() {
            return Err("the token's exp, nbf or iat is not a NumericDate");
        }
    }
    if numeric_date(claims, "iat").is_some_and(|iat| iat > now.saturating_add(LEEWAY_SECS)) {
        return Err("the token was issued in the future (iat)");
    }
    Ok(())
}

/// Whether the token is a bearer token: it carries no confirmation (`cnf`) that binds
/// it to a key its client would have to prove holding.
pub fn check_unbound(claims: &Map<String, Value>) -> Result<(), &'static str> {
    if claims.contains_key("cnf") {
        return Err(
            "the token is bound to a key (cnf: DPoP or a client certificate) and toolgate accepts bearer tokens only",
        );
    }
    Ok(())
}

/// Whether the token lives no longer than its issuer's `max_token_lifetime`: `exp - iat`,
/// or what is left of it (`exp - now`, with the leeway) when it does not say when it
/// was issued. A token minted for a year stays useful that long to whoever takes it.
pub fn check_lifetime(
    claims: &Map<String, Value>,
    now: u64,
    max: Option<std::time::Duration>,
) -> Result<(), &'static str> {
    let Some(max) = max else { return Ok(()) };
    let Some(exp) = numeric_date(claims, "exp") else {
        return Ok(());
    };
    let (lifetime, bound) = match numeric_date(claims, "iat") {
        Some(iat) => (exp.saturating_sub(iat), max.as_secs()),
        None => (
            exp.saturating_sub(now),
            max.as_secs().saturating_add(LEEWAY_SECS),
        ),
    };
    if lifetime > bound {
        return Err(if claims.contains_key("iat") {
            "the token lives longer (exp - iat) than its issuer's max_token_lifetime allows"
        } else {
            "the token has no iat and expires later than its issuer's max_token_lifetime from now"
        });
    }
    Ok(())
}

/// The claim `name` as seconds since the epoch, when it is a number toolgate can read
/// as one (an integer, or a fraction rounded down, as RFC 7519 allows).
pub fn numeric_date(claims: &Map<String, Value>, name: &str) -> Option<u64> {
    let value = claims.get(name)?;
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    // `u64::MAX as f64` rounds up to 2^64, which a u64 cannot hold: stay below it.
    (f.is_finite() && f >= 0.0 && f < u64::MAX as f64).then(|| f.floor() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn token_with_header(header: Value) -> String {
        let b64 = |v: &Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
        };
        format!("{}.{}.sig", b64(&header), b64(&json!({})))
    }

    #[test]
    fn access_token_types_pass_and_other_kinds_of_jwt_do_not() {
        for typ in ["JWT", "jwt", "at+jwt", "AT+JWT", "application/at+jwt"] {
            let token = token_with_header(json!({"alg": "ES256", "typ": typ}));
            assert_eq!(check_header(&token), Ok(()), "{typ}");
        }
        assert_eq!(
            check_header(&token_with_header(json!({"alg": "ES256"}))),
            Ok(())
        );
        for typ in [
            json!("dpop+jwt"),
            json!("logout+jwt"),
            json!("secevent+jwt"),
            json!(1),
        ] {
            let token = token_with_header(json!({"alg": "ES256", "typ": typ}));
            assert!(check_header(&token).is_err(), "{typ}");
        }
    }

    #[test]
    fn any_critical_header_extension_is_refused() {
        for crit in [json!(["urn:example:ext"]), json!([]), json!("b64")] {
            let token =
                token_with_header(json!({"alg": "ES256", "crit": crit, "urn:example:ext": 1}));
            assert!(check_header(&token).is_err(), "{crit}");
        }
    }

    #[test]
    fn a_lifetime_past_the_issuers_bound_is_refused() {
        let now = 1_700_000_000;
        let hour = Some(std::time::Duration::from_secs(3600));
        let at = |v: Value| check_lifetime(v.as_object().unwrap(), now, hour);
        // Within the bound, exactly at it, and with no bound at all.
        assert_eq!(at(json!({"iat": now, "exp": now + 600})), Ok(()));
        assert_eq!(at(json!({"iat": now - 100, "exp": now + 3500})), Ok(()));
        let year = json!({"iat": now, "exp": now + 365 * 86_400});
        assert_eq!(check_lifetime(year.as_object().unwrap(), now, None), Ok(()));
        // Past it, whether the token is fresh or half spent: the issuer chose the span.
        for long in [
            json!({"iat": now, "exp": now + 3601}),
            json!({"iat": now - 86_400, "exp": now + 60}),
            json!({"iat": now as f64 + 0.5, "exp": now + 365 * 86_400}),
            year,
        ] {
            let why = at(long.clone()).unwrap_err();
            assert!(why.contains("max_token_lifetime"), "{long}");
        }
        // No iat: what is left of it counts, with the clock leeway.
        assert_eq!(at(json!({"exp": now + 3600 + 60})), Ok(()));
        assert!(
            at(json!({"exp": now + 3600 + 61}))
                .unwrap_err()
                .contains("no iat")
        );
    }

    #[test]
    fn a_token_bound_to_a_key_is_not_a_bearer_token() {
        // Keycloak, Okta and Auth0 write these for DPoP and mutual-TLS bound tokens.
        for cnf in [
            json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}),
            json!({"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}),
            json!({}),
        ] {
            let claims = json!({"sub": "bot", "cnf": cnf});
            let why = check_unbound(claims.as_object().unwrap()).unwrap_err();
            assert!(why.contains("bearer tokens only"), "{cnf}");
        }
        let bearer = json!({"sub": "bot", "client_id": "c", "scope": "tools:call"});
        assert_eq!(check_unbound(bearer.as_object().unwrap()), Ok(()));
    }

    #[test]
    fn time_claims_are_numeric_dates() {
        let now = 1_700_000_000;
        let ok = json!({"exp": now + 600, "nbf": now, "iat": now});
        assert_eq!(check_times(ok.as_object().unwrap(), now), Ok(()));
        let fraction = json!({"exp": (now + 600) as f64 + 0.5});
        assert_eq!(check_times(fraction.as_object().unwrap(), now), Ok(()));
        assert_eq!(
            numeric_date(fraction.as_object().unwrap(), "exp"),
            Some(now + 600)
        );
        for bad in [
            json!({"nbf": (now + 3600).to_string()}),
            json!({"nbf": {"t": now + 3600}}),
            json!({"nbf": -1}),
            json!({"iat": "yesterday"}),
            json!({"exp": 1e300}),
            json!({"iat": now + 3600}),
        ] {
            assert!(check_times(bad.as_object().unwrap(), now).is_err(), "{bad}");
        }
        // Within the leeway an `iat` a little ahead is a clock difference.
        let skewed = json!({"iat": now + 30});
        assert_eq!(check_times(skewed.as_object().unwrap(), now), Ok(()));
    }
}
