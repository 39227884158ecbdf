//! Resources, resource templates, prompts and completions of upstream MCP servers,
//! passed through to clients.
//!
//! Routing:
//! - **Prompts** are named like tools: `<prefix>__<name>` (the upstream's name when the
//!   prefix is `""`). They are pinned like tools (`toolgate lock`): `prompts/list`
//!   answers every server's *pinned* prompts under those names, without asking the
//!   servers; `prompts/get` goes to the server the prefix names, with the upstream's
//!   name, only for a prompt served from its pin (one withheld for review is refused,
//!   naming the reviewer), and its answer carries the pinned description.
//! - **Resources** keep their URIs (a URI already names its origin, and rewriting it
//!   would break the links inside resource contents). `resources/list` merges every
//!   server's live list (resources are data: each server's is bounded, its words cleaned
//!   and capped); `resources/read`, `subscribe` and `unsubscribe` go to the server that
//!   listed the URI, else to the one whose pinned templates match it, else to the one
//!   whose tool result linked to it — after listing the servers not yet listed, so a
//!   link cannot claim a URI another server lists — else to each server offering
//!   resources in turn until one does not answer "resource not found" (-32002).
//! - **Resource templates** are definitions, like prompts: `resources/templates/list`
//!   answers every server's *pinned* templates (one whose live definition awaits review
//!   is left out under `on_change: block`), without asking the servers.
//! - **Subscriptions** are the subscribing session's: toolgate keeps, per server, which
//!   sessions subscribed to which resource, asks the server once per resource, sends each
//!   `notifications/resources/updated` to the sessions that subscribed to it alone (a
//!   URI may say whose the resource is), and tells the server to unsubscribe only when
//!   the last of them does — one agent's unsubscribe never ends another's subscription.
//! - **Completions** follow their reference: a prompt's by its name, a resource's by its
//!   URI (a pinned template's goes to the server that serves it).
//!
//! These requests are relayed as they are: no contracts, retries or pacing (those are
//! for tool calls), but messages the server sends meanwhile reach the client. A server
//! called with the caller's authority (`token_exchange`) gets them on the caller's own
//! session, like its tool calls.

use std::sync::Arc;
use toolgate_mcp_client::codes;

use serde_json::{Map, Value, json};

use super::{Fronted, Fronting};
use crate::upstream::mcp::{
    ClientChannel, RpcError, note_lines, owned, relay_channel, relayed_text, while_relaying,
};

/// Pages of one list followed per server at most.
const MAX_PAGES: usize = 100;
/// "Resource not found".
use toolgate_mcp_client::codes::RESOURCE_NOT_FOUND as NOT_FOUND;

/// Who asks: the way back to the client, and the caller's validated access token (for
/// servers called with the caller's authority).
#[derive(Debug, Clone, Default)]
pub struct Asker {
    /// The way back to the calling client.
    pub client: Option<Arc<dyn ClientChannel>>,
    /// The caller's validated access token; never sent upstream as it is.
    pub access_token: Option<Arc<toolgate_config::Secret>>,
    /// The calling session's reader number (see [`crate::broadcast::new_reader`]): where
    /// updates of the resources it subscribes to are sent. `None` for a client that has
    /// no stream to receive them on (a stateless request).
    pub reader: Option<crate::broadcast::Reader>,
    /// The servers the caller may use (those with a tool its policy lets it call);
    /// `None`: every server. The others' prompts, templates, resources and completions
    /// are unknown to it, as if toolgate did not front them.
    pub servers: Option<Arc<[String]>>,
    /// The calling agent's name, `None` for a caller of no configured agent: the
    /// server's questions during the request count against its share of the server's
    /// slots (`gateway.server_request_share`).
    pub agent: Option<Arc<str>>,
    /// How far the caller's session reaches from now on, read against the config in
    /// force whenever an update of a resource it subscribed to is delivered (a reload
    /// narrows it at once); `None`: what `servers` lists.
    pub reach: Option<Arc<dyn crate::broadcast::Reach>>,
}

impl Asker {
    /// The reach a subscription of this request leaves its session with.
    fn session_reach(&self) -> Option<Arc<dyn crate::broadcast::Reach>> {
        self.reach.clone().or_else(|| {
            self.servers
                .clone()
                .map(|s| Arc::new(crate::broadcast::Listed(s)) as Arc<dyn crate::broadcast::Reach>)
        })
    }

    fn may_use(&self, server: &Fronted) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| *n == server.spec().name))
    }
}

#[cfg(test)]
pub(crate) use super::resource_index::loggable_uri;
pub use super::resource_index::{
    MAX_INDEXED, MAX_INDEXED_BYTES, RELIST_ON_DEMAND_AFTER, ResourceIndex,
};

/// The server a request about `uri` goes to: the one that lists it, else the one whose
/// pinned URI templates it matches, else the one whose tool result linked to it
/// (`None`: no server is known for it). A URI belongs to the server that lists it: a
/// link is the weakest claim, since any server may link to any URI, another server's
/// too. Refused when two servers claim it at the same strength: resource URIs are not
/// renamed per server as tools are, so a second server claiming another's URIs would
/// otherwise be handed the agents' reads of them, and answer them with what it likes.
///
/// The refusal names only the claimants `asker` may use: that another agent's server
/// claims the URI too is the operator's to know, not this caller's. When it may use
/// none of them the URI is as unknown to it as any other.
fn owner_of<'f>(
    fronting: &'f Fronting,
    index: &ResourceIndex,
    uri: &str,
    asker: &Asker,
) -> Result<Option<&'f Fronted>, RpcError> {
    let named = |names: Vec<String>| -> Vec<&'f Fronted> {
        names
            .iter()
            .filter_map(|name| fronting.server(name))
            .map(AsRef::as_ref)
            .collect()
    };
    let by_templates = || -> Vec<&'f Fronted> {
        fronting
            .servers()
            .filter(|s| s.templates_match(uri))
            .map(AsRef::as_ref)
            .collect()
    };
    let mut claims = [
        ("is listed by", named(index.listers(uri))),
        ("matches the pinned URI templates of", Vec::new()),
        ("is linked to by tool results of", Vec::new()),
    ];
    if claims[0].1.is_empty() {
        let mut matching = by_templates();
        // Several servers' templates match: the one whose own tool result linked to the
        // URI made it, and answers for it. A link never takes a URI from a server whose
        // template alone matches it.
        if matching.len() > 1 {
            let linkers = index.linkers(uri);
            let linked: Vec<&'f Fronted> = matching
                .iter()
                .copied()
                .filter(|s| linkers.contains(&s.spec().name))
                .collect();
            if !linked.is_empty() {
                matching = linked;
            }
        }
        claims[1].1 = matching;
    }
    if claims[1].1.is_empty() {
        claims[2].1 = named(index.linkers(uri));
    }
    let Some((how, claimants)) = claims.iter().find(|(_, c)| !c.is_empty()) else {
        return Ok(None);
    };
    match claimants.as_slice() {
        [one] => Ok(Some(*one)),
        several if several.iter().any(|s| asker.may_use(s)) => {
            Err(index.overlap(uri, how, several.iter().copied(), |s| asker.may_use(s)))
        }
        _ => Err(RpcError {
            code: NOT_FOUND,
            message: format!("Resource not found: {uri}"),
            data: None,
        }),
    }
}

/// Before a link is trusted as the only claim to `uri`: the servers offering resources
/// that toolgate has not read whole yet are listed, so that a URI another server lists
/// is routed to that server, not to the one that linked to it.
async fn list_before_trusting_a_link(
    fronting: &Fronting,
    index: &ResourceIndex,
    uri: &str,
    asker: &Asker,
) {
    if !index.listers(uri).is_empty() {
        return;
    }
    let linkers = index.linkers(uri);
    if linkers.is_empty() {
        return;
    }
    for server in fronting.servers() {
        let name = &server.spec().name;
        // A server whose list failed (or is never read whole) was listed on demand a
        // moment ago: agents' reads do not make toolgate ask it again and again.
        // Listed with the caller's own authority only where the caller may use it.
        if server.offers("resources")
            && (!server.calls_with_callers_authority() || asker.may_use(server))
            && !linkers.contains(name)
            && !index.listed_whole(name)
            && index.may_list_on_demand(name)
        {
            // What is learnt goes into the index; the entries themselves are not needed.
            let _ = list_server_resources(server, index, asker).await;
        }
    }
}

/// What toolgate passes through, as a capability.
pub fn capabilities(fronting: &Fronting) -> Value {
    if fronting.is_empty() {
        return json!({});
    }
    // Subscriptions are followed on toolgate's own sessions only (see `subscribe`).
    let subscribe = fronting
        .servers()
        .any(|s| !s.calls_with_callers_authority());
    json!({
        "resources": { "subscribe": subscribe, "listChanged": true },
        "prompts": { "listChanged": true },
        "completions": {},
    })
}

/// Whether `method` is passed through to upstream servers.
pub fn handles(method: &str) -> bool {
    matches!(
        method,
        "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
    )
}

/// Answers a passed-through request.
pub async fn forward(
    fronting: &Fronting,
    index: &ResourceIndex,
    method: &str,
    params: Option<Value>,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let params = params.unwrap_or_else(|| json!({}));
    match method {
        "resources/list" => list_resources(fronting, index, asker).await,
        "resources/templates/list" => Ok(pinned_templates(fronting, asker)),
        "prompts/list" => Ok(pinned_prompts(fronting, asker)),
        "prompts/get" => get_prompt(fronting, params, asker).await,
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            on_resource(fronting, index, method, params, asker).await
        }
        "completion/complete" => complete(fronting, index, params, asker).await,
        _ => Err(RpcError {
            code: codes::METHOD_NOT_FOUND,
            message: format!("Method not found: {method}"),
            data: None,
        }),
    }
}

/// `prompts/get`: asked of the server that serves the pinned prompt, under the
/// upstream's own name.
async fn get_prompt(fronting: &Fronting, params: Value, asker: &Asker) -> Result<Value, RpcError> {
    let method = "prompts/get";
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (server, pinned) = by_name(fronting, name, asker)?;
    let mut p = params.clone();
    p["name"] = json!(pinned.name);
    let answer = request(server, method, p, asker).await?;
    let mut answer = refused_unless(
        super::relayed_answer::prompt(answer, Some(&server.spec().dependency.base_url)),
        method,
        "a prompt",
        &server.spec().name,
    )?;
    // The description a client shows with the messages is the reviewed one.
    if let Value::Object(o) = &mut answer {
        match &pinned.description {
            Some(d) => o.insert("description".into(), json!(d)),
            None => o.remove("description"),
        };
    }
    Ok(answer)
}

/// `resources/read`, `resources/subscribe` and `resources/unsubscribe`: to the server
/// that serves the URI.
async fn on_resource(
    fronting: &Fronting,
    index: &ResourceIndex,
    method: &str,
    params: Value,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let uri = params
        .get("uri")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // A session's subscriptions are its own. A client with no stream to receive
    // updates on (a stateless request) has none: its subscribe is refused, and
    // its unsubscribe undoes nothing — relayed, it would end the server's
    // subscription for the sessions that have one.
    match (method, asker.reader.clone()) {
        ("resources/subscribe", Some(reader)) => {
            subscribe(fronting, index, uri, params.clone(), asker, reader).await
        }
        ("resources/unsubscribe", Some(reader)) => {
            unsubscribe(fronting, uri, params.clone(), asker, reader.id).await
        }
        ("resources/subscribe", None) => Err(RpcError {
            code: codes::METHOD_NOT_FOUND,
            message: "resources/subscribe needs a session to send updates on, and this request has none (2026-07-28 has no subscriptions by session)".into(),
            data: None,
        }),
        ("resources/unsubscribe", None) => Ok(json!({})),
        ("resources/read", _) => {
            let (answer, server) =
                by_uri(fronting, index, uri, method, params.clone(), asker).await?;
            refused_unless(
                super::relayed_answer::read(answer, Some(&server.spec().dependency.base_url)),
                method,
                "resource contents",
                &server.spec().name,
            )
        }
        _ => by_uri(fronting, index, uri, method, params.clone(), asker)
            .await
            .map(|(answer, _)| answer),
    }
}

/// `completion/complete`: to the server of the prompt or resource it completes for.
async fn complete(
    fronting: &Fronting,
    index: &ResourceIndex,
    params: Value,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let method = "completion/complete";
    let reference = params.get("ref").cloned().unwrap_or(Value::Null);
    match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let (server, pinned) = by_name(fronting, name, asker)?;
            let mut p = params.clone();
            p["ref"]["name"] = json!(pinned.name);
            request(server, method, p, asker).await.map(completion)
        }
        Some("ref/resource") => {
            let uri = reference
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let serving = fronting
                .servers()
                .find(|s| s.serves_template(uri) && asker.may_use(s));
            match serving {
                Some(server) => request(server, method, params.clone(), asker).await,
                None => by_uri(fronting, index, uri, method, params.clone(), asker)
                    .await
                    .map(|(answer, _)| answer),
            }
            .map(completion)
        }
        _ => Err(invalid(
            "completion/complete needs `ref` of type ref/prompt or ref/resource",
        )),
    }
}

/// A `prompts/get` or `resources/read` answer as passed on (see
/// [`super::relayed_answer`]: resource contents bounded, each a text or base64 blob
/// with its URI — a client decodes a blob by its `mimeType`, and one that is not base64
/// is not a blob), or an error naming what the server sent instead of `expected`.
fn refused_unless(
    relayed: Result<Value, String>,
    method: &str,
    expected: &str,
    server: &str,
) -> Result<Value, RpcError> {
    relayed.map_err(|what| {
        tracing::warn!(server, method, %what, "an MCP server answered with something that is not {expected}");
        RpcError {
            code: codes::INTERNAL_ERROR,
            message: format!(
                "MCP server {server} answered {method} with something that is not {expected}: it {what}"
            ),
            data: None,
        }
    })
}

/// An upstream's error as passed on: its message on one line, without hidden
/// characters, capped, and marked as the server's when it reads as a toolgate note; the
/// strings and names of its data without hidden characters and with such lines marked
/// (a client shows an error's data as it shows its message). Its code and the data's
/// shape are unchanged: a client acts on them.
fn upstream_error(mut e: RpcError) -> RpcError {
    let message = crate::explain::upstream_text(&e.message, &Default::default(), 500);
    e.message = note_lines::marked(&message).unwrap_or(message);
    if let Some(data) = e.data.as_mut() {
        relayed_text::clean_words(data);
    }
    e
}

fn invalid(message: &str) -> RpcError {
    RpcError {
        code: codes::INVALID_PARAMS,
        message: message.to_string(),
        data: None,
    }
}

/// Characters of a listed resource's `name`, `title` or `description` passed on.
const MAX_RESOURCE_TEXT: usize = 4_096;
/// Completion values passed on: the spec's maximum.
const MAX_COMPLETIONS: usize = 100;
/// Characters of one completion value passed on.
const MAX_COMPLETION_TEXT: usize = 1_024;

/// A completion answer as passed on: at most [`MAX_COMPLETIONS`] values, each a string
/// on one line without hidden characters, capped (a value is filled into an argument
/// a model or a person then sends: it is the server's words, unreviewed), with `total`
/// and `hasMore` when they are what the spec says; nothing else the server added.
fn completion(answer: Value) -> Value {
    let given = answer.get("completion");
    let values: Vec<Value> = given
        .and_then(|c| c.get("values"))
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(Value::as_str)
                .take(MAX_COMPLETIONS)
                .map(|v| {
                    let v =
                        crate::explain::upstream_text(v, &Default::default(), MAX_COMPLETION_TEXT);
                    json!(note_lines::marked(&v).unwrap_or(v))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = Map::new();
    out.insert("values".into(), Value::Array(values));
    if let Some(total) = given.and_then(|c| c.get("total")).filter(|t| t.is_u64()) {
        out.insert("total".into(), total.clone());
    }
    if let Some(more) = given
        .and_then(|c| c.get("hasMore"))
        .filter(|m| m.is_boolean())
    {
        out.insert("hasMore".into(), more.clone());
    }
    json!({ "completion": out })
}

/// The members of a listed resource passed on (the spec's, but `icons` and `_meta`):
/// an icon's `src` is a URL the client fetches from where the server says (or a
/// `data:` URI of any size), and `_meta` is the server's words for no reader in
/// particular, so neither is passed on.
const RESOURCE_MEMBERS: [&str; 7] = [
    "uri",
    "name",
    "title",
    "description",
    "mimeType",
    "size",
    "annotations",
];
/// The members of a resource's `annotations` passed on.
const ANNOTATION_MEMBERS: [&str; 3] = ["audience", "priority", "lastModified"];

/// Characters of a `lastModified` timestamp kept: an ISO 8601 date and time with
/// fractions and an offset is about 35.
const MAX_TIMESTAMP_CHARS: usize = 64;

/// Whether a resource annotation's value is of the kind the spec gives it: `audience`
/// a list of `user` and `assistant`, `priority` a number from 0 to 1, `lastModified`
/// an ISO 8601 timestamp (digits and its separators only). Each is data a client acts
/// on, never words, so a value carrying a sentence or hidden characters is dropped.
fn is_annotation_value(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("audience", Value::Array(roles)) => roles
            .iter()
            .all(|r| matches!(r.as_str(), Some("user" | "assistant"))),
        ("priority", Value::Number(n)) => n.as_f64().is_some_and(|p| (0.0..=1.0).contains(&p)),
        ("lastModified", Value::String(t)) => {
            !t.is_empty()
                && t.len() <= MAX_TIMESTAMP_CHARS
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || b"-:.+TZtz".contains(&b))
        }
        _ => false,
    }
}

/// A listed resource with only the members a client acts on (see [`RESOURCE_MEMBERS`]).
fn known_members(item: &mut Value) {
    let Value::Object(o) = item else { return };
    o.retain(|k, _| RESOURCE_MEMBERS.contains(&k.as_str()));
    crate::upstream::mcp::media_type::drop_unless_media_type(o);
    match o.get_mut("annotations") {
        Some(Value::Object(a)) => {
            a.retain(|k, v| ANNOTATION_MEMBERS.contains(&k.as_str()) && is_annotation_value(k, v));
        }
        Some(_) => {
            o.remove("annotations");
        }
        None => {}
    }
}

/// Merges every server's pages of `resources/list`. Per server the list is bounded —
/// at most `max_tools` entries and `max_total_bytes` of them, in the server's order —
/// so a server listing without end cannot exhaust the gateway; what is cut is logged.
/// The words of each entry (`name`, `title`, `description`) lose hidden characters and
/// are capped: they are shown to people choosing what to read, and to models. A server
/// that fails is left out (logged), so one down server does not empty the list.
async fn list_resources(
    fronting: &Fronting,
    index: &ResourceIndex,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let mut items = Vec::new();
    for server in fronting.servers() {
        if server.offers("resources") && asker.may_use(server) {
            items.extend(list_server_resources(server, index, asker).await);
        }
    }
    let mut out = Map::new();
    out.insert("resources".to_string(), Value::Array(items));
    Ok(Value::Object(out))
}

/// One server's entries of [`list_resources`], learnt into the index as they are read;
/// what its limits refused is kept for the server's next check.
async fn list_server_resources(
    server: &Fronted,
    index: &ResourceIndex,
    asker: &Asker,
) -> Vec<Value> {
    let listing = read_server_resources(server, Some(index), asker).await;
    server.resources_listed(listing.refused, listing.cut_off);
    listing.items
}

/// One listing of a server's resources: the entries kept, what the server's limits
/// refused, and why the listing was cut off if it was.
pub(super) struct ResourceListing {
    pub items: Vec<Value>,
    pub refused: super::Refusals,
    pub cut_off: Option<String>,
}

/// Every page of one server's `resources/list`, within its limits; the URIs learnt
/// into `index` when there is one.
pub(super) async fn read_server_resources(
    server: &Fronted,
    index: Option<&ResourceIndex>,
    asker: &Asker,
) -> ResourceListing {
    let method = "resources/list";
    let limits = server.spec().limits;
    let mut kept = KeptResources::default();
    let mut refused = super::Refusals::default();
    let mut cut_off = None;
    let mut cursor: Option<Value> = None;
    let listing = index.map(|index| (index, index.start_list()));
    // Read whole: every page, nothing cut, on the session every agent shares (a
    // caller's own session may list what is the caller's alone).
    let mut whole = !server.calls_with_callers_authority();
    let mut pages_left = true;
    let mut cursors = super::pages::Cursors::default();
    let deadline = super::pages::Deadline::start(server.spec().dependency.timeout);
    for page_number in 0..MAX_PAGES {
        let params = cursor
            .take()
            .map_or_else(|| json!({}), |c| json!({ "cursor": c }));
        let Some(timeout) = deadline.page_timeout() else {
            cut_off = Some(deadline.cut_off(method, page_number));
            whole = false;
            break;
        };
        let page = match request_within(server, method, params, asker, timeout).await {
            Ok((p, skipped)) => {
                refused.skipped_by_client(&skipped, &Default::default());
                p
            }
            Err(_) if deadline.passed() => {
                cut_off = Some(deadline.cut_off(method, page_number));
                whole = false;
                break;
            }
            Err(e) => {
                tracing::warn!(server = %server.spec().name, method, error = %e.message, "an MCP server's list is left out");
                whole = false;
                break;
            }
        };
        kept.add_page(&page, server, listing, &mut refused);
        match page.get("nextCursor") {
            Some(c) if !c.is_null() && !cursors.fresh(c) => {
                tracing::warn!(server = %server.spec().name, method, "the MCP server's list came back to a cursor it gave before; its listing ends there");
                break;
            }
            Some(c) if !c.is_null() && kept.cut == 0 => {
                if let Some(why) = super::pages::refused_cursor(method, c) {
                    cut_off = Some(why);
                    whole = false;
                    break;
                }
                cursor = Some(c.clone());
            }
            Some(c) if !c.is_null() => break,
            _ => {
                pages_left = false;
                break;
            }
        }
    }
    if let Some((index, listing)) = listing
        && whole
        && !pages_left
        && kept.cut == 0
    {
        index.finish_list(&server.spec().name, listing);
    }
    if kept.cut > 0 {
        tracing::warn!(server = %server.spec().name, method, kept = kept.items.len(), cut = kept.cut, max_entries = limits.max_tools, max_bytes = limits.max_total_bytes, "an MCP server lists more than its limits allow; the rest of its list is left out");
    }
    if let Some(why) = &cut_off {
        tracing::warn!(server = %server.spec().name, "{why}");
    }
    // Told where the other lists' refusals are: the server's limits incident and
    // `dependency_health`. Resources are not pinned: none is read as removed, so
    // their names do not matter here.
    refused.unnamed = 0;
    ResourceListing {
        items: kept.items,
        refused,
        cut_off,
    }
}

/// The entries of one server's resource listing kept so far.
#[derive(Default)]
struct KeptResources {
    items: Vec<Value>,
    /// The bytes of `items`, as listed.
    bytes: usize,
    /// Entries left out: past `max_tools` or `max_total_bytes`.
    cut: usize,
}

impl KeptResources {
    /// Keeps `page`'s entries while the server's limits allow, each with only the
    /// members a client acts on and its words cleaned, its URI learnt into the index
    /// of `listing`; an entry whose URI a client must not follow
    /// ([`crate::upstream::mcp::link_target`]) is left out. Counts the rest into
    /// `refused`.
    fn add_page(
        &mut self,
        page: &Value,
        server: &Fronted,
        listing: Option<(&ResourceIndex, super::resource_index::Listing)>,
        refused: &mut super::Refusals,
    ) {
        let limits = server.spec().limits;
        for mut item in page
            .get("resources")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
        {
            let size = super::limits::json_len(&item);
            if self.items.len() >= limits.max_tools {
                refused.over_count += 1;
                self.cut += 1;
                continue;
            }
            if self.bytes + size > limits.max_total_bytes {
                refused.over_total += 1;
                self.cut += 1;
                continue;
            }
            // A client opens a listed resource's URI as it opens a result's link.
            let own = Some(&server.spec().dependency.base_url);
            if let Some(why) = item
                .get("uri")
                .and_then(Value::as_str)
                .and_then(|uri| crate::upstream::mcp::link_target::refusal(uri, own))
            {
                tracing::warn!(server = %server.spec().name, "a listed resource is left out: its entry {why}");
                refused.unreadable += 1;
                continue;
            }
            self.bytes += size;
            known_members(&mut item);
            clean_texts(&mut item);
            if let (Some(uri), Some((index, listing))) =
                (item.get("uri").and_then(Value::as_str), listing)
            {
                index.learn_listed(uri, &server.spec().name, listing);
            }
            self.items.push(item);
        }
    }
}

/// The words of a listed entry without hidden characters (invisible ones, and control
/// characters such as a terminal escape's `ESC` or a backspace, as in a link's words),
/// each capped, and the lines that would read as toolgate's notes marked as the
/// server's.
fn clean_texts(item: &mut Value) {
    let Value::Object(o) = item else { return };
    for field in ["name", "title", "description"] {
        if let Some(Value::String(text)) = o.get_mut(field)
            && let Some(marked) = note_lines::marked(text)
        {
            *text = marked;
        }
        if let Some(Value::String(text)) = o.get_mut(field)
            && (text.chars().any(relayed_text::hidden) || text.chars().count() > MAX_RESOURCE_TEXT)
        {
            let visible = text.chars().filter(|c| !relayed_text::hidden(*c));
            let mut clean: String = visible.clone().take(MAX_RESOURCE_TEXT).collect();
            if visible.count() > MAX_RESOURCE_TEXT {
                clean.push('…');
            }
            *text = clean;
        }
    }
}

/// Every server's resource templates as served from their pins.
fn pinned_templates(fronting: &Fronting, asker: &Asker) -> Value {
    let templates: Vec<Value> = fronting
        .servers()
        .filter(|s| asker.may_use(s))
        .flat_map(|s| s.resource_templates())
        .map(|t| t.to_mcp())
        .collect();
    json!({ "resourceTemplates": templates })
}

/// Every server's prompts as served from their pins, under their exposed names.
fn pinned_prompts(fronting: &Fronting, asker: &Asker) -> Value {
    let prompts: Vec<Value> = fronting
        .servers()
        .filter(|s| asker.may_use(s))
        .flat_map(|s| s.prompts())
        .map(|(exposed, p)| p.to_mcp(&exposed))
        .collect();
    json!({ "prompts": prompts })
}

/// The server serving the exposed prompt `name`, with the prompt's pin. A prompt
/// withheld for review is refused naming its reviewer; an unknown one as unknown (the
/// name is the caller's, shown on one line and capped).
fn by_name<'f>(
    fronting: &'f Fronting,
    name: &str,
    asker: &Asker,
) -> Result<(&'f Fronted, toolgate_contract::PromptDefinition), RpcError> {
    let mut withheld = None;
    for server in fronting.servers().filter(|s| asker.may_use(s)) {
        match server.prompt(name) {
            Ok(pinned) => return Ok((server, pinned)),
            Err(Some(owner)) => withheld = Some(owner),
            Err(None) => {}
        }
    }
    let shown = crate::explain::upstream_text(name, &Default::default(), 80);
    Err(match withheld {
        Some(owner) => invalid(&format!(
            "prompt `{shown}` is withheld: its definition changed upstream and awaits review by {owner}"
        )),
        None => invalid(&format!("unknown prompt `{shown}`")),
    })
}

/// `reader` subscribes to `uri`: the server is asked only when no other session has
/// subscribed to it through toolgate; the subscription is recorded as `reader`'s.
async fn subscribe(
    fronting: &Fronting,
    index: &ResourceIndex,
    uri: &str,
    params: Value,
    asker: &Asker,
    reader: crate::broadcast::Reader,
) -> Result<Value, RpcError> {
    // A server called with each caller's authority would hold the subscription on the
    // caller's own session, whose updates toolgate does not read: refused with a word,
    // rather than accepted and never followed by an update — and never answered from
    // another caller's subscription, which the server did not authorise for this one.
    list_before_trusting_a_link(fronting, index, uri, asker).await;
    if let Some(server) = owner_of(fronting, index, uri, asker)?
        && server.calls_with_callers_authority()
        && asker.may_use(server)
    {
        return Err(not_followed(server, uri));
    }
    let followed = fronting
        .servers()
        .find(|s| s.has_subscribers(uri) && asker.may_use(s));
    let answer = match followed {
        Some(server) => (json!({}), server.as_ref()),
        None => {
            let own_session = |s: &Fronted| !s.calls_with_callers_authority() && asker.may_use(s);
            let found = by_uri_on(
                fronting,
                index,
                uri,
                "resources/subscribe",
                params,
                asker,
                own_session,
            )
            .await;
            match found {
                // Not one of the others': it may be such a server's.
                Err(e) if e.code == NOT_FOUND => {
                    let callers = fronting.servers().find(|s| {
                        s.calls_with_callers_authority()
                            && s.offers("resources")
                            && asker.may_use(s)
                    });
                    return Err(callers.map_or(e, |server| not_followed(server, uri)));
                }
                found => found?,
            }
        }
    };
    let (answer, server) = answer;
    // What this request may use is the session's reach from now on: its updates stop
    // when a later request of the session may no longer use the server.
    reader.note_reach(asker.session_reach());
    server.add_subscriber(uri, reader).map_err(|e| RpcError {
        code: codes::INTERNAL_ERROR,
        message: e,
        data: None,
    })?;
    Ok(answer)
}

/// Why `resources/subscribe` is refused for `uri` of a server called with each
/// caller's authority.
fn not_followed(server: &Fronted, uri: &str) -> RpcError {
    RpcError {
        code: codes::METHOD_NOT_FOUND,
        message: format!(
            "resources/subscribe is not available for {uri}: MCP server {} is called with each caller's authority (token_exchange), and toolgate does not follow its resources for callers; read it again with resources/read instead",
            server.spec().name
        ),
        data: None,
    }
}

/// `reader` unsubscribes from `uri`: the server is told only when it was the last
/// session subscribed through toolgate. A session that had not subscribed undoes
/// nothing (another's subscription stays).
async fn unsubscribe(
    fronting: &Fronting,
    uri: &str,
    params: Value,
    asker: &Asker,
    reader: u64,
) -> Result<Value, RpcError> {
    let found = fronting
        .servers()
        .find_map(|s| s.remove_subscriber(uri, reader).map(|last| (s, last)));
    match found {
        Some((server, true)) => request(server, "resources/unsubscribe", params, asker).await,
        Some((_, false)) | None => Ok(json!({})),
    }
}

/// Sends a request about `uri` to the server that listed it, else tries each; the
/// answer, with the server that gave it.
async fn by_uri<'f>(
    fronting: &'f Fronting,
    index: &ResourceIndex,
    uri: &str,
    method: &str,
    params: Value,
    asker: &Asker,
) -> Result<(Value, &'f Fronted), RpcError> {
    by_uri_on(fronting, index, uri, method, params, asker, |s| {
        asker.may_use(s)
    })
    .await
}

/// [`by_uri`] among the servers `eligible` accepts.
async fn by_uri_on<'f>(
    fronting: &'f Fronting,
    index: &ResourceIndex,
    uri: &str,
    method: &str,
    params: Value,
    asker: &Asker,
    eligible: impl Fn(&Fronted) -> bool,
) -> Result<(Value, &'f Fronted), RpcError> {
    list_before_trusting_a_link(fronting, index, uri, asker).await;
    if let Some(server) = owner_of(fronting, index, uri, asker)? {
        if !eligible(server) {
            return Err(RpcError {
                code: NOT_FOUND,
                message: format!("Resource not found: {uri}"),
                data: None,
            });
        }
        return Ok((request(server, method, params, asker).await?, server));
    }
    let mut last = RpcError {
        code: NOT_FOUND,
        message: format!("Resource not found: {uri}"),
        data: None,
    };
    // A URI no server listed and no pinned template covers. A read asks every server:
    // one that answers any URI must not take the reads of another's, so two answers
    // are refused like two listers. Other requests (they change something) go to the
    // first that knows it.
    let read = method == "resources/read";
    let mut answered: Vec<(Value, &'f Fronted)> = Vec::new();
    for server in fronting.servers() {
        if !server.offers("resources") || !eligible(server) {
            continue;
        }
        match request(server, method, params.clone(), asker).await {
            Err(e) if e.code == NOT_FOUND || e.code == codes::INVALID_PARAMS => last = e,
            Ok(answer) if read => answered.push((answer, server.as_ref())),
            other => return other.map(|answer| (answer, server.as_ref())),
        }
    }
    match answered.len() {
        0 => Err(last),
        1 => Ok(answered.remove(0)),
        // Only servers the caller may use were asked.
        _ => Err(index.overlap(
            uri,
            "is answered by",
            answered.iter().map(|(_, s)| *s),
            |_| true,
        )),
    }
}

/// One request to one server, with what it sends meanwhile relayed to the client (on
/// the caller's own session when the server is called with the caller's authority).
async fn request(
    server: &Fronted,
    method: &str,
    params: Value,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let timeout = server.spec().dependency.timeout;
    request_within(server, method, params, asker, timeout)
        .await
        .map(|(value, _)| value)
}

/// [`request`] within `timeout`; with the entries the client left out of a list
/// answer (each larger than a message, or past what one holds).
async fn request_within(
    server: &Fronted,
    method: &str,
    params: Value,
    asker: &Asker,
    timeout: std::time::Duration,
) -> Result<(Value, toolgate_mcp_client::Skipped), RpcError> {
    let caller = match server.caller_link(asker.access_token.as_deref()).await {
        Ok(caller) => caller,
        Err(e) => {
            let name = &server.spec().name;
            return Err(RpcError {
                code: codes::INTERNAL_ERROR,
                message: e.message(method, name),
                data: None,
            });
        }
    };
    let link = caller.as_ref().map_or_else(|| server.link(), |c| &c.link);
    let (relay, rx) = relay_channel();
    let relay = owned(relay, asker.agent.as_ref());
    let call = link.request(method, Some(params), timeout, Some(relay));
    // The caller's exchanged token and the server's configured credentials never reach
    // the client, whatever the server echoes: in its answer, its error, or what it
    // sends during the request.
    let credentials = crate::exchange::echo::credentials(&server.spec().dependency);
    let secrets: Vec<&str> = caller
        .as_ref()
        .map(|c| c.token.0.as_str())
        .into_iter()
        .chain(credentials.iter().map(String::as_str))
        .collect();
    let reply = while_relaying(call, rx, asker.client.as_deref(), &secrets).await;
    match reply {
        Ok(mut r) => {
            let skipped = std::mem::take(&mut r.skipped);
            match r.into_value() {
                Ok(mut value) => {
                    crate::exchange::echo::scrub_value(&mut value, &secrets);
                    Ok((value, skipped))
                }
                Err(mut e) => {
                    e.message = secrets.iter().fold(e.message.clone(), |m, s| {
                        crate::exchange::echo::scrub_text(&m, s)
                    });
                    if let Some(data) = e.data.as_mut() {
                        crate::exchange::echo::scrub_value(data, &secrets);
                    }
                    Err(upstream_error(e))
                }
            }
        }
        Err(e) => Err(RpcError {
            code: codes::INTERNAL_ERROR,
            message: format!("MCP server {}: {}", server.spec().name, e),
            data: None,
        }),
    }
}
