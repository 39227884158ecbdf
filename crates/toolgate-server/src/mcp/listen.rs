//! `subscriptions/listen` (2026-07-28), apart from the transport that carries it.
//!
//! That revision has no sessions, so no standalone stream and no
//! `resources/subscribe`: a client opens one request naming the notifications it wants
//! (`notifications: {toolsListChanged, promptsListChanged, resourcesListChanged,
//! resourceSubscriptions}`), and the server answers with a stream that starts with
//! `notifications/subscriptions/acknowledged` — the subset it agreed to honour — and then
//! carries only those notifications, each tagged with
//! `_meta["io.modelcontextprotocol/subscriptionId"]`, the id of the listen request.
//! The server must not send a type the client did not ask for, nor anything on the
//! subscription before the acknowledgement.
//!
//! What toolgate honours: its own tool list's changes always (tools come and go with
//! fronted servers and reloads); prompt and resource list changes when it fronts MCP
//! servers; updates of the resources named, when a fronted server lets toolgate follow
//! them (each is subscribed to as a session's `resources/subscribe` would be, and let go
//! when the stream ends).

use serde_json::{Map, Value, json};

use super::jsonrpc::Id;

/// The `_meta` key every message of a subscription carries.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Resource URIs one subscription may name, and the longest URI: a listen request is
/// bounded like any other.
pub const MAX_URIS: usize = 256;
const MAX_URI_BYTES: usize = 4096;

/// The notifications a client asked for, or toolgate agreed to send.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    pub uris: Vec<String>,
}

impl Wanted {
    /// Reads `params.notifications`; why it cannot be read, for an invalid-params error.
    pub fn from_params(rest: &Map<String, Value>) -> Result<Wanted, String> {
        let Some(notifications) = rest.get("notifications") else {
            return Err("subscriptions/listen needs `notifications`, an object".into());
        };
        let Value::Object(n) = notifications else {
            return Err("`notifications` must be an object".into());
        };
        let flag = |key: &str| -> Result<bool, String> {
            match n.get(key) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(format!("`notifications.{key}` must be a boolean")),
            }
        };
        let uris = match n.get("resourceSubscriptions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                if items.len() > MAX_URIS {
                    return Err(format!(
                        "`notifications.resourceSubscriptions` names {} resources; at most {MAX_URIS}",
                        items.len()
                    ));
                }
                let mut uris: Vec<String> = Vec::with_capacity(items.len());
                for item in items {
                    match item.as_str() {
                        Some(u) if !u.is_empty() && u.len() <= MAX_URI_BYTES => {
                            if !uris.iter().any(|x| x == u) {
                                uris.push(u.to_owned());
                            }
                        }
                        _ => {
                            return Err(format!(
                                "`notifications.resourceSubscriptions` must hold URIs (strings of 1 to {MAX_URI_BYTES} bytes)"
                            ));
                        }
                    }
                }
                uris
            }
            Some(_) => {
                return Err("`notifications.resourceSubscriptions` must be an array".into());
            }
        };
        Ok(Wanted {
            tools: flag("toolsListChanged")?,
            prompts: flag("promptsListChanged")?,
            resources: flag("resourcesListChanged")?,
            uris,
        })
    }

    /// What of `self` toolgate sends: tool list changes always, prompt and resource
    /// list changes and resource updates when it `fronts` MCP servers. Resource URIs
    /// are then decided one by one where they are subscribed to; this keeps them all.
    pub fn honoured(&self, fronts: bool) -> Wanted {
        Wanted {
            tools: self.tools,
            prompts: self.prompts && fronts,
            resources: self.resources && fronts,
            uris: if fronts {
                self.uris.clone()
            } else {
                Vec::new()
            },
        }
    }

    fn is_empty(&self) -> bool {
        !self.tools && !self.prompts && !self.resources && self.uris.is_empty()
    }

    /// Whether a notification with `method` (and, for a resource update, `uri`) is one
    /// this subscription carries.
    fn carries(&self, method: &str, uri: Option<&str>) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            "notifications/resources/updated" => {
                uri.is_some_and(|u| self.uris.iter().any(|x| x == u))
            }
            _ => false,
        }
    }
}

/// The `_meta` tagging a message of the subscription opened by request `id`.
fn tag(id: &Id) -> Value {
    let id: Value = serde_json::from_str(id.json()).unwrap_or(Value::Null);
    json!({ SUBSCRIPTION_ID: id })
}

/// `notifications/subscriptions/acknowledged` for the subscription `id` that honours
/// `honoured`: the first message of its stream.
pub fn acknowledgement(id: &Id, honoured: &Wanted) -> Vec<u8> {
    let mut notifications = Map::new();
    for (key, on) in [
        ("toolsListChanged", honoured.tools),
        ("promptsListChanged", honoured.prompts),
        ("resourcesListChanged", honoured.resources),
    ] {
        if on {
            notifications.insert(key.into(), Value::Bool(true));
        }
    }
    if !honoured.uris.is_empty() {
        notifications.insert("resourceSubscriptions".into(), json!(honoured.uris));
    }
    let message = json!({
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": { "notifications": notifications, "_meta": tag(id) },
    });
    serde_json::to_vec(&message).unwrap_or_default()
}

/// A broadcast notification as subscription `id` sends it: tagged with its id, or
/// `None` when `honoured` does not carry it (or it is not a notification toolgate
/// wrote, which cannot happen: the ring holds only toolgate's own).
pub fn tagged(id: &Id, honoured: &Wanted, notification: &[u8]) -> Option<Vec<u8>> {
    if honoured.is_empty() {
        return None;
    }
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(notification) else {
        return None;
    };
    let method = message.get("method")?.as_str()?;
    let uri = message
        .get("params")
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str);
    if !honoured.carries(method, uri) {
        return None;
    }
    let params = message
        .entry("params")
        .or_insert_with(|| Value::Object(Map::new()));
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    let Value::Object(p) = params else {
        return None;
    };
    let meta = p
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let (Value::Object(m), Value::Object(t)) = (meta, tag(id)) {
        m.extend(t);
    }
    serde_json::to_vec(&message).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::jsonrpc;

    fn id(text: &str) -> Id {
        match jsonrpc::parse(
            format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"subscriptions/listen"}}"#)
                .as_bytes(),
        ) {
            Ok(jsonrpc::Message::Request { id, .. }) => id,
            other => panic!("{other:?}"),
        }
    }

    fn wanted(notifications: Value) -> Result<Wanted, String> {
        let rest = json!({ "notifications": notifications });
        Wanted::from_params(rest.as_object().unwrap())
    }

    #[test]
    fn the_request_is_read_strictly_and_bounded() {
        let w = wanted(
            json!({"toolsListChanged": true, "resourceSubscriptions": ["a:/1", "a:/1", "b:/2"]}),
        )
        .unwrap();
        assert_eq!(
            w,
            Wanted {
                tools: true,
                prompts: false,
                resources: false,
                uris: vec!["a:/1".into(), "b:/2".into()],
            }
        );
        assert!(wanted(json!({"toolsListChanged": "yes"})).is_err());
        assert!(wanted(json!({"resourceSubscriptions": [1]})).is_err());
        assert!(wanted(json!({"resourceSubscriptions": [""]})).is_err());
        assert!(wanted(json!({"resourceSubscriptions": ["x".repeat(MAX_URI_BYTES + 1)]})).is_err());
        let many: Vec<String> = (0..=MAX_URIS).map(|i| format!("a:/{i}")).collect();
        assert!(wanted(json!({ "resourceSubscriptions": many })).is_err());
        assert!(wanted(json!([])).is_err());
        assert!(Wanted::from_params(&Map::new()).is_err());
    }

    #[test]
    fn prompts_and_resources_are_honoured_only_when_servers_are_fronted() {
        let w = wanted(json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}))
            .unwrap();
        let alone = w.honoured(false);
        assert!(alone.tools && !alone.prompts && !alone.resources);
        let uris = Wanted {
            uris: vec!["a:/1".into()],
            ..Wanted::default()
        };
        assert!(
            uris.honoured(false).uris.is_empty(),
            "nothing fronted follows it"
        );
        assert_eq!(uris.honoured(true).uris, ["a:/1"]);
        let fronting = w.honoured(true);
        assert!(fronting.tools && fronting.prompts && fronting.resources);
        let ack: Value = serde_json::from_slice(&acknowledgement(&id("7"), &alone)).unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(
            ack["params"]["notifications"],
            json!({"toolsListChanged": true})
        );
        assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], 7);
    }

    #[test]
    fn only_what_was_honoured_is_sent_and_each_carries_the_subscription_id() {
        let honoured = Wanted {
            tools: false,
            prompts: true,
            resources: false,
            uris: vec!["a:/1".into()],
        };
        let sid = id(r#""listen-1""#);
        let tools = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        assert_eq!(tagged(&sid, &honoured, tools), None, "not asked for");
        let prompts = br#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#;
        let v: Value = serde_json::from_slice(&tagged(&sid, &honoured, prompts).unwrap()).unwrap();
        assert_eq!(v["params"]["_meta"][SUBSCRIPTION_ID], "listen-1");
        let other = br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a:/2"}}"#;
        assert_eq!(tagged(&sid, &honoured, other), None, "another resource");
        let mine = br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a:/1","_meta":{"k":1}}}"#;
        let v: Value = serde_json::from_slice(&tagged(&sid, &honoured, mine).unwrap()).unwrap();
        assert_eq!(v["params"]["uri"], "a:/1");
        assert_eq!(
            v["params"]["_meta"],
            json!({"k": 1, SUBSCRIPTION_ID: "listen-1"})
        );
        assert_eq!(tagged(&sid, &Wanted::default(), prompts), None);
    }
}
