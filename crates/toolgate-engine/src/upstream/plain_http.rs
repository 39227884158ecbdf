//! Cleartext HTTP/1.1 dependencies (`http://`: a sidecar, a service in the same
//! cluster, loopback) on connections that the calling task drives itself.
//!
//! reqwest gives each connection a task of its own: a request travels to that task
//! through a channel and the response back through another, so every call wakes two
//! tasks, often on two threads, and converts the request's URL into a URI through IDNA
//! twice. Here a connection rests in the pool undriven between calls and is lent to a
//! call, whose task writes the request and reads the response in its own polls. No
//! other task runs for it and no other thread is woken.
//!
//! What this client does is what reqwest did for these dependencies, so a tool cannot
//! tell them apart: the same headers (`Host`, `User-Agent: toolgate/…`, `Accept: */*`
//! unless the request sets its own), no redirects followed, idle connections kept 90 s
//! and at most 64 per origin, and a request that never left (its pooled connection
//! had closed) sent again on another connection. A request that did leave is never
//! sent again here: whether to retry is the pipeline's decision.
//!
//! TLS, proxies (`HTTP_PROXY`, `ALL_PROXY`, in either case), and URLs that carry
//! credentials stay with reqwest: [`PlainHttp::serves`] says which requests come here.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Request, Response, Uri};
use http_body_util::Full;
use hyper::body::{Body as _, Incoming};
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::Instant;
use url::{Host, Position, Url};

use toolgate_config::Dependency;
use toolgate_config::template::RenderedRequest;

use super::response::{Body, SendError, UpstreamResponse, make_room, with_causes};
use crate::sync::lock;
use toolgate_resilience::Held;

/// An idle connection older than this is closed rather than reused (reqwest's setting).
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);
/// Idle connections kept per origin at most; one more is closed when it comes back.
const MAX_IDLE_PER_ORIGIN: usize = 64;
/// How often every origin's idle list is swept for connections past [`IDLE_TIMEOUT`],
/// so that a dependency no longer called does not hold its sockets for ever.
const SWEEP_EVERY: Duration = Duration::from_secs(30);

/// The environment variables that send `http://` requests through a proxy (reqwest
/// honours them); when one is set, every request stays with reqwest.
const PROXY_VARIABLES: [&str; 4] = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];

/// The pools of idle connections: one for the main runtime, then one per serving
/// thread (a connection is lent only on the thread whose event loop it is registered
/// with; see [`crate::serving`]).
pub(super) struct PlainHttp {
    enabled: bool,
    user_agent: HeaderValue,
    idle: Mutex<Vec<Pool>>,
}

/// The pool of the thread this runs on, in `pools`.
fn lane() -> usize {
    crate::serving::thread_index().map_or(0, |index| index + 1)
}

/// Idle connections by origin (`host:port` as the URL writes it).
#[derive(Default)]
struct Pool {
    by_origin: HashMap<String, Vec<Idle>>,
    swept: Option<Instant>,
}

/// A connection at rest, oldest first in its origin's list.
struct Idle {
    conn: Conn,
    since: Instant,
}

/// One HTTP/1.1 connection: the handle requests are given to, and the state machine
/// that reads and writes the socket, which only the task holding it polls.
struct Conn {
    sender: SendRequest<Full<Bytes>>,
    driver: Connection<TokioIo<TcpStream>, Full<Bytes>>,
    /// The driver has finished: the connection is closed (or broken).
    ended: bool,
}

/// Why an exchange on one connection failed.
enum Failed {
    /// The request never left: the connection had closed while it rested in the pool.
    NotSent(Request<Full<Bytes>>),
    /// Anything else, as the caller reports it.
    Error(SendError),
}

impl std::fmt::Debug for PlainHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainHttp")
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

impl PlainHttp {
    /// The client, enabled unless a proxy variable is set in the environment.
    pub(super) fn new(user_agent: &'static str) -> PlainHttp {
        let proxied = PROXY_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
        PlainHttp::with_proxy(user_agent, proxied)
    }

    fn with_proxy(user_agent: &'static str, proxied: bool) -> PlainHttp {
        PlainHttp {
            enabled: !proxied,
            user_agent: HeaderValue::from_static(user_agent),
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Whether a request to `url` is sent here (else reqwest sends it).
    pub(super) fn serves(&self, url: &Url) -> bool {
        self.enabled
            && url.scheme() == "http"
            && url.host().is_some()
            && url.username().is_empty()
            && url.password().is_none()
    }

    /// Sends one attempt and reads the body. The caller bounds it in time: dropping
    /// the future closes the connection it holds.
    pub(super) async fn send(
        &self,
        dep: &Dependency,
        req: &RenderedRequest,
        max_bytes: usize,
        mut held: Held,
        start: Instant,
    ) -> Result<UpstreamResponse, SendError> {
        let origin = &req.url[Position::BeforeHost..Position::AfterPort];
        let mut request = self.request(dep, req, origin)?;
        loop {
            let (mut conn, reused) = match self.checkout(origin) {
                Some(conn) => (conn, true),
                None => (connect(&req.url, dep.allow_link_local).await?, false),
            };
            match exchange(&mut conn, request, max_bytes, &mut held).await {
                Ok((status, headers, body)) => {
                    if conn.ready_for_more() {
                        self.checkin(origin, conn);
                    }
                    return Ok(UpstreamResponse {
                        rpc_error: None,
                        status,
                        headers,
                        body: body.finish_held(held),
                        latency: start.elapsed(),
                    });
                }
                // A pooled connection the server had closed: the next one, or a new one.
                Err(Failed::NotSent(back)) if reused => request = back,
                Err(Failed::NotSent(_)) => {
                    return Err(SendError::Connect {
                        detail: "the connection closed before the request was sent".into(),
                    });
                }
                Err(Failed::Error(e)) => return Err(e),
            }
        }
    }

    /// The request as it goes on the wire: origin-form URI, the dependency's headers,
    /// then the tool's, then what reqwest would add when they are missing.
    fn request(
        &self,
        dep: &Dependency,
        req: &RenderedRequest,
        origin: &str,
    ) -> Result<Request<Full<Bytes>>, SendError> {
        let target = &req.url[Position::BeforePath..Position::AfterQuery];
        let uri: Uri = target
            .parse()
            .map_err(|e: http::uri::InvalidUri| SendError::Build {
                detail: format!("the path or query is not a valid request target: {e}"),
            })?;
        let host = HeaderValue::from_str(origin).map_err(|_| SendError::Build {
            detail: "the host is not a valid Host header".into(),
        })?;
        let body = match &req.body {
            Some(body) => Full::new(Bytes::copy_from_slice(body)),
            None => Full::new(Bytes::new()),
        };
        let mut request = Request::new(body);
        *request.method_mut() = req.method.clone();
        *request.uri_mut() = uri;
        let headers = request.headers_mut();
        headers.reserve(dep.headers.len() + req.headers.len() + 4);
        for (name, value) in dep
            .headers
            .iter()
            .filter(|(n, _)| req.sends_dependency_header(n))
        {
            headers.append(name.clone(), value.clone());
        }
        for (name, value) in &req.headers {
            headers.append(name.clone(), value.clone());
        }
        if req.body.is_some() {
            headers.append(header::CONTENT_TYPE, req.content_type.clone());
        }
        if !headers.contains_key(header::HOST) {
            headers.insert(header::HOST, host);
        }
        if !headers.contains_key(header::USER_AGENT) {
            headers.insert(header::USER_AGENT, self.user_agent.clone());
        }
        if !headers.contains_key(header::ACCEPT) {
            headers.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        }
        Ok(request)
    }

    /// The most recently used idle connection to `origin` that is still open, if any.
    fn checkout(&self, origin: &str) -> Option<Conn> {
        loop {
            let idle = lock(&self.idle)
                .get_mut(lane())?
                .by_origin
                .get_mut(origin)?
                .pop()?;
            let mut conn = idle.conn;
            if idle.since.elapsed() < IDLE_TIMEOUT && conn.ready_for_more() {
                return Some(conn);
            }
            // Closed by the server while it rested, or too old: dropped here, outside
            // the lock, and the next one is tried.
        }
    }

    /// Puts a connection back for the next call to `origin`.
    fn checkin(&self, origin: &str, conn: Conn) {
        let now = Instant::now();
        let mut closing: Vec<Idle> = Vec::new();
        {
            let mut pools = lock(&self.idle);
            let lane = lane();
            if pools.len() <= lane {
                pools.resize_with(lane + 1, Pool::default);
            }
            let pool = &mut pools[lane];
            let list = match pool.by_origin.get_mut(origin) {
                Some(list) => list,
                None => pool.by_origin.entry(origin.to_owned()).or_default(),
            };
            expire(list, now, &mut closing);
            if list.len() < MAX_IDLE_PER_ORIGIN {
                list.push(Idle { conn, since: now });
            } else {
                closing.push(Idle { conn, since: now });
            }
            if pool.swept.is_none_or(|at| now - at >= SWEEP_EVERY) {
                // Every thread's pool, so that one whose thread no longer calls an
                // origin does not hold its sockets either.
                for pool in pools.iter_mut() {
                    pool.swept = Some(now);
                    for list in pool.by_origin.values_mut() {
                        expire(list, now, &mut closing);
                    }
                    pool.by_origin.retain(|_, list| !list.is_empty());
                }
            }
        }
        // The sockets close here, outside the lock.
        drop(closing);
    }
}

#[cfg(test)]
impl PlainHttp {
    /// Idle connections in every pool, to `origin` or to any.
    fn idle_count(&self, origin: Option<&str>) -> usize {
        lock(&self.idle)
            .iter()
            .flat_map(|pool| &pool.by_origin)
            .filter(|(at, _)| origin.is_none_or(|o| o == at.as_str()))
            .map(|(_, list)| list.len())
            .sum()
    }
}

/// Moves the connections of `list` that have rested longer than [`IDLE_TIMEOUT`]
/// (they are oldest first) into `closing`.
fn expire(list: &mut Vec<Idle>, now: Instant, closing: &mut Vec<Idle>) {
    let stale = list
        .iter()
        .take_while(|idle| now - idle.since >= IDLE_TIMEOUT)
        .count();
    closing.extend(list.drain(..stale));
}

/// Opens a connection to the URL's host and port; a name only to the addresses the
/// dependency may reach (`resolve.rs`).
async fn connect(url: &Url, allow_link_local: bool) -> Result<Conn, SendError> {
    let port = url.port_or_known_default().unwrap_or(80);
    let stream = match url.host() {
        Some(Host::Domain(name)) => {
            let addrs = super::resolve::permitted(name, port, allow_link_local)
                .await
                .map_err(could_not_connect)?;
            TcpStream::connect(addrs.as_slice()).await
        }
        Some(Host::Ipv4(ip)) => TcpStream::connect((ip, port)).await,
        Some(Host::Ipv6(ip)) => TcpStream::connect((ip, port)).await,
        None => Err(std::io::Error::other("the URL has no host")),
    }
    .map_err(could_not_connect)?;
    // The request goes out in one write; without this the next request on the
    // connection can wait for the server's delayed ACK.
    let _ = stream.set_nodelay(true);
    let (sender, driver) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(could_not_connect)?;
    Ok(Conn {
        sender,
        driver,
        ended: false,
    })
}

/// Writes `request` on `conn` and reads the whole response, at most `max_bytes` of
/// body, driving the connection from this task throughout.
async fn exchange(
    conn: &mut Conn,
    mut request: Request<Full<Bytes>>,
    max_bytes: usize,
    held: &mut Held,
) -> Result<(u16, HeaderMap, Body), Failed> {
    // Hyper reads interim (1xx) responses and waits for the next, without end: an
    // upstream sending `100 Continue` for ever would be parsed at full speed for the
    // whole attempt timeout. They are counted, and past a few the exchange ends.
    let interim = Arc::new(AtomicUsize::new(0));
    let counted = interim.clone();
    hyper::ext::on_informational(&mut request, move |_| {
        counted.fetch_add(1, Ordering::Relaxed);
    });
    let response = conn.sender.try_send_request(request);
    let mut response = pin!(response);
    let head = poll_fn(|cx| {
        if let Poll::Ready(answer) = response.as_mut().poll(cx) {
            return Poll::Ready(Some(answer));
        }
        let ended = conn.drive(cx).is_ready();
        if interim.load(Ordering::Relaxed) > MAX_INTERIM_RESPONSES {
            return Poll::Ready(None);
        }
        if ended {
            // The connection has ended, so the dispatcher has answered the request.
            return response.as_mut().poll(cx).map(Some).or_ended();
        }
        // Driving may have answered it: read it now rather than on the next wake-up.
        response.as_mut().poll(cx).map(Some)
    })
    .await;
    let head: Response<Incoming> = match head {
        Some(Ok(head)) => head,
        Some(Err(mut e)) => {
            return Err(match e.take_message() {
                Some(request) => Failed::NotSent(request),
                None => Failed::Error(broken(e.error())),
            });
        }
        None if interim.load(Ordering::Relaxed) > MAX_INTERIM_RESPONSES => {
            return Err(Failed::Error(too_many_interim()));
        }
        None => return Err(Failed::Error(closed())),
    };
    let status = head.status().as_u16();
    let (parts, mut incoming) = head.into_parts();
    let too_large = |headers: &HeaderMap| {
        Failed::Error(SendError::TooLarge {
            status,
            headers: headers.clone(),
            limit: max_bytes,
        })
    };
    let content_length = incoming.size_hint().exact();
    if content_length.is_some_and(|n| n > max_bytes as u64) {
        return Err(too_large(&parts.headers));
    }
    let mut body = Body::default();
    while !incoming.is_end_stream() {
        let frame = poll_fn(|cx| {
            if let Poll::Ready(frame) = Pin::new(&mut incoming).poll_frame(cx) {
                return Poll::Ready(Some(frame));
            }
            if conn.drive(cx).is_ready() {
                return Pin::new(&mut incoming).poll_frame(cx).map(Some).or_ended();
            }
            Pin::new(&mut incoming).poll_frame(cx).map(Some)
        })
        .await;
        let data = match frame {
            Some(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => data,
                Err(_trailers) => continue,
            },
            Some(None) => break,
            Some(Some(Err(e))) => return Err(Failed::Error(broken(&e))),
            None => return Err(Failed::Error(closed())),
        };
        if body.len() + data.len() > max_bytes {
            return Err(too_large(&parts.headers));
        }
        if let Err(full) = make_room(held, &body, data.len(), content_length) {
            return Err(Failed::Error(SendError::NoRoom {
                status,
                headers: parts.headers.clone(),
                held: full.held,
                limit: full.limit,
                part: full.part,
            }));
        }
        body.push(data, content_length);
    }
    Ok((status, parts.headers, body))
}

impl Conn {
    /// Polls the connection's state machine once; ready when it has ended.
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if !self.ended && Pin::new(&mut self.driver).poll(cx).is_ready() {
            // An error here reaches the request or the body as well; that is where it
            // is reported.
            self.ended = true;
        }
        if self.ended {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Whether another request can be sent now: the connection is open (a close by
    /// the server is read here) and done with the last exchange. It is polled without
    /// a waker: nobody waits on a connection at rest.
    fn ready_for_more(&mut self) -> bool {
        let mut cx = Context::from_waker(Waker::noop());
        self.drive(&mut cx).is_pending()
            && matches!(self.sender.poll_ready(&mut cx), Poll::Ready(Ok(())))
    }
}

/// `Ready(None)` for a poll that is still pending after the connection ended: nothing
/// will ever complete it.
trait OrEnded<T> {
    fn or_ended(self) -> Poll<Option<T>>;
}

impl<T> OrEnded<T> for Poll<Option<T>> {
    fn or_ended(self) -> Poll<Option<T>> {
        match self {
            Poll::Pending => Poll::Ready(None),
            ready => ready,
        }
    }
}

/// A connection that could not be opened; io and hyper errors name the socket's
/// failure, never the URL.
fn could_not_connect(e: impl std::fmt::Display) -> SendError {
    SendError::Connect {
        detail: format!("could not connect: {e}"),
    }
}

/// The most interim (1xx) responses an exchange reads before its answer: a server
/// sends one `100 Continue`, perhaps a `102 Processing` now and then or a `103 Early
/// Hints`; a run of them is a server that will not answer.
const MAX_INTERIM_RESPONSES: usize = 8;

/// An upstream that kept sending interim responses: the request went out, so this is
/// `Broken`, like any response that is not valid HTTP/1.1.
fn too_many_interim() -> SendError {
    SendError::Broken {
        detail: format!(
            "the upstream sent more than {MAX_INTERIM_RESPONSES} interim (1xx) responses \
             without an answer"
        ),
    }
}

/// The request went out and the connection ended before the whole response came: the
/// upstream may have acted on it, so this is `Broken` (retried only where a retry is
/// safe), never `Connect` — a payment must not be sent three times because its answer
/// was cut short.
fn closed() -> SendError {
    SendError::Broken {
        detail: "the connection closed before the response was complete".into(),
    }
}

/// A transport error after the request was handed to the connection, in words, with
/// its causes (hyper and io errors describe the socket, never the URL). Hyper gives a
/// request back when it was never written ([`Failed::NotSent`]); any other failure may
/// have reached the upstream, so it is `Broken`, like [`closed`].
fn broken(e: &hyper::Error) -> SendError {
    let what = if e.is_parse() || e.is_parse_status() {
        "the response is not valid HTTP/1.1"
    } else {
        "the connection broke during the exchange"
    };
    SendError::Broken {
        detail: with_causes(what.to_owned(), Some(e)),
    }
}

#[cfg(test)]
mod tests;
