//! The resources clients follow through toolgate on a server: who subscribed, letting
//! go of closed sessions, subscribing again after a restart, and updates passed on to
//! the subscribers alone.

use std::collections::BTreeMap;

use serde_json::json;

use super::{Fronted, Host};
use crate::sync::lock as guard;

/// Resources subscribed through toolgate per server, at most: a client subscribing
/// without end cannot grow the gateway's memory without bound.
pub const MAX_SUBSCRIBED: usize = 10_000;

impl Fronted {
    /// Records that `reader` subscribed to `uri`. At [`MAX_SUBSCRIBED`] resources, the
    /// subscriptions of sessions that closed without unsubscribing are let go first;
    /// past it still, an error, and nothing is recorded. A session that closed while
    /// its subscription was on the way is not recorded, and the server is told at once
    /// when no other session follows the resource.
    pub(crate) fn add_subscriber(
        &self,
        uri: &str,
        reader: crate::broadcast::Reader,
    ) -> Result<(), String> {
        // Marked before it is recorded: a session closing from now on is announced, and
        // one that closed already is seen closed below.
        reader.mark_subscribed();
        let mut state = guard(&self.state);
        let mut abandoned = Vec::new();
        if !state.subscribers.contains_key(uri) && state.subscribers.len() >= MAX_SUBSCRIBED {
            abandoned = let_go_of_closed(&mut state.subscribers);
            if state.subscribers.len() >= MAX_SUBSCRIBED {
                drop(state);
                self.tell_unsubscribed(abandoned);
                return Err(format!(
                    "MCP server {} already has {MAX_SUBSCRIBED} resources subscribed through toolgate, the most it takes; unsubscribe from resources no longer followed, then subscribe again",
                    self.spec.name
                ));
            }
        }
        if reader.is_open() {
            let readers = state.subscribers.entry(uri.to_owned()).or_default();
            readers.insert(reader.id, reader);
        } else if !state.subscribers.contains_key(uri) {
            abandoned.push(uri.to_owned());
        }
        drop(state);
        self.tell_unsubscribed(abandoned);
        Ok(())
    }

    /// Lets go of the subscriptions of sessions that closed without unsubscribing (a
    /// client that crashed, a session that expired), telling the server of each resource
    /// no session follows any more — as the last session would have, had it unsubscribed.
    pub(crate) fn let_go_of_closed_sessions(&self) {
        let abandoned = {
            let mut state = guard(&self.state);
            if state.subscribers.is_empty() {
                return;
            }
            let_go_of_closed(&mut state.subscribers)
        };
        self.tell_unsubscribed(abandoned);
    }

    /// Tells the server, in the background (no client waits on it), that toolgate no
    /// longer follows `uris`. Best effort: a server that does not answer keeps sending
    /// updates, which then reach no session.
    fn tell_unsubscribed(&self, uris: Vec<String>) {
        if uris.is_empty() {
            return;
        }
        let (link, timeout) = (self.link.clone(), self.spec.dependency.timeout);
        tokio::spawn(async move {
            for uri in uris {
                let unsubscribe = json!({ "uri": uri });
                let _ = link
                    .request("resources/unsubscribe", Some(unsubscribe), timeout, None)
                    .await;
            }
        });
    }

    /// Whether any client is subscribed to `uri` through toolgate on this server.
    pub(crate) fn has_subscribers(&self, uri: &str) -> bool {
        guard(&self.state).subscribers.contains_key(uri)
    }

    /// Forgets `reader`'s subscription to `uri`: `None` when it had none here, else
    /// whether it was the last (the server is then to be told).
    pub(crate) fn remove_subscriber(&self, uri: &str, reader: u64) -> Option<bool> {
        let mut state = guard(&self.state);
        let readers = state.subscribers.get_mut(uri)?;
        readers.remove(&reader)?;
        let last = readers.is_empty();
        if last {
            state.subscribers.remove(uri);
        }
        Some(last)
    }

    /// Subscribes again, in the background, to every resource a session still open
    /// subscribed to through toolgate: a restarted server (or a new session) has
    /// forgotten them, and without this its subscribers would silently get no more
    /// updates. A server called with the caller's authority has none (subscribing to
    /// its resources is refused).
    pub(super) fn resubscribe(&self) {
        if self.callers.is_some() {
            return;
        }
        let uris: Vec<String> = guard(&self.state)
            .subscribers
            .iter()
            .filter(|(_, readers)| readers.values().any(crate::broadcast::Reader::is_open))
            .map(|(uri, _)| uri.clone())
            .collect();
        if uris.is_empty() {
            return;
        }
        let (link, timeout) = (self.link.clone(), self.spec.dependency.timeout);
        let name = self.spec.name.clone();
        tokio::spawn(async move {
            let (mut failed, mut first_error) = (0usize, None);
            let all = uris.len();
            for uri in uris {
                let params = Some(json!({ "uri": uri }));
                let error = match link
                    .request("resources/subscribe", params, timeout, None)
                    .await
                {
                    Ok(reply) => reply.into_value().err().map(|e| e.message),
                    Err(e) => Some(e.to_string()),
                };
                if let Some(e) = error {
                    failed += 1;
                    first_error.get_or_insert(e);
                }
            }
            // One line for the lot: a server that refuses them all must not write
            // thousands.
            if let Some(e) = first_error {
                let e = crate::explain::upstream_text(&e, &Default::default(), 300);
                tracing::warn!(server = %name, failed, of = all, error = %e, "could not subscribe again to resources after the MCP server restarted; their subscribers get no updates of them");
            }
        });
    }

    /// The open readers subscribed to `uri` through toolgate on this server whose
    /// newest request may still use it: a session whose token has since lost the
    /// server's scopes (or whose agent lost its tools) subscribed with a reach it no
    /// longer has, and gets no update until a request of it may use the server again.
    pub(super) fn subscribers(&self, uri: &str) -> Vec<u64> {
        let name = self.spec.name.as_str();
        guard(&self.state)
            .subscribers
            .get(uri)
            .map(|r| {
                r.values()
                    .filter(|r| r.is_open() && r.may_use(name))
                    .map(|r| r.id)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Passes on the resource updates held for their spacing that are due, to the
    /// sessions subscribed to each now.
    pub(super) fn send_held_updates(&self, gateway: &dyn Host) {
        let due = guard(&self.state)
            .updates
            .take_due(tokio::time::Instant::now());
        for uri in due {
            let readers = self.subscribers(&uri);
            if !readers.is_empty() {
                gateway.notify_readers(
                    "notifications/resources/updated",
                    Some(json!({ "uri": uri })),
                    readers,
                );
            }
        }
    }
}

/// Drops the closed sessions from each resource's subscribers; the resources no open
/// session follows any more, which are forgotten too.
fn let_go_of_closed(
    subscribers: &mut BTreeMap<String, BTreeMap<u64, crate::broadcast::Reader>>,
) -> Vec<String> {
    let mut abandoned = Vec::new();
    subscribers.retain(|uri, readers| {
        readers.retain(|_, r| r.is_open());
        if readers.is_empty() {
            abandoned.push(uri.clone());
        }
        !readers.is_empty()
    });
    abandoned
}
