//! What every test of fronting starts from: a scripted server link, a host that
//! records what it is told, a fronted server between them.

pub(super) use std::sync::atomic::{AtomicUsize, Ordering};
pub(super) use std::time::Duration;

pub(super) use serde_json::json;
pub(super) use toolgate_mcp_client::codes;
pub(super) use toolgate_store::IncidentKind;

pub(super) use super::super::watcher::on_event;
pub(super) use crate::fronting::*;
pub(super) use crate::sync::lock as guard;
pub(super) use crate::upstream::mcp::{BoxFuture, LinkError, LinkReply, Relay, RpcError};

/// A server whose `tools/list` takes 100 ms and is counted; `prompts/list` and
/// `resources/templates/list` answer its prompts and templates at once, and any other method what `answers` holds for it (every
/// request but `tools/list` is logged).
#[derive(Debug, Default)]
pub(super) struct CountingLink {
    pub(super) lists: AtomicUsize,
    pub(super) tools: Mutex<Vec<Value>>,
    pub(super) prompts: Mutex<Vec<Value>>,
    pub(super) templates: Mutex<Vec<Value>>,
    pub(super) answers: Mutex<BTreeMap<String, Result<Value, crate::upstream::mcp::RpcError>>>,
    pub(super) asked: Mutex<Vec<(String, Option<Value>)>>,
    /// The owner key the relay of each request in `asked` carried.
    pub(super) owners: Mutex<Vec<Option<String>>>,
    /// What the client left out of the tool list it read.
    pub(super) skipped: Mutex<toolgate_mcp_client::Skipped>,
    /// Each `tools/list` page takes this long instead, and names a next page without end.
    pub(super) endless_pages: Mutex<Option<Duration>>,
    /// The next `tools/list` reads the tools when it is asked and answers this much
    /// later (a slow listing that a later one overtakes).
    pub(super) next_list_late: Mutex<Option<Duration>>,
    /// What the client left out of the answers of other methods, by method.
    pub(super) skipped_in: Mutex<BTreeMap<String, toolgate_mcp_client::Skipped>>,
}

impl CountingLink {
    /// `method` is answered with `result` from now on.
    pub(super) fn answer(&self, method: &str, result: Value) {
        guard(&self.answers).insert(method.to_owned(), Ok(result));
    }
}

/// A reply of the scripted link, as a server writes it.
pub(super) fn reply(answer: Result<Value, RpcError>, latency: Duration) -> LinkReply {
    LinkReply {
        outcome: answer.map(|v| serde_json::value::to_raw_value(&v).expect("JSON")),
        status: 200,
        headers: Default::default(),
        latency,
        skipped: Default::default(),
    }
}

impl McpLink for CountingLink {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        timeout: Duration,
        relay: Option<Relay>,
    ) -> BoxFuture<'a, Result<LinkReply, LinkError>> {
        Box::pin(async move {
            let answered = guard(&self.answers).contains_key(method);
            // A check lists the resources too; only answers set up by a test are logged.
            if method != "tools/list" && (method != "resources/list" || answered) {
                guard(&self.asked).push((method.to_owned(), params));
                let owner = relay.as_ref().and_then(Relay::owner).map(|o| o.to_string());
                guard(&self.owners).push(owner);
            }
            if let Some(answer) = guard(&self.answers).get(method).cloned() {
                let mut answered = reply(answer, Duration::ZERO);
                answered.skipped = guard(&self.skipped_in)
                    .get(method)
                    .cloned()
                    .unwrap_or_default();
                return Ok(answered);
            }
            if method == "resources/list" {
                return Ok(reply(Ok(json!({ "resources": [] })), Duration::ZERO));
            }
            if method == "prompts/list" {
                let prompts = guard(&self.prompts).clone();
                return Ok(reply(Ok(json!({ "prompts": prompts })), Duration::ZERO));
            }
            if method == "resources/templates/list" {
                let templates = guard(&self.templates).clone();
                return Ok(reply(
                    Ok(json!({ "resourceTemplates": templates })),
                    Duration::ZERO,
                ));
            }
            assert_eq!(method, "tools/list");
            let page = self.lists.fetch_add(1, Ordering::SeqCst);
            let endless = *guard(&self.endless_pages);
            if let Some(delay) = endless {
                if delay > timeout {
                    tokio::time::sleep(timeout).await;
                    return Err(LinkError::Timeout(timeout));
                }
                tokio::time::sleep(delay).await;
                let tools = guard(&self.tools).clone();
                let answer = json!({ "tools": tools, "nextCursor": format!("p{page}") });
                return Ok(reply(Ok(answer), delay));
            }
            let late = guard(&self.next_list_late).take();
            if let Some(delay) = late {
                let tools = guard(&self.tools).clone();
                tokio::time::sleep(delay).await;
                return Ok(reply(Ok(json!({ "tools": tools })), delay));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            let tools = guard(&self.tools).clone();
            let mut listed = reply(Ok(json!({ "tools": tools })), Duration::from_millis(100));
            listed.skipped = guard(&self.skipped).clone();
            Ok(listed)
        })
    }
}

/// A notification sent to some readers: its method, params and readers.
pub(super) type Addressed = (String, Option<Value>, Vec<u64>);

pub(super) struct FakeHost {
    pub(super) routes: Mutex<BTreeMap<String, Arc<ToolRoute>>>,
    pub(super) incidents: Arc<Incidents>,
    pub(super) dependency: Arc<DependencyState>,
    pub(super) notified: AtomicUsize,
    /// Notifications sent to some readers only, with their readers.
    pub(super) addressed: Mutex<Vec<Addressed>>,
    /// The servers publishing into this host (see [`join`]), for their prompts' and
    /// resource templates' names.
    pub(super) fronting: Mutex<Fronting>,
}

/// `server` publishes into `host` beside the servers that joined it before.
pub(super) fn join(host: &FakeHost, server: &Arc<Fronted>) {
    guard(&host.fronting)
        .servers
        .insert(server.spec.name.clone(), server.clone());
}

impl Host for FakeHost {
    fn route(&self, name: &str) -> Option<Arc<ToolRoute>> {
        guard(&self.routes).get(name).cloned()
    }
    fn names_besides(&self, server: &str, kind: DefinitionKind) -> BTreeMap<String, String> {
        match kind {
            DefinitionKind::Tool => names_by_skeleton(
                guard(&self.routes)
                    .iter()
                    .filter(|(_, r)| r.server() != Some(server))
                    .map(|(name, _)| name.as_str()),
            ),
            _ => guard(&self.fronting).served_names_besides(server, kind),
        }
    }
    fn set_server_routes(&self, server: &str, routes: Vec<ToolRoute>) {
        let mut table = guard(&self.routes);
        table.retain(|_, r| r.server() != Some(server));
        table.extend(
            routes
                .into_iter()
                .map(|r| (r.spec.name.clone(), Arc::new(r))),
        );
    }
    fn server_dependency(&self, _server: &str) -> Option<Arc<DependencyState>> {
        Some(self.dependency.clone())
    }
    fn incidents(&self) -> &Arc<Incidents> {
        &self.incidents
    }
    fn notify_all(&self, _method: &str, _params: Option<Value>) {
        self.notified.fetch_add(1, Ordering::SeqCst);
    }
    fn notify_readers(&self, method: &str, params: Option<Value>, readers: Vec<u64>) {
        guard(&self.addressed).push((method.to_owned(), params, readers));
    }
}

pub(super) fn server(yaml_extra: &str, link: Arc<CountingLink>) -> (Arc<Fronted>, Arc<FakeHost>) {
    named_server("kb", yaml_extra, link)
}

pub(super) fn named_server(
    name: &str,
    yaml_extra: &str,
    link: Arc<CountingLink>,
) -> (Arc<Fronted>, Arc<FakeHost>) {
    let yaml = format!(
        "mcp_servers:\n  {name}:\n    url: 'http://127.0.0.1:9/mcp'\n    owner: kb@example.com\n    lock: does-not-exist.lock.json\n{yaml_extra}"
    );
    let config = crate::fixtures::config(&yaml);
    let spec = config.mcp_servers[name].clone();
    // An HTTP connection does no I/O until it is used; the link stands in for it.
    // Its client needs the process's TLS provider, whichever test runs first.
    crate::tls::init();
    let (connection, _rx) =
        Connection::start(link::server_spec(&spec, 1 << 20), reqwest::Client::new());
    let host = Arc::new(FakeHost {
        routes: Mutex::default(),
        incidents: Arc::new(Incidents::new(None, Duration::from_secs(3600))),
        dependency: Arc::new(DependencyState::new(spec.dependency.clone())),
        notified: AtomicUsize::new(0),
        addressed: Mutex::default(),
        fronting: Mutex::default(),
    });
    let fronted = Arc::new(Fronted {
        spec,
        connection,
        link,
        callers: None,
        replies: toolgate_resilience::ReplyMemory::unlimited(),
        recheck: Arc::default(),
        listings: Mutex::default(),
        state: Mutex::new(State::default()),
    });
    join(&host, &fronted);
    (fronted, host)
}

pub(super) fn tool(name: &str, description: &str) -> Value {
    json!({ "name": name, "description": description, "inputSchema": { "type": "object" } })
}

/// The server's watcher, started after a first check that listed it; stopped by the
/// token.
pub(super) fn watching(
    fronted: Arc<Fronted>,
    host: Arc<FakeHost>,
    events: mpsc::Receiver<Event>,
) -> (
    tokio::task::JoinHandle<()>,
    tokio_util::sync::CancellationToken,
) {
    let stop = tokio_util::sync::CancellationToken::new();
    let first = Checked {
        changed: false,
        listed: true,
    };
    let task = tokio::spawn(watch(fronted, host, events, first, stop.clone()));
    (task, stop)
}

pub(super) fn summarize(description: &str) -> Value {
    json!({ "name": "summarize", "description": description,
            "arguments": [{ "name": "url", "required": true }] })
}

pub(super) fn fronting_of(fronted: &Arc<Fronted>) -> Fronting {
    Fronting {
        servers: [("kb".to_owned(), fronted.clone())].into(),
    }
}

pub(super) async fn pass(
    fronting: &Fronting,
    method: &str,
    params: Value,
) -> Result<Value, RpcError> {
    passthrough::forward(
        fronting,
        &passthrough::ResourceIndex::default(),
        method,
        Some(params),
        &passthrough::Asker::default(),
    )
    .await
}

pub(super) fn entity_template(description: &str) -> Value {
    json!({
        "uriTemplate": "kb://entities/{name}",
        "name": "entity",
        "description": description,
        "_meta": {"dropped": true}
    })
}
