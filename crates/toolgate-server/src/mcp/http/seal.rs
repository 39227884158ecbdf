//! Sealed session ids: what a handshake-era session needs after `initialize` (the
//! negotiated version and the client capabilities toolgate acts on), with when it was
//! opened and when it expires, carried in the `Mcp-Session-Id` itself and signed with
//! HMAC-SHA256 under a key every replica of a fleet shares (`gateway.session_key_env`).
//! Any replica verifies an id and rebuilds the session without asking anyone, so a
//! load balancer needs no session affinity.
//!
//! An id is `tg1.<payload>.<tag>`, both parts base64url without padding: visible ASCII,
//! as the MCP spec asks of a session id. The payload is the client's own handshake and a
//! random nonce, nothing else: no secret, nothing of another client. It is signed, not
//! encrypted: the client may read what it told the server. The key signs only after a
//! derivation step (HMAC of a fixed label), so a key shared with another system cannot
//! make toolgate accept that system's tags.

use std::time::Duration;

use ring::hmac;
use rmcp::model::ProtocolVersion;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::owner::Owner;

const PREFIX: &str = "tg1.";
const LABEL: &[u8] = b"toolgate mcp session id v1";
/// Longest id looked at: a longer header is refused before any work.
pub const MAX_ID_BYTES: usize = 4096;
/// The capabilities toolgate reads (whether the client declared them); the rest of what
/// a client declares stays out of the id.
const CAPABILITIES: [&str; 3] = ["sampling", "elicitation", "roots"];
/// Over this many bytes of JSON, declared capabilities travel as `{}` each: whether a
/// capability is declared is all toolgate asks, and the id stays short.
const MAX_CAPABILITY_BYTES: usize = 1024;
/// An id issued this far in the future (a replica's clock ahead of this one's) is still
/// accepted.
const CLOCK_SKEW_S: u64 = 300;

/// Signs and verifies session ids; the first key signs, every key verifies.
pub struct Sealer {
    keys: Vec<hmac::Key>,
    lifetime: Duration,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer")
            .field("keys", &self.keys.len())
            .field("lifetime", &self.lifetime)
            .finish()
    }
}

/// What a verified id says.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    pub version: ProtocolVersion,
    pub capabilities: Option<Value>,
    /// Who opened the session.
    pub owner: Owner,
    /// Unix seconds after which the id is refused.
    pub expires: u64,
}

/// Why an id is refused (each is a 404: the client initialises again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Not an id of this form, or too long.
    Malformed,
    /// Signed under no key of this fleet: forged, altered, or another fleet's.
    Signature,
    /// Past its lifetime, or issued implausibly far in the future.
    Expired,
    /// A version this server no longer speaks, or one without sessions.
    Version,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// Negotiated protocol version.
    v: String,
    /// Issued at (Unix seconds).
    i: u64,
    /// Expires at (Unix seconds).
    e: u64,
    /// Random, so two sessions opened in the same second differ.
    n: String,
    /// The client capabilities toolgate reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    c: Option<Value>,
    /// The digest of who opened the session (`super::owner`); absent when the gateway
    /// asks for no credential.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    o: Option<String>,
}

impl Sealer {
    /// A sealer for `keys` (the current one first); `None` without keys.
    pub fn new<K: AsRef<[u8]>>(keys: &[K], lifetime: Duration) -> Option<Sealer> {
        if keys.is_empty() {
            return None;
        }
        let keys = keys
            .iter()
            .map(|k| {
                let root = hmac::Key::new(hmac::HMAC_SHA256, k.as_ref());
                hmac::Key::new(hmac::HMAC_SHA256, hmac::sign(&root, LABEL).as_ref())
            })
            .collect();
        Some(Sealer { keys, lifetime })
    }

    /// How long an id is valid from `initialize`.
    pub fn lifetime(&self) -> Duration {
        self.lifetime
    }

    /// A new id for a session that negotiated `version` with a client that declared
    /// `capabilities`, at `now` (Unix seconds), opened by `owner`.
    pub fn seal(
        &self,
        version: &ProtocolVersion,
        capabilities: Option<&Value>,
        owner: &Owner,
        now: u64,
    ) -> String {
        let payload = Payload {
            v: version.as_str().to_owned(),
            i: now,
            e: now.saturating_add(self.lifetime.as_secs()),
            n: format!("{:016x}", rand::random::<u64>()),
            c: capabilities.map(kept),
            o: owner.digest().map(str::to_owned),
        };
        // A struct of strings, numbers and JSON values always serialises.
        let json = serde_json::to_vec(&payload).unwrap_or_default();
        let mut id = String::with_capacity(PREFIX.len() + json.len() * 4 / 3 + 48);
        id.push_str(PREFIX);
        b64::encode(&json, &mut id);
        let tag = hmac::sign(&self.keys[0], id.as_bytes());
        id.push('.');
        b64::encode(tag.as_ref(), &mut id);
        id
    }

    /// Verifies `id` at `now` (Unix seconds).
    pub fn open(&self, id: &str, now: u64) -> Result<Opened, Refused> {
        if id.len() > MAX_ID_BYTES || !id.starts_with(PREFIX) {
            return Err(Refused::Malformed);
        }
        let (signed, tag) = id.rsplit_once('.').ok_or(Refused::Malformed)?;
        let tag = b64::decode(tag).ok_or(Refused::Malformed)?;
        if !self
            .keys
            .iter()
            .any(|k| hmac::verify(k, signed.as_bytes(), &tag).is_ok())
        {
            return Err(Refused::Signature);
        }
        let json = b64::decode(&signed[PREFIX.len()..]).ok_or(Refused::Malformed)?;
        let p: Payload = serde_json::from_slice(&json).map_err(|_| Refused::Malformed)?;
        if now >= p.e || p.i > now.saturating_add(CLOCK_SKEW_S) {
            return Err(Refused::Expired);
        }
        let version = ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .find(|v| v.as_str() == p.v && v.has_initialize())
            .cloned()
            .ok_or(Refused::Version)?;
        Ok(Opened {
            version,
            capabilities: p.c,
            owner: Owner::from_digest(p.o),
            expires: p.e,
        })
    }
}

/// The capabilities toolgate reads, bounded.
fn kept(capabilities: &Value) -> Value {
    let mut out = Map::new();
    for name in CAPABILITIES {
        if let Some(v) = capabilities.get(name) {
            out.insert(name.to_owned(), v.clone());
        }
    }
    if serde_json::to_string(&out).map_or(0, |s| s.len()) > MAX_CAPABILITY_BYTES {
        for v in out.values_mut() {
            *v = Value::Object(Map::new());
        }
    }
    Value::Object(out)
}

/// base64url without padding (RFC 4648 §5).
pub(super) mod b64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    pub fn encode(bytes: &[u8], out: &mut String) {
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            for i in 0..=chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            }
        }
    }

    fn value(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        }))
    }

    pub fn decode(text: &str) -> Option<Vec<u8>> {
        let text = text.as_bytes();
        if text.len() % 4 == 1 {
            return None;
        }
        let mut out = Vec::with_capacity(text.len() * 3 / 4);
        for chunk in text.chunks(4) {
            let mut n = 0u32;
            for (i, c) in chunk.iter().enumerate() {
                n |= value(*c)? << (18 - 6 * i);
            }
            let bytes = n.to_be_bytes();
            let kept = chunk.len() - 1;
            // Bits below the last whole byte must be zero: one id has one spelling.
            if bytes[1 + kept..].iter().any(|b| *b != 0) {
                return None;
            }
            out.extend_from_slice(&bytes[1..=kept]);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests;
