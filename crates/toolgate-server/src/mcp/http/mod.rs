//! MCP streamable HTTP on `/mcp`: POST for messages, GET for a session's event stream,
//! DELETE to end a session.
//!
//! Admission (Host, Origin, bearer token, body size) happens before this, for every
//! endpoint (`crate::server`). Here are the transport's own rules, each in one place:
//! media types, the `MCP-Protocol-Version` header, the 2026-07-28 `Mcp-Method`/`Mcp-Name`
//! headers, sessions, and which HTTP status an answer gets. A POST is answered with one
//! `application/json` body, or 202 for a notification or a client's response to a
//! server→client request (handed to the request waiting for it). A request that sends
//! the client something before its answer (progress, a log message, a sampling request)
//! is answered with an event stream instead: those messages as events, then the answer.

mod counted;
mod input_required;
mod listen;
pub mod owner;
mod refusal;
mod replicas;
pub mod seal;
pub mod session;
mod session_share;
pub mod stream;
#[cfg(test)]
mod tests_relay;
#[cfg(test)]
mod tests_stream_reach;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::ProtocolVersion;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use toolgate_engine::broadcast::ReaderHandle;

use super::dispatch::{self, Server};
use super::envelope::Params;
use super::jsonrpc::{self, Id, Message};
use super::outbound::{self, Outbound, SessionLink};
use counted::counted;
use input_required::{NotResumed, ParkAt, Parked, Parking};
use owner::Owner;
use refusal::{Refusal, json, status_of};
use seal::Sealer;
use session::{Missing, Sessions};
use stream::Parker;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const MCP_METHOD: &str = "mcp-method";
const MCP_NAME: &str = "mcp-name";
const LAST_EVENT_ID: &str = "last-event-id";
const ALLOW: &str = "GET, POST, DELETE";

/// What `/mcp` needs: the server, the sessions and the limits.
#[derive(Debug)]
pub struct Mcp {
    server: Arc<Server>,
    sessions: Arc<Sessions>,
    /// 2026-07-28 calls waiting for their clients' input (`input_required.rs`).
    parked: Arc<Parked>,
    /// The fleet's other replicas, to pass a retry on to the one holding its call.
    replicas: Option<replicas::Replicas>,
    max_request_bytes: usize,
    shutdown: CancellationToken,
}

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct Settings {
    pub max_sessions: usize,
    /// The fraction of a full session table one caller may hold.
    pub session_share: f64,
    pub session_idle: Duration,
    pub max_request_bytes: usize,
    /// Keys sealing session ids (current first); empty for random ids.
    pub session_keys: Vec<toolgate_config::Secret>,
    /// Validity of a sealed id.
    pub session_lifetime: Duration,
    /// Where the fleet's other replicas reach this one's `/mcp` (with `session_keys`).
    pub replica_url: Option<url::Url>,
}

impl Mcp {
    /// Builds the transport and starts its session sweeper (stopped by `shutdown`).
    pub fn new(server: Arc<Server>, settings: &Settings, shutdown: CancellationToken) -> Arc<Mcp> {
        let keys: Vec<&[u8]> = settings
            .session_keys
            .iter()
            .map(|k| k.0.as_bytes())
            .collect();
        let sealer = Sealer::new(&keys, settings.session_lifetime);
        let sessions = Arc::new(
            Sessions::new(settings.max_sessions, settings.session_idle)
                .with_share(settings.session_share)
                .with_sealer(sealer),
        );
        sessions.spawn_sweeper(shutdown.clone());
        let replicas = settings
            .replica_url
            .clone()
            .and_then(|own| replicas::Replicas::new(&keys, own));
        let prefix = replicas.as_ref().map(|r| r.prefix().to_owned());
        let parked = Arc::new(Parked::with_prefix(prefix.unwrap_or_default()));
        parked.spawn_sweeper(shutdown.clone());
        Arc::new(Mcp {
            server,
            sessions,
            parked,
            replicas,
            max_request_bytes: settings.max_request_bytes,
            shutdown,
        })
    }

    /// Open sessions (for tests and metrics).
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }
}

/// The `/mcp` endpoint.
pub async fn handle(State(mcp): State<Arc<Mcp>>, request: Request) -> Response {
    // A session is served to the caller that opened it only.
    let identity = request.extensions().get::<toolgate_auth::Identity>();
    let owner = Owner::of(identity);
    let answered = match *request.method() {
        Method::POST => post(&mcp, request, &owner).await,
        Method::GET => get(&mcp, request.headers(), &owner, identity),
        Method::DELETE => delete(&mcp, request.headers(), &owner),
        _ => Err(Refusal::MethodNotAllowed),
    };
    answered.unwrap_or_else(IntoResponse::into_response)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The media ranges of `Accept` that are not refused with `q=0`, as lowercase essences.
fn accepted(headers: &HeaderMap) -> Vec<String> {
    let mut out = Vec::new();
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let mut parts = range.split(';');
            let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .or_else(|| p.strip_prefix("Q="))
                    .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            if !essence.is_empty() && !refused {
                out.push(essence);
            }
        }
    }
    out
}

fn accepts(ranges: &[String], media: &str) -> bool {
    let top = media.split('/').next().unwrap_or_default();
    ranges
        .iter()
        .any(|r| r == media || r == "*/*" || r.strip_suffix("/*") == Some(top))
}

/// The `MCP-Protocol-Version` header: absent, a version this server speaks, or refused.
/// `allow_unknown` when the body names its own version (then the body decides).
/// The refusal is the text of a 400.
fn version_header(headers: &HeaderMap, allow_unknown: bool) -> Result<Option<&str>, String> {
    let Some(value) = headers.get(PROTOCOL_VERSION) else {
        return Ok(None);
    };
    let Ok(version) = value.to_str() else {
        return Err("Bad Request: Invalid MCP-Protocol-Version header encoding".into());
    };
    if !allow_unknown && !dispatch::is_supported(version) {
        return Err(format!(
            "Bad Request: Unsupported MCP-Protocol-Version: {version}"
        ));
    }
    Ok(Some(version))
}

/// The single value of a singleton header; two values are a mismatch.
fn single<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("duplicate {name} header"));
    }
    first
        .to_str()
        .map(Some)
        .map_err(|_| format!("{name} header contains invalid characters"))
}

/// 2026-07-28 routing headers: `Mcp-Method` must name the body's method, and for calls
/// that name a thing (`tools/call`, `prompts/get`, `resources/read`) `Mcp-Name` must name
/// it, so a proxy that routes on headers routes what the body does.
fn routing_headers(headers: &HeaderMap, message: &Message<'_>) -> Result<(), String> {
    let Some(method) = message.method() else {
        return Ok(());
    };
    if method == "initialize" {
        // The handshake may omit the headers, but a supplied one must agree.
        return match single(headers, MCP_METHOD)? {
            Some(m) if m != method => Err(format!(
                "Mcp-Method header `{m}` does not match body method `{method}`"
            )),
            _ => Ok(()),
        };
    }
    match single(headers, MCP_METHOD)? {
        None => return Err("missing required Mcp-Method header".into()),
        Some(m) if m != method => {
            return Err(format!(
                "Mcp-Method header `{m}` does not match body method `{method}`"
            ));
        }
        Some(_) => {}
    }
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let expected = message.params().and_then(|p| match key {
        "uri" => p.uri(),
        _ => p.name.as_deref(),
    });
    let Some(expected) = expected else {
        return Ok(());
    };
    match single(headers, MCP_NAME)? {
        None => Err(format!("missing required Mcp-Name header for `{method}`")),
        Some(name) if name != expected => Err(format!(
            "Mcp-Name header `{name}` does not match body value `{expected}`"
        )),
        Some(_) => Ok(()),
    }
}

/// Where a POST goes once its headers and body agree.
#[derive(Debug, PartialEq, Eq)]
enum Route<'h> {
    /// `initialize`: answered, and a session opened.
    Initialize,
    /// A message of the handshake-era session with this id.
    Session(&'h str),
    /// `server/discover` outside a session.
    Discover,
    /// A stateless request: complete inline metadata, or 2026-07-28 or later.
    Stateless,
}

async fn post(mcp: &Mcp, request: Request, owner: &Owner) -> Result<Response, Refusal> {
    let ranges = accepted(request.headers());
    if !(accepts(&ranges, "application/json") && accepts(&ranges, "text/event-stream")) {
        return Err(Refusal::NotAcceptable(
            "Not Acceptable: Client must accept both application/json and text/event-stream",
        ));
    }
    let json_body = header(request.headers(), header::CONTENT_TYPE.as_str()).is_some_and(|v| {
        v.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .eq_ignore_ascii_case("application/json")
    });
    if !json_body {
        return Err(Refusal::UnsupportedMediaType);
    }
    let (parts, body) = request.into_parts();
    let identity = parts.extensions.get::<toolgate_auth::Identity>();
    let caller = Caller {
        agent: identity.and_then(|i| i.agent.clone()),
        access_token: identity.and_then(|i| i.access_token.clone()),
        scopes: identity.and_then(|i| i.scopes.clone()),
        owner,
    };
    let headers = parts.headers;
    let bytes = axum::body::to_bytes(body, mcp.max_request_bytes)
        .await
        .map_err(|e| {
            if crate::server::listener::body_timed_out(&e) {
                Refusal::BodyTimedOut
            } else {
                Refusal::TooLarge {
                    max: mcp.max_request_bytes,
                }
            }
        })?;
    // The one read of the body: framing, and the params' fields.
    let message =
        jsonrpc::parse_within(&bytes, mcp.max_request_bytes).map_err(Refusal::Malformed)?;
    if let Some(replicas) = &mcp.replicas
        && let Some((id, holder)) = held_elsewhere(replicas, &headers, &message)
    {
        return Ok(replicas.pass_on(holder, &headers, bytes, &id).await);
    }
    Ok(match route(&headers, &message)? {
        // Boxed, as in `answer`: a session's first request must not size every call.
        Route::Initialize => Box::pin(initialize(mcp, message, owner)).await?,
        Route::Session(sid) => {
            let (version, link) = mcp
                .sessions
                .resume(sid, owner)
                .map_err(|missing| mcp.missing(missing))?;
            let session = Joined { sid, version, link };
            answer(mcp, message, Some(session), None, caller).await
        }
        Route::Discover => answer(mcp, message, None, None, caller).await,
        Route::Stateless => {
            let capabilities = message
                .params()
                .and_then(|p| p.meta.capabilities())
                .cloned();
            answer(mcp, message, None, capabilities, caller).await
        }
    })
}

/// Checks the POST's headers against its body and decides its lifecycle: `initialize`
/// opens a session; a request with complete inline metadata, or anything declared
/// 2026-07-28 or later, is stateless; the rest belongs to a session.
fn route<'h>(headers: &'h HeaderMap, message: &Message<'_>) -> Result<Route<'h>, Refusal> {
    let meta = message.params().map(|p| &p.meta);
    let meta_version = meta.and_then(|m| m.version());
    let id = match message {
        Message::Request { id, .. } => Some(id),
        _ => None,
    };
    let mismatch = |reason: String| Refusal::HeaderMismatch {
        id: id.cloned(),
        reason,
    };
    let header_version =
        version_header(headers, meta_version.is_some()).map_err(Refusal::BadHeader)?;
    let method = message.method().unwrap_or_default();
    // An `initialize` declaring 2026-07-28 or later in its `_meta` belongs to a
    // revision without the handshake: it is answered statelessly, as a removed method.
    let is_initialize =
        method == "initialize" && id.is_some() && meta.is_none_or(|m| !m.declares_inline());
    if is_initialize
        && let (Some(h), Some(body_version)) = (
            header_version,
            message.params().and_then(|p| p.protocol_version()),
        )
        && h != body_version
    {
        return Err(Refusal::InvalidRequest {
            id: id.cloned(),
            reason: format!(
                "Invalid Request: MCP-Protocol-Version header ({h}) does not match initialize params.protocolVersion ({body_version})"
            ),
        });
    }
    // A request naming its own version must say the same in the header.
    if id.is_some()
        && !is_initialize
        && let Some(body_version) = meta_version
    {
        match header_version {
            None => {
                return Err(mismatch(
                    "request _meta protocolVersion requires MCP-Protocol-Version header".into(),
                ));
            }
            Some(h) if h != body_version => {
                return Err(mismatch(format!(
                    "MCP-Protocol-Version header ({h}) does not match request _meta protocolVersion ({body_version})"
                )));
            }
            Some(_) => {}
        }
    }
    if header_version.is_some_and(|v| v >= dispatch::INLINE_VERSION) {
        routing_headers(headers, message).map_err(mismatch)?;
    }
    let effective = meta_version.or(header_version).unwrap_or("2025-03-26");
    let complete = meta.is_some_and(|m| m.complete());
    let handshake = is_initialize || (!complete && effective < dispatch::INLINE_VERSION);
    if !handshake {
        if matches!(message, Message::Reply { .. }) {
            return Err(Refusal::InvalidRequest {
                id: None,
                reason: "Invalid Request: a stateless server does not accept JSON-RPC responses"
                    .into(),
            });
        }
        return Ok(Route::Stateless);
    }
    if is_initialize {
        return Ok(Route::Initialize);
    }
    match header(headers, SESSION_ID) {
        Some(sid) => Ok(Route::Session(sid)),
        None if method == "server/discover" => Ok(Route::Discover),
        None => Err(Refusal::SessionRequired),
    }
}

/// The handshake-era session a message belongs to.
struct Joined<'h> {
    sid: &'h str,
    /// The version negotiated at `initialize`.
    version: ProtocolVersion,
    /// Server→client requests of this session go through it.
    link: Arc<SessionLink>,
}

/// Who sent a request, from its credentials.
struct Caller<'o> {
    /// The agent; `None`: anonymous.
    agent: Option<Arc<toolgate_config::AgentSpec>>,
    /// Its validated access token (for token exchange), if it sent one.
    access_token: Option<Arc<toolgate_config::Secret>>,
    /// The scopes that access token grants (per-tool scopes); `None`: it sent none.
    scopes: Option<toolgate_auth::Granted>,
    /// Who it is, as sessions and parked calls are bound to it.
    owner: &'o Owner,
}

/// Answers one message of a `session` or a stateless request (`capabilities` from its
/// `_meta`); `caller` sent it.
async fn answer(
    mcp: &Mcp,
    message: Message<'_>,
    session: Option<Joined<'_>>,
    capabilities: Option<Value>,
    caller: Caller<'_>,
) -> Response {
    let Caller {
        agent,
        access_token,
        scopes,
        owner,
    } = caller;
    let (session_id, version, link) = match session {
        Some(s) => (Some(s.sid), Some(s.version), Some(s.link)),
        None => (None, None, None),
    };
    // Only a tool call sends anything to the client before its answer; everything else
    // is answered in place.
    let (id, params) = match message {
        Message::Request { id, method, params } if method == "tools/call" => (id, params),
        Message::Request { id, method, params } if method == "subscriptions/listen" => {
            let outbound = Outbound::new(None, link, capabilities)
                .with_agent(agent)
                .with_access_token(access_token)
                .with_scopes(scopes);
            return Box::pin(listen(mcp, id, params, outbound)).await;
        }
        other => {
            // Resource reads and prompts of a server called with the caller's authority
            // need the caller's token too.
            let outbound = Outbound::new(None, link, capabilities)
                .with_agent(agent)
                .with_access_token(access_token)
                .with_scopes(scopes);
            let version = version.as_ref().map(ProtocolVersion::as_str);
            // Boxed: held in place, its state would be part of every tool call's
            // future too, which the router copies into a box of its own per request.
            let handled = Box::pin(mcp.server.handle(other, version, &outbound));
            return match handled.await {
                Some(reply) => counted(
                    &mcp.server.reply_memory(),
                    json(status_of(&reply), reply.body),
                ),
                None => StatusCode::ACCEPTED.into_response(),
            };
        }
    };
    // Before anything else a call does (a retry of a parked call included): a token
    // without the tool's scopes is told which to ask for.
    if let Some(p) = params.as_ref()
        && let Some(name) = p.name.as_deref()
        && let Some(refused) = mcp.server.step_up(
            &id,
            name,
            p.arguments.as_ref().and_then(Value::as_object),
            agent.as_ref(),
            scopes.as_ref(),
        )
    {
        return Refusal::InsufficientScope(refused).into_response();
    }
    // A 2026-07-28 call (no session) that asks its client something answers with an
    // input-required result and waits, parked, for the retry with the answers.
    let inline = session_id.is_none() && params.as_ref().is_some_and(|p| p.meta.declares_inline());
    if inline
        && let Some(p) = params.as_ref()
        && let Some((state, responses)) = input_required::retry_of(&p.rest)
    {
        let tool = p.name.as_deref();
        // Boxed: a retry is rare, and its state would otherwise size every call's.
        return Box::pin(resume(mcp, id.clone(), state, responses, tool, owner)).await;
    }
    let parking = inline.then(|| Parking {
        link: Arc::new(SessionLink::for_one_call()),
        owner: owner.clone(),
        tool: params.as_ref().and_then(|p| p.name.clone()),
        answers_as: id.clone(),
    });
    let link = link.or_else(|| parking.as_ref().map(|p| p.link.clone()));
    // The call may go on after the answer has turned into a stream, so it owns what it
    // reads: its id and its params' fields, as read from the body (not read again).
    let (sink, queue) = mpsc::channel(outbound::QUEUE);
    let mut outbound = Outbound::new(Some(sink), link, capabilities);
    if let Some(p) = params.as_ref().filter(|p| p.meta.declares_inline()) {
        outbound = outbound.with_request_log_level(p.meta.log_level());
    }
    let outbound = outbound
        .with_agent(agent)
        .with_access_token(access_token)
        .with_scopes(scopes);
    let server = mcp.server.clone();
    let post_id = parking.as_ref().map(|p| p.answers_as.clone());
    let work: stream::Work = Box::pin(async move {
        let message = Message::Request {
            id,
            method: "tools/call".into(),
            params,
        };
        let version = version.as_ref().map(ProtocolVersion::as_str);
        server.handle(message, version, &outbound).await
    });
    let asking = post_id.zip(parking);
    run_call(mcp, work, queue, asking, session_id).await
}

/// Answers the POST of a tool call running as `work`: one JSON body when the call sends
/// nothing first, else an event stream. With `asking` (a 2026-07-28 call: the POST's
/// id and how to park the call), a question the call asks its client parks it and
/// answers the POST with an input-required result.
async fn run_call(
    mcp: &Mcp,
    mut work: stream::Work,
    mut queue: mpsc::Receiver<Vec<u8>>,
    mut asking: Option<(Id, Parking)>,
    session_id: Option<&str>,
) -> Response {
    loop {
        tokio::select! {
            biased;
            reply = &mut work => return match queue.try_recv() {
                // Nothing was sent: one JSON body, as for any other request.
                Err(_) => match reply {
                    Some(reply) => counted(
                        &mcp.server.reply_memory(),
                        json(status_of(&reply), reply.body),
                    ),
                    None => StatusCode::ACCEPTED.into_response(),
                },
                Ok(first) => stream::relay(
                    mcp.server.reply_memory(),
                    first,
                    None,
                    reply.map(|r| r.body),
                    queue,
                    None,
                    || {},
                ),
            },
            Some(first) = queue.recv() => {
                let mut parker = asking.take().map(|(post_id, parking)| ParkAt {
                    parked: mcp.parked.clone(),
                    post_id,
                    parking,
                });
                if let Some(p) = parker.as_mut()
                    && p.asks(&first)
                {
                    match p.park(first, work, queue) {
                        stream::Asked::Parked(answer) => {
                            return counted(&mcp.server.reply_memory(), json(StatusCode::OK, answer));
                        }
                        stream::Asked::GoesOn(w, q) => {
                            (work, queue) = (w, q);
                            asking = parker.map(|p| (p.post_id, p.parking));
                            continue;
                        }
                    }
                }
                let parker = parker.map(|p| Box::new(p) as Box<dyn Parker>);
                let sessions = mcp.sessions.clone();
                let sid = session_id.map(str::to_owned);
                return stream::relay(mcp.server.reply_memory(), first, Some(work), None, queue, parker, move || {
                    if let Some(sid) = &sid {
                        sessions.touch(sid);
                    }
                });
            }
        }
    }
}

/// A 2026-07-28 retry of a call parked on another replica of the fleet (not one
/// already passed on): its id and that replica's address.
fn held_elsewhere(
    replicas: &replicas::Replicas,
    headers: &HeaderMap,
    message: &Message<'_>,
) -> Option<(Id, url::Url)> {
    let Message::Request { id, method, params } = message else {
        return None;
    };
    if method != "tools/call" || headers.contains_key(replicas::PASSED_ON) {
        return None;
    }
    let (state, _) = input_required::retry_of(&params.as_ref()?.rest)?;
    Some((id.clone(), replicas.holder(state)?))
}

/// A 2026-07-28 retry (request `id`) of a call parked under `state`: the call goes on
/// with the client's `responses`, or the questions left unanswered are asked again.
async fn resume(
    mcp: &Mcp,
    id: Id,
    state: &str,
    responses: Option<&serde_json::Map<String, Value>>,
    tool: Option<&str>,
    owner: &Owner,
) -> Response {
    let call = match mcp.parked.resume(state, owner, tool, responses) {
        Ok(call) => call,
        Err(why) => {
            let message = match why {
                NotResumed::Unknown => format!(
                    "Invalid params: requestState is not known here: it expired (calls wait {} s for their input), was issued by another replica (set `gateway.replica_url` so replicas pass retries on), or was never issued; call the tool again without it",
                    input_required::PARKED_FOR.as_secs()
                ),
                NotResumed::OtherTool => {
                    "Invalid params: requestState belongs to a call of another tool".to_owned()
                }
            };
            let body = jsonrpc::error(Some(&id), jsonrpc::INVALID_PARAMS, &message, None);
            return counted(&mcp.server.reply_memory(), json(StatusCode::OK, body));
        }
    };
    let unanswered = call.unanswered().to_vec();
    let (work, queue, mut parking) = call.into_parts();
    if !unanswered.is_empty() {
        // Asked again, as the revision recommends, under a new state.
        let again = mcp.parked.park(&parking, work, queue, unanswered.clone());
        let body = match again {
            Ok(state) => input_required::input_required(&id, &unanswered, &state),
            Err(_) => jsonrpc::error(
                Some(&id),
                jsonrpc::INTERNAL_ERROR,
                "toolgate cannot hold the call while its questions are unanswered (too many calls wait for input)",
                None,
            ),
        };
        return counted(&mcp.server.reply_memory(), json(StatusCode::OK, body));
    }
    // The call's answer is written with the id of the request that started it (or of
    // the retry before this one): it answers this retry.
    let from = std::mem::replace(&mut parking.answers_as, id.clone());
    let to = id.clone();
    let work: stream::Work = Box::pin(async move {
        work.await.map(|mut reply| {
            reply.body = input_required::readdressed(reply.body, &from, &to);
            reply
        })
    });
    run_call(mcp, work, queue, Some((id, parking)), None).await
}

/// A 2026-07-28 `subscriptions/listen`: its stream, or the error that answers it.
async fn listen(mcp: &Mcp, id: Id, params: Option<Params>, outbound: Outbound) -> Response {
    let reader = ReaderHandle::default();
    // Subscribed before the acknowledgement is worked out: nothing sent meanwhile is
    // missed.
    let subscriber = mcp.server.broadcast().subscribe(None, reader.id());
    match mcp.server.listen(&id, params, &outbound, &reader).await {
        Ok((honoured, ack)) => listen::response(
            mcp.server.reply_memory(),
            mcp.shutdown.child_token(),
            listen::Listening {
                id,
                honoured,
                ack,
                subscriber,
                reader,
            },
        ),
        Err(reply) => counted(
            &mcp.server.reply_memory(),
            json(status_of(&reply), reply.body),
        ),
    }
}

async fn initialize(mcp: &Mcp, message: Message<'_>, owner: &Owner) -> Result<Response, Refusal> {
    let Some(reply) = mcp.server.handle(message, None, &Outbound::none()).await else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let Some(version) = reply.negotiated else {
        return Ok(json(StatusCode::OK, reply.body));
    };
    let sid = mcp
        .sessions
        .open_for(owner, version, reply.client_capabilities)
        .map_err(|full| mcp.full(&full))?;
    let mut response = json(StatusCode::OK, reply.body);
    if let Ok(value) = HeaderValue::from_str(&sid) {
        response.headers_mut().insert(SESSION_ID, value);
    }
    Ok(response)
}

impl Mcp {
    /// 404 for a session this replica cannot serve (the client initialises again), 503
    /// when one it could rebuild finds the table full.
    fn missing(&self, missing: Missing) -> Refusal {
        match missing {
            Missing::Unknown => Refusal::SessionUnknown,
            Missing::Full(full) => self.full(&full),
        }
    }

    /// 503 with Retry-After: the session table is full; sessions idle out within
    /// `gateway.session_idle`, so that (bounded to a minute) is when to try again.
    fn full(&self, full: &session::Full) -> Refusal {
        Refusal::SessionsFull {
            max: full.max,
            share: full.share,
            retry_s: self.sessions.idle().as_secs().clamp(1, 60),
        }
    }
}

/// 413 with a JSON-RPC error, for a body over `gateway.max_request_bytes`.
pub fn too_large(max: usize) -> Response {
    Refusal::TooLarge { max }.into_response()
}

fn get(
    mcp: &Mcp,
    headers: &HeaderMap,
    owner: &Owner,
    identity: Option<&toolgate_auth::Identity>,
) -> Result<Response, Refusal> {
    let ranges = accepted(headers);
    if !accepts(&ranges, "text/event-stream") {
        return Err(Refusal::NotAcceptable(
            "Not Acceptable: Client must accept text/event-stream",
        ));
    }
    let version = version_header(headers, false).map_err(Refusal::BadHeader)?;
    if version.is_some_and(|v| v >= dispatch::INLINE_VERSION) {
        // 2026-07-28 has no sessions, so no standalone stream.
        return Err(Refusal::MethodNotAllowed);
    }
    let sid = header(headers, SESSION_ID).ok_or(Refusal::SessionRequired)?;
    let (negotiated, link) = mcp
        .sessions
        .resume(sid, owner)
        .map_err(|missing| mcp.missing(missing))?;
    let prime = negotiated.as_str() >= stream::PRIMING_VERSION;
    // The stream is a request of the session like any other: a token stepped down to
    // fewer scopes narrows what the session hears of from now on, as a POST's would.
    mcp.server.note_reach_of(
        Some(link.notification_reader()),
        identity.and_then(|i| i.agent.as_deref()),
        identity.and_then(|i| i.scopes.as_ref()),
    );
    // A resume replays the broadcasts after the client's last event; an id this server
    // did not write (another stream's, or garbage) gets a fresh stream.
    let after = header(headers, LAST_EVENT_ID).and_then(|v| {
        let id = v.trim().parse::<u64>().ok();
        if id.is_none() {
            tracing::debug!("GET /mcp with a Last-Event-ID toolgate did not send: a fresh stream");
        }
        id
    });
    let subscriber = mcp.server.broadcast().subscribe(after, link.reader());
    let end = mcp.shutdown.child_token();
    mcp.sessions
        .attach_stream(sid, end.clone())
        .ok_or(Refusal::SessionUnknown)?;
    let sessions = mcp.sessions.clone();
    let sid = sid.to_owned();
    Ok(stream::response(
        mcp.server.reply_memory(),
        end,
        subscriber,
        prime,
        move || {
            sessions.touch(&sid);
        },
    ))
}

fn delete(mcp: &Mcp, headers: &HeaderMap, owner: &Owner) -> Result<Response, Refusal> {
    let version = version_header(headers, false).map_err(Refusal::BadHeader)?;
    if version.is_some_and(|v| v >= dispatch::INLINE_VERSION) {
        return Err(Refusal::MethodNotAllowed);
    }
    let sid = header(headers, SESSION_ID).ok_or(Refusal::SessionRequired)?;
    if mcp.sessions.close(sid, owner) {
        Ok(StatusCode::OK.into_response())
    } else {
        Err(Refusal::SessionUnknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn accept_ranges_honour_zero_weights_and_wildcards() {
        let r = accepted(&headers(&[(
            "accept",
            "application/json, text/event-stream",
        )]));
        assert!(accepts(&r, "application/json") && accepts(&r, "text/event-stream"));
        let r = accepted(&headers(&[
            ("accept", "text/event-stream"),
            ("accept", "Application/JSON;q=0.5"),
        ]));
        assert!(accepts(&r, "application/json") && accepts(&r, "text/event-stream"));
        let r = accepted(&headers(&[(
            "accept",
            "application/json;q=0, text/event-stream",
        )]));
        assert!(!accepts(&r, "application/json"));
        let r = accepted(&headers(&[("accept", "*/*")]));
        assert!(accepts(&r, "application/json") && accepts(&r, "text/event-stream"));
        let r = accepted(&headers(&[("accept", "application/json")]));
        assert!(!accepts(&r, "text/event-stream"));
    }

    #[test]
    fn routing_headers_must_match_the_body() {
        let call =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search"}}"#;
        let m = jsonrpc::parse(call).unwrap();
        assert!(
            routing_headers(
                &headers(&[("mcp-method", "tools/call"), ("mcp-name", "web_search")]),
                &m
            )
            .is_ok()
        );
        assert!(routing_headers(&headers(&[("mcp-method", "tools/call")]), &m).is_err());
        assert!(
            routing_headers(
                &headers(&[("mcp-method", "tools/call"), ("mcp-name", "other")]),
                &m
            )
            .is_err()
        );
        assert!(
            routing_headers(
                &headers(&[("mcp-method", "tools/list"), ("mcp-name", "web_search")]),
                &m
            )
            .is_err()
        );
        assert!(
            routing_headers(
                &headers(&[
                    ("mcp-method", "tools/call"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "web_search")
                ]),
                &m
            )
            .is_err()
        );
        let init = jsonrpc::parse(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#)
            .unwrap();
        assert!(routing_headers(&HeaderMap::new(), &init).is_ok());
        assert!(routing_headers(&headers(&[("mcp-method", "ping")]), &init).is_err());
    }
}
