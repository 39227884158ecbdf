//! Progress tokens on a connection that several callers share.
//!
//! A caller names the progress notifications it wants with a token of its choosing
//! (`params._meta.progressToken`); the MCP SDKs use their own request ids, so two
//! agents' first calls both say `1`. Sent upstream as they are, two such calls on one
//! connection carry one token, and the server's progress for one agent's call — with
//! its message, which may say what is being done with whose data — is taken for the
//! other's. So each request goes upstream with a token of the client's own, unique in
//! the process, and its progress comes back to the caller with the caller's token.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::Relay;

/// Numbers the tokens sent upstream.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// A request's progress token: the caller's, and the one sent upstream in its place.
#[derive(Debug)]
pub(crate) struct Swapped {
    caller: Value,
    upstream: Value,
}

impl Swapped {
    /// Gives `params` (a notification's) the caller's token where it carries ours.
    pub(crate) fn restore(&self, params: &mut Value) {
        if params.get("progressToken") == Some(&self.upstream) {
            params["progressToken"] = self.caller.clone();
        }
        if let Some(meta) = params.get_mut("_meta")
            && meta.get("progressToken") == Some(&self.upstream)
        {
            meta["progressToken"] = self.caller.clone();
        }
    }
}

/// A notification the server sent during a request, as the requester may see it, or
/// `None` when it is not the requester's:
/// - `notifications/progress` passes only under the token sent upstream with the
///   request, given back as the requester's own. Any other token (one never given, or
///   another request's) is dropped: the SDKs use their request ids as tokens, so a
///   made-up `1` would read as progress of the requester's other call.
/// - `notifications/message` (logging) and `notifications/elicitation/complete` (about
///   an elicitation the server itself started, by the server's own id) pass.
/// - Everything else is dropped: `notifications/cancelled` names a request id of
///   toolgate's connection to the server, which on the requester's connection is
///   another request or none; list changes and resource updates are the server's
///   state, which toolgate reports to clients in its own names; a method toolgate does
///   not know is not the requester's to interpret.
pub(crate) fn relayable(
    method: &str,
    mut params: Option<Value>,
    swapped: Option<&Swapped>,
) -> Option<Option<Value>> {
    match method {
        "notifications/progress" => {
            let swapped = swapped?;
            let p = params.as_mut()?;
            if p.get("progressToken") != Some(&swapped.upstream) {
                tracing::debug!(
                    "a progress notification under a token this request was not given; dropped"
                );
                return None;
            }
            swapped.restore(p);
            Some(params)
        }
        "notifications/message" | "notifications/elicitation/complete" => {
            if let (Some(swapped), Some(p)) = (swapped, params.as_mut()) {
                swapped.restore(p);
            }
            Some(params)
        }
        _ => {
            tracing::debug!(
                method,
                "a notification that is not the requester's to see; dropped"
            );
            None
        }
    }
}

/// `params` with its progress token (if any) replaced by a new one of the client's,
/// and the relay that gives the caller's back. Without a relay the server's progress
/// reaches no one, but the token is replaced all the same: it must not match another
/// request's.
pub(crate) fn swap(
    mut params: Option<Value>,
    relay: Option<Relay>,
) -> (Option<Value>, Option<Relay>) {
    let Some(meta) = params
        .as_mut()
        .and_then(|p| p.get_mut("_meta"))
        .filter(|m| m.get("progressToken").is_some())
    else {
        return (params, relay);
    };
    let upstream = Value::String(format!(
        "tg-progress-{}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let caller = std::mem::replace(&mut meta["progressToken"], upstream.clone());
    let relay = relay.map(|r| Relay {
        progress: Some(Arc::new(Swapped { caller, upstream })),
        ..r
    });
    (params, relay)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::sync::mpsc;

    use super::*;
    use crate::Relayed;

    #[tokio::test]
    async fn two_callers_with_one_token_go_upstream_apart_and_each_gets_only_its_own_back() {
        let (tx, mut rx) = mpsc::channel(16);
        let ask = || Some(json!({"name": "t", "_meta": {"progressToken": 1}}));
        let (alice, relay) = swap(ask(), Some(Relay::new(tx)));
        let (bob, _) = swap(ask(), None);
        let token = |p: &Option<Value>| p.as_ref().unwrap()["_meta"]["progressToken"].clone();
        assert_ne!(
            token(&alice),
            token(&bob),
            "one token upstream for two calls"
        );
        assert_ne!(token(&alice), json!(1));
        let relay = relay.expect("kept");
        relay
            .send_notification(
                "notifications/progress".into(),
                Some(json!({"progressToken": token(&alice), "progress": 1, "message": "1 of 3"})),
            )
            .await;
        let Some(Relayed::Notification { params, .. }) = rx.recv().await else {
            panic!("relayed");
        };
        assert_eq!(
            params,
            Some(json!({"progressToken": 1, "progress": 1, "message": "1 of 3"}))
        );
        // Progress under any other token, and a cancellation of some request id, are
        // not this caller's: dropped.
        for (method, params) in [
            (
                "notifications/progress",
                json!({"progressToken": 1, "progress": 1}),
            ),
            (
                "notifications/progress",
                json!({"progressToken": null, "progress": 1}),
            ),
            ("notifications/progress", json!({"progress": 1})),
            ("notifications/cancelled", json!({"requestId": 1})),
            ("notifications/tools/list_changed", json!({})),
            (
                "notifications/made_up",
                json!({"progressToken": token(&alice)}),
            ),
        ] {
            relay.send_notification(method.into(), Some(params)).await;
        }
        relay
            .send_notification(
                "notifications/message".into(),
                Some(json!({"level": "info", "data": "still here"})),
            )
            .await;
        let Some(Relayed::Notification { method, .. }) = rx.recv().await else {
            panic!("relayed");
        };
        assert_eq!(
            method, "notifications/message",
            "a foreign notification passed"
        );
        // A request without a token is sent as it is.
        let plain = Some(json!({"name": "t", "_meta": {"other": true}}));
        assert_eq!(swap(plain.clone(), None).0, plain);
    }

    #[tokio::test]
    async fn a_request_that_asked_for_no_progress_gets_none() {
        let (tx, mut rx) = mpsc::channel(4);
        let (_, relay) = swap(Some(json!({"name": "t"})), Some(Relay::new(tx)));
        let relay = relay.expect("kept");
        relay
            .send_notification(
                "notifications/progress".into(),
                Some(json!({"progressToken": 1, "progress": 1})),
            )
            .await;
        drop(relay);
        assert!(
            rx.recv().await.is_none(),
            "progress nobody asked for passed"
        );
    }
}
