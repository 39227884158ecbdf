//! Streamable HTTP: one POST per message, answers as one JSON body or an SSE
//! stream, the session id and protocol version on every request after the
//! handshake, and the standalone GET stream for what the server sends on
//! its own.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, header};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::bounds::{ByteWindow, STREAM_BYTES_PER_WINDOW};
use crate::input_required;
use crate::list_filter::{self, ListFilter, Skipped};
use crate::message::{self, Incoming, RpcOutcome};
use crate::one_stream::{SeenIds, names_another_session};
use crate::sse::{SseEvent, SseParser};
use crate::{
    Event, Failure, Initialized, Inner, Kind, Relay, Reply, answer_server_request, lock,
    redacted_url,
};

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
const MCP_METHOD: &str = "mcp-method";
const MCP_NAME: &str = "mcp-name";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// A non-2xx body is kept for the gateway up to this size.
const STATUS_BODY_CAP: usize = 4096;
/// Resumptions of one answer's stream in a row that bring no event.
const MAX_IDLE_RESUMES: u32 = 5;
/// Used when a stream that must be resumed named no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// A `retry:` beyond this is taken as this (the caller's deadline still rules).
const MAX_RETRY: Duration = Duration::from_secs(60);
/// The shortest wait before a stream is opened again, whatever `retry:` asks: a
/// server ending each stream after one event with `retry: 0` would otherwise have
/// the client open streams as fast as it can (hundreds a second).
const MIN_RETRY: Duration = Duration::from_millis(250);
/// What one answer's event stream may carry besides the answer, in messages of
/// [`ServerSpec::max_message_bytes`](crate::ServerSpec::max_message_bytes) (and at
/// most [`STREAM_BYTES_PER_WINDOW`]), across its resumptions: keep-alive comments,
/// progress, log messages, fields nobody reads. Without it a server that keeps a call's
/// stream busy and never answers costs the gateway a parse of every byte until the
/// call's deadline, however long that is; the notifications relayed to the caller are
/// bounded well below it (a few hundred small messages a call).
const ANSWER_STREAM_MESSAGES: usize = 16;

#[derive(Clone, Debug, Default)]
pub(crate) struct Session {
    /// Which handshake this is; a 404 only invalidates the session it was
    /// the answer to.
    epoch: u64,
    id: Option<String>,
    protocol: Option<String>,
    ready: bool,
    /// 2026-07-28: no session; every request carries its version and our
    /// capabilities in `_meta`, and routing headers.
    stateless: bool,
}

pub(crate) struct Http {
    client: reqwest::Client,
    url: url::Url,
    headers: Vec<(HeaderName, HeaderValue)>,
    session: Mutex<Session>,
    /// The server answered `server/discover` like a server without the
    /// 2026-07-28 revision: later handshakes go straight to `initialize`.
    stateless_only: AtomicBool,
    /// 2026-07-28 has no `resources/subscribe`: a resource is followed by naming
    /// it in the subscription (`resourceSubscriptions`), which is opened again
    /// whenever this set changes (`relisten` counts the changes: every listening
    /// task sees each, and none is lost while a task is busy opening).
    followed: Mutex<BTreeSet<String>>,
    relisten: watch::Sender<u64>,
    /// The stateless server said it lets resources be followed.
    follows_resources: AtomicBool,
}

/// Resources followed on one stateless server at once (a subscription names them
/// all).
const MAX_FOLLOWED: usize = 256;

/// What one answer's stream has brought so far, across its resumptions.
#[derive(Debug, Default)]
struct Progress {
    /// The last connection brought an event.
    received: bool,
    /// The ids of the events delivered.
    seen: SeenIds,
    /// The stream is being read again after `Last-Event-ID`.
    resumed: bool,
    /// Bytes read so far, of every connection.
    bytes: usize,
    /// The most it may read ([`answer_stream_bytes`]).
    most: usize,
}

/// The most one answer's stream may carry, its answer included
/// ([`ANSWER_STREAM_MESSAGES`] besides it). A list answer is read past its
/// oversized entries, up to [`list_filter::LIST_READ_FACTOR`] messages.
fn answer_stream_bytes(max_message_bytes: usize, list: bool) -> usize {
    let answer = if list {
        max_message_bytes.saturating_mul(list_filter::LIST_READ_FACTOR)
    } else {
        max_message_bytes
    };
    let besides = max_message_bytes
        .saturating_mul(ANSWER_STREAM_MESSAGES)
        .min(STREAM_BYTES_PER_WINDOW);
    answer.saturating_add(besides)
}

/// How an answer's stream ended.
enum StreamEnd {
    /// The answer, and the list entries left out of it.
    Answer(RpcOutcome, Skipped),
    /// Ended (or broke) before the answer; resumable if it gave ids.
    Ended,
}

impl Http {
    pub(crate) fn new(
        client: reqwest::Client,
        url: url::Url,
        headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Self {
        Http {
            client,
            url,
            headers,
            session: Mutex::new(Session::default()),
            stateless_only: AtomicBool::new(false),
            followed: Mutex::default(),
            relisten: watch::Sender::new(0),
            follows_resources: AtomicBool::new(false),
        }
    }

    /// Under 2026-07-28, `resources/subscribe` and `resources/unsubscribe` of a
    /// server that lets resources be followed: the resource joins or leaves the
    /// subscription, answered at once (the revision has no such methods to send).
    /// `None`: the request goes to the server as it is.
    fn follow(&self, method: &str, params: Option<&Value>) -> Option<Reply> {
        let subscribe = match method {
            "resources/subscribe" => true,
            "resources/unsubscribe" => false,
            _ => return None,
        };
        if !lock(&self.session).stateless || !self.follows_resources.load(Ordering::Relaxed) {
            return None;
        }
        let uri = params?.get("uri")?.as_str()?;
        let empty = RawValue::from_string("{}".to_owned()).ok()?;
        let outcome = {
            let mut followed = lock(&self.followed);
            if subscribe && !followed.contains(uri) && followed.len() >= MAX_FOLLOWED {
                Err(crate::RpcError {
                    code: crate::codes::INVALID_REQUEST,
                    message: format!(
                        "at most {MAX_FOLLOWED} resources of one server are followed at once"
                    ),
                    data: None,
                })
            } else {
                let changed = if subscribe {
                    followed.insert(uri.to_owned())
                } else {
                    followed.remove(uri)
                };
                if changed {
                    self.relisten.send_modify(|n| *n += 1);
                }
                Ok(empty)
            }
        };
        Some(Reply {
            outcome,
            status: 200,
            headers: HeaderMap::new(),
            latency: Duration::ZERO,
            skipped: Skipped::default(),
        })
    }

    pub(crate) fn is_ready(&self) -> bool {
        lock(&self.session).ready
    }

    fn session(&self) -> Session {
        lock(&self.session).clone()
    }

    /// Marks the session `epoch` as lost; true if this call did it (a
    /// concurrent caller may have re-established it already).
    fn invalidate(&self, epoch: u64) -> bool {
        let mut s = lock(&self.session);
        if s.epoch == epoch && s.ready {
            s.ready = false;
            true
        } else {
            false
        }
    }

    fn builder(&self, method: reqwest::Method, session: &Session) -> reqwest::RequestBuilder {
        let mut b = self.client.request(method, self.url.clone());
        for (name, value) in &self.headers {
            b = b.header(name, value);
        }
        if let Some(id) = &session.id {
            b = b.header(SESSION_ID, id);
        }
        if let Some(v) = &session.protocol {
            b = b.header(PROTOCOL_VERSION, v);
        }
        b
    }

    fn connect_failure(&self, what: &str, e: &reqwest::Error) -> Failure {
        Failure::connect(format!(
            "{what} {} failed: {}",
            redacted_url(&self.url),
            error_chain(e)
        ))
    }

    async fn post(
        &self,
        body: Vec<u8>,
        session: &Session,
        route: Route<'_>,
    ) -> Result<reqwest::Response, Failure> {
        self.post_builder(body, session, route)
            .send()
            .await
            .map_err(|e| self.connect_failure("POST to", &e))
    }

    /// A POST of one message, with the routing headers 2026-07-28 asks for.
    fn post_builder(
        &self,
        body: Vec<u8>,
        session: &Session,
        route: Route<'_>,
    ) -> reqwest::RequestBuilder {
        let mut b = self.builder(reqwest::Method::POST, session);
        if session.stateless {
            if let Some(method) = route.method {
                b = b.header(MCP_METHOD, method);
            }
            if let Some(name) = route.name.and_then(|n| HeaderValue::from_str(n).ok()) {
                b = b.header(MCP_NAME, name);
            }
        }
        b.header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, ACCEPT_BOTH)
            .body(body)
    }

    /// The handshake first, the stateless 2026-07-28 revision when the server refuses
    /// the handshake: a server that serves both (most do, and `server/discover` may
    /// list only the stateless one) gets the revision that carries what the gateway
    /// relays during a call — server→client requests (sampling, elicitation, roots) and
    /// resource subscriptions, which 2026-07-28 replaces with input-required results or
    /// drops. Once a server has refused the handshake, it is asked statelessly at once.
    pub(crate) async fn handshake(&self, inner: &Arc<Inner>) -> Result<Initialized, Failure> {
        if self.stateless_only.load(Ordering::Relaxed) {
            if let Some(init) = self.discover(inner).await? {
                return Ok(init);
            }
            self.stateless_only.store(false, Ordering::Relaxed);
        }
        match self.initialize_session(inner).await {
            Err(e) if handshake_refused(&e) => match self.discover(inner).await? {
                Some(init) => {
                    self.stateless_only.store(true, Ordering::Relaxed);
                    Ok(init)
                }
                None => Err(e),
            },
            other => other,
        }
    }

    async fn initialize_session(&self, inner: &Arc<Inner>) -> Result<Initialized, Failure> {
        let previous = self.session();
        let fresh = Session {
            epoch: previous.epoch + 1,
            ..Session::default()
        };
        let id = inner.next_id();
        let params = crate::initialize_params(&inner.limits.offered);
        let reply = self
            .exchange(inner, id, "initialize", Some(&params), &fresh, None)
            .await?;
        let init = crate::initialized_from(reply.outcome)?;
        let id = match reply.headers.get(SESSION_ID) {
            Some(v) if !crate::echoed::echoable(v.as_bytes(), false) => {
                // Sent back on every request: a server must not choose what that costs.
                return Err(Failure::protocol(format!(
                    "the server's session id ({} bytes) is longer than {} bytes or not visible ASCII; refused",
                    v.len(),
                    crate::echoed::MAX_ECHOED
                )));
            }
            Some(v) => v.to_str().ok().map(str::to_owned),
            None => None,
        };
        let session = Session {
            epoch: fresh.epoch,
            id,
            protocol: Some(init.protocol_version.clone()),
            ready: false,
            stateless: false,
        };
        let note = message::notification("notifications/initialized", None);
        self.send_notification(note, &session, Route::method("notifications/initialized"))
            .await?;
        {
            let mut s = lock(&self.session);
            *s = session.clone();
            s.ready = true;
        }
        spawn_stream(
            Arc::downgrade(inner),
            inner.closed.clone(),
            session.epoch,
            Listen::Standalone,
        );
        Ok(init)
    }

    /// The 2026-07-28 revision: `server/discover`, and if the server lists
    /// that revision, a stateless "session". `None`: the server answered as
    /// one without it (an HTTP 4xx, a JSON-RPC error, a list without it, a
    /// malformed answer), so the handshake is next. A server that is down,
    /// overloaded or rate limiting is a failure, not a reason to fall back.
    async fn discover(&self, inner: &Arc<Inner>) -> Result<Option<Initialized>, Failure> {
        let fresh = Session {
            epoch: self.session().epoch + 1,
            protocol: Some(crate::STATELESS_PROTOCOL_VERSION.to_owned()),
            stateless: true,
            ..Session::default()
        };
        let id = inner.next_id();
        let reply = match self
            .exchange(inner, id, "server/discover", None, &fresh, None)
            .await
        {
            Ok(reply) => reply,
            Err(Failure::Status { status, .. })
                if (400..500).contains(&status) && status != 408 && status != 429 =>
            {
                return Ok(None);
            }
            Err(Failure::Protocol { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some(init) = reply.outcome.ok().and_then(|r| crate::discovered(&r)) else {
            return Ok(None);
        };
        let epoch = fresh.epoch;
        {
            let mut s = lock(&self.session);
            *s = fresh;
            s.ready = true;
        }
        let follows = init.capabilities["resources"]["subscribe"] == Value::Bool(true);
        self.follows_resources.store(follows, Ordering::Relaxed);
        // A subscription only carries events; with nobody receiving them it
        // would hold a connection to the server for nothing (under 2026-07-28
        // the server's questions come in results, not on this stream).
        if inner.events.heard()
            && let Some(wanted) = listened_for(&init.capabilities, follows)
        {
            spawn_stream(
                Arc::downgrade(inner),
                inner.closed.clone(),
                epoch,
                Listen::Subscribe(wanted),
            );
        }
        Ok(Some(init))
    }

    /// One request, and under 2026-07-28 the rounds its input-required
    /// results ask for (`input_required.rs`): each question goes to `relay`,
    /// and the request is sent again with the answers until it completes.
    pub(crate) async fn request(
        &self,
        inner: &Arc<Inner>,
        method: &str,
        params: Option<&Value>,
        relay: Option<Relay>,
        cancel_id: &mut Option<i64>,
    ) -> Result<Reply, Failure> {
        if let Some(followed) = self.follow(method, params) {
            return Ok(followed);
        }
        let mut reply = self
            .request_once(inner, method, params, relay.clone(), cancel_id)
            .await?;
        if !lock(&self.session).stateless || !input_required::may_ask(method) {
            return Ok(reply);
        }
        let mut retry_params;
        let mut params = params;
        let mut waits = 0;
        for _ in 0..input_required::MAX_ROUNDS {
            let Ok(result) = &reply.outcome else {
                return Ok(reply);
            };
            let Some(asked) = input_required::read(result)? else {
                return Ok(reply);
            };
            if asked.questions.is_empty() {
                // "Not yet": the state alone, retried after a pause.
                tokio::time::sleep(input_required::pause(waits)).await;
                waits += 1;
            }
            let answered =
                input_required::answer(asked, params, relay.as_ref(), &inner.limits.offered).await;
            retry_params = match answered {
                input_required::Answered::Retry(next) => next,
                input_required::Answered::Refused(e) => {
                    reply.outcome = Err(e);
                    return Ok(reply);
                }
            };
            params = Some(&retry_params);
            reply = self
                .request_once(inner, method, params, relay.clone(), cancel_id)
                .await?;
        }
        match &reply.outcome {
            Ok(result) if input_required::read(result)?.is_some() => {
                Err(input_required::too_many_rounds())
            }
            _ => Ok(reply),
        }
    }

    /// One request: POSTed, and after a lost session (404) re-initialised and
    /// sent once more.
    async fn request_once(
        &self,
        inner: &Arc<Inner>,
        method: &str,
        params: Option<&Value>,
        relay: Option<Relay>,
        cancel_id: &mut Option<i64>,
    ) -> Result<Reply, Failure> {
        let session = self.session();
        let id = inner.next_id();
        // Under 2026-07-28 closing the stream is the cancellation; no
        // notification is expected.
        *cancel_id = (!session.stateless).then_some(id);
        match self
            .exchange(inner, id, method, params, &session, relay.clone())
            .await
        {
            Err(Failure::Status { status: 404, .. }) if session.id.is_some() => {
                *cancel_id = None;
                let lost = self.invalidate(session.epoch);
                inner.ensure_initialized().await?;
                let session = self.session();
                let id = inner.next_id();
                *cancel_id = (!session.stateless).then_some(id);
                let retried = self
                    .exchange(inner, id, method, params, &session, relay)
                    .await;
                // A fresh session answered 404 too: the 404 is the server's answer to
                // this request (a method it does not serve), not a lost session, and
                // telling the owner to list everything again would only ask again.
                let method_refused = matches!(retried, Err(Failure::Status { status: 404, .. }));
                if lost && !method_refused {
                    tracing::info!(server = %inner.name, "upstream session lost (404); re-initialised");
                    inner.emit(Event::SessionLost);
                }
                retried
            }
            other => other,
        }
    }

    /// POSTs one request and reads its answer, following an SSE answer
    /// through resumptions.
    async fn exchange(
        &self,
        inner: &Arc<Inner>,
        id: i64,
        method: &str,
        params: Option<&Value>,
        session: &Session,
        relay: Option<Relay>,
    ) -> Result<Reply, Failure> {
        let with_meta;
        let params = if session.stateless {
            with_meta = crate::with_request_meta(params, &inner.limits.offered);
            Some(&with_meta)
        } else {
            params
        };
        let body = message::request(id, method, params);
        let route = Route {
            method: Some(method),
            name: routed_name(method, params),
        };
        let started = Instant::now();
        let response = self.post(body, session, route).await?;
        let status = response.status();
        let headers = response.headers().clone();
        if !status.is_success() {
            return Err(status_failure(response).await);
        }
        if names_another_session(session.id.as_deref(), &headers) {
            return Err(self.session_changed(inner, session));
        }
        let list = list_filter::is_list_method(method);
        let (answer, skipped) = match content_type(&headers).as_deref() {
            Some("application/json") => {
                let (bytes, skipped) = if list {
                    read_list(response, inner.max_message_bytes).await
                } else {
                    read_limited(response, inner.max_message_bytes)
                        .await
                        .map(|b| (b, Skipped::default()))
                }
                .map_err(|e| self.body_failure(e))?;
                let bytes = as_utf8(&headers, bytes)?;
                (json_answer(&bytes, id, inner.max_message_bytes)?, skipped)
            }
            Some("text/event-stream") => {
                self.stream_answer(inner, id, response, session, relay, list)
                    .await?
            }
            _ if status == reqwest::StatusCode::ACCEPTED => {
                return Err(Failure::protocol(
                    "the server accepted the request (202) but sent no answer",
                ));
            }
            other => {
                return Err(Failure::protocol(format!(
                    "unexpected content type {:?} for an answer",
                    other.unwrap_or("none")
                )));
            }
        };
        Ok(Reply {
            outcome: answer,
            status: status.as_u16(),
            headers,
            latency: started.elapsed(),
            skipped,
        })
    }

    /// A reply under another `Mcp-Session-Id` than the one the server assigned: it
    /// is not read (it may be another session's), and the session is initialised
    /// anew for the next request. The request is not sent again: the server may
    /// have acted on it.
    fn session_changed(&self, inner: &Arc<Inner>, session: &Session) -> Failure {
        if self.invalidate(session.epoch) {
            tracing::warn!(server = %inner.name, "the server answered under another session id than the one it assigned; the answer is refused and the session initialised anew");
            inner.emit(Event::SessionLost);
        }
        Failure::protocol(
            "the server answered under another session id (Mcp-Session-Id) than the one it assigned; the answer was not read, and the session is initialised anew",
        )
    }

    fn body_failure(&self, e: BodyError) -> Failure {
        match e {
            BodyError::TooLarge(limit) => Failure::TooLarge { limit },
            BodyError::Read(e) => self.connect_failure("reading the answer from", &e),
        }
    }

    async fn stream_answer(
        &self,
        inner: &Arc<Inner>,
        id: i64,
        response: reqwest::Response,
        session: &Session,
        relay: Option<Relay>,
        list: bool,
    ) -> Result<(RpcOutcome, Skipped), Failure> {
        let mut parser = if list {
            SseParser::for_list(inner.max_message_bytes)
        } else {
            SseParser::new(inner.max_message_bytes)
        };
        let mut read = Progress {
            most: answer_stream_bytes(inner.max_message_bytes, list),
            ..Progress::default()
        };
        let mut end = self
            .read_stream(inner, id, response, session, &relay, &mut parser, &mut read)
            .await?;
        let mut idle = 0;
        loop {
            if let StreamEnd::Answer(answer, skipped) = end {
                return Ok((answer, skipped));
            }
            // The SSE polling pattern: the server may close the stream
            // before the answer is ready and expects us to come back with
            // the last event id after `retry`.
            let Some(last) = parser.last_event_id.clone() else {
                return Err(Failure::protocol(if parser.id_refused {
                    "the event stream ended without an answer, and its event id was refused (longer than 1 KiB, or not a header value), so it is not resumed"
                } else {
                    "the event stream ended without an answer"
                }));
            };
            idle = if read.received { 0 } else { idle + 1 };
            if idle > MAX_IDLE_RESUMES {
                return Err(Failure::protocol(format!(
                    "the event stream ended without an answer {MAX_IDLE_RESUMES} times in a row"
                )));
            }
            tokio::time::sleep(
                parser
                    .retry
                    .unwrap_or(DEFAULT_RETRY)
                    .clamp(MIN_RETRY, MAX_RETRY),
            )
            .await;
            let response = self
                .builder(reqwest::Method::GET, session)
                .header(header::ACCEPT, "text/event-stream")
                .header(LAST_EVENT_ID, last)
                .send()
                .await
                .map_err(|e| self.connect_failure("resuming the stream at", &e))?;
            if !response.status().is_success() {
                return Err(status_failure(response).await);
            }
            if names_another_session(session.id.as_deref(), response.headers()) {
                return Err(self.session_changed(inner, session));
            }
            if content_type(response.headers()).as_deref() != Some("text/event-stream") {
                return Err(Failure::protocol(
                    "the resumed stream is not text/event-stream",
                ));
            }
            parser = parser.resumed();
            read.received = false;
            read.resumed = true;
            end = self
                .read_stream(inner, id, response, session, &relay, &mut parser, &mut read)
                .await?;
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn read_stream(
        &self,
        inner: &Arc<Inner>,
        id: i64,
        mut response: reqwest::Response,
        session: &Session,
        relay: &Option<Relay>,
        parser: &mut SseParser,
        read: &mut Progress,
    ) -> Result<StreamEnd, Failure> {
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Ok(StreamEnd::Ended),
                Err(e) if parser.last_event_id.is_some() => {
                    tracing::debug!(server = %inner.name, error = %error_chain(&e), "answer stream broke; resuming");
                    return Ok(StreamEnd::Ended);
                }
                Err(e) => return Err(self.connect_failure("reading the answer stream from", &e)),
            };
            read.bytes = read.bytes.saturating_add(chunk.len());
            let most = read.most;
            if read.bytes > most {
                tracing::warn!(server = %inner.name, bytes = most, "an MCP server's answer stream carried more than an answer's share without the answer; the request fails");
                return Err(Failure::protocol(format!(
                    "the answer's event stream carried more than {most} bytes (keep-alive comments, notifications, fields) without the answer"
                )));
            }
            let events = parser.feed(&chunk).map_err(|_| Failure::TooLarge {
                limit: inner.max_message_bytes,
            })?;
            for SseEvent {
                data,
                skipped,
                id: event_id,
                ..
            } in events
            {
                if data.is_empty() {
                    continue;
                }
                // An event delivered already (a resumption that went back, an id
                // sent twice) is not relayed again.
                if let Some(event_id) = &event_id
                    && !read.seen.first_sight(event_id)
                {
                    tracing::debug!(server = %inner.name, "an event the answer stream delivered already; dropped");
                    continue;
                }
                read.received = true;
                let messages = message::parse(&data, inner.max_message_bytes).map_err(
                    |unread| match unread {
                        message::Unread::TooManyValues(limit) => Failure::TooManyValues { limit },
                        message::Unread::Malformed(detail) => {
                            Failure::protocol(format!("an event on the answer stream: {detail}"))
                        }
                    },
                )?;
                for m in messages {
                    match m {
                        Incoming::Response {
                            id: Some(got),
                            outcome,
                        } if got == id => return Ok(StreamEnd::Answer(outcome, skipped)),
                        Incoming::Response { .. } if read.resumed => {
                            // Only another stream's replay carries it: what else this
                            // resumption brings may be another caller's too.
                            return Err(Failure::protocol(
                                "the resumed answer stream carried the answer to another request: the server replayed another stream's events (Last-Event-ID), so the stream is not read further",
                            ));
                        }
                        Incoming::Response { .. } => {
                            tracing::debug!(server = %inner.name, "an answer to another request on a stream; dropped");
                        }
                        Incoming::Notification { method, params } => {
                            if let Some(event) = crate::state_event(&method, params.as_ref()) {
                                inner.emit(event);
                            } else if let Some(relay) = relay {
                                // This request's own stream: waiting here is
                                // backpressure on this request only.
                                relay.send_notification(method, params).await;
                            } else {
                                inner.emit(Event::Notification { method, params });
                            }
                        }
                        Incoming::Request {
                            id: their_id,
                            method,
                            params,
                        } => {
                            self.on_server_request(
                                inner,
                                their_id,
                                method,
                                params,
                                relay.clone(),
                                session,
                            )
                            .await;
                        }
                    }
                }
            }
        }
    }

    /// A server→client request from one of the server's streams. `ping` is
    /// answered inline: the stream is not read while its answer is POSTed, so a
    /// server flooding pings costs one POST at a time. Anything else takes a
    /// slot and is relayed and answered in a task, without holding up the
    /// stream (the server may keep talking meanwhile); with every slot taken
    /// it is dropped and counted.
    async fn on_server_request(
        &self,
        inner: &Arc<Inner>,
        id: Value,
        method: String,
        params: Option<Value>,
        relay: Option<Relay>,
        session: &Session,
    ) {
        inner.server_requests.received();
        if method == "ping" {
            let body = message::response(&id, &Ok(json!({})));
            if let Err(e) = self
                .post_answer(body, session, inner.limits.answer_timeout)
                .await
            {
                tracing::debug!(server = %inner.name, error = %e, "could not answer a ping");
            }
            return;
        }
        let slot = match inner
            .server_requests
            .slot(relay.as_ref().and_then(Relay::owner))
        {
            Ok(slot) => slot,
            Err(crate::bounds::NoSlot::Full) => {
                inner.server_requests.shed(
                    &inner.events,
                    &inner.name,
                    "the server sends more requests than the client answers at once",
                );
                return;
            }
            Err(over) => {
                // The agent's doing, not the server's: refused, not dropped, so the
                // server can tell the agent instead of waiting out its timeout. Inline,
                // as a ping is answered: the stream waits for the refusal's POST.
                inner.server_requests.over_share(&inner.name, &over);
                let refusal = over.refusal(inner.limits.max_server_requests);
                let body = message::response(&id, &Err(refusal));
                if let Err(e) = self
                    .post_answer(body, session, inner.limits.answer_timeout)
                    .await
                {
                    tracing::debug!(server = %inner.name, error = %e, "could not refuse a server request");
                }
                return;
            }
        };
        let weak = Arc::downgrade(inner);
        let session = session.clone();
        let offered = inner.limits.offered;
        tokio::spawn(async move {
            let relayed = relay.is_some();
            let answer = answer_server_request(method, params, relay, &offered).await;
            let Some(inner) = weak.upgrade() else { return };
            let Kind::Http(h) = &inner.kind else { return };
            let body = message::response(&id, &answer);
            let sent = h
                .post_answer(body, &session, inner.limits.answer_timeout)
                .await;
            drop(slot);
            match sent {
                Err(e) if relayed => {
                    tracing::warn!(server = %inner.name, error = %e, "could not send the answer to a server request");
                }
                Err(e) => {
                    tracing::debug!(server = %inner.name, error = %e, "could not refuse a server request");
                }
                Ok(()) => {}
            }
        });
    }

    /// POSTs our answer to a server request, within `timeout`.
    async fn post_answer(
        &self,
        body: Vec<u8>,
        session: &Session,
        timeout: Duration,
    ) -> Result<(), Failure> {
        let answered = tokio::time::timeout(
            timeout,
            self.send_notification(body, session, Route::default()),
        )
        .await;
        answered.unwrap_or(Err(Failure::Timeout(timeout)))
    }

    /// POSTs a notification or a response (answered 202) with the session.
    async fn send_notification(
        &self,
        body: Vec<u8>,
        session: &Session,
        route: Route<'_>,
    ) -> Result<(), Failure> {
        let response = self.post(body, session, route).await?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(status_failure(response).await)
        }
    }

    pub(crate) async fn post_notification(
        &self,
        method: &str,
        body: Vec<u8>,
    ) -> Result<(), Failure> {
        let session = self.session();
        self.send_notification(body, &session, Route::method(method))
            .await
    }

    pub(crate) async fn shutdown(&self, inner: &Arc<Inner>) {
        inner.closed.cancel();
        let session = {
            let mut s = lock(&self.session);
            let old = s.clone();
            s.ready = false;
            old
        };
        if session.id.is_none() {
            return;
        }
        let sent = self
            .builder(reqwest::Method::DELETE, &session)
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        if let Err(e) = sent {
            tracing::debug!(server = %inner.name, error = %error_chain(&e), "DELETE of the session failed");
        }
    }
}

/// How the server's own messages (those outside any request) are listened for.
#[derive(Debug, Clone)]
enum Listen {
    /// The handshake revisions: the session's standalone GET stream.
    Standalone,
    /// 2026-07-28, which has no sessions: a `subscriptions/listen` request
    /// naming these `notifications`, whose answer is the stream.
    Subscribe(Value),
}

/// What a stateless server's capabilities say it can tell: the list changes
/// a `subscriptions/listen` asks for, or `None` when it announces none and
/// lets no resource be followed (`follows`), so there is nothing to listen for.
fn listened_for(capabilities: &Value, follows: bool) -> Option<Value> {
    let announces = |kind: &str| capabilities[kind]["listChanged"] == Value::Bool(true);
    let wanted = json!({
        "toolsListChanged": announces("tools"),
        "promptsListChanged": announces("prompts"),
        "resourcesListChanged": announces("resources"),
    });
    (follows || wanted_any(&wanted)).then_some(wanted)
}

/// Whether `notifications` asks for anything.
fn wanted_any(notifications: &Value) -> bool {
    notifications.as_object().is_some_and(|w| {
        w.values()
            .any(|v| v == &Value::Bool(true) || v.as_array().is_some_and(|a| !a.is_empty()))
    })
}

/// A plain function, so the handshake's future does not contain the
/// stream's (which re-initialises a lost session: the types would nest).
fn spawn_stream(weak: Weak<Inner>, closed: CancellationToken, epoch: u64, how: Listen) {
    tokio::spawn(listen(weak, closed, epoch, how));
}

/// The stream of server-initiated messages outside any request, for session
/// `epoch`: the standalone GET stream, or under 2026-07-28 a
/// `subscriptions/listen` (opened again when it ends; its acknowledgement is
/// not an event). Holds the connection only weakly, so dropping the last
/// [`crate::Connection`] ends it.
async fn listen(weak: Weak<Inner>, closed: CancellationToken, epoch: u64, how: Listen) {
    // Changes when the resources a subscription follows change: it is opened again.
    let relisten = match (&how, weak.upgrade().as_deref().map(|i| &i.kind)) {
        (Listen::Subscribe(_), Some(Kind::Http(h))) => Some(h.relisten.subscribe()),
        _ => None,
    };
    let listener = Listener {
        weak,
        closed,
        epoch,
        how,
    };
    let mut state = ListenState {
        backoff: Duration::from_secs(1),
        parser: None,
        seen: SeenIds::default(),
        relisten,
        read: ByteWindow::default(),
    };
    loop {
        let (request, session, max) = match listener.request(&mut state) {
            Ok(opening) => opening,
            Err(NotSent::Stop) => return,
            Err(NotSent::NothingWanted) => {
                tokio::select! {
                    _ = listener.closed.cancelled() => return,
                    () = changed(state.relisten.as_mut()) => continue,
                }
            }
        };
        let sent = tokio::select! {
            _ = listener.closed.cancelled() => return,
            sent = request.send() => sent,
        };
        let delivered = match listener.on_answer(sent, &session, max, &mut state).await {
            Attempt::Stop => return,
            // The followed resources changed: the new subscription at once.
            Attempt::Reopen => continue,
            Attempt::Retry { delivered } => delivered,
        };
        if delivered {
            state.backoff = Duration::from_secs(1);
        }
        let wait = state
            .parser
            .as_ref()
            .and_then(|p| p.retry)
            .filter(|_| delivered)
            .unwrap_or(state.backoff)
            .clamp(MIN_RETRY, MAX_RETRY)
            .max(state.read.closed_for(tokio::time::Instant::now()));
        tokio::select! {
            _ = listener.closed.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
        state.backoff = (state.backoff * 2).min(Duration::from_secs(30));
    }
}

/// What [`listen`] listens for and until when.
struct Listener {
    weak: Weak<Inner>,
    closed: CancellationToken,
    epoch: u64,
    how: Listen,
}

/// What [`listen`] carries from one opening of the stream to the next.
struct ListenState {
    backoff: Duration,
    /// The last stream's parser: its last event id resumes a standalone stream.
    parser: Option<SseParser>,
    seen: SeenIds,
    relisten: Option<watch::Receiver<u64>>,
    /// The bytes read in the current window, across openings: a server cannot start
    /// its count over by ending the stream.
    read: ByteWindow,
}

/// Why no request for the stream is sent now.
enum NotSent {
    /// A subscription that would name nothing: wait until a resource is followed.
    NothingWanted,
    /// The session or the connection is gone.
    Stop,
}

/// How one opening of the stream ended.
enum Attempt {
    /// The stream is not offered, or the session is gone: the task ends.
    Stop,
    /// The followed resources changed.
    Reopen,
    /// Open it again after a pause; `delivered` when events came through.
    Retry { delivered: bool },
}

impl Listener {
    /// The next request for the stream, with the session it is of and the size an
    /// event may have.
    fn request(
        &self,
        state: &mut ListenState,
    ) -> Result<(reqwest::RequestBuilder, Session, usize), NotSent> {
        let Some(inner) = self.weak.upgrade() else {
            return Err(NotSent::Stop);
        };
        let Kind::Http(h) = &inner.kind else {
            return Err(NotSent::Stop);
        };
        let session = h.session();
        if session.epoch != self.epoch || !session.ready {
            return Err(NotSent::Stop);
        }
        let b = match &self.how {
            Listen::Standalone => {
                let mut b = h
                    .builder(reqwest::Method::GET, &session)
                    .header(header::ACCEPT, "text/event-stream");
                if let Some(last) = state.parser.as_ref().and_then(|p| p.last_event_id.clone()) {
                    b = b.header(LAST_EVENT_ID, last);
                }
                b
            }
            Listen::Subscribe(_) if !inner.events.heard() => return Err(NotSent::Stop),
            Listen::Subscribe(lists) => {
                // Each subscription is a request of its own: nothing to resume.
                state.parser = None;
                state.seen = SeenIds::default();
                let mut notifications = lists.clone();
                // What is read now is what this subscription names.
                if let Some(r) = state.relisten.as_mut() {
                    r.borrow_and_update();
                }
                let followed: Vec<String> = lock(&h.followed).iter().cloned().collect();
                if !followed.is_empty() {
                    notifications["resourceSubscriptions"] = json!(followed);
                }
                if !wanted_any(&notifications) {
                    // Nothing to ask for until a resource is followed (the
                    // connection is not held while waiting).
                    return Err(NotSent::NothingWanted);
                }
                let params = crate::with_request_meta(
                    Some(&json!({ "notifications": notifications })),
                    &inner.limits.offered,
                );
                let body = message::request(inner.next_id(), "subscriptions/listen", Some(&params));
                h.post_builder(body, &session, Route::method("subscriptions/listen"))
            }
        };
        Ok((b, session, inner.max_message_bytes))
    }

    /// Reads the server's answer to the request for the stream: the stream, or why
    /// there is none.
    async fn on_answer(
        &self,
        sent: reqwest::Result<reqwest::Response>,
        session: &Session,
        max: usize,
        state: &mut ListenState,
    ) -> Attempt {
        match sent {
            Ok(response) if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED => {
                tracing::debug!("the server offers no standalone stream (405)");
                Attempt::Stop
            }
            Ok(response)
                if matches!(self.how, Listen::Subscribe(_))
                    && (!response.status().is_success()
                        || content_type(response.headers()).as_deref()
                            != Some("text/event-stream")) =>
            {
                // An answer, not a stream: the server does not offer
                // subscriptions (or refused these); its lists are learnt when a
                // call or a periodic listing finds them changed.
                tracing::debug!(
                    status = response.status().as_u16(),
                    "the server answered subscriptions/listen without a stream"
                );
                Attempt::Stop
            }
            Ok(response)
                if response.status() == reqwest::StatusCode::NOT_FOUND
                    || names_another_session(session.id.as_deref(), response.headers()) =>
            {
                // The session is gone (or the stream is another session's, which is
                // not read): establish a new one now (it opens its own stream), so
                // server-initiated messages resume without waiting for the next
                // request.
                self.reestablish().await;
                Attempt::Stop
            }
            Ok(response)
                if response.status().is_success()
                    && content_type(response.headers()).as_deref() == Some("text/event-stream") =>
            {
                self.read_events(response, session, max, state).await
            }
            Ok(response) => {
                tracing::debug!(
                    status = response.status().as_u16(),
                    "the standalone stream was refused"
                );
                Attempt::Retry { delivered: false }
            }
            Err(e) => {
                tracing::debug!(error = %error_chain(&e), "the standalone stream could not be opened");
                Attempt::Retry { delivered: false }
            }
        }
    }

    /// Establishes a new session in place of the lost one of `epoch`.
    async fn reestablish(&self) {
        if let Some(inner) = self.weak.upgrade()
            && let Kind::Http(h) = &inner.kind
            && h.invalidate(self.epoch)
        {
            match tokio::time::timeout(crate::BACKGROUND_INIT_TIMEOUT, inner.ensure_initialized())
                .await
            {
                Ok(Ok(_)) => inner.emit(Event::SessionLost),
                Ok(Err(e)) => {
                    tracing::warn!(server = %inner.name, error = %e, "could not re-establish the lost session");
                }
                Err(_) => {
                    tracing::warn!(server = %inner.name, "re-establishing the lost session timed out");
                }
            }
        }
    }

    /// Delivers the stream's events until it ends, each event bounded to `max`
    /// bytes and each id delivered once.
    async fn read_events(
        &self,
        mut response: reqwest::Response,
        session: &Session,
        max: usize,
        state: &mut ListenState,
    ) -> Attempt {
        let mut delivered = false;
        let mut reopen = false;
        let mut p = state
            .parser
            .take()
            .map(|p| p.resumed())
            .unwrap_or_else(|| SseParser::new(max));
        loop {
            let chunk = tokio::select! {
                _ = self.closed.cancelled() => return Attempt::Stop,
                () = changed(state.relisten.as_mut()) => {
                    reopen = true;
                    break;
                }
                chunk = response.chunk() => chunk,
            };
            let Ok(Some(chunk)) = chunk else { break };
            if !state.read.take(chunk.len(), tokio::time::Instant::now()) {
                if let Some(inner) = self.weak.upgrade() {
                    inner.events.flooded(
                        "its stream of messages outside any request",
                        "the stream is closed until the period ends",
                        inner.server_requests.stats().shed,
                    );
                }
                // The events read so far stay delivered; what is unread is dropped
                // with the connection.
                state.parser = Some(p);
                return Attempt::Retry { delivered: false };
            }
            let Ok(events) = p.feed(&chunk) else {
                tracing::warn!(
                    "an event on the standalone stream exceeded the size limit; reconnecting"
                );
                p = SseParser::new(max);
                break;
            };
            for event in events {
                if event.data.is_empty() {
                    continue;
                }
                // Replayed after a reconnection though delivered already.
                if let Some(id) = &event.id
                    && !state.seen.first_sight(id)
                {
                    continue;
                }
                delivered = true;
                let Some(inner) = self.weak.upgrade() else {
                    return Attempt::Stop;
                };
                tokio::select! {
                    _ = self.closed.cancelled() => return Attempt::Stop,
                    () = on_standalone(&inner, &event.data, session) => {}
                }
            }
        }
        state.parser = Some(p);
        if reopen {
            Attempt::Reopen
        } else {
            Attempt::Retry { delivered }
        }
    }
}

/// Waits for the followed resources to change; forever when nothing can change
/// them (a standalone stream, or the connection is gone).
async fn changed(relisten: Option<&mut watch::Receiver<u64>>) {
    if let Some(r) = relisten
        && r.changed().await.is_ok()
    {
        return;
    }
    std::future::pending().await
}

async fn on_standalone(inner: &Arc<Inner>, data: &[u8], session: &Session) {
    let messages = match message::parse(data, inner.max_message_bytes) {
        Ok(messages) => messages,
        Err(unread) => {
            tracing::warn!(server = %inner.name, %unread, "a message on the standalone stream was not read; dropped");
            return;
        }
    };
    let Kind::Http(h) = &inner.kind else { return };
    for m in messages {
        match m {
            // A subscription's first word, the subset the server honours:
            // nothing happened yet.
            Incoming::Notification { method, .. }
                if method == "notifications/subscriptions/acknowledged" => {}
            Incoming::Notification { method, params } => inner.emit(
                crate::state_event(&method, params.as_ref())
                    .unwrap_or(Event::Notification { method, params }),
            ),
            Incoming::Request { id, method, params } => {
                h.on_server_request(inner, id, method, params, None, session)
                    .await;
            }
            Incoming::Response { .. } => {}
        }
    }
}

/// What the 2026-07-28 routing headers say about a message.
#[derive(Clone, Copy, Default)]
struct Route<'a> {
    method: Option<&'a str>,
    name: Option<&'a str>,
}

impl<'a> Route<'a> {
    fn method(method: &'a str) -> Self {
        Route {
            method: Some(method),
            name: None,
        }
    }
}

/// The thing a call names, which `Mcp-Name` repeats so a proxy can route
/// without reading the body.
fn routed_name<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

/// The media type without parameters, lowercased.
fn content_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(
        value
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
    )
}

/// A JSON answer in the character set its `Content-Type` names (UTF-16, Latin-1), as
/// UTF-8, the way HTTP tools' replies are read; a set that is not decoded is named in
/// the failure, rather than left to fail as JSON that does not parse.
fn as_utf8(headers: &HeaderMap, body: Bytes) -> Result<Bytes, Failure> {
    use toolgate_signals::charset::{Undecodable, to_utf8};
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    match to_utf8(content_type, &body) {
        Ok(None) => Ok(body),
        Ok(Some(text)) => Ok(Bytes::from(text)),
        Err(Undecodable::InvalidUtf16) => Err(Failure::protocol(
            "the answer is in UTF-16 but is not valid UTF-16",
        )),
        Err(Undecodable::Unsupported(charset)) => Err(Failure::protocol(format!(
            "the answer is not UTF-8; its Content-Type names the character set \"{charset}\", which toolgate does not decode (JSON is UTF-8, RFC 8259)"
        ))),
    }
}

fn json_answer(bytes: &[u8], id: i64, max_bytes: usize) -> Result<RpcOutcome, Failure> {
    let messages = message::parse(bytes, max_bytes).map_err(|unread| match unread {
        message::Unread::TooManyValues(limit) => Failure::TooManyValues { limit },
        message::Unread::Malformed(d) => Failure::protocol(format!("the answer: {d}")),
    })?;
    messages
        .into_iter()
        .find_map(|m| match m {
            // A JSON body answers this POST only; an error without an id
            // (the server could not read our id) is still that answer.
            Incoming::Response { id: got, outcome } if got == Some(id) || got.is_none() => {
                Some(outcome)
            }
            _ => None,
        })
        .ok_or_else(|| Failure::protocol("the JSON answer does not answer the request"))
}

enum BodyError {
    TooLarge(usize),
    Read(reqwest::Error),
}

/// A list answer: read as [`read_limited`] reads any, and once it outgrows the
/// limit, entry by entry through the list filter (`list_filter.rs`), never
/// buffered past the limit and read at most [`list_filter::LIST_READ_FACTOR`]
/// times it.
async fn read_list(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<(Bytes, Skipped), BodyError> {
    let too_large = |_| BodyError::TooLarge(limit);
    let max_read = limit.saturating_mul(list_filter::LIST_READ_FACTOR);
    if response
        .content_length()
        .is_some_and(|n| n > max_read as u64)
    {
        return Err(BodyError::TooLarge(limit));
    }
    let mut body = Vec::new();
    let mut filter: Option<ListFilter> = None;
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        match &mut filter {
            Some(f) => f.feed(&chunk).map_err(too_large)?,
            None if body.len() + chunk.len() > limit => {
                let mut f = ListFilter::new(limit);
                f.feed(&std::mem::take(&mut body)).map_err(too_large)?;
                f.feed(&chunk).map_err(too_large)?;
                filter = Some(f);
            }
            None => body.extend_from_slice(&chunk),
        }
    }
    Ok(match filter {
        Some(f) => {
            let (kept, skipped) = f.finish();
            (Bytes::from(kept), skipped)
        }
        None => (Bytes::from(body), Skipped::default()),
    })
}

async fn read_limited(mut response: reqwest::Response, limit: usize) -> Result<Bytes, BodyError> {
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge(limit));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

/// A non-2xx answer, its body cut at 4 KiB (what is left is not read).
async fn status_failure(mut response: reqwest::Response) -> Failure {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    while body.len() < STATUS_BODY_CAP {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = STATUS_BODY_CAP - body.len();
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            _ => break,
        }
    }
    Failure::Status {
        status,
        headers,
        body: Bytes::from(body),
    }
}

/// A reqwest error and its causes, without the URL (its query may carry a
/// credential).
fn error_chain(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "could not connect".to_owned()
    } else if e.is_body() || e.is_decode() {
        "the body could not be read".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.ends_with(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// Whether a failed `initialize` means "this server does not do the handshake" (so the
/// stateless revision is worth a try) rather than "it is down or busy".
fn handshake_refused(e: &Failure) -> bool {
    match e {
        Failure::Status { status, .. } => {
            (400..500).contains(status) && *status != 408 && *status != 429
        }
        Failure::Protocol { .. } => true,
        _ => false,
    }
}
