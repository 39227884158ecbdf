//! Serving connections with hyper's HTTP/1 connection builder, bounded so that no
//! client can take the listener down:
//!
//! - a client has `header_timeout` to send a request's headers (slowloris), and then
//!   `body_timeout` to send its body: a body still arriving then fails the handler that
//!   reads it (`/mcp` answers 408 and the connection closes), whatever the pace of its
//!   bytes;
//! - a client that reads nothing of its answer for `send_timeout` is disconnected, and
//!   the answer it held dropped (logged, at most once per few seconds);
//! - a connection idle (no request in flight) for `idle_timeout` is closed;
//! - at most `max_connections` are open, never more than the process's open-file limit
//!   allows (less a reserve for the state store and upstream sockets). At the limit, the
//!   longest-idle connection is closed to make room, else the one whose request has been
//!   arriving longest (nothing of it has been acted on: its headers or body are not all
//!   in), so clients sending slowly cannot hold every slot; when every connection is
//!   serving a request, the new one is closed at once, with a warning (at most one per
//!   few seconds);
//! - an accept error (EMFILE, ENFILE, …) is logged and retried after a short pause, so
//!   the loop neither dies nor spins;
//! - on shutdown, accepting stops, idle connections close, and requests in flight get
//!   `drain` to finish before `serve` returns.

use std::collections::HashMap;
use std::future::Future as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

use super::guarded::Guarded;
use super::threads::ServingThreads;

use toolgate_config::GatewayConfig;
use toolgate_engine::sync::lock;

/// File descriptors kept free for everything but client connections.
const FD_RESERVE: usize = 64;
/// Pause after a failed accept.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// At most one warning per this interval for the same condition.
const WARN_EVERY: Duration = Duration::from_secs(5);

/// The listener's limits.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub send_timeout: Duration,
    pub idle_timeout: Duration,
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            send_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            drain: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// The limits configured under `gateway:`.
    pub fn from_config(g: &GatewayConfig) -> Limits {
        Limits {
            max_connections: g.max_connections,
            header_timeout: g.header_timeout,
            body_timeout: g.body_timeout,
            send_timeout: g.send_timeout,
            idle_timeout: g.idle_timeout,
            drain: g.drain,
        }
    }
}

/// Serves `router` with the default limits until `shutdown` (used for the demo upstream).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    serve_with(listener, router, shutdown, Limits::default()).await
}

/// Serves `router` on `listener`, on the current runtime, until `shutdown` is cancelled
/// and the connections have drained (or `limits.drain` has passed).
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    limits: Limits,
) -> std::io::Result<()> {
    serve_on(listener, router, shutdown, limits, None).await
}

/// As [`serve_with`], each connection served by one of `threads` (on the current
/// runtime for `None`). The threads outlive this: their owner stops them once what the
/// last calls left behind is written out.
pub async fn serve_on(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    limits: Limits,
    threads: Option<Arc<ServingThreads>>,
) -> std::io::Result<()> {
    let max = effective_max_connections(limits.max_connections);
    let registry = Arc::new(Registry::default());
    let mut builder = hyper::server::conn::http1::Builder::new();
    // hyper's own header-read timeout also runs while a keep-alive connection waits for
    // its next request, which would make it the idle timeout too; the watchdog in
    // `connection` times the headers instead, from their first byte.
    builder.timer(TokioTimer::new()).header_read_timeout(None);
    let builder = Arc::new(builder);
    let mut full_warning = Warn::default();
    let mut accept_warning = Warn::default();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                if let Some(suppressed) = accept_warning.due() {
                    tracing::warn!(error = %e, suppressed, "accepting a connection failed; retrying shortly (too many open files? raise the fd limit or lower gateway.max_connections)");
                }
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        if registry.len() >= max && !registry.evict() {
            drop(stream);
            if let Some(suppressed) = full_warning.due() {
                tracing::warn!(
                    max_connections = max,
                    suppressed,
                    "connection limit reached and every connection is busy: closing new connections at once (gateway.max_connections)"
                );
            }
            continue;
        }
        // A streamable-HTTP answer can go out in several small writes; with Nagle on,
        // the last one waits for the client's delayed ACK (~40 ms per call on Linux).
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let accepted = Accepted {
            router: router.clone(),
            builder: builder.clone(),
            conn: registry.add(),
            registry: registry.clone(),
            shutdown: shutdown.clone(),
            limits: limits.clone(),
        };
        match &threads {
            Some(threads) => match stream.into_std() {
                // Registered again with the event loop of the thread that serves it.
                Ok(stream) => threads.spawn(async move {
                    match tokio::net::TcpStream::from_std(stream) {
                        Ok(stream) => accepted.serve(stream).await,
                        Err(e) => accepted.abandon(&e),
                    }
                }),
                Err(e) => accepted.abandon(&e),
            },
            None => drop(tokio::spawn(accepted.serve(stream))),
        }
    }
    drop(listener);
    drain(&registry, limits.drain).await;
    Ok(())
}

/// Waits until every connection has closed, or `deadline` has passed.
async fn drain(registry: &Registry, deadline: Duration) {
    let until = Instant::now() + deadline;
    loop {
        let changed = registry.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let open = registry.len();
        if open == 0 {
            return;
        }
        tokio::select! {
            () = changed => {}
            () = tokio::time::sleep_until(until) => {
                tracing::warn!(open, "drain deadline passed with requests still running; closing their connections (gateway.drain)");
                return;
            }
        }
    }
}

/// An accepted connection, with what serving it needs.
struct Accepted {
    router: Router,
    builder: Arc<hyper::server::conn::http1::Builder>,
    conn: Arc<Conn>,
    registry: Arc<Registry>,
    shutdown: CancellationToken,
    limits: Limits,
}

impl Accepted {
    /// The connection could not be handed to its serving thread: it is closed, and
    /// leaves the registry so that neither the limit nor the drain counts it.
    fn abandon(self, error: &std::io::Error) {
        tracing::debug!(%error, "could not hand a connection to a serving thread; closed");
        self.registry.remove(self.conn.id);
    }

    async fn serve(self, stream: tokio::net::TcpStream) {
        let Accepted {
            router,
            builder,
            conn,
            registry,
            shutdown,
            limits,
        } = self;
        let tracked = conn.clone();
        let body_timeout = limits.body_timeout;
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let guard = tracked.begin();
            let router = router.clone();
            let request =
                request.map(|body| Body::new(Arriving::new(body, &tracked, body_timeout)));
            async move {
                let response = router.oneshot(request).await;
                response.map(|r| r.map(|body| Guarded::new(body, guard)))
            }
        });
        let watched = Watched {
            inner: stream,
            conn: conn.clone(),
        };
        let served = builder.serve_connection(TokioIo::new(watched), service);
        tokio::pin!(served);
        let mut closing = false;
        let check_every = (limits
            .header_timeout
            .min(limits.idle_timeout)
            .min(limits.body_timeout)
            .min(limits.send_timeout)
            / 4)
        .max(Duration::from_millis(50));
        loop {
            tokio::select! {
                result = served.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                    break;
                }
                () = shutdown.cancelled(), if !closing => {
                    served.as_mut().graceful_shutdown();
                    closing = true;
                }
                () = conn.close.cancelled(), if !closing => {
                    if conn.body_pending_for() > Duration::ZERO {
                        // Closed to make room while its request is still arriving:
                        // nothing of it has been acted on, and waiting for the rest
                        // would keep the slot.
                        break;
                    }
                    served.as_mut().graceful_shutdown();
                    closing = true;
                }
                () = tokio::time::sleep(check_every) => {
                    if conn.head_pending_for() >= limits.header_timeout {
                        // No request is in flight, so dropping the connection loses nothing.
                        tracing::debug!("closing a connection that did not send its request headers in time (gateway.header_timeout)");
                        break;
                    }
                    if conn.body_pending_for() >= limits.body_timeout + limits.header_timeout {
                        // The handler did not read the body (which fails at
                        // `body_timeout`) and did not answer either.
                        tracing::debug!("closing a connection whose request body did not arrive in time (gateway.body_timeout)");
                        break;
                    }
                    if conn.write_stalled_for() >= limits.send_timeout {
                        if let Some(suppressed) = lock(&registry.stalled_warning).due() {
                            tracing::warn!(
                                send_timeout = ?limits.send_timeout,
                                suppressed,
                                "closed a connection whose client stopped reading its answer; the answer is dropped (gateway.send_timeout)"
                            );
                        }
                        break;
                    }
                    if !closing && conn.idle_for() >= limits.idle_timeout {
                        served.as_mut().graceful_shutdown();
                        closing = true;
                    }
                }
            }
        }
        registry.remove(conn.id);
    }
}

/// The open-file limit caps the connections: past it, accept fails for everyone.
fn effective_max_connections(configured: usize) -> usize {
    let Some(soft) = open_file_limit() else {
        return configured.max(1);
    };
    let room = soft.saturating_sub(FD_RESERVE).max(1);
    if room < configured {
        tracing::info!(
            max_connections = room,
            configured,
            open_file_limit = soft,
            "gateway.max_connections lowered to fit the process's open-file limit"
        );
        room
    } else {
        configured.max(1)
    }
}

/// The soft `RLIMIT_NOFILE`, read from /proc (no unsafe code needed).
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_open_file_limit(&limits)
}

fn parse_open_file_limit(limits: &str) -> Option<usize> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.trim_start_matches("Max open files")
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// One open connection: requests in flight (until their body is sent) and when it last
/// had one.
#[derive(Debug)]
struct Conn {
    id: u64,
    in_flight: AtomicUsize,
    /// Milliseconds since the registry's epoch.
    last_active: AtomicU64,
    /// Cancelled to close the connection gracefully (to make room).
    close: CancellationToken,
    /// The registry's epoch, which `last_active` counts from.
    epoch: Instant,
    /// When the pending request head began (ms since the epoch), or `NONE`. A new
    /// connection owes its first request, so it starts pending.
    head_since: AtomicU64,
    /// Since when a request's body has been arriving (ms since the epoch), or `NONE`.
    body_since: AtomicU64,
    /// Since when writing to the client has made no progress (ms since the epoch), or
    /// `NONE`: its socket buffer is full because it does not read.
    stalled_since: AtomicU64,
}

/// No request head is pending.
const NONE: u64 = u64::MAX;

impl Conn {
    fn begin(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.head_since.store(NONE, Ordering::SeqCst);
        InFlight(self.clone())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }

    /// Bytes arrived: with no request in flight they start a request head.
    fn read_some(&self) {
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            let now = self.now_ms();
            let _ = self
                .head_since
                .compare_exchange(NONE, now, Ordering::SeqCst, Ordering::SeqCst);
        }
    }

    /// How long a request head has been arriving without being complete.
    fn head_pending_for(&self) -> Duration {
        let since = self.head_since.load(Ordering::SeqCst);
        if since == NONE || self.in_flight.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        Duration::from_millis(self.now_ms().saturating_sub(since))
    }

    /// Since when a request's body has been arriving; zero when none is.
    fn body_pending_for(&self) -> Duration {
        self.pending_for(&self.body_since)
    }

    /// How long a write has waited for the client to read.
    fn write_stalled_for(&self) -> Duration {
        self.pending_for(&self.stalled_since)
    }

    fn pending_for(&self, since: &AtomicU64) -> Duration {
        let since = since.load(Ordering::SeqCst);
        if since == NONE {
            return Duration::ZERO;
        }
        Duration::from_millis(self.now_ms().saturating_sub(since).max(1))
    }

    /// A write to the client returned `polled`: pending starts a stall, progress ends it.
    fn wrote(&self, polled: &Poll<std::io::Result<usize>>) {
        match polled {
            Poll::Pending => {
                let now = self.now_ms();
                let _ = self.stalled_since.compare_exchange(
                    NONE,
                    now,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                );
            }
            Poll::Ready(Ok(n)) if *n > 0 => self.stalled_since.store(NONE, Ordering::SeqCst),
            Poll::Ready(_) => {}
        }
    }

    fn idle_for(&self) -> Duration {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        let last = Duration::from_millis(self.last_active.load(Ordering::SeqCst));
        self.epoch.elapsed().saturating_sub(last)
    }
}

/// Held while a request is in flight, up to the end of its response body.
#[derive(Debug)]
struct InFlight(Arc<Conn>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        let now = u64::try_from(self.0.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.0.last_active.store(now, Ordering::SeqCst);
    }
}

/// The open connections.
#[derive(Debug)]
struct Registry {
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
    next: AtomicU64,
    epoch: Instant,
    changed: Notify,
    /// Rate-limits the warning for clients that stop reading.
    stalled_warning: Mutex<Warn>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            conns: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            epoch: Instant::now(),
            changed: Notify::new(),
            stalled_warning: Mutex::new(Warn::default()),
        }
    }
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        lock(&self.conns)
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    fn add(&self) -> Arc<Conn> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        let conn = Arc::new(Conn {
            id,
            in_flight: AtomicUsize::new(0),
            last_active: AtomicU64::new(now),
            close: CancellationToken::new(),
            epoch: self.epoch,
            head_since: AtomicU64::new(now),
            body_since: AtomicU64::new(NONE),
            stalled_since: AtomicU64::new(NONE),
        });
        self.lock().insert(id, conn.clone());
        conn
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
        self.changed.notify_waiters();
    }

    /// Asks a connection (not already closing) to close to make room: the longest idle,
    /// else the one whose request body has been arriving longest; whether there was one.
    fn evict(&self) -> bool {
        let conns = self.lock();
        let open = || conns.values().filter(|c| !c.close.is_cancelled());
        let victim = open()
            .filter(|c| c.in_flight.load(Ordering::SeqCst) == 0)
            .min_by_key(|c| c.last_active.load(Ordering::SeqCst))
            .or_else(|| {
                open()
                    .filter(|c| c.body_since.load(Ordering::SeqCst) != NONE)
                    .min_by_key(|c| c.body_since.load(Ordering::SeqCst))
            });
        match victim {
            Some(c) => {
                c.close.cancel();
                true
            }
            None => false,
        }
    }
}

/// The client's socket, noting when request bytes arrive (for the header timeout).
struct Watched {
    inner: tokio::net::TcpStream,
    conn: Arc<Conn>,
}

impl tokio::io::AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.conn.read_some();
        }
        polled
    }
}

impl tokio::io::AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.conn.wrote(&polled);
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.conn.wrote(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A request body, noting on its connection while it is still arriving, and failing
/// with [`BodyTimedOut`] once it has taken longer than its time.
struct Arriving {
    body: Incoming,
    conn: Arc<Conn>,
    deadline: Pin<Box<tokio::time::Sleep>>,
    done: bool,
}

impl Arriving {
    fn new(body: Incoming, conn: &Arc<Conn>, timeout: Duration) -> Arriving {
        let done = hyper::body::Body::is_end_stream(&body);
        if !done {
            let now = conn.now_ms();
            conn.body_since.store(now, Ordering::SeqCst);
        }
        Arriving {
            body,
            conn: conn.clone(),
            deadline: Box::pin(tokio::time::sleep(timeout)),
            done,
        }
    }

    fn finish(&mut self) {
        if !self.done {
            self.done = true;
            self.conn.body_since.store(NONE, Ordering::SeqCst);
        }
    }
}

impl Drop for Arriving {
    fn drop(&mut self) {
        self.finish();
    }
}

impl hyper::body::Body for Arriving {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::BoxError>>> {
        if self.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if self.body.is_end_stream() {
                    self.finish();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                self.finish();
                Poll::Ready(Some(Err(e.into())))
            }
            Poll::Ready(None) => {
                self.finish();
                Poll::Ready(None)
            }
            Poll::Pending => {
                if self.deadline.as_mut().poll(cx).is_ready() {
                    self.finish();
                    return Poll::Ready(Some(Err(Box::new(BodyTimedOut))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A request body that did not arrive within `gateway.body_timeout`.
#[derive(Debug)]
pub struct BodyTimedOut;

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time (gateway.body_timeout)")
    }
}

impl std::error::Error for BodyTimedOut {}

/// Whether reading a request body failed because it did not arrive in time.
pub fn body_timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if e.is::<BodyTimedOut>() {
            return true;
        }
        cause = e.source();
    }
    false
}

/// Rate-limits one kind of warning.
#[derive(Debug, Default)]
struct Warn {
    last: Option<Instant>,
    suppressed: u64,
}

impl Warn {
    /// `Some(number suppressed since the last one)` when a warning may be logged now.
    fn due(&mut self) -> Option<u64> {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|l| now.duration_since(l) < WARN_EVERY)
        {
            self.suppressed += 1;
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.suppressed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_open_file_limit_is_read_from_proc() {
        let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max cpu time              unlimited            unlimited            seconds\n\
                    Max open files            256                  4096                 files\n";
        assert_eq!(parse_open_file_limit(text), Some(256));
        assert_eq!(parse_open_file_limit("nothing"), None);
    }

    /// One GET on an open keep-alive connection; the body.
    async fn get(stream: &mut tokio::net::TcpStream, path: &str) -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let request = format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the connection closed mid-answer");
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).to_string();
            let Some((head, body)) = text.split_once("\r\n\r\n") else {
                continue;
            };
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .expect("a content-length");
            if body.len() >= length {
                return body[..length].to_owned();
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn connections_are_dealt_to_the_serving_threads_and_stay_on_theirs() {
        let threads = Arc::new(ServingThreads::start(Some(2)).expect("two serving threads"));
        assert_eq!(threads.len(), 2);
        let router = Router::new().route(
            "/thread",
            axum::routing::get(|| async {
                let name = std::thread::current()
                    .name()
                    .unwrap_or("unnamed")
                    .to_owned();
                // The engine knows it is on a serving thread too (its upstream pools
                // and background work go by it).
                format!("{name} {:?}", toolgate_engine::serving::thread_index())
            }),
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let server = tokio::spawn(serve_on(
            listener,
            router,
            stop.clone(),
            Limits::default(),
            Some(threads.clone()),
        ));
        let mut seen = Vec::new();
        let mut connections = Vec::new();
        for _ in 0..4 {
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let first = get(&mut stream, "/thread").await;
            // Every request of a connection is served by the thread it was given.
            for _ in 0..3 {
                assert_eq!(get(&mut stream, "/thread").await, first);
            }
            seen.push(first);
            connections.push(stream);
        }
        assert_eq!(
            seen,
            [
                "toolgate-serve-0 Some(0)",
                "toolgate-serve-1 Some(1)",
                "toolgate-serve-0 Some(0)",
                "toolgate-serve-1 Some(1)"
            ]
        );
        // Stopping drains the connections and returns; the threads are their owner's.
        drop(connections);
        stop.cancel();
        server.await.unwrap().unwrap();
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "the listener is closed"
        );
    }

    #[test]
    fn no_serving_threads_are_started_for_zero_or_outside_a_runtime() {
        assert!(ServingThreads::start(Some(0)).is_none());
        assert!(
            ServingThreads::start(Some(2)).is_none(),
            "no runtime to send background work to"
        );
    }

    /// Serves `router` with `limits` on a loopback port until the test ends.
    async fn serving(router: Router, limits: Limits) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve_with(
            listener,
            router,
            CancellationToken::new(),
            limits,
        ));
        addr
    }

    /// A handler that reads the whole body, as `/mcp` does: 408 when it does not arrive
    /// in time.
    async fn read_body(request: axum::extract::Request) -> axum::http::StatusCode {
        match axum::body::to_bytes(request.into_body(), 1 << 20).await {
            Ok(_) => axum::http::StatusCode::OK,
            Err(e) if body_timed_out(&e) => axum::http::StatusCode::REQUEST_TIMEOUT,
            Err(_) => axum::http::StatusCode::BAD_REQUEST,
        }
    }

    /// Headers and the start of a body of 1000 bytes.
    const PARTIAL_BODY: &[u8] =
        b"POST /body HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\n\r\n{";

    /// Everything the server sends until it closes the connection.
    async fn until_closed(stream: &mut tokio::net::TcpStream) -> String {
        use tokio::io::AsyncReadExt as _;
        let mut got = Vec::new();
        let _ = stream.read_to_end(&mut got).await;
        String::from_utf8_lossy(&got).into_owned()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_body_trickling_in_is_answered_408_and_its_connection_closed() {
        use tokio::io::AsyncWriteExt as _;
        let router = Router::new().route("/body", axum::routing::post(read_body));
        let limits = Limits {
            body_timeout: Duration::from_secs(1),
            ..Limits::default()
        };
        let addr = serving(router, limits).await;
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(PARTIAL_BODY).await.unwrap();
        // A byte now and then keeps the body arriving, never complete: the pace of the
        // bytes does not matter, only the time since the headers.
        let (mut reader, mut writer) = stream.into_split();
        let trickle = tokio::spawn(async move {
            while writer.write_all(b" ").await.is_ok() {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
        let mut got = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut reader, &mut got).await;
        let answer = String::from_utf8_lossy(&got);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        trickle.abort();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_the_limit_a_connection_still_sending_its_body_makes_room() {
        use tokio::io::AsyncWriteExt as _;
        let (started, mut reading) = tokio::sync::mpsc::unbounded_channel();
        let router = Router::new()
            .route(
                "/body",
                axum::routing::post(move |request: axum::extract::Request| {
                    let _ = started.send(());
                    read_body(request)
                }),
            )
            .route("/ok", axum::routing::get(|| async { "ok" }));
        // The body timeout is far away: only making room can let a new client in.
        let limits = Limits {
            max_connections: 4,
            body_timeout: Duration::from_secs(600),
            ..Limits::default()
        };
        let addr = serving(router, limits).await;
        let mut slow = Vec::new();
        for _ in 0..4 {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(PARTIAL_BODY).await.unwrap();
            slow.push(s);
        }
        for _ in 0..4 {
            reading.recv().await.unwrap();
        }
        // Every slot holds a request whose body is arriving; a new client gets in.
        let mut fresh = tokio::net::TcpStream::connect(addr).await.unwrap();
        assert_eq!(get(&mut fresh, "/ok").await, "ok");
        // The one that made room is closed unanswered (nothing of its request was acted
        // on).
        let readable = slow.iter().map(|s| Box::pin(s.readable()));
        let (_, first, _) = futures_util::future::select_all(readable).await;
        assert_eq!(until_closed(&mut slow[first]).await, "");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_that_stops_reading_its_answer_is_disconnected() {
        use tokio::io::AsyncWriteExt as _;
        const ANSWER: usize = 32 << 20;
        let router =
            Router::new().route("/big", axum::routing::get(|| async { vec![b'x'; ANSWER] }));
        let limits = Limits {
            send_timeout: Duration::from_secs(1),
            ..Limits::default()
        };
        let addr = serving(router, limits).await;
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET /big HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
            .await
            .unwrap();
        // Reads nothing for longer than the send timeout; the socket buffers hold a
        // few megabytes at most, far from the whole answer.
        tokio::time::sleep(Duration::from_secs(4)).await;
        let got = until_closed(&mut stream).await;
        assert!(
            got.starts_with("HTTP/1.1 200"),
            "{}",
            &got[..got.len().min(100)]
        );
        assert!(
            got.len() < ANSWER,
            "the whole answer was kept for a client that did not read it"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn warnings_are_rate_limited() {
        let mut w = Warn::default();
        assert_eq!(w.due(), Some(0));
        assert_eq!(w.due(), None);
        assert_eq!(w.due(), None);
        tokio::time::advance(WARN_EVERY).await;
        assert_eq!(w.due(), Some(2));
    }

    #[tokio::test(start_paused = true)]
    async fn the_longest_idle_connection_is_evicted_and_busy_ones_never() {
        let r = Registry::default();
        let a = r.add();
        tokio::time::advance(Duration::from_secs(1)).await;
        let b = r.add();
        let busy = a.begin();
        assert!(r.evict());
        assert!(b.close.is_cancelled() && !a.close.is_cancelled());
        assert!(!r.evict(), "a is busy, b is already closing");
        drop(busy);
        assert!(r.evict());
        assert!(a.close.is_cancelled());
    }
}
