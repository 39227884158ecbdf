//! Talking to the authorization server: finding its token endpoint in its metadata
//! (RFC 8414, or OpenID discovery) and POSTing one exchange. Every request has a
//! timeout and a size cap and follows no redirects (the pooled client's policy); what
//! the server writes is never logged.

use std::time::Duration;

use toolgate_resilience::ErrorClass;

/// How long one request to the authorization server may take.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read (metadata documents and token responses are a few KiB).
pub const MAX_BYTES: usize = 64 << 10;

/// A request that got no usable answer: the class the call fails with, and a
/// sentence for the log and the model (toolgate's own words, no URL credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    pub class: ErrorClass,
    pub why: String,
}

/// Where `issuer` publishes its metadata: RFC 8414's well-known segment inserted before
/// the issuer's path, then OpenID discovery's appended after it.
pub fn metadata_urls(issuer: &str) -> Result<Vec<url::Url>, String> {
    let url =
        url::Url::parse(issuer).map_err(|e| format!("the issuer `{issuer}` is not a URL: {e}"))?;
    let path = url.path().trim_end_matches('/').to_string();
    let mut rfc8414 = url.clone();
    rfc8414.set_path(&format!("/.well-known/oauth-authorization-server{path}"));
    let mut openid = url;
    openid.set_path(&format!("{path}/.well-known/openid-configuration"));
    Ok(vec![rfc8414, openid])
}

/// The token endpoint of `issuer`, from the first metadata document that names this
/// issuer exactly (RFC 8414 §3.3) and a `token_endpoint`.
pub async fn discover(http: &reqwest::Client, issuer: &str) -> Result<url::Url, Unreachable> {
    let mut why = String::new();
    for url in metadata_urls(issuer).map_err(|why| Unreachable {
        class: ErrorClass::Connect,
        why,
    })? {
        let request = http
            .get(url.as_str())
            .header(reqwest::header::ACCEPT, "application/json");
        let (status, body) = match send(request).await {
            Ok(answer) => answer,
            Err(e) => {
                why = e.why;
                continue;
            }
        };
        let doc: Option<serde_json::Value> = (status == 200)
            .then(|| serde_json::from_slice(&body).ok())
            .flatten();
        let Some(doc) = doc else {
            why = format!("GET {url} gave no metadata (HTTP {status})");
            continue;
        };
        if doc.get("issuer").and_then(|v| v.as_str()) != Some(issuer) {
            why = format!("the metadata at {url} is another issuer's");
            continue;
        }
        match doc
            .get("token_endpoint")
            .and_then(|v| v.as_str())
            .and_then(|t| url::Url::parse(t).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        {
            Some(endpoint) => return Ok(endpoint),
            None => why = format!("the metadata at {url} names no http(s) token_endpoint"),
        }
    }
    Err(Unreachable {
        class: ErrorClass::Connect,
        why: format!("cannot find the token endpoint of {issuer}: {why}"),
    })
}

/// Sends `request` within [`TIMEOUT`] and reads at most [`MAX_BYTES`] of its answer.
pub async fn send(request: reqwest::RequestBuilder) -> Result<(u16, Vec<u8>), Unreachable> {
    let exchange = async {
        let mut response = request.send().await.map_err(|e| Unreachable {
            class: if e.is_timeout() {
                ErrorClass::Timeout
            } else {
                ErrorClass::Connect
            },
            why: format!(
                "the authorization server cannot be reached ({})",
                if e.is_connect() {
                    "connection failed"
                } else {
                    "request failed"
                }
            ),
        })?;
        let status = response.status().as_u16();
        let too_large = || Unreachable {
            class: ErrorClass::ServerError,
            why: format!("the authorization server's answer is over {MAX_BYTES} bytes"),
        };
        if response
            .content_length()
            .is_some_and(|n| n > MAX_BYTES as u64)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|_| Unreachable {
            class: ErrorClass::Connect,
            why: "the authorization server's answer broke off".into(),
        })? {
            if body.len() + chunk.len() > MAX_BYTES {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok((status, body))
    };
    tokio::time::timeout(TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| {
            Err(Unreachable {
                class: ErrorClass::Timeout,
                why: format!(
                    "the authorization server did not answer within {}s",
                    TIMEOUT.as_secs()
                ),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc8414_and_openid_discovery_put_it() {
        let urls = |i: &str| {
            metadata_urls(i)
                .unwrap()
                .iter()
                .map(url::Url::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            urls("https://login.example.com"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server",
                "https://login.example.com/.well-known/openid-configuration"
            ]
        );
        // A tenant path (Keycloak realms, Auth0-style issuers with a trailing slash).
        assert_eq!(
            urls("https://sso.example.com/realms/acme/"),
            [
                "https://sso.example.com/.well-known/oauth-authorization-server/realms/acme",
                "https://sso.example.com/realms/acme/.well-known/openid-configuration"
            ]
        );
    }
}
