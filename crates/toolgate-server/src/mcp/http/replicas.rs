//! A 2026-07-28 retry that reaches another replica than the one holding its call.
//!
//! A call that asks its 2026-07-28 client something is parked on the replica that
//! answered the POST (`input_required.rs`): the question is waiting in it upstream, on
//! that replica's connection to the server. Behind a round-robin balancer the client's
//! retry, with the answers, reaches any replica. With `gateway.replica_url` set, each
//! replica's `requestState`s start with its own URL — encrypted under the fleet's
//! session key, so a client learns nothing of the fleet's addresses and cannot name
//! one — and a replica that receives a retry of another's call passes the request on to
//! that URL as it came (its credentials and headers, once: a passed-on request is never
//! passed on again), and the holder's answer back to the client as it streams.
//!
//! A state is `tgr1.<nonce, sealed URL and tag, base64url>.<random>`; the first part is
//! the same for every call of one replica.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use ring::{aead, hmac};
use url::Url;

use super::refusal::json;
use crate::mcp::jsonrpc::{self, Id};

const PREFIX: &str = "tgr1.";
const LABEL: &[u8] = b"toolgate replica address v1";
/// Marks a request one replica passed on to another, which answers it itself.
pub(super) const PASSED_ON: HeaderName = HeaderName::from_static("toolgate-passed-on");
/// Longest sealed part looked at (a URL of up to about 1 KiB).
const MAX_SEALED: usize = 1500;
/// How long the holder may take to accept the connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// This replica's address, sealed, and how to reach the others.
pub(super) struct Replicas {
    /// Keys that open another replica's address (the current one first, which seals).
    keys: Vec<aead::LessSafeKey>,
    own: Url,
    /// What every `requestState` this replica issues starts with.
    prefix: String,
    client: reqwest::Client,
}

impl std::fmt::Debug for Replicas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replicas")
            .field("own", &self.own.as_str())
            .field("keys", &self.keys.len())
            .finish()
    }
}

impl Replicas {
    /// This replica at `own`, in a fleet sharing `keys` (the current one first); `None`
    /// without keys.
    pub(super) fn new<K: AsRef<[u8]>>(keys: &[K], own: Url) -> Option<Replicas> {
        let keys: Vec<aead::LessSafeKey> = keys
            .iter()
            .filter_map(|k| {
                let root = hmac::Key::new(hmac::HMAC_SHA256, k.as_ref());
                let derived = hmac::sign(&root, LABEL);
                // A SHA-256 tag is 32 bytes, the key length of ChaCha20-Poly1305.
                let key = aead::UnboundKey::new(&aead::CHACHA20_POLY1305, derived.as_ref());
                key.ok().map(aead::LessSafeKey::new)
            })
            .collect();
        let first = keys.first()?;
        let nonce_bytes: [u8; aead::NONCE_LEN] = rand::random();
        let mut sealed = own.as_str().as_bytes().to_vec();
        first
            .seal_in_place_append_tag(
                aead::Nonce::assume_unique_for_key(nonce_bytes),
                aead::Aad::from(PREFIX.as_bytes()),
                &mut sealed,
            )
            .ok()?;
        let mut whole = nonce_bytes.to_vec();
        whole.extend_from_slice(&sealed);
        let mut prefix = PREFIX.to_owned();
        super::seal::b64::encode(&whole, &mut prefix);
        prefix.push('.');
        // A replica may be reached over TLS; the process's provider is the gateway's.
        toolgate_engine::tls::init();
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .ok()?;
        Some(Replicas {
            keys,
            own,
            prefix,
            client,
        })
    }

    /// What this replica's `requestState`s start with.
    pub(super) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The replica holding the call `state` was issued for, when that is another one
    /// of this fleet; `None` for this replica's own states and for anything else
    /// (another fleet's, altered, or not of this form), which are answered here.
    pub(super) fn holder(&self, state: &str) -> Option<Url> {
        if state.starts_with(&self.prefix) {
            return None;
        }
        let sealed = state.strip_prefix(PREFIX)?.split('.').next()?;
        if sealed.len() > MAX_SEALED {
            return None;
        }
        let whole = super::seal::b64::decode(sealed)?;
        if whole.len() < aead::NONCE_LEN {
            return None;
        }
        let (nonce, sealed) = whole.split_at(aead::NONCE_LEN);
        let url = self.keys.iter().find_map(|key| {
            let nonce = aead::Nonce::try_assume_unique_for_key(nonce).ok()?;
            let mut buffer = sealed.to_vec();
            let opened = key
                .open_in_place(nonce, aead::Aad::from(PREFIX.as_bytes()), &mut buffer)
                .ok()?;
            Url::parse(std::str::from_utf8(opened).ok()?).ok()
        })?;
        (url != self.own).then_some(url)
    }

    /// Passes the request (`headers`, `body`) on to the replica at `to` and answers with
    /// what it answers, streamed as it comes. `id` is the request's, for the error when
    /// the holder cannot be reached.
    pub(super) async fn pass_on(
        &self,
        to: Url,
        headers: &HeaderMap,
        body: Bytes,
        id: &Id,
    ) -> Response {
        let mut request = self.client.post(to.clone()).body(body);
        for (name, value) in headers {
            if !hop_by_hop(name) {
                request = request.header(name, value);
            }
        }
        request = request.header(PASSED_ON, HeaderValue::from_static("1"));
        match request.send().await {
            Ok(answer) => {
                let mut response = Response::builder().status(answer.status());
                for (name, value) in answer.headers() {
                    if !hop_by_hop(name) && name != header::CONTENT_LENGTH {
                        response = response.header(name, value);
                    }
                }
                // Chunk by chunk, as the holder writes them: its answer may be an event
                // stream that carries the call's notifications before the result.
                let chunks = futures_util::stream::unfold(Some(answer), |answer| async move {
                    let mut answer = answer?;
                    match answer.chunk().await {
                        Ok(Some(chunk)) => Some((Ok::<Bytes, reqwest::Error>(chunk), Some(answer))),
                        Ok(None) => None,
                        // The error ends the stream: nothing is read after it.
                        Err(e) => Some((Err(e), None)),
                    }
                });
                response
                    .body(Body::from_stream(chunks))
                    .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
            }
            Err(e) => {
                tracing::warn!(replica = %to.host_str().unwrap_or_default(), error = %e, "the replica holding a call waiting for its input cannot be reached");
                let body = jsonrpc::error(
                    Some(id),
                    jsonrpc::INVALID_PARAMS,
                    "Invalid params: requestState names a call held by another replica of this gateway, which cannot be reached; call the tool again without it",
                    None,
                );
                json(StatusCode::OK, body)
            }
        }
    }
}

/// Headers that belong to one connection, not to the request (RFC 9110 §7.6.1), and
/// the length, which the body passed on sets again.
fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection"
            | "keep-alive"
            | "proxy-connection"
            | "proxy-authenticate"
            | "proxy-authorization"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "content-length"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef";

    fn replica(port: u16, keys: &[&str]) -> Replicas {
        let url = Url::parse(&format!("http://10.0.0.{port}:8080/mcp")).unwrap();
        Replicas::new(keys, url).unwrap()
    }

    #[test]
    fn a_state_names_its_replica_to_the_others_only() {
        let a = replica(1, &[KEY]);
        let b = replica(2, &[KEY]);
        let state = format!("{}{:032x}", a.prefix(), 7);
        assert_eq!(a.holder(&state), None, "its own call is answered here");
        assert_eq!(
            b.holder(&state).unwrap().as_str(),
            "http://10.0.0.1:8080/mcp"
        );
        // The address does not show.
        assert!(!state.contains("10.0.0.1"), "{state}");
        // Two replicas' prefixes differ, and so do two starts of one replica.
        assert_ne!(a.prefix(), b.prefix());
        assert_ne!(a.prefix(), replica(1, &[KEY]).prefix());
    }

    #[test]
    fn anything_not_sealed_by_this_fleet_is_answered_here() {
        let a = replica(1, &[KEY]);
        let other_fleet = replica(3, &["another key of at least 32 bytes!!"]);
        let b = replica(2, &[KEY]);
        let theirs = format!("{}1", other_fleet.prefix());
        assert_eq!(b.holder(&theirs), None);
        // A state of the plain form, garbage, an altered byte, a huge one.
        let ours = format!("{}1", a.prefix());
        let mut altered = ours.clone().into_bytes();
        altered[8] = if altered[8] == b'A' { b'B' } else { b'A' };
        for state in [
            "0123456789abcdef".to_owned(),
            "tgr1.".to_owned(),
            "tgr1.!!!.1".to_owned(),
            "tgr1.AAAA.1".to_owned(),
            String::from_utf8(altered).unwrap(),
            format!("tgr1.{}.1", "A".repeat(100_000)),
        ] {
            assert_eq!(b.holder(&state), None, "{state}");
        }
        assert!(b.holder(&ours).is_some());
    }

    #[test]
    fn a_state_sealed_under_the_previous_key_still_finds_its_replica() {
        let old = replica(1, &["the previous key, 32 bytes or more"]);
        let rolled = replica(2, &[KEY, "the previous key, 32 bytes or more"]);
        let state = format!("{}1", old.prefix());
        assert!(rolled.holder(&state).is_some());
    }
}
