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

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::Routes;
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

/// Serves `router` (an axum `Router`, or [`Routes`]) with the default limits until
/// `shutdown` (used for the demo upstream).
pub async fn serve(
    listener: TcpListener,
    router: impl Into<Routes>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    serve_with(listener, router, shutdown, Limits::default()).await
}

/// Serves `router` on `listener`, on the current runtime, until `shutdown` is cancelled
/// and the connections have drained (or `limits.drain` has passed).
pub async fn serve_with(
    listener: TcpListener,
    router: impl Into<Routes>,
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
    router: impl Into<Routes>,
    shutdown: CancellationToken,
    limits: Limits,
    threads: Option<Arc<ServingThreads>>,
) -> std::io::Result<()> {
    let routes: Routes = router.into();
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
            routes: routes.clone(),
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
    routes: Routes,
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
            routes,
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
            let routes = routes.clone();
            let request =
                request.map(|body| Body::new(Arriving::new(body, &tracked, body_timeout)));
            async move {
                let response = routes.answer(request).await;
                Ok::<_, std::convert::Infallible>(response.map(|body| Guarded::new(body, guard)))
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
mod tests;
