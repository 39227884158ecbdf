//! Messages to the client over streamable HTTP, on a loopback socket: a tool call that
//! sends progress, a log message and a sampling request gets an event stream with those
//! before its answer, the client's POSTed response comes back into the call, a call that
//! sends nothing stays one JSON body, and 2026-07-28 listen streams carry what they
//! asked for.
//! The tool is `relay_test` of an upstream MCP server on loopback (`tests_upstream`),
//! fronted as any upstream MCP server is: what reaches the client is what that upstream
//! sent, relayed on the real path.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::routing::any;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{Mcp, Settings};
use crate::mcp::dispatch::Server;
use crate::mcp::tests_upstream::{RELAY_TOOL, fronting_server};

/// A bound on every wait, so a broken stream fails the test instead of hanging it; the
/// exchanges themselves take milliseconds.
const PATIENCE: Duration = Duration::from_secs(20);

struct Running {
    url: String,
    server: Arc<Server>,
    mcp: Arc<Mcp>,
    shutdown: CancellationToken,
    _background: toolgate_engine::background::Background,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn start() -> Running {
    start_replica(None).await
}

/// A replica of a fleet sharing `key`, which other replicas reach at its own address.
async fn start_replica(key: Option<&str>) -> Running {
    let (server, background) = fronting_server().await;
    let server = Arc::new(server);
    let shutdown = CancellationToken::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let settings = Settings {
        max_sessions: 16,
        session_share: 0.5,
        session_idle: Duration::from_secs(600),
        session_keys: key
            .map(|k| toolgate_config::Secret(k.to_owned()))
            .into_iter()
            .collect(),
        session_lifetime: Duration::from_secs(3600),
        max_request_bytes: 1 << 20,
        replica_url: key.map(|_| format!("http://{addr}/mcp").parse().unwrap()),
    };
    let mcp = Mcp::new(server.clone(), &settings, shutdown.clone());
    let app = Router::new()
        .route("/mcp", any(super::handle))
        .with_state(mcp.clone());
    let stop = shutdown.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await
            .unwrap();
    });
    Running {
        url: format!("http://{addr}/mcp"),
        server,
        mcp,
        shutdown,
        _background: background,
    }
}

fn post(url: &str) -> reqwest::RequestBuilder {
    toolgate_engine::tls::init();
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

fn in_session(url: &str, sid: &str) -> reqwest::RequestBuilder {
    post(url)
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", "2025-11-25")
}

async fn open_session(url: &str, capabilities: Value) -> String {
    let init = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": capabilities,
                    "clientInfo": { "name": "relay-test", "version": "1" } }
    });
    let r = post(url).body(init.to_string()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.headers()["mcp-session-id"].to_str().unwrap().to_owned()
}

fn relay_call(id: u64, token: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": RELAY_TOOL, "arguments": {}, "_meta": { "progressToken": token } }
    })
    .to_string()
}

/// One server-sent event: its id and its data (`data:` lines joined by `\n`).
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// Reads an event stream incrementally.
struct Sse {
    response: reqwest::Response,
    buf: String,
}

impl Sse {
    fn new(response: reqwest::Response) -> Sse {
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        Sse {
            response,
            buf: String::new(),
        }
    }

    /// The next event (comments skipped); `None` when the stream ends.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut event = Event {
                    id: None,
                    data: String::new(),
                };
                let mut lines = 0;
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        event.id = Some(id.to_owned());
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        if lines > 0 {
                            event.data.push('\n');
                        }
                        event.data.push_str(d);
                        lines += 1;
                    }
                }
                if block.starts_with(':') {
                    continue;
                }
                return Some(event);
            }
            let chunk = tokio::time::timeout(PATIENCE, self.response.chunk())
                .await
                .expect("the stream went quiet")
                .unwrap()?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

#[tokio::test]
async fn a_call_that_sends_nothing_is_still_one_json_body() {
    let tg = start().await;
    let sid = open_session(&tg.url, json!({})).await;
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dependency_health","arguments":{}}});
    let r = in_session(&tg.url, &sid)
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["result"]["isError"], false);
}

#[tokio::test]
async fn progress_and_a_sampling_request_stream_before_the_answer_that_carries_the_reply() {
    let tg = start().await;
    let sid = open_session(&tg.url, json!({ "sampling": {} })).await;
    let response = in_session(&tg.url, &sid)
        .body(relay_call(7, "p-7"))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let mut progress = Vec::new();
    let request = loop {
        let e = sse.next().await.expect("the sampling request");
        assert!(e.id.is_none(), "a POST's events are not resumable: {e:?}");
        let m = e.json();
        match m["method"].as_str() {
            Some("notifications/progress") => {
                assert_eq!(m["params"]["progressToken"], "p-7");
                progress.push(m["params"]["progress"].clone());
            }
            Some("notifications/message") => assert_eq!(m["params"]["level"], "info"),
            Some("sampling/createMessage") => break m,
            _ => panic!("unexpected before the request: {m}"),
        }
    };
    assert_eq!(progress, [json!(1), json!(2)]);
    let id = request["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("tg-"), "{id}");
    assert_eq!(tg.mcp.sessions(), 1);
    let answer = json!({"jsonrpc":"2.0","id":id,"result":{"role":"assistant","content":{"type":"text","text":"hi there"},"model":"m"}});
    let r = in_session(&tg.url, &sid)
        .body(answer.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let done = sse.next().await.expect("the answer").json();
    assert_eq!(done["id"], 7);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "client answered: hi there"
    );
    assert!(
        sse.next().await.is_none(),
        "the stream ends after the answer"
    );

    // The same answer again (and any id nobody waits for) is accepted and dropped.
    let r = in_session(&tg.url, &sid)
        .body(answer.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let stray = json!({"jsonrpc":"2.0","id":"tg-never","error":{"code":-1,"message":"no"}});
    let r = in_session(&tg.url, &sid)
        .body(stray.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let r = post(&tg.url).body(stray.to_string()).send().await.unwrap();
    assert_eq!(r.status(), 400, "a response needs its session");
}

/// What the upstream sends beside its result reaches the client on the real path without
/// the upstream's progress that is no progress, without `_meta` keys in toolgate's name,
/// and without the ids the upstream gave the call on toolgate's connection.
#[tokio::test]
async fn a_relayed_progress_and_question_carry_nothing_in_toolgates_name_nor_the_upstreams_ids() {
    let tg = start().await;
    let sid = open_session(&tg.url, json!({ "sampling": {} })).await;
    let response = in_session(&tg.url, &sid)
        .body(relay_call(3, "p-3"))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let mut progress = Vec::new();
    let request = loop {
        let m = sse.next().await.expect("the sampling request").json();
        match m["method"].as_str() {
            Some("notifications/progress") => progress.push(m["params"].clone()),
            Some("notifications/message") => {}
            Some("sampling/createMessage") => break m,
            _ => panic!("unexpected before the request: {m}"),
        }
    };
    let steps: Vec<&Value> = progress.iter().map(|p| &p["progress"]).collect();
    assert_eq!(steps, [&json!(1), &json!(2)], "{progress:?}");
    for p in &progress {
        assert_eq!(
            p["_meta"],
            json!({ "com.example/step": p["progress"] }),
            "{p}"
        );
    }
    assert_eq!(request["params"].get("_meta"), None, "{request}");
    let id = request["id"].as_str().unwrap().to_owned();
    let answer = json!({"jsonrpc":"2.0","id":id,"result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}});
    let r = in_session(&tg.url, &sid)
        .body(answer.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    assert_eq!(sse.next().await.expect("the answer").json()["id"], 3);
}

#[tokio::test]
async fn a_clients_error_and_an_ended_session_both_reach_the_call() {
    let tg = start().await;
    let sid = open_session(&tg.url, json!({ "sampling": {} })).await;
    // The session's log level filters the relayed log message (sent at `info`).
    let level =
        json!({"jsonrpc":"2.0","id":0,"method":"logging/setLevel","params":{"level":"warning"}});
    let r = in_session(&tg.url, &sid)
        .body(level.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut sse = Sse::new(
        in_session(&tg.url, &sid)
            .body(relay_call(1, "a"))
            .send()
            .await
            .unwrap(),
    );
    let mut before = Vec::new();
    let id = loop {
        let m = sse.next().await.unwrap().json();
        if m["method"] == "sampling/createMessage" {
            break m["id"].clone();
        }
        before.push(m["method"].clone());
    };
    assert_eq!(
        before,
        [
            json!("notifications/progress"),
            json!("notifications/progress")
        ]
    );
    let refusal =
        json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"no sampling here"}});
    let r = in_session(&tg.url, &sid)
        .body(refusal.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let text = sse.next().await.unwrap().json()["result"]["content"][0]["text"].clone();
    assert_eq!(
        text,
        "client could not answer: no sampling here (JSON-RPC error -32601)"
    );

    // A session that ends while a request waits for the client fails that request.
    let mut sse = Sse::new(
        in_session(&tg.url, &sid)
            .body(relay_call(2, "b"))
            .send()
            .await
            .unwrap(),
    );
    loop {
        if sse.next().await.unwrap().json()["method"] == "sampling/createMessage" {
            break;
        }
    }
    let r = reqwest::Client::new()
        .delete(&tg.url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let done = sse.next().await.unwrap().json();
    assert_eq!(done["id"], 2);
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("session or connection ended"), "{text}");
}

/// A 2026-07-28 `tools/call` of the relay tool (request `id`), with a log level and
/// extra params (a retry's `requestState` and `inputResponses`).
fn stateless_call(id: Value, log_level: Option<&str>, extra: Value) -> String {
    let mut meta = json!({
        "progressToken": 5,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "sampling": {} } });
    if let Some(level) = log_level {
        meta["io.modelcontextprotocol/logLevel"] = json!(level);
    }
    let mut params = json!({ "name": RELAY_TOOL, "arguments": {}, "_meta": meta });
    if let (Value::Object(p), Value::Object(extra)) = (&mut params, extra) {
        p.extend(extra);
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
}

/// POSTs `body` as a 2026-07-28 tool call: the methods of what came before the answer,
/// and the answer.
async fn stateless_post(tg: &Running, body: String) -> (Vec<String>, Value) {
    let response = post(&tg.url)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", RELAY_TOOL)
        .body(body)
        .send()
        .await
        .unwrap();
    if response.headers()["content-type"] == "application/json" {
        return (Vec::new(), response.json().await.unwrap());
    }
    let mut sse = Sse::new(response);
    let mut methods = Vec::new();
    let answer = loop {
        let m = sse.next().await.unwrap().json();
        match m["method"].as_str() {
            Some(method) => methods.push(method.to_owned()),
            None => break m,
        }
    };
    assert!(sse.next().await.is_none(), "the answer ends the stream");
    (methods, answer)
}

/// A 2026-07-28 call whose upstream asks the client to sample: the POST streams the
/// call's notifications and ends with an input-required result (never a request on the
/// stream, which that revision forbids); the retry with the answer goes on with the same
/// call, whose answer carries what the client answered, under the retry's id.
#[tokio::test]
async fn a_stateless_calls_question_comes_back_as_input_required_and_the_retry_goes_on() {
    let tg = start().await;
    let (methods, answer) =
        stateless_post(&tg, stateless_call(json!("s1"), Some("info"), json!({}))).await;
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/message"
        ]
    );
    assert_eq!(answer["id"], "s1");
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "sampling/createMessage");
    assert!(
        request.get("id").is_none(),
        "a request as the client answers it, no id"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();

    // Someone else's state, or a retry for another tool, goes nowhere.
    let (_, refused) = stateless_post(
        &tg,
        stateless_call(
            json!("x"),
            None,
            json!({"requestState": "0123", "inputResponses": {}}),
        ),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not known here")
    );

    // A retry without the answer is asked again, under a new state.
    let (_, again) = stateless_post(
        &tg,
        stateless_call(
            json!("s2"),
            None,
            json!({"requestState": state, "inputResponses": {}}),
        ),
    )
    .await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert_eq!(
        again["result"]["inputRequests"][key]["method"],
        "sampling/createMessage"
    );
    let state2 = again["result"]["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state2, state);

    let sampled =
        json!({"role": "assistant", "content": {"type": "text", "text": "hi there"}, "model": "m"});
    let (_, done) = stateless_post(
        &tg,
        stateless_call(
            json!(33),
            None,
            json!({"requestState": state2, "inputResponses": { key.clone(): sampled }}),
        ),
    )
    .await;
    assert_eq!(done["id"], 33, "answers the retry: {done}");
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "client answered: hi there"
    );
    // Used once: the same state again is unknown.
    let (_, stale) = stateless_post(
        &tg,
        stateless_call(
            json!(34),
            None,
            json!({"requestState": state2, "inputResponses": {}}),
        ),
    )
    .await;
    assert_eq!(stale["error"]["code"], -32602);
}

/// A session's GET stream: a priming event with an id, then each broadcast with the
/// next id; a stream resumed with `Last-Event-ID` replays what came after that id and
/// nothing before it, and an id this server never wrote gets a fresh stream.
#[tokio::test]
async fn broadcasts_reach_a_sessions_get_stream_and_a_resume_replays_what_it_missed() {
    let tg = start().await;
    let sid = open_session(&tg.url, json!({})).await;
    let get = |last: Option<&str>| {
        let mut r = reqwest::Client::new()
            .get(&tg.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(last) = last {
            r = r.header("last-event-id", last);
        }
        r.send()
    };
    let mut first = Sse::new(get(None).await.unwrap());
    let priming = tokio::time::timeout(PATIENCE, first.next())
        .await
        .unwrap()
        .unwrap();
    assert!(priming.data.is_empty(), "{priming:?}");
    let primed_at = priming.id.clone().expect("the priming event has an id");

    let broadcast = tg.server.broadcast();
    broadcast.notify_all("notifications/tools/list_changed", None);
    broadcast.notify_all("notifications/prompts/list_changed", None);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let e = tokio::time::timeout(PATIENCE, first.next())
            .await
            .unwrap()
            .unwrap();
        seen.push((
            e.id.clone().unwrap(),
            e.json()["method"].as_str().unwrap().to_owned(),
        ));
    }
    assert_eq!(seen[0].1, "notifications/tools/list_changed");
    assert_eq!(seen[1].1, "notifications/prompts/list_changed");
    assert_ne!(seen[0].0, seen[1].0, "each event its own id");
    drop(first);

    // Resumed after the first broadcast: only the second comes again.
    let mut resumed = Sse::new(get(Some(&seen[0].0)).await.unwrap());
    let mut methods = Vec::new();
    while methods.is_empty() {
        let e = tokio::time::timeout(PATIENCE, resumed.next())
            .await
            .unwrap()
            .unwrap();
        if !e.data.is_empty() {
            methods.push(e.json()["method"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(methods, ["notifications/prompts/list_changed"]);
    drop(resumed);

    // Resumed from the priming event: both; from garbage: none, only what comes next.
    let mut again = Sse::new(get(Some(&primed_at)).await.unwrap());
    let mut methods = Vec::new();
    while methods.len() < 2 {
        let e = tokio::time::timeout(PATIENCE, again.next())
            .await
            .unwrap()
            .unwrap();
        if !e.data.is_empty() {
            methods.push(e.json()["method"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(
        methods,
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed"
        ]
    );
    drop(again);
    let mut fresh = Sse::new(get(Some("not-an-id")).await.unwrap());
    let _priming = tokio::time::timeout(PATIENCE, fresh.next())
        .await
        .unwrap()
        .unwrap();
    broadcast.notify_all("notifications/resources/list_changed", None);
    let e = tokio::time::timeout(PATIENCE, fresh.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e.json()["method"], "notifications/resources/list_changed");
}

/// A fleet behind a round-robin balancer: the retry of a call parked on replica `a`
/// reaches replica `b`, which passes it on; the client gets the call's answer as if it
/// had reached `a`. A replica that cannot be reached is named in the error.
#[tokio::test]
async fn a_retry_reaching_another_replica_is_passed_on_to_the_one_holding_the_call() {
    const KEY: &str = "a fleet's shared key of 32 bytes or more";
    let a = start_replica(Some(KEY)).await;
    let b = start_replica(Some(KEY)).await;
    let (_, asked) = stateless_post(&a, stateless_call(json!(1), None, json!({}))).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let key = asked["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert!(
        !state.contains("127.0.0.1"),
        "the address is sealed: {state}"
    );

    let sampled =
        json!({"role": "assistant", "content": {"type": "text", "text": "via b"}, "model": "m"});
    let retry = stateless_call(
        json!("r"),
        None,
        json!({"requestState": state, "inputResponses": { key.clone(): sampled }}),
    );
    let (_, done) = stateless_post(&b, retry.clone()).await;
    assert_eq!(done["id"], "r", "{done}");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "client answered: via b"
    );

    // A replica of another fleet does not pass it on: the state is unknown there.
    let other = start_replica(Some("another fleet's key, 32 bytes or more")).await;
    let (_, unknown) = stateless_post(&other, retry.clone()).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not known here")
    );

    // The holder gone: the error says so, and the client knows to call again.
    let (_, again) = stateless_post(&a, stateless_call(json!(2), None, json!({}))).await;
    let state = again["result"]["requestState"].as_str().unwrap().to_owned();
    drop(a);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (_, gone) = stateless_post(
        &b,
        stateless_call(
            json!(3),
            None,
            json!({"requestState": state, "inputResponses": {}}),
        ),
    )
    .await;
    assert_eq!(gone["id"], 3, "{gone}");
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert!(
        gone["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be reached"),
        "{gone}"
    );
}

/// The upstream's log message is `info`: a 2026-07-28 request that asked for warnings
/// and above, or named no level at all, is not sent it; its progress still comes.
#[tokio::test]
async fn a_stateless_call_gets_log_messages_only_at_the_level_it_named() {
    let tg = start().await;
    for level in [Some("warning"), None] {
        let (methods, answer) =
            stateless_post(&tg, stateless_call(json!(1), level, json!({}))).await;
        assert_eq!(
            methods,
            ["notifications/progress", "notifications/progress"],
            "{level:?}"
        );
        assert_eq!(answer["result"]["resultType"], "input_required");
    }
}

/// A real SDK client: rmcp's, answering sampling and recording what it was told.
/// (rmcp marks sampling and logging deprecated by SEP-2577; clients of the handshake
/// revisions still use both, and they are what is relayed here.)
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<f64>>>,
    logs: Arc<Mutex<Vec<Value>>>,
    sampled: Arc<Mutex<u32>>,
}

#[allow(deprecated)]
impl rmcp::ClientHandler for Recorder {
    async fn create_message(
        &self,
        _params: rmcp::model::CreateMessageRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        *self.sampled.lock().unwrap() += 1;
        Ok(serde_json::from_value(json!({
            "model": "test-model", "stopReason": "endTurn",
            "role": "assistant", "content": { "type": "text", "text": "hello from rmcp" }
        }))
        .unwrap())
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params.progress);
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params.data);
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "sampling": {} },
            "clientInfo": { "name": "rmcp-relay-test", "version": "1" }
        }))
        .unwrap()
    }
}

#[tokio::test]
async fn rmcp_accepts_the_stream_answers_sampling_and_sees_progress_and_logs() {
    use rmcp::ServiceExt;
    let tg = start().await;
    let recorder = Recorder::default();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(tg.url.clone());
    let client = recorder.clone().serve(transport).await.unwrap();
    let result = tokio::time::timeout(
        PATIENCE,
        client.call_tool(rmcp::model::CallToolRequestParams::new(RELAY_TOOL)),
    )
    .await
    .expect("the call finished")
    .unwrap();
    let v = serde_json::to_value(&result).unwrap();
    assert_eq!(v["content"][0]["text"], "client answered: hello from rmcp");
    assert_eq!(*recorder.sampled.lock().unwrap(), 1);
    // Notifications are handled by the client's own task: wait until they are in.
    tokio::time::timeout(PATIENCE, async {
        while recorder.progress.lock().unwrap().len() < 2
            || recorder.logs.lock().unwrap().is_empty()
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("progress and logs arrived");
    assert_eq!(*recorder.progress.lock().unwrap(), [1.0, 2.0]);
    assert_eq!(*recorder.logs.lock().unwrap(), [json!("asking the client")]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_hangs_up_instead_of_answering_leaves_nothing_waiting() {
    let tg = start().await;
    let sid = open_session(&tg.url, json!({ "sampling": {} })).await;
    let mut sse = Sse::new(
        in_session(&tg.url, &sid)
            .body(relay_call(3, "c"))
            .send()
            .await
            .unwrap(),
    );
    loop {
        if sse.next().await.unwrap().json()["method"] == "sampling/createMessage" {
            break;
        }
    }
    let (_, link) = tg.mcp.sessions.touch_link(&sid).unwrap();
    assert_eq!(link.pending(), 1);
    // Hanging up cancels the call (as it would a call answered with JSON), and with it
    // the question it was waiting on.
    drop(sse);
    tokio::time::timeout(PATIENCE, async {
        while link.pending() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the pending request was forgotten");
    // The session itself is still usable.
    let ping = json!({"jsonrpc":"2.0","id":4,"method":"ping"});
    let r = in_session(&tg.url, &sid)
        .body(ping.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// A 2026-07-28 `subscriptions/listen` POST.
async fn listen(url: &str, id: Value, notifications: Value) -> reqwest::Response {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": { "notifications": notifications, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {} } }
    });
    post(url)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_first_and_carries_only_what_it_asked_for_tagged() {
    let tg = start().await;
    let mut tools = Sse::new(listen(&tg.url, json!(7), json!({"toolsListChanged": true})).await);
    let mut prompts = Sse::new(
        listen(
            &tg.url,
            json!("p"),
            json!({"promptsListChanged": true, "resourcesListChanged": false}),
        )
        .await,
    );
    let ack = tools.next().await.unwrap().json();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    let ack = prompts.next().await.unwrap().json();
    // toolgate fronts an MCP server here, so prompt list changes are honoured.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "p"
    );

    let broadcast = tg.server.broadcast();
    broadcast.notify_all(
        "notifications/message",
        Some(json!({"level": "error", "data": "never asked for"})),
    );
    broadcast.notify_all("notifications/prompts/list_changed", None);
    broadcast.notify_all("notifications/tools/list_changed", None);
    let got = tools.next().await.unwrap().json();
    assert_eq!(got["method"], "notifications/tools/list_changed");
    assert_eq!(
        got["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    let got = prompts.next().await.unwrap().json();
    assert_eq!(got["method"], "notifications/prompts/list_changed");
    assert_eq!(
        got["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "p"
    );
    // And nothing else reaches either: the next thing each sees is the next change.
    broadcast.notify_all("notifications/resources/list_changed", None);
    broadcast.notify_all("notifications/tools/list_changed", None);
    broadcast.notify_all("notifications/prompts/list_changed", None);
    assert_eq!(
        tools.next().await.unwrap().json()["method"],
        "notifications/tools/list_changed"
    );
    assert_eq!(
        prompts.next().await.unwrap().json()["method"],
        "notifications/prompts/list_changed"
    );

    // A listen that cannot be read is refused, not opened.
    let refused = listen(&tg.url, json!(8), json!({"toolsListChanged": "yes"})).await;
    let v: Value = refused.json().await.unwrap();
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(8), json!(-32602))
    );
    // The handshake revisions have a session's GET stream instead.
    let sid = open_session(&tg.url, json!({})).await;
    let v: Value = in_session(&tg.url, &sid)
        .body(
            json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                   "params": {"notifications": {"toolsListChanged": true}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["error"]["code"], -32601);
}

/// An unknown resource: -32002 for the handshake revisions, invalid params naming the
/// URI for 2026-07-28 (which standardised that, SEP-2164).
#[tokio::test]
async fn an_unknown_resource_is_answered_in_each_revisions_words() {
    let tg = start().await;
    let uri = "test://nonexistent";
    let read = |meta: Value| {
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
               "params": {"uri": uri, "_meta": meta}})
        .to_string()
    };
    let modern = post(&tg.url)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "resources/read")
        .header("mcp-name", uri)
        .body(read(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {} })))
        .send()
        .await
        .unwrap();
    let v: Value = modern.json().await.unwrap();
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert_eq!(v["error"]["data"]["uri"], uri);
    let sid = open_session(&tg.url, json!({})).await;
    let v: Value = in_session(&tg.url, &sid)
        .body(read(json!({})))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["error"]["code"], -32002, "{v}");
}

/// 2026-07-28 lists and reads carry cache hints; what toolgate merges from its servers
/// and filters per caller is private and not to be reused.
#[tokio::test]
async fn passed_through_lists_carry_the_inline_revisions_cache_hints() {
    let tg = start().await;
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {} }}});
        let v: Value = post(&tg.url)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let r = &v["result"];
        assert_eq!(
            (&r["resultType"], &r["ttlMs"], &r["cacheScope"]),
            (&json!("complete"), &json!(0), &json!("private")),
            "{method}: {v}"
        );
    }
}

/// A session's GET stream opens with the priming event (an id, empty data) only for a
/// client of 2025-11-25, the revision that introduced it: older clients parse every
/// event's data as a JSON-RPC message, and the Python SDK before it logs a parse error for
/// the empty one. Every revision's stream then carries the broadcasts with their ids.
#[tokio::test]
async fn the_get_streams_priming_event_goes_only_to_clients_of_the_revision_that_has_it() {
    let tg = start().await;
    for (version, primed) in [
        ("2024-11-05", false),
        ("2025-03-26", false),
        ("2025-06-18", false),
        ("2025-11-25", true),
    ] {
        let init = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": version, "capabilities": {},
                        "clientInfo": { "name": "stream-test", "version": "1" } }
        });
        let r = post(&tg.url).body(init.to_string()).send().await.unwrap();
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["result"]["protocolVersion"], version);
        let mut stream = Sse::new(
            reqwest::Client::new()
                .get(&tg.url)
                .header("accept", "text/event-stream")
                .header("mcp-session-id", &sid)
                .header("mcp-protocol-version", version)
                .send()
                .await
                .unwrap(),
        );
        tg.server
            .broadcast()
            .notify_all("notifications/tools/list_changed", None);
        let first = stream.next().await.unwrap();
        if primed {
            assert!(
                first.id.is_some() && first.data.is_empty(),
                "{version}: {first:?}"
            );
        }
        let notice = if primed {
            stream.next().await.unwrap()
        } else {
            first
        };
        assert_eq!(
            notice.json()["method"],
            "notifications/tools/list_changed",
            "{version}: every event an older client reads is a JSON-RPC message: {notice:?}"
        );
        assert!(notice.id.is_some(), "{version}: {notice:?}");
    }
}

/// The methods a relay call's stream carries before the upstream's sampling request.
async fn before_sampling(url: &str, sid: &str, id: u64) -> Vec<Value> {
    let mut sse = Sse::new(
        in_session(url, sid)
            .body(relay_call(id, "t"))
            .send()
            .await
            .unwrap(),
    );
    let mut before = Vec::new();
    loop {
        let m = sse.next().await.unwrap().json();
        if m["method"] == "sampling/createMessage" {
            return before;
        }
        before.push(m["method"].clone());
    }
}

#[tokio::test]
async fn one_sessions_log_level_never_changes_what_another_receives() {
    let tg = start().await;
    let quiet = open_session(&tg.url, json!({ "sampling": {} })).await;
    let other = open_session(&tg.url, json!({ "sampling": {} })).await;
    let level =
        json!({"jsonrpc":"2.0","id":0,"method":"logging/setLevel","params":{"level":"warning"}});
    let r = in_session(&tg.url, &quiet)
        .body(level.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let log = json!("notifications/message");
    // The other session set no level: the upstream's `info` log reaches it.
    let seen = before_sampling(&tg.url, &other, 1).await;
    assert!(seen.contains(&log), "{seen:?}");
    // The session that asked for warnings only does not get it.
    let seen = before_sampling(&tg.url, &quiet, 2).await;
    assert!(!seen.contains(&log), "{seen:?}");
    // And asking for more on the other session does not change the first's level back.
    let debug =
        json!({"jsonrpc":"2.0","id":0,"method":"logging/setLevel","params":{"level":"debug"}});
    let r = in_session(&tg.url, &other)
        .body(debug.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let seen = before_sampling(&tg.url, &quiet, 3).await;
    assert!(!seen.contains(&log), "{seen:?}");
}
