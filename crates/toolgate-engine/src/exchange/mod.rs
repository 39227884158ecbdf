//! Calling a dependency with the caller's authority (`dependencies.<name>.token_exchange`):
//! the caller's validated access token is exchanged at the authorization server for a
//! token for the upstream (RFC 8693), which goes in `Authorization: Bearer`. The
//! caller's own token is never sent upstream (the MCP spec forbids token passthrough),
//! and neither token is ever logged, traced, audited or put in an error.
//!
//! Exchanged tokens are cached per dependency by the SHA-256 of the caller's token
//! until 30 s before they expire ([`cache`]); concurrent calls with one caller token
//! share one exchange. A refusal by the authorization server is the caller's to fix
//! (`auth`, never retried); an authorization server that cannot be reached or fails is
//! a transient failure on the dependency's side (`connect`, `timeout`,
//! `server_error`).

pub mod cache;
pub mod echo;
pub mod endpoint;
pub mod error;
#[cfg(test)]
pub(crate) mod tests;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use tokio::time::Instant;
use toolgate_config::{ClientAuth, Secret, TokenExchange};
use toolgate_resilience::ErrorClass;

use crate::metrics::{DependencyLabel, ExchangeLabels, ExchangeResult, Metrics};
use cache::{Cache, Source};
use endpoint::Unreachable;
pub use error::ExchangeError;
use wire::Rejected;

/// Subjects whose exchanged tokens are kept, per dependency.
pub const CACHE_ENTRIES: usize = 10_000;
/// An exchanged token is not reused in its last seconds: the upstream must still
/// accept it when the call's last retry arrives.
pub const LEEWAY: Duration = Duration::from_secs(30);
/// After a failed metadata lookup, the token endpoint is not looked for again sooner.
pub const REDISCOVER_AFTER: Duration = Duration::from_secs(10);

impl ExchangeError {
    fn result(&self) -> ExchangeResult {
        match self {
            ExchangeError::NoToken => ExchangeResult::no_token,
            ExchangeError::Refused { .. } => ExchangeResult::refused,
            ExchangeError::Unavailable(_) => ExchangeResult::failed,
        }
    }
}

/// One dependency's token exchange: its settings, the token endpoint once known, and
/// the cache of exchanged tokens.
#[derive(Debug)]
pub struct Exchanger {
    dependency: String,
    config: Arc<TokenExchange>,
    http: reqwest::Client,
    endpoint: tokio::sync::Mutex<Endpoint>,
    cache: Cache<[u8; 32], Arc<Secret>, ExchangeError>,
    exchanges: Family<ExchangeLabels, Counter>,
    hits: Counter,
}

#[derive(Debug, Default)]
struct Endpoint {
    url: Option<url::Url>,
    /// The last failed lookup and why.
    failed: Option<(Instant, Unreachable)>,
}

impl Exchanger {
    /// The exchange of `dependency`, through the pooled client `http`.
    pub fn new(
        dependency: &str,
        config: Arc<TokenExchange>,
        http: reqwest::Client,
        metrics: &Metrics,
    ) -> Exchanger {
        Exchanger::with_capacity(dependency, config, http, metrics, CACHE_ENTRIES)
    }

    /// The same, keeping at most `capacity` subjects' tokens.
    pub fn with_capacity(
        dependency: &str,
        config: Arc<TokenExchange>,
        http: reqwest::Client,
        metrics: &Metrics,
        capacity: usize,
    ) -> Exchanger {
        let hits = metrics
            .token_exchange_cache_hits
            .get_or_create(&DependencyLabel {
                dependency: dependency.into(),
            })
            .clone();
        Exchanger {
            dependency: dependency.to_string(),
            endpoint: tokio::sync::Mutex::new(Endpoint {
                url: config.token_endpoint.clone(),
                failed: None,
            }),
            config,
            http,
            cache: Cache::new(capacity),
            exchanges: metrics.token_exchanges.clone(),
            hits,
        }
    }

    /// The token to send upstream for a caller with `subject` (its access token).
    pub async fn token(&self, subject: Option<&Secret>) -> Result<Arc<Secret>, ExchangeError> {
        let result = match subject {
            None => Err(ExchangeError::NoToken),
            Some(subject) => {
                let key = digest(subject);
                let (result, source) = self.cache.get(key, || self.exchange(subject)).await;
                match source {
                    Source::Cached | Source::Shared => {
                        self.hits.inc();
                        return result;
                    }
                    Source::Fetched => result,
                }
            }
        };
        let outcome = match &result {
            Ok(_) => ExchangeResult::issued,
            Err(e) => e.result(),
        };
        self.exchanges
            .get_or_create(&ExchangeLabels {
                dependency: self.dependency.clone(),
                result: outcome,
            })
            .inc();
        if let Err(e) = &result {
            // The issuer and the client id, never a token nor the server's text.
            match e {
                ExchangeError::NoToken => {
                    tracing::info!(dependency = %self.dependency, "call refused: the dependency needs a token exchange and the caller sent no access token")
                }
                ExchangeError::Refused { code, status } => {
                    tracing::warn!(dependency = %self.dependency, issuer = %self.config.issuer, client_id = %self.config.client_id, status, error = code.unwrap_or("-"), "the authorization server refused a token exchange")
                }
                ExchangeError::Unavailable(u) => {
                    tracing::warn!(dependency = %self.dependency, issuer = %self.config.issuer, "token exchange failed: {}", u.why)
                }
            }
        }
        result
    }

    /// One exchange at the token endpoint; the token and how long it may be reused.
    async fn exchange(
        &self,
        subject: &Secret,
    ) -> Result<(Arc<Secret>, Option<Duration>), ExchangeError> {
        let url = self.endpoint().await.map_err(ExchangeError::Unavailable)?;
        let mut request = self
            .http
            .post(url.as_str())
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(wire::form(&self.config, &subject.0));
        if self.config.client_auth == ClientAuth::Basic {
            let mut value = reqwest::header::HeaderValue::from_str(&wire::basic(
                &self.config.client_id,
                &self.config.client_secret,
            ))
            .map_err(|_| {
                ExchangeError::Unavailable(Unreachable {
                    class: ErrorClass::ClientError,
                    why: "the client credentials do not fit in a header".into(),
                })
            })?;
            value.set_sensitive(true);
            request = request.header(reqwest::header::AUTHORIZATION, value);
        }
        let (status, body) = endpoint::send(request)
            .await
            .map_err(ExchangeError::Unavailable)?;
        match wire::parse(status, &body) {
            Ok(issued) => {
                let ttl = issued
                    .expires_in
                    .map(Duration::from_secs)
                    .and_then(|d| d.checked_sub(LEEWAY))
                    .filter(|d| !d.is_zero());
                tracing::debug!(dependency = %self.dependency, expires_in = ?issued.expires_in, issued_token_type = ?issued.issued_token_type, scope = ?issued.scope, "exchanged the caller's token");
                Ok((Arc::new(issued.access_token), ttl))
            }
            Err(Rejected::Refused { code, status }) => Err(ExchangeError::Refused { code, status }),
            Err(Rejected::Broken { why }) => Err(ExchangeError::Unavailable(Unreachable {
                class: ErrorClass::ServerError,
                why,
            })),
        }
    }

    /// The token endpoint: configured, or found in the issuer's metadata once (a failed
    /// lookup is repeated at most every [`REDISCOVER_AFTER`]).
    async fn endpoint(&self) -> Result<url::Url, Unreachable> {
        let mut endpoint = self.endpoint.lock().await;
        if let Some(url) = &endpoint.url {
            return Ok(url.clone());
        }
        if let Some((at, why)) = &endpoint.failed
            && at.elapsed() < REDISCOVER_AFTER
        {
            return Err(why.clone());
        }
        match endpoint::discover(&self.http, &self.config.issuer).await {
            Ok(url) => {
                endpoint.url = Some(url.clone());
                endpoint.failed = None;
                Ok(url)
            }
            Err(e) => {
                endpoint.failed = Some((Instant::now(), e.clone()));
                Err(e)
            }
        }
    }
}

/// The cache key of a caller's token: its SHA-256 (the token itself is not kept as a key).
pub(crate) fn digest(token: &Secret) -> [u8; 32] {
    let d = ring::digest::digest(&ring::digest::SHA256, token.0.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}
