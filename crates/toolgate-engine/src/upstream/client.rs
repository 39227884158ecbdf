//! The pooled HTTP client shared by every HTTP tool: one attempt per `send`, with a
//! per-attempt timeout and a response size cap. Cleartext `http://` dependencies go
//! through [`PlainHttp`](super::plain_http), whose connections the calling task drives;
//! everything else (TLS, proxies) through one `reqwest::Client`.
//!
//! It does not retry, classify or parse: it reports what happened on the wire and
//! the pipeline decides what that means.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::time::Instant;

use toolgate_config::Dependency;
use toolgate_config::template::RenderedRequest;

use super::plain_http::PlainHttp;
use super::response::{Body, SendError, UpstreamResponse, make_room, with_causes};
use toolgate_resilience::{ReplyMemory, ReplyShare};

/// A pooled HTTP client for every dependency.
#[derive(Debug, Clone)]
pub struct UpstreamClient {
    /// Connects only to the addresses a dependency may reach by default (`resolve.rs`).
    http: reqwest::Client,
    /// For dependencies that set `allow_link_local: true`: wherever names resolve.
    http_any_address: reqwest::Client,
    plain: Arc<PlainHttp>,
    /// What every reply read through this client may hold at once.
    memory: Arc<ReplyMemory>,
}

/// What toolgate calls itself in `User-Agent`.
const USER_AGENT: &str = concat!("toolgate/", env!("CARGO_PKG_VERSION"));

impl UpstreamClient {
    /// Builds the client: keep-alive pooling, no redirects (a redirect could leave the
    /// dependency's host). Fails rather than falling back to a default client, which
    /// would follow redirects.
    pub fn new() -> Result<UpstreamClient, reqwest::Error> {
        crate::tls::init();
        let builder = || {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .pool_idle_timeout(Duration::from_secs(90))
                .pool_max_idle_per_host(64)
                .tcp_nodelay(true)
                .user_agent(USER_AGENT)
        };
        Ok(UpstreamClient {
            http: builder()
                .dns_resolver(Arc::new(super::resolve::Guarded))
                .build()?,
            http_any_address: builder().build()?,
            plain: Arc::new(PlainHttp::new(USER_AGENT)),
            memory: ReplyMemory::unlimited(),
        })
    }

    /// The same client, its replies held within `memory` (the gateway's
    /// `max_buffered_response_bytes`): a reply that does not fit is not read further.
    #[must_use]
    pub fn with_reply_memory(mut self, memory: Arc<ReplyMemory>) -> Self {
        self.memory = memory;
        self
    }

    /// The budget of reply bytes this client's replies are held within.
    pub fn reply_memory(&self) -> &Arc<ReplyMemory> {
        &self.memory
    }

    /// The pooled client itself, for the MCP client's sessions (same pool, same
    /// no-redirect policy), connecting only where a dependency may by default.
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The pooled client for a dependency or MCP server: the one that connects
    /// wherever names resolve when it sets `allow_link_local: true`.
    pub fn http_for(&self, allow_link_local: bool) -> &reqwest::Client {
        if allow_link_local {
            &self.http_any_address
        } else {
            &self.http
        }
    }

    /// Sends one attempt and reads the body, within `timeout`, held in the reply memory
    /// (within `share`, the dependency's part of it, and `agent`, the calling agent's
    /// share, when given).
    pub async fn send(
        &self,
        dep: &Dependency,
        req: &RenderedRequest,
        timeout: Duration,
        max_bytes: usize,
        share: Option<&Arc<ReplyShare>>,
        agent: Option<&Arc<ReplyShare>>,
    ) -> Result<UpstreamResponse, SendError> {
        let start = Instant::now();
        let hold = || {
            let held = match share {
                Some(share) => self.memory.hold_in(share),
                None => self.memory.hold(),
            };
            held.for_agent(agent)
        };
        if self.plain.serves(&req.url) {
            let attempt = self.plain.send(dep, req, max_bytes, hold(), start);
            return match tokio::time::timeout(timeout, attempt).await {
                Ok(result) => result,
                Err(_) => Err(SendError::Timeout(timeout)),
            };
        }
        let http = self.http_for(dep.allow_link_local);
        let mut builder = http.request(req.method.clone(), req.url.clone());
        for (name, value) in dep
            .headers
            .iter()
            .filter(|(n, _)| req.sends_dependency_header(n))
        {
            builder = builder.header(name, value);
        }
        for (name, value) in &req.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = &req.body {
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, req.content_type.clone())
                .body(body.clone());
        }
        let request = builder.build().map_err(|e| SendError::Build {
            detail: without_url(&e),
        })?;
        let attempt = async {
            let mut resp = http.execute(request).await.map_err(transport_error)?;
            let status = resp.status().as_u16();
            let too_large = |resp: &reqwest::Response| SendError::TooLarge {
                status,
                headers: resp.headers().clone(),
                limit: max_bytes,
            };
            if resp.content_length().is_some_and(|n| n > max_bytes as u64) {
                return Err(too_large(&resp));
            }
            let mut held = hold();
            let mut body = Body::default();
            while let Some(chunk) = resp.chunk().await.map_err(transport_error)? {
                if body.len() + chunk.len() > max_bytes {
                    return Err(too_large(&resp));
                }
                if let Err(full) = make_room(&mut held, &body, chunk.len(), resp.content_length()) {
                    return Err(SendError::NoRoom {
                        status,
                        headers: resp.headers().clone(),
                        held: full.held,
                        limit: full.limit,
                        part: full.part,
                    });
                }
                body.push(chunk, resp.content_length());
            }
            Ok(UpstreamResponse {
                rpc_error: None,
                status,
                headers: std::mem::take(resp.headers_mut()),
                body: body.finish_held(held),
                latency: start.elapsed(),
            })
        };
        match tokio::time::timeout(timeout, attempt).await {
            Ok(result) => result,
            Err(_) => Err(SendError::Timeout(timeout)),
        }
    }

    /// A plain GET for status pages and health endpoints.
    pub async fn get(
        &self,
        url: &url::Url,
        allow_link_local: bool,
        timeout: Duration,
        max_bytes: usize,
    ) -> Result<(u16, Bytes), String> {
        let fetch = async {
            let resp = self
                .http_for(allow_link_local)
                .get(url.clone())
                .send()
                .await
                .map_err(|e| without_url(&e))?;
            let status = resp.status().as_u16();
            // Streamed against the cap: a hostile or broken page must not make toolgate
            // buffer more than the cap before it finds out.
            let too_large = || format!("response larger than {max_bytes} bytes");
            if resp.content_length().is_some_and(|n| n > max_bytes as u64) {
                return Err(too_large());
            }
            let mut resp = resp;
            let mut held = self.memory.hold();
            let mut body = Body::default();
            while let Some(chunk) = resp.chunk().await.map_err(|e| without_url(&e))? {
                if body.len() + chunk.len() > max_bytes {
                    return Err(too_large());
                }
                make_room(&mut held, &body, chunk.len(), resp.content_length()).map_err(
                    |full| {
                        format!(
                            "toolgate is holding {} of upstream replies, its limit ({} bytes), \
                             and did not read this one",
                            full.held, full.limit
                        )
                    },
                )?;
                body.push(chunk, resp.content_length());
            }
            Ok((status, body.finish_held(held)))
        };
        tokio::time::timeout(timeout, fetch)
            .await
            .unwrap_or_else(|_| Err(format!("no response within {timeout:?}")))
    }
}

fn transport_error(e: reqwest::Error) -> SendError {
    if e.is_timeout() {
        return SendError::Timeout(Duration::ZERO);
    }
    if e.is_builder() {
        return SendError::Build {
            detail: without_url(&e),
        };
    }
    // Only a failure to connect (DNS, TCP, TLS) proves nothing was sent; the client
    // itself resends a request a pooled connection never took. Anything after that —
    // a reset mid-exchange, a malformed or cut-short answer — may have reached the
    // upstream, and is retried only where a retry is safe.
    if e.is_connect() {
        SendError::Connect {
            detail: without_url(&e),
        }
    } else {
        SendError::Broken {
            detail: without_url(&e),
        }
    }
}

/// reqwest errors print the URL, which may carry query-string credentials: drop it.
fn without_url(e: &reqwest::Error) -> String {
    use std::error::Error as _;
    with_causes(describe(e).to_owned(), e.source())
}

/// What kind of transport failure, in words that never contain the URL.
fn describe(e: &reqwest::Error) -> &'static str {
    if e.is_connect() {
        "could not connect"
    } else if e.is_body() || e.is_decode() {
        "the connection broke while reading the response"
    } else if e.is_request() {
        "the request could not be sent"
    } else {
        "transport error"
    }
}
