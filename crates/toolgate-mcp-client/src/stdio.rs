//! Stdio: newline-delimited JSON-RPC with a supervised child process. One
//! writer task, one reader task, a map of pending request ids.
//!
//! Stdio has no per-request stream, so the reader attributes what the
//! server writes (see the crate docs): an answer by its id, a progress
//! notification by its token, anything else to the newest pending request
//! with a relay, or, with none, to an [`Event`] (notifications) or a -32601
//! answer (server requests).

use std::collections::HashMap;
use std::process::{ExitStatus, Stdio as Piped};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::message::{self, Incoming};
use crate::scan::IdScanner;
use crate::{
    BACKGROUND_INIT_TIMEOUT, Connection, Event, Failure, Initialized, Inner, Relay, Relayed, Reply,
    answer_server_request, lock,
};

const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A request that finds the child down waits for its restart when that is due within
/// this long (the first restarts after a crash are); otherwise it fails at once.
const MAX_RESTART_WAIT: Duration = Duration::from_secs(2);

/// A child that ran this long before exiting starts the backoff over.
const HEALTHY_UPTIME: Duration = Duration::from_secs(60);
/// After stdin is closed on shutdown, the child gets this long to exit.
const GRACE: Duration = Duration::from_secs(2);
/// A stderr line is logged up to this many bytes.
const STDERR_LINE_CAP: usize = 8 * 1024;

#[derive(Clone)]
pub(crate) struct Command {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<std::path::PathBuf>,
}

pub(crate) struct Stdio {
    command: Command,
    state: Arc<State>,
    supervisor: Mutex<Option<JoinHandle<()>>>,
    /// Asks the supervisor for a graceful stop (close stdin, then kill).
    stopping: CancellationToken,
}

type Answer = Result<Value, Failure>;

struct Pending {
    answer: oneshot::Sender<Answer>,
    relay: Option<Relay>,
    token: Option<String>,
    /// Start order: server requests go to the newest pending request.
    seq: u64,
}

#[derive(Default)]
struct Shared {
    writer: Option<mpsc::Sender<Vec<u8>>>,
    pid: Option<u32>,
    /// Why no child runs, for the requests that find none.
    down: Option<String>,
    pending: HashMap<i64, Pending>,
    tokens: HashMap<String, i64>,
    seq: u64,
    /// Start attempts made so far (the first spawn included).
    attempts: u64,
    /// When the supervisor makes its next start attempt, while it waits to.
    next_attempt: Option<Instant>,
}

struct State {
    name: String,
    max: usize,
    shared: Mutex<Shared>,
    /// Woken after every start attempt, so requests that found no child can wait for
    /// the restart instead of failing in the moment between an exit and a restart.
    attempted: tokio::sync::Notify,
    /// The running child's generation (0: none yet).
    epoch: AtomicU64,
    /// The generation the last handshake was made with.
    ready_epoch: AtomicU64,
    events: mpsc::Sender<Event>,
}

impl State {
    fn emit(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.events.try_send(event) {
            tracing::warn!(server = %self.name, "event channel full; an upstream event was dropped");
        }
    }

    fn writer(&self) -> Result<mpsc::Sender<Vec<u8>>, Failure> {
        let s = lock(&self.shared);
        s.writer.clone().ok_or_else(|| {
            Failure::connect(
                s.down
                    .clone()
                    .unwrap_or_else(|| "the server process is not running".to_owned()),
            )
        })
    }

    fn fail_all(&self, detail: &str) {
        let pending: Vec<Pending> = {
            let mut s = lock(&self.shared);
            s.tokens.clear();
            s.pending.drain().map(|(_, p)| p).collect()
        };
        for p in pending {
            let _ = p.answer.send(Err(Failure::Broken {
                detail: detail.to_owned(),
            }));
        }
    }

    fn take_pending(&self, id: i64) -> Option<Pending> {
        let mut s = lock(&self.shared);
        let p = s.pending.remove(&id)?;
        if let Some(t) = &p.token {
            s.tokens.remove(t);
        }
        Some(p)
    }

    /// The relay of the newest pending request that has one.
    fn newest_relay(&self) -> Option<Relay> {
        let s = lock(&self.shared);
        s.pending
            .values()
            .filter(|p| p.relay.is_some())
            .max_by_key(|p| p.seq)
            .and_then(|p| p.relay.clone())
    }

    fn relay_for_token(&self, token: &str) -> Option<Relay> {
        let s = lock(&self.shared);
        let id = s.tokens.get(token)?;
        s.pending.get(id)?.relay.clone()
    }
}

/// Removes a request from the pending map however its future ends.
struct PendingGuard<'a> {
    state: &'a State,
    id: i64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.state.take_pending(self.id);
    }
}

impl Stdio {
    pub(crate) fn new(
        command: Command,
        name: String,
        max: usize,
        events: mpsc::Sender<Event>,
    ) -> Self {
        Stdio {
            command,
            state: Arc::new(State {
                name,
                max,
                shared: Mutex::new(Shared::default()),
                attempted: tokio::sync::Notify::new(),
                epoch: AtomicU64::new(0),
                ready_epoch: AtomicU64::new(0),
                events,
            }),
            supervisor: Mutex::new(None),
            stopping: CancellationToken::new(),
        }
    }

    /// Spawns the child and its supervisor (called once, from `start`).
    pub(crate) fn launch(&self, inner: &Arc<Inner>) {
        let first = spawn_child(&self.command, &self.state);
        lock(&self.state.shared).attempts += 1;
        let handle = tokio::spawn(supervise(
            Arc::downgrade(inner),
            self.command.clone(),
            Arc::clone(&self.state),
            first,
            self.stopping.clone(),
            inner.closed.clone(),
        ));
        *lock(&self.supervisor) = Some(handle);
    }

    pub(crate) fn is_ready(&self) -> bool {
        let epoch = self.state.epoch.load(Ordering::Acquire);
        epoch != 0 && self.state.ready_epoch.load(Ordering::Acquire) == epoch
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        lock(&self.state.shared).pid
    }

    pub(crate) async fn handshake(&self, inner: &Arc<Inner>) -> Result<Initialized, Failure> {
        let epoch = self.state.epoch.load(Ordering::Acquire);
        let id = inner.next_id();
        let body = message::request(id, "initialize", Some(&crate::initialize_params()));
        let (answer, _) = self.call(id, body, None, None).await?;
        let init = crate::initialized_from(message::outcome(&answer).map_err(Failure::protocol)?)?;
        self.write_line(message::notification("notifications/initialized", None))
            .await?;
        self.state.ready_epoch.store(epoch, Ordering::Release);
        Ok(init)
    }

    pub(crate) async fn request(
        &self,
        inner: &Arc<Inner>,
        method: &str,
        params: Option<&Value>,
        relay: Option<Relay>,
        cancel_id: &mut Option<i64>,
    ) -> Result<Reply, Failure> {
        // A request made while the child is down waits for its restart, and then for the
        // restarted child's handshake: a server must see `initialize` first.
        self.await_restart().await;
        if !self.is_ready() && !self.stopping.is_cancelled() {
            inner.ensure_initialized().await?;
        }
        let id = inner.next_id();
        let body = message::request(id, method, params);
        let token = message::progress_token(params);
        *cancel_id = Some(id);
        let (answer, latency) = self.call(id, body, relay, token).await?;
        Ok(Reply {
            outcome: message::outcome(&answer).map_err(Failure::protocol)?,
            status: 200,
            headers: http::HeaderMap::new(),
            latency,
        })
    }

    /// Writes one request and waits for the message that answers it.
    async fn call(
        &self,
        id: i64,
        body: Vec<u8>,
        relay: Option<Relay>,
        token: Option<String>,
    ) -> Result<(Value, Duration), Failure> {
        let (tx, rx) = oneshot::channel();
        let writer = {
            let mut s = lock(&self.state.shared);
            let Some(writer) = s.writer.clone() else {
                drop(s);
                return Err(self
                    .state
                    .writer()
                    .err()
                    .unwrap_or_else(|| Failure::connect("the server process is not running")));
            };
            s.seq += 1;
            let seq = s.seq;
            if let Some(t) = &token {
                s.tokens.insert(t.clone(), id);
            }
            s.pending.insert(
                id,
                Pending {
                    answer: tx,
                    relay,
                    token,
                    seq,
                },
            );
            writer
        };
        let _guard = PendingGuard {
            state: &self.state,
            id,
        };
        let started = Instant::now();
        writer
            .send(body)
            .await
            .map_err(|_| Failure::connect("the server process is not running"))?;
        let answer = rx
            .await
            .map_err(|_| Failure::connect("the server process exited"))??;
        Ok((answer, started.elapsed()))
    }

    /// With no child running (it exited, a restart is due), waits for the next start
    /// attempt — bounded by the caller's deadline — so a request made just after a
    /// crash reaches the restarted server rather than failing at once. If that attempt
    /// fails too, the request fails with its reason.
    async fn await_restart(&self) {
        if self.stopping.is_cancelled() {
            return;
        }
        let seen = {
            let s = lock(&self.state.shared);
            if s.writer.is_some() {
                return;
            }
            // Only a restart that is due soon is worth waiting for; a server that keeps
            // exiting (its backoff grown) fails the request at once, as a down one should.
            match s.next_attempt {
                Some(at) if at.saturating_duration_since(Instant::now()) <= MAX_RESTART_WAIT => {}
                _ => return,
            }
            s.attempts
        };
        loop {
            let woken = self.state.attempted.notified();
            if lock(&self.state.shared).attempts > seen || self.stopping.is_cancelled() {
                return;
            }
            tokio::select! {
                () = woken => {}
                () = self.stopping.cancelled() => return,
            }
        }
    }

    pub(crate) async fn write_line(&self, body: Vec<u8>) -> Result<(), Failure> {
        self.state
            .writer()?
            .send(body)
            .await
            .map_err(|_| Failure::connect("the server process is not running"))
    }

    pub(crate) async fn shutdown(&self) {
        self.stopping.cancel();
        let handle = lock(&self.supervisor).take();
        if let Some(h) = handle {
            let _ = h.await;
        }
    }
}

/// Spawns one child with its writer, reader and stderr tasks; `None` (and
/// the reason kept for requests) if it could not be started.
fn spawn_child(command: &Command, state: &Arc<State>) -> Option<Child> {
    let mut cmd = tokio::process::Command::new(&command.program);
    cmd.args(&command.args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(Piped::piped())
        .stdout(Piped::piped())
        .stderr(Piped::piped())
        .kill_on_drop(true);
    if let Some(dir) = &command.cwd {
        cmd.current_dir(dir);
    }
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            let detail = format!("the server process could not be started: {e}");
            tracing::warn!(server = %state.name, program = %command.program, error = %e, "could not start the upstream server");
            lock(&state.shared).down = Some(detail);
            return None;
        }
    };
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        lock(&state.shared).down = Some("the server process has no pipes".to_owned());
        return None;
    };
    let epoch = state.epoch.fetch_add(1, Ordering::AcqRel) + 1;
    let (tx, rx) = mpsc::channel(64);
    {
        let mut s = lock(&state.shared);
        s.writer = Some(tx);
        s.pid = child.id();
        s.down = None;
    }
    tracing::debug!(server = %state.name, pid = ?child.id(), epoch, "upstream server started");
    tokio::spawn(write_lines(stdin, rx));
    tokio::spawn(read_stdout(BufReader::new(stdout), Arc::clone(state)));
    tokio::spawn(log_stderr(BufReader::new(stderr), state.name.clone()));
    Some(child)
}

async fn write_lines(mut stdin: ChildStdin, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(mut line) = rx.recv().await {
        line.push(b'\n');
        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
            break;
        }
    }
    // Dropping stdin closes it: the server's cue to exit.
}

async fn log_stderr(mut stderr: impl AsyncBufRead + Unpin, server: String) {
    loop {
        match next_line(&mut stderr, STDERR_LINE_CAP).await {
            Ok(None) | Err(_) => return,
            Ok(Some(Line::Whole(line))) | Ok(Some(Line::Cut(line))) => {
                let text = String::from_utf8_lossy(&line);
                let text = text.trim_end();
                if !text.is_empty() {
                    tracing::info!(target: "upstream", server = %server, "{text}");
                }
            }
        }
    }
}

enum Line {
    Whole(Vec<u8>),
    /// The first `cap` bytes of a longer line; the rest was skipped.
    Cut(Vec<u8>),
}

/// One line, at most `cap` bytes kept; the rest of a longer line is read
/// and dropped (fed to `scanner` if given), never buffered.
async fn next_line_scanning(
    reader: &mut (impl AsyncBufRead + Unpin),
    cap: usize,
    mut scanner: Option<&mut IdScanner>,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut cut = false;
    let mut any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if !any {
                return Ok(None);
            }
            break;
        }
        any = true;
        let (part, consumed, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if !cut && line.len() + part.len() > cap {
            cut = true;
            if let Some(s) = scanner.as_deref_mut() {
                s.feed(&line);
            }
        }
        if cut {
            if let Some(s) = scanner.as_deref_mut() {
                s.feed(part);
            }
            let room = cap.saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
        } else {
            line.extend_from_slice(part);
        }
        reader.consume(consumed);
        if done {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(if cut {
        Line::Cut(line)
    } else {
        Line::Whole(line)
    }))
}

async fn next_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    cap: usize,
) -> std::io::Result<Option<Line>> {
    next_line_scanning(reader, cap, None).await
}

async fn read_stdout(mut stdout: impl AsyncBufRead + Unpin, state: Arc<State>) {
    loop {
        let mut scanner = IdScanner::default();
        let line = match next_line_scanning(&mut stdout, state.max, Some(&mut scanner)).await {
            Ok(Some(line)) => line,
            // The supervisor sees the exit and fails what is pending.
            Ok(None) | Err(_) => return,
        };
        match line {
            Line::Cut(_) => {
                let limit = state.max;
                match scanner.id().and_then(|id| state.take_pending(id)) {
                    Some(p) => {
                        let _ = p.answer.send(Err(Failure::TooLarge { limit }));
                    }
                    None => {
                        tracing::warn!(server = %state.name, limit, "an oversized message from the upstream server was skipped");
                    }
                }
            }
            Line::Whole(line) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match message::parse(&line) {
                    Ok(messages) => {
                        for m in messages {
                            on_message(&state, m);
                        }
                    }
                    Err(detail) => {
                        tracing::warn!(server = %state.name, %detail, "the upstream server wrote a line that is not JSON-RPC; skipped");
                    }
                }
            }
        }
    }
}

fn on_message(state: &Arc<State>, m: Incoming) {
    match m {
        Incoming::Response { id, message } => match id.and_then(|id| state.take_pending(id)) {
            Some(p) => {
                let _ = p.answer.send(Ok(message));
            }
            None => {
                tracing::debug!(server = %state.name, ?id, "an answer to no pending request; dropped");
            }
        },
        Incoming::Notification { method, params } => {
            if let Some(event) = crate::state_event(&method, params.as_ref()) {
                state.emit(event);
                return;
            }
            let relay = if method == "notifications/progress" {
                // The token a progress notification names is the one its
                // request put in `params._meta.progressToken`.
                params
                    .as_ref()
                    .and_then(|p| p.get("progressToken"))
                    .map(Value::to_string)
                    .and_then(|t| state.relay_for_token(&t))
            } else {
                state.newest_relay()
            };
            match relay {
                // try_send: one slow relay must not stall the one stdout
                // every request shares.
                Some(relay) => {
                    if relay
                        .tx
                        .try_send(Relayed::Notification { method, params })
                        .is_err()
                    {
                        tracing::debug!(server = %state.name, "a relay is full or gone; a notification was dropped");
                    }
                }
                None => state.emit(Event::Notification { method, params }),
            }
        }
        Incoming::Request { id, method, params } => {
            let relay = if method == "ping" {
                None
            } else {
                state.newest_relay()
            };
            let state = Arc::clone(state);
            tokio::spawn(async move {
                let answer = answer_server_request(method, params, relay).await;
                let sent = match state.writer() {
                    Ok(w) => w.send(message::response(&id, &answer)).await.is_ok(),
                    Err(_) => false,
                };
                if !sent {
                    tracing::debug!(server = %state.name, "could not answer a server request: the process is gone");
                }
            });
        }
    }
}

fn describe(status: std::io::Result<ExitStatus>) -> String {
    match status {
        Ok(s) => format!("the server process exited ({s})"),
        Err(e) => format!("the server process exited (status unknown: {e})"),
    }
}

/// Watches the child; restarts it when it exits, with backoff, and
/// re-initialises it. Holds the connection only weakly.
async fn supervise(
    weak: Weak<Inner>,
    command: Command,
    state: Arc<State>,
    mut child: Option<Child>,
    stopping: CancellationToken,
    closed: CancellationToken,
) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let started = Instant::now();
        if let Some(mut running) = child.take() {
            let status = tokio::select! {
                status = running.wait() => status,
                _ = stopping.cancelled() => {
                    stop_gracefully(&state, running).await;
                    return;
                }
                _ = closed.cancelled() => {
                    let _ = running.start_kill();
                    let _ = running.wait().await;
                    state.fail_all("the connection was shut down");
                    return;
                }
            };
            let detail = describe(status);
            {
                let mut s = lock(&state.shared);
                s.writer = None;
                s.pid = None;
                s.down = Some(detail.clone());
            }
            tracing::warn!(server = %state.name, %detail, "the upstream server exited");
            state.fail_all(&detail);
            state.emit(Event::Exited { detail });
            backoff = restart_delay(backoff, started.elapsed());
        }
        lock(&state.shared).next_attempt = Some(Instant::now() + backoff);
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = stopping.cancelled() => return,
            _ = closed.cancelled() => return,
        }
        lock(&state.shared).next_attempt = None;
        backoff = (backoff * 2).min(MAX_BACKOFF);
        child = spawn_child(&command, &state);
        lock(&state.shared).attempts += 1;
        state.attempted.notify_waiters();
        if child.is_some() {
            // Re-initialise beside the watch, so an exit during the
            // handshake is still noticed (and fails the handshake).
            let weak = weak.clone();
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                let Some(inner) = weak.upgrade() else { return };
                let conn = Connection { inner };
                match conn.initialize(BACKGROUND_INIT_TIMEOUT).await {
                    Ok(_) => {
                        tracing::info!(server = %state.name, "the upstream server was restarted and re-initialised");
                        state.emit(Event::Restarted);
                    }
                    Err(e) => {
                        tracing::warn!(server = %state.name, error = %e, "the restarted upstream server could not be initialised");
                    }
                }
            });
        }
    }
}

/// The wait before the next restart: the running backoff, unless the child
/// that just exited had run long enough to count as healthy.
fn restart_delay(backoff: Duration, uptime: Duration) -> Duration {
    if uptime >= HEALTHY_UPTIME {
        FIRST_BACKOFF
    } else {
        backoff
    }
}

async fn stop_gracefully(state: &State, mut child: Child) {
    {
        let mut s = lock(&state.shared);
        // Dropping the writer ends the writer task, which closes stdin.
        s.writer = None;
        s.pid = None;
        s.down = Some("the connection was shut down".to_owned());
    }
    if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
    state.fail_all("the connection was shut down");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_back_off_from_half_a_second_to_thirty_and_reset_after_a_healthy_minute() {
        let mut backoff = FIRST_BACKOFF;
        let mut waits = Vec::new();
        for _ in 0..9 {
            // What the supervisor does for a child that exits at once.
            backoff = restart_delay(backoff, Duration::from_millis(10));
            waits.push(backoff.as_millis());
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        assert_eq!(
            waits,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        assert_eq!(
            restart_delay(MAX_BACKOFF, Duration::from_secs(59)),
            MAX_BACKOFF
        );
        assert_eq!(
            restart_delay(MAX_BACKOFF, Duration::from_secs(60)),
            FIRST_BACKOFF
        );
    }

    #[tokio::test]
    async fn an_overlong_line_is_cut_and_its_id_still_found() {
        let mut text = br#"{"result":{"blob":""#.to_vec();
        text.extend(std::iter::repeat_n(b'x', 10_000));
        text.extend_from_slice(b"\"},\"jsonrpc\":\"2.0\",\"id\":77}\r\n{\"id\":1}\n");
        let mut reader = BufReader::with_capacity(64, &text[..]);
        let mut scanner = IdScanner::default();
        match next_line_scanning(&mut reader, 100, Some(&mut scanner))
            .await
            .unwrap()
        {
            Some(Line::Cut(kept)) => assert_eq!(kept.len(), 100),
            _ => panic!("the line must be cut"),
        }
        assert_eq!(scanner.id(), Some(77));
        match next_line_scanning(&mut reader, 100, None).await.unwrap() {
            Some(Line::Whole(line)) => assert_eq!(line, br#"{"id":1}"#),
            _ => panic!("the next line must be whole"),
        }
        assert!(next_line(&mut reader, 100).await.unwrap().is_none());
    }
}
