//! Stdio: newline-delimited JSON-RPC with a supervised child process. One
//! writer task, one reader task, a map of pending request ids.
//!
//! Stdio has no per-request stream, so the reader attributes what the
//! server writes (see the crate docs): an answer by its id, a progress
//! notification by its token, anything else to the request it cites or, when
//! only one is pending, to that one. What cannot be attributed is relayed to
//! nobody: a server request is refused, a notification becomes an [`Event`]
//! (logging) or is dropped.
//!
//! The child starts with a clean environment and in a process group of its
//! own, so that what it starts is stopped with it.

use std::collections::HashMap;
use std::process::{ExitStatus, Stdio as Piped};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::bounds::{ByteWindow, Events, LineBudget, NoSlot, ServerRequests, Slot};
use crate::list_filter::{self, ListFilter, Skipped};
use crate::message::{self, Incoming, RpcOutcome};
use crate::scan::IdScanner;
use crate::{
    BACKGROUND_INIT_TIMEOUT, Connection, Event, Failure, Initialized, Inner, Limits, Relay, Reply,
    RpcError, answer_server_request, lock,
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
/// Lines written to the child's stdin and not yet taken by it: requests,
/// notifications and answers to its requests. With these queued, answers are
/// dropped rather than queued further.
const STDIN_QUEUE: usize = 64;

/// The `_meta` key a server may put in a request or notification to name the
/// client request that caused it. Stdio has no per-request stream, and the
/// specification defines no such field for it, so without one (or a cited
/// progress token) a message is attributed only when one request is pending.
pub(crate) const RELATED_REQUEST_ID: &str = "io.modelcontextprotocol/related-request-id";

/// What the child inherits from this process's environment whatever it is
/// configured with: where programs are, the user's home, locale and time zone,
/// the temporary directory. Nothing else: the gateway's own credentials and
/// other servers' keys are not the child's business.
const INHERITED: &[&str] = &["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR"];
/// Windows needs these to start most programs at all.
#[cfg(windows)]
const INHERITED_WINDOWS: &[&str] = &[
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
];

#[derive(Clone)]
pub(crate) struct Command {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub inherit_env: Vec<String>,
    pub cwd: Option<std::path::PathBuf>,
}

/// What the stdio transport shares with the rest of the connection.
pub(crate) struct Setup {
    pub name: String,
    pub max: usize,
    pub limits: Limits,
    pub events: Arc<Events>,
    pub server_requests: Arc<ServerRequests>,
}

pub(crate) struct Stdio {
    command: Command,
    state: Arc<State>,
    supervisor: Mutex<Option<JoinHandle<()>>>,
    /// Asks the supervisor for a graceful stop (close stdin, then kill).
    stopping: CancellationToken,
}

/// An answer, and the list entries left out of it.
type Answer = Result<(RpcOutcome, Skipped), Failure>;

struct Pending {
    answer: oneshot::Sender<Answer>,
    relay: Option<Relay>,
    token: Option<String>,
    /// A list request: an answer line past the limit is read entry by entry.
    list: bool,
}

#[derive(Default)]
struct Shared {
    writer: Option<mpsc::Sender<Vec<u8>>>,
    pid: Option<u32>,
    /// Why no child runs, for the requests that find none.
    down: Option<String>,
    pending: HashMap<i64, Pending>,
    tokens: HashMap<String, i64>,
    /// Start attempts made so far (the first spawn included).
    attempts: u64,
    /// When the supervisor makes its next start attempt, while it waits to.
    next_attempt: Option<Instant>,
}

struct State {
    name: String,
    max: usize,
    limits: Limits,
    shared: Mutex<Shared>,
    /// Woken after every start attempt, so requests that found no child can wait for
    /// the restart instead of failing in the moment between an exit and a restart.
    attempted: tokio::sync::Notify,
    /// The running child's generation (0: none yet).
    epoch: AtomicU64,
    /// The generation the last handshake was made with.
    ready_epoch: AtomicU64,
    events: Arc<Events>,
    server_requests: Arc<ServerRequests>,
    /// Requests failed unsent because `limits.max_pending_requests` were pending.
    pending_refused: AtomicU64,
}

/// Which pending request a message from the server belongs to.
enum Cause {
    /// This one (it has this relay, or none).
    Request(Option<Relay>),
    /// No request is pending: the message is the server's own.
    Nothing,
    /// Several are pending and the message names none of them, or it names one
    /// that is not pending: the request that caused it cannot be known.
    Unknown { pending: usize },
}

impl State {
    fn emit(&self, event: Event) {
        self.events.emit(event);
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

    /// The request a server request or notification belongs to: the one it
    /// cites in `params._meta` (its id under [`RELATED_REQUEST_ID`], or its
    /// progress token under `progressToken`), else the only one pending. Never
    /// a guess among several: a question asked during one agent's call must
    /// not reach another agent.
    fn cause(&self, params: Option<&Value>) -> Cause {
        let s = lock(&self.shared);
        let meta = params.and_then(|p| p.get("_meta"));
        let by_id = meta.and_then(|m| m.get(RELATED_REQUEST_ID));
        let by_token = meta.and_then(|m| m.get("progressToken"));
        let cited = match (by_id, by_token) {
            (Some(id), _) => Some(id.as_i64()),
            (None, Some(token)) => Some(s.tokens.get(&token.to_string()).copied()),
            (None, None) => None,
        };
        match cited {
            Some(id) => match id.and_then(|id| s.pending.get(&id)) {
                Some(p) => Cause::Request(p.relay.clone()),
                None => Cause::Unknown {
                    pending: s.pending.len(),
                },
            },
            None => match s.pending.len() {
                0 => Cause::Nothing,
                1 => Cause::Request(s.pending.values().next().and_then(|p| p.relay.clone())),
                n => Cause::Unknown { pending: n },
            },
        }
    }

    /// Writes an answer to a server request if stdin has room; false when it
    /// has not and the answer was dropped (a child that sends requests faster
    /// than it reads their answers must not make the client queue them).
    fn answer_now(&self, id: &Value, answer: &Result<Value, RpcError>) -> bool {
        let Ok(writer) = self.writer() else {
            tracing::debug!(server = %self.name, "could not answer a server request: the process is gone");
            return true;
        };
        !matches!(
            writer.try_send(message::response(id, answer)),
            Err(mpsc::error::TrySendError::Full(_))
        )
    }

    fn shed(&self, why: &str) {
        self.server_requests.shed(&self.events, &self.name, why);
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
    pub(crate) fn new(command: Command, setup: Setup) -> Self {
        Stdio {
            command,
            state: Arc::new(State {
                name: setup.name,
                max: setup.max,
                limits: setup.limits,
                shared: Mutex::new(Shared::default()),
                attempted: tokio::sync::Notify::new(),
                epoch: AtomicU64::new(0),
                ready_epoch: AtomicU64::new(0),
                events: setup.events,
                server_requests: setup.server_requests,
                pending_refused: AtomicU64::new(0),
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

    pub(crate) fn pending(&self) -> crate::PendingStats {
        crate::PendingStats {
            waiting: lock(&self.state.shared).pending.len(),
            refused: self.state.pending_refused.load(Ordering::Relaxed),
        }
    }

    pub(crate) async fn handshake(&self, inner: &Arc<Inner>) -> Result<Initialized, Failure> {
        let epoch = self.state.epoch.load(Ordering::Acquire);
        let id = inner.next_id();
        let body = message::request(
            id,
            "initialize",
            Some(&crate::initialize_params(&inner.limits.offered)),
        );
        let (answer, _, _) = self.call(id, body, None, None, false).await?;
        let init = crate::initialized_from(answer)?;
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
        let list = list_filter::is_list_method(method);
        let (answer, skipped, latency) = self.call(id, body, relay, token, list).await?;
        Ok(Reply {
            outcome: answer,
            status: 200,
            headers: http::HeaderMap::new(),
            latency,
            skipped,
        })
    }

    /// Writes one request and waits for the message that answers it.
    async fn call(
        &self,
        id: i64,
        body: Vec<u8>,
        relay: Option<Relay>,
        token: Option<String>,
        list: bool,
    ) -> Result<(RpcOutcome, Skipped, Duration), Failure> {
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
            // A server that never answers must not make the map grow with every
            // call until the callers' deadlines: past the cap, a request is not sent.
            let cap = self.state.limits.max_pending_requests;
            if s.pending.len() >= cap {
                drop(s);
                self.state.pending_refused.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(server = %self.state.name, cap, "a request was not sent: too many are waiting for the server's answers");
                return Err(Failure::connect(format!(
                    "not sent: {cap} requests are already waiting for the server's answers, the most the client leaves unanswered at once; the server is slow or not answering"
                )));
            }
            if let Some(t) = &token {
                s.tokens.insert(t.clone(), id);
            }
            s.pending.insert(
                id,
                Pending {
                    answer: tx,
                    relay,
                    token,
                    list,
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
        let (answer, skipped) = rx
            .await
            .map_err(|_| Failure::connect("the server process exited"))??;
        Ok((answer, skipped, started.elapsed()))
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

/// A running child and its process group: dropping it kills the group, so
/// what the child started (a shell's children, a wrapper's server) goes with it.
struct Running {
    child: Child,
    group: Group,
    /// Cancelled when the child's stdout ends.
    stdout_closed: CancellationToken,
}

/// A child's process group, killed when dropped.
struct Group(Option<u32>);

impl Group {
    fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(id) = self.0.take().and_then(|id| i32::try_from(id).ok()) {
            use nix::sys::signal::{Signal, killpg};
            // ESRCH: everyone in it has exited already.
            let _ = killpg(nix::unistd::Pid::from_raw(id), Signal::SIGKILL);
        }
        #[cfg(not(unix))]
        {
            self.0 = None;
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The child's environment: only [`INHERITED`], `LC_*`, the names the server
/// is configured to inherit, and its configured `env` (which wins).
fn child_env(command: &Command) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let wanted = |name: &str| {
        INHERITED.contains(&name)
            || name.starts_with("LC_")
            || command.inherit_env.iter().any(|n| n == name)
    };
    #[cfg(windows)]
    let wanted = |name: &str| {
        wanted(name)
            || INHERITED_WINDOWS
                .iter()
                .any(|w| w.eq_ignore_ascii_case(name))
    };
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(k, _)| k.to_str().is_some_and(wanted))
        .filter(|(k, _)| !command.env.iter().any(|(c, _)| k == c.as_str()))
        .collect();
    env.extend(command.env.iter().map(|(k, v)| (k.into(), v.into())));
    env
}

/// Spawns one child with its writer, reader and stderr tasks; `None` (and
/// the reason kept for requests) if it could not be started.
fn spawn_child(command: &Command, state: &Arc<State>) -> Option<Running> {
    let mut cmd = tokio::process::Command::new(&command.program);
    cmd.args(&command.args)
        .env_clear()
        .envs(child_env(command))
        .stdin(Piped::piped())
        .stdout(Piped::piped())
        .stderr(Piped::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
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
    // Its own group: the group's id is its pid.
    let group = Group(child.id());
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        lock(&state.shared).down = Some("the server process has no pipes".to_owned());
        return None;
    };
    let epoch = state.epoch.fetch_add(1, Ordering::AcqRel) + 1;
    let (tx, rx) = mpsc::channel(STDIN_QUEUE);
    {
        let mut s = lock(&state.shared);
        s.writer = Some(tx);
        s.pid = child.id();
        s.down = None;
    }
    tracing::debug!(server = %state.name, pid = ?child.id(), epoch, "upstream server started");
    tokio::spawn(write_lines(stdin, rx));
    let stdout_closed = CancellationToken::new();
    tokio::spawn(read_stdout(
        BufReader::new(stdout),
        Arc::clone(state),
        stdout_closed.clone(),
    ));
    // The values toolgate put in its environment (API keys among them) are kept out of
    // toolgate's log, whatever the server prints.
    let secrets: Vec<String> = command
        .env
        .iter()
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| v.len() >= MIN_SECRET_BYTES)
        .collect();
    tokio::spawn(log_stderr(
        BufReader::new(stderr),
        state.name.clone(),
        state.limits.stderr_lines_per_second,
        secrets,
    ));
    Some(Running {
        child,
        group,
        stdout_closed,
    })
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

/// The child's stderr, line by line, at most `per_second` lines a second: a
/// child that floods it costs a count, not a log the size of the flood.
async fn log_stderr(
    mut stderr: impl AsyncBufRead + Unpin,
    server: String,
    per_second: u32,
    secrets: Vec<String>,
) {
    let mut budget = LineBudget::new(per_second, Duration::from_secs(1));
    loop {
        match next_line(&mut stderr, STDERR_LINE_CAP).await {
            Ok(None) | Err(_) => {
                let suppressed = budget.finish();
                if suppressed > 0 {
                    tracing::info!(target: "upstream", server = %server, suppressed, "… suppressed {suppressed} lines");
                }
                return;
            }
            Ok(Some(Line::Whole(line))) | Ok(Some(Line::Cut(line))) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let take = budget.take(Instant::now());
                if take.suppressed > 0 {
                    let suppressed = take.suppressed;
                    tracing::info!(target: "upstream", server = %server, suppressed, "… suppressed {suppressed} lines");
                }
                if take.log {
                    let text = without_secrets(&String::from_utf8_lossy(&line), &secrets);
                    let text = text.trim_end();
                    tracing::info!(target: "upstream", server = %server, "{text}");
                }
            }
        }
    }
}

/// Configured values shorter than this are not masked in the child's stderr: a short
/// value ("1", "true", "en") occurs in ordinary text and is no credential.
const MIN_SECRET_BYTES: usize = 16;

/// `text` with each of `secrets` replaced by `[redacted]`.
fn without_secrets(text: &str, secrets: &[String]) -> String {
    secrets.iter().fold(text.to_owned(), |text, secret| {
        if text.contains(secret.as_str()) {
            text.replace(secret.as_str(), "[redacted]")
        } else {
            text
        }
    })
}

enum Line {
    Whole(Vec<u8>),
    /// The first `cap` bytes of a longer line; the rest was skipped.
    Cut(Vec<u8>),
}

/// What a line past the cap reads as a list answer (`list_filter.rs`): its
/// entries within the cap, or nothing when it is not one or outgrows the bound.
#[derive(Default)]
struct ListCut {
    filter: Option<ListFilter>,
}

impl ListCut {
    fn feed(&mut self, bytes: &[u8]) {
        if let Some(f) = &mut self.filter
            && f.feed(bytes).is_err()
        {
            self.filter = None;
        }
    }
}

/// One line, at most `cap` bytes kept; the rest of a longer line is read
/// and dropped (fed to `scanner` and read as a list answer by `list` if given),
/// never buffered past the cap.
async fn next_line_scanning(
    reader: &mut (impl AsyncBufRead + Unpin),
    cap: usize,
    mut scanner: Option<&mut IdScanner>,
    mut list: Option<&mut ListCut>,
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
            if let Some(l) = list.as_deref_mut() {
                l.filter = Some(ListFilter::new(cap));
                l.feed(&line);
            }
        }
        if cut {
            if let Some(s) = scanner.as_deref_mut() {
                s.feed(part);
            }
            if let Some(l) = list.as_deref_mut() {
                l.feed(part);
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
    next_line_scanning(reader, cap, None, None).await
}

async fn read_stdout(
    mut stdout: impl AsyncBufRead + Unpin,
    state: Arc<State>,
    closed: CancellationToken,
) {
    // However the reading ends, the supervisor learns it.
    let _closed = closed.drop_guard();
    // What the child writes besides answers (notifications, requests, lines that are
    // not JSON-RPC, blank lines) is read at most so fast: past the budget, stdout is
    // left unread until the window ends, and the child blocks on its pipe.
    let mut besides_answers = ByteWindow::default();
    let mut unread_lines = LineBudget::new(1, UNREAD_LINE_WARNING_EVERY);
    loop {
        let mut scanner = IdScanner::default();
        let mut list = ListCut::default();
        let line =
            match next_line_scanning(&mut stdout, state.max, Some(&mut scanner), Some(&mut list))
                .await
            {
                Ok(Some(line)) => line,
                // The supervisor sees the end and fails what is pending.
                Ok(None) | Err(_) => return,
            };
        let (bytes, answered) = match line {
            Line::Cut(line) => {
                let limit = state.max;
                let id = scanner.id();
                let answered = match id.and_then(|id| state.take_pending(id)) {
                    Some(p) => {
                        // A list answer keeps its entries within the limit; any
                        // other answer past it fails its request.
                        let kept = list
                            .filter
                            .filter(|_| p.list)
                            .map(ListFilter::finish)
                            .and_then(|(kept, skipped)| {
                                list_answer(&kept, id?, limit).map(|a| (a, skipped))
                            });
                        let _ = p.answer.send(kept.ok_or(Failure::TooLarge { limit }));
                        true
                    }
                    None => {
                        tracing::warn!(server = %state.name, limit, "an oversized message from the upstream server was skipped");
                        false
                    }
                };
                (line.len(), answered)
            }
            Line::Whole(line) => (line.len() + 1, on_line(&state, &line, &mut unread_lines)),
        };
        if !answered && !besides_answers.take(bytes, Instant::now()) {
            state.events.flooded(
                "its standard output besides answers",
                "its output is not read until the period ends",
                state.server_requests.stats().shed,
            );
            tokio::time::sleep(besides_answers.closed_for(Instant::now())).await;
        }
    }
}

/// How often a child writing lines that are not JSON-RPC is warned about (with the
/// count of those in between): a child printing its own log to stdout would
/// otherwise write toolgate's log a line for each of its own.
const UNREAD_LINE_WARNING_EVERY: Duration = Duration::from_secs(10);

/// Reads one whole line of the child's stdout; whether it answered a request of the
/// gateway's.
fn on_line(state: &Arc<State>, line: &[u8], unread_lines: &mut LineBudget) -> bool {
    if line.iter().all(u8::is_ascii_whitespace) {
        return false;
    }
    match message::parse(line, state.max) {
        Ok(messages) => {
            let mut answered = false;
            for m in messages {
                answered |= on_message(state, m);
            }
            answered
        }
        Err(message::Unread::TooManyValues(limit)) => {
            // The answer it was fails its request now, as an oversized one
            // does, instead of leaving it to time out.
            let mut ids = IdScanner::default();
            ids.feed(line);
            match ids.id().and_then(|id| state.take_pending(id)) {
                Some(p) => {
                    let _ = p.answer.send(Err(Failure::TooManyValues { limit }));
                    true
                }
                None => {
                    tracing::warn!(server = %state.name, limit, "a message of too many JSON values from the upstream server was skipped");
                    false
                }
            }
        }
        Err(unread) => {
            let take = unread_lines.take(Instant::now());
            if take.log {
                let skipped_before = take.suppressed;
                tracing::warn!(server = %state.name, %unread, skipped_before, "the upstream server wrote a line that is not JSON-RPC; skipped");
            }
            false
        }
    }
}

/// The answer to request `id` in a list answer's kept bytes.
fn list_answer(kept: &[u8], id: i64, max: usize) -> Option<RpcOutcome> {
    message::parse(kept, max)
        .ok()?
        .into_iter()
        .find_map(|m| match m {
            Incoming::Response {
                id: Some(got),
                outcome,
            } if got == id => Some(outcome),
            _ => None,
        })
}

/// Handles one message of the child's; whether it answered a request of the gateway's.
fn on_message(state: &Arc<State>, m: Incoming) -> bool {
    match m {
        Incoming::Response { id, outcome } => match id.and_then(|id| state.take_pending(id)) {
            Some(p) => {
                let _ = p.answer.send(Ok((outcome, Skipped::default())));
                true
            }
            None => {
                tracing::debug!(server = %state.name, ?id, "an answer to no pending request; dropped");
                false
            }
        },
        Incoming::Notification { method, params } => {
            on_notification(state, method, params);
            false
        }
        Incoming::Request { id, method, params } => {
            on_request(state, id, method, params);
            false
        }
    }
}

fn on_notification(state: &State, method: String, params: Option<Value>) {
    if let Some(event) = crate::state_event(&method, params.as_ref()) {
        state.emit(event);
        return;
    }
    let relay = if method == "notifications/progress" {
        // The token a progress notification names is the one its request put
        // in `params._meta.progressToken`; one naming no pending request is
        // late or made up.
        let relay = params
            .as_ref()
            .and_then(|p| p.get("progressToken"))
            .map(Value::to_string)
            .and_then(|t| state.relay_for_token(&t));
        if relay.is_none() {
            tracing::debug!(server = %state.name, "a progress notification for no pending request; dropped");
            return;
        }
        relay
    } else {
        match state.cause(params.as_ref()) {
            Cause::Request(relay) => relay,
            Cause::Nothing => None,
            // Logging still reaches the gateway, as the server's own; anything
            // else meant for one of several callers is dropped.
            Cause::Unknown { .. } if method == "notifications/message" => None,
            Cause::Unknown { pending } => {
                tracing::debug!(server = %state.name, %method, pending, "a notification that names none of the pending requests; dropped");
                return;
            }
        }
    };
    match relay {
        // try_send: one slow relay must not stall the one stdout every
        // request shares.
        Some(relay) => {
            if !relay.try_send_notification(method, params) {
                tracing::debug!(server = %state.name, "a relay is full or gone; a notification was dropped");
            }
        }
        None => state.emit(Event::Notification { method, params }),
    }
}

/// A server→client request. `ping` is answered inline; one that belongs to a
/// request with a relay takes a slot and is relayed in a task of its own;
/// everything else is refused at once. Nothing here waits for the child's
/// stdin: an answer it has no room for is dropped and counted.
fn on_request(state: &Arc<State>, id: Value, method: String, params: Option<Value>) {
    state.server_requests.received();
    if method == "ping" {
        if !state.answer_now(&id, &Ok(json!({}))) {
            state.shed("the server sends pings faster than it reads the answers");
        }
        return;
    }
    let refusal = match state.cause(params.as_ref()) {
        Cause::Request(Some(relay)) => match state.server_requests.slot(relay.owner()) {
            Ok(slot) => {
                tokio::spawn(relay_and_answer(
                    Arc::clone(state),
                    slot,
                    id,
                    method,
                    params,
                    relay,
                ));
                return;
            }
            Err(NoSlot::Full) => {
                state.shed("the server sends more requests than the client answers at once");
                let _ = state.answer_now(
                    &id,
                    &Err(crate::overloaded(state.limits.max_server_requests)),
                );
                return;
            }
            Err(over) => {
                state.server_requests.over_share(&state.name, &over);
                over.refusal(state.limits.max_server_requests)
            }
        },
        Cause::Request(None) | Cause::Nothing => crate::no_handler(&method),
        Cause::Unknown { pending } => {
            state.server_requests.unroutable();
            tracing::info!(server = %state.name, %method, pending, "refused a server request that names none of the pending requests");
            unattributed(&method, pending)
        }
    };
    if !state.answer_now(&id, &Err(refusal)) {
        state.shed("the server sends requests faster than it reads the answers");
    }
}

/// Relays one server request to the caller that caused it and writes the
/// answer, holding `slot` until done.
async fn relay_and_answer(
    state: Arc<State>,
    slot: Slot,
    id: Value,
    method: String,
    params: Option<Value>,
    relay: Relay,
) {
    let answer = answer_server_request(method, params, Some(relay), &state.limits.offered).await;
    let line = message::response(&id, &answer);
    let written = match state.writer() {
        Ok(w) => matches!(
            tokio::time::timeout(state.limits.answer_timeout, w.send(line)).await,
            Ok(Ok(()))
        ),
        Err(_) => false,
    };
    drop(slot);
    if !written {
        tracing::debug!(server = %state.name, "could not answer a server request: the process is gone or does not read its stdin");
    }
}

/// The refusal of a server request whose cause cannot be known: JSON-RPC
/// -32602, what the specification asks of a client for a sampling,
/// elicitation or roots request not associated with one of its requests.
fn unattributed(method: &str, pending: usize) -> RpcError {
    RpcError {
        code: crate::codes::INVALID_PARAMS,
        message: format!(
            "{method} cannot be attributed: {pending} requests are in flight and it names none of them (put the id of the request it belongs to in params._meta[\"{RELATED_REQUEST_ID}\"])"
        ),
        data: None,
    }
}

/// How long a child whose stdout ended is given to exit on its own.
const STDOUT_GRACE: Duration = Duration::from_millis(500);

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
    mut child: Option<Running>,
    stopping: CancellationToken,
    closed: CancellationToken,
) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let started = Instant::now();
        if let Some(mut running) = child.take() {
            let status = tokio::select! {
                status = running.child.wait() => status,
                () = running.stdout_closed.cancelled() => {
                    // A child that closed its stdout can answer nothing more, yet may
                    // live on: its requests would each wait out their whole timeout.
                    // One that is exiting is given a moment to; then it is stopped,
                    // and restarted like any child that exits.
                    match tokio::time::timeout(STDOUT_GRACE, running.child.wait()).await {
                        Ok(status) => status,
                        Err(_) => {
                            tracing::warn!(server = %state.name, "the upstream server closed its standard output but kept running; stopping it");
                            running.group.kill();
                            let _ = running.child.start_kill();
                            running.child.wait().await
                        }
                    }
                }
                _ = stopping.cancelled() => {
                    stop_gracefully(&state, running).await;
                    return;
                }
                _ = closed.cancelled() => {
                    running.group.kill();
                    let _ = running.child.start_kill();
                    let _ = running.child.wait().await;
                    state.fail_all("the connection was shut down");
                    return;
                }
            };
            // What it started and left behind goes with it.
            running.group.kill();
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

/// Closes the child's stdin, gives it [`GRACE`] to exit, then kills it and
/// whatever it started (its process group).
async fn stop_gracefully(state: &State, mut running: Running) {
    {
        let mut s = lock(&state.shared);
        // Dropping the writer ends the writer task, which closes stdin.
        s.writer = None;
        s.pid = None;
        s.down = Some("the connection was shut down".to_owned());
    }
    if tokio::time::timeout(GRACE, running.child.wait())
        .await
        .is_err()
    {
        let _ = running.child.start_kill();
        let _ = running.child.wait().await;
    }
    running.group.kill();
    state.fail_all("the connection was shut down");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_environment_is_masked_in_what_the_child_prints() {
        let secrets = vec!["stdio-SECRET-0f1e2d3c4b5a6978".to_owned()];
        assert_eq!(
            without_secrets(
                "auth failed for key stdio-SECRET-0f1e2d3c4b5a6978 (stdio-SECRET-0f1e2d3c4b5a6978)",
                &secrets
            ),
            "auth failed for key [redacted] ([redacted])"
        );
        assert_eq!(
            without_secrets("listening on stdio", &secrets),
            "listening on stdio"
        );
    }

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
        match next_line_scanning(&mut reader, 100, Some(&mut scanner), None)
            .await
            .unwrap()
        {
            Some(Line::Cut(kept)) => assert_eq!(kept.len(), 100),
            _ => panic!("the line must be cut"),
        }
        assert_eq!(scanner.id(), Some(77));
        match next_line_scanning(&mut reader, 100, None, None)
            .await
            .unwrap()
        {
            Some(Line::Whole(line)) => assert_eq!(line, br#"{"id":1}"#),
            _ => panic!("the next line must be whole"),
        }
        assert!(next_line(&mut reader, 100).await.unwrap().is_none());
    }
}
