//! Resources, resource templates, prompts and completions of upstream MCP servers,
//! passed through to clients.
//!
//! Routing:
//! - **Prompts** are named like tools: `<prefix>__<name>` (the upstream's name when the
//!   prefix is `""`). `prompts/list` merges every server's prompts under those names;
//!   `prompts/get` goes to the server the prefix names, with the upstream's name.
//! - **Resources** keep their URIs (a URI already names its origin, and rewriting it
//!   would break the links inside resource contents). `resources/list` and
//!   `resources/templates/list` merge every server's; `resources/read`, `subscribe` and
//!   `unsubscribe` go to the server that listed the URI, else to each server offering
//!   resources in turn until one does not answer "resource not found" (-32002).
//! - **Completions** follow their reference: a prompt's by its name, a resource's by its
//!   URI.
//!
//! These requests are relayed as they are: no contracts, retries or pacing (those are
//! for tool calls), but messages the server sends meanwhile reach the client. A server
//! called with the caller's authority (`token_exchange`) gets them on the caller's own
//! session, like its tool calls.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use toolgate_mcp_client::codes;

use serde_json::{Map, Value, json};

use super::{Fronted, Fronting};
use crate::sync::lock as guard;
use crate::upstream::mcp::{ClientChannel, RpcError, relay_channel, while_relaying};
use toolgate_config::PREFIX_SEPARATOR;

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
}

/// Which server listed which resource URI (learnt from lists, used to route reads).
#[derive(Debug, Default)]
pub struct ResourceIndex(Mutex<BTreeMap<String, String>>);

/// What toolgate passes through, as a capability.
pub fn capabilities(fronting: &Fronting) -> Value {
    if fronting.is_empty() {
        return json!({});
    }
    json!({
        "resources": { "subscribe": true, "listChanged": true },
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
        "resources/list" => list(fronting, index, method, "resources", "resources", asker).await,
        "resources/templates/list" => {
            list(
                fronting,
                index,
                method,
                "resources",
                "resourceTemplates",
                asker,
            )
            .await
        }
        "prompts/list" => list(fronting, index, method, "prompts", "prompts", asker).await,
        "prompts/get" => {
            let name = params
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let (server, upstream) = by_name(fronting, name)?;
            let mut p = params.clone();
            p["name"] = json!(upstream);
            request(server, method, p, asker).await
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let uri = params
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            by_uri(fronting, index, uri, method, params.clone(), asker).await
        }
        "completion/complete" => {
            let reference = params.get("ref").cloned().unwrap_or(Value::Null);
            match reference.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => {
                    let name = reference
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let (server, upstream) = by_name(fronting, name)?;
                    let mut p = params.clone();
                    p["ref"]["name"] = json!(upstream);
                    request(server, method, p, asker).await
                }
                Some("ref/resource") => {
                    let uri = reference
                        .get("uri")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    by_uri(fronting, index, uri, method, params.clone(), asker).await
                }
                _ => Err(invalid(
                    "completion/complete needs `ref` of type ref/prompt or ref/resource",
                )),
            }
        }
        _ => Err(RpcError {
            code: codes::METHOD_NOT_FOUND,
            message: format!("Method not found: {method}"),
            data: None,
        }),
    }
}

fn invalid(message: &str) -> RpcError {
    RpcError {
        code: codes::INVALID_PARAMS,
        message: message.to_string(),
        data: None,
    }
}

/// Whether the server said it offers `capability` (unknown before its handshake: ask).
fn offers(server: &Fronted, capability: &str) -> bool {
    server
        .initialized()
        .is_none_or(|i| i.capabilities.get(capability).is_some())
}

/// Merges every server's pages of one list; prompt names get the server's prefix. A
/// server that fails is left out (logged), so one down server does not empty the list.
async fn list(
    fronting: &Fronting,
    index: &ResourceIndex,
    method: &str,
    capability: &str,
    key: &str,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let mut items = Vec::new();
    for server in fronting.servers() {
        if !offers(server, capability) {
            continue;
        }
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor
                .take()
                .map_or_else(|| json!({}), |c| json!({ "cursor": c }));
            let page = match request(server, method, params, asker).await {
                Ok(p) => p,
                Err(e) => {
                    tracing::warn!(server = %server.spec().name, method, error = %e.message, "an MCP server's list is left out");
                    break;
                }
            };
            for mut item in page
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
            {
                if key == "prompts"
                    && let Some(Value::String(name)) = item.get_mut("name")
                {
                    *name = server.spec().exposed_name(name);
                }
                if key == "resources"
                    && let Some(uri) = item.get("uri").and_then(Value::as_str)
                {
                    guard(&index.0).insert(uri.to_string(), server.spec().name.clone());
                }
                items.push(item);
            }
            match page.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => break,
            }
        }
    }
    let mut out = Map::new();
    out.insert(key.to_string(), Value::Array(items));
    Ok(Value::Object(out))
}

/// The server and upstream name of an exposed prompt name.
fn by_name<'f>(fronting: &'f Fronting, name: &str) -> Result<(&'f Fronted, String), RpcError> {
    if let Some((prefix, rest)) = name.split_once(PREFIX_SEPARATOR)
        && let Some(server) = fronting.servers().find(|s| s.spec().prefix == prefix)
    {
        return Ok((server, rest.to_string()));
    }
    fronting
        .servers()
        .find(|s| s.spec().prefix.is_empty() && offers(s, "prompts"))
        .map(|s| (s.as_ref(), name.to_string()))
        .ok_or_else(|| invalid(&format!("unknown prompt `{name}`")))
}

/// Sends a request about `uri` to the server that listed it, else tries each.
async fn by_uri(
    fronting: &Fronting,
    index: &ResourceIndex,
    uri: &str,
    method: &str,
    params: Value,
    asker: &Asker,
) -> Result<Value, RpcError> {
    let known = guard(&index.0).get(uri).cloned();
    if let Some(server) = known.and_then(|n| fronting.server(&n)) {
        return request(server, method, params, asker).await;
    }
    let mut last = RpcError {
        code: NOT_FOUND,
        message: format!("Resource not found: {uri}"),
        data: None,
    };
    for server in fronting.servers() {
        if !offers(server, "resources") {
            continue;
        }
        match request(server, method, params.clone(), asker).await {
            Err(e) if e.code == NOT_FOUND || e.code == codes::INVALID_PARAMS => last = e,
            other => return other,
        }
    }
    Err(last)
}

/// One request to one server, with what it sends meanwhile relayed to the client (on
/// the caller's own session when the server is called with the caller's authority).
async fn request(
    server: &Fronted,
    method: &str,
    params: Value,
    asker: &Asker,
) -> Result<Value, RpcError> {
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
    let call = link.request(
        method,
        Some(params),
        server.spec().dependency.timeout,
        Some(relay),
    );
    let reply = while_relaying(call, rx, asker.client.as_deref()).await;
    let token = caller.as_ref().map(|c| c.token.0.as_str());
    match reply {
        Ok(r) => match (r.into_value(), token) {
            (Ok(value), Some(token)) => {
                let text = value.to_string();
                if text.contains(token) {
                    serde_json::from_str(&crate::exchange::echo::scrub_text(&text, token)).map_err(
                        |e| RpcError {
                            code: codes::INTERNAL_ERROR,
                            message: format!("MCP server {}: {e}", server.spec().name),
                            data: None,
                        },
                    )
                } else {
                    Ok(value)
                }
            }
            (Err(mut e), Some(token)) => {
                e.message = crate::exchange::echo::scrub_text(&e.message, token);
                e.data = None;
                Err(e)
            }
            (answer, None) => answer,
        },
        Err(e) => Err(RpcError {
            code: codes::INTERNAL_ERROR,
            message: format!("MCP server {}: {}", server.spec().name, e),
            data: None,
        }),
    }
}
