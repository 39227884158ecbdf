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
mod tests {
    use super::*;
    use serde_json::json;

    const V: ProtocolVersion = ProtocolVersion::V_2025_11_25;
    const NOW: u64 = 1_800_000_000;
    const KEY_A: &[u8] = b"0123456789abcdef0123456789abcdef";
    const KEY_B: &[u8] = b"fedcba9876543210fedcba9876543210";

    fn sealer(keys: &[&[u8]]) -> Sealer {
        Sealer::new(keys, Duration::from_secs(3600)).unwrap()
    }

    #[test]
    fn base64url_round_trips_and_refuses_other_spellings() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let mut s = String::new();
            b64::encode(&bytes, &mut s);
            assert!(
                s.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
            );
            assert_eq!(b64::decode(&s), Some(bytes));
        }
        assert_eq!(b64::decode("QQ"), Some(b"A".to_vec()));
        assert_eq!(b64::decode("QR"), None, "non-zero trailing bits");
        assert_eq!(b64::decode("Q"), None);
        assert_eq!(b64::decode("Q+=="), None);
    }

    #[test]
    fn an_id_sealed_by_one_replica_opens_on_another_with_the_same_key() {
        let caps = json!({"sampling": {}, "elicitation": {"form": {}}, "experimental": {"x": "y"}});
        let id = sealer(&[KEY_A]).seal(&V, Some(&caps), &Owner::default(), NOW);
        assert!(id.starts_with("tg1.") && id.bytes().all(|c| (0x21..=0x7e).contains(&c)));
        let other = sealer(&[KEY_A]);
        let opened = other.open(&id, NOW + 10).unwrap();
        assert_eq!(opened.version, V);
        assert_eq!(opened.expires, NOW + 3600);
        assert_eq!(
            opened.capabilities,
            Some(json!({"sampling": {}, "elicitation": {"form": {}}})),
            "only what toolgate reads travels"
        );
        assert_ne!(
            id,
            sealer(&[KEY_A]).seal(&V, Some(&caps), &Owner::default(), NOW),
            "a nonce tells sessions apart"
        );
    }

    #[test]
    fn forged_altered_foreign_and_expired_ids_are_refused() {
        let s = sealer(&[KEY_A]);
        let id = s.seal(&V, None, &Owner::default(), NOW);
        assert_eq!(
            sealer(&[KEY_B]).open(&id, NOW),
            Err(Refused::Signature),
            "another fleet's key"
        );
        // Every single-character change of the id is refused.
        for i in 0..id.len() {
            let mut bytes = id.clone().into_bytes();
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let altered = String::from_utf8(bytes).unwrap();
            if altered != id {
                assert!(s.open(&altered, NOW).is_err(), "{altered}");
            }
        }
        // A payload rewritten to live longer, with the old tag, is refused.
        let (_, tag) = id.rsplit_once('.').unwrap();
        let mut longer = String::from("tg1.");
        b64::encode(
            br#"{"v":"2025-11-25","i":1800000000,"e":99999999999,"n":"0"}"#,
            &mut longer,
        );
        assert_eq!(
            s.open(&format!("{longer}.{tag}"), NOW),
            Err(Refused::Signature)
        );
        assert_eq!(s.open(&id, NOW + 3599).map(|o| o.version), Ok(V));
        assert_eq!(s.open(&id, NOW + 3600), Err(Refused::Expired));
        assert_eq!(
            s.open(&id, NOW - 301),
            Err(Refused::Expired),
            "issued in the future"
        );
        assert_eq!(
            s.open("0123456789abcdef0123456789abcdef", NOW),
            Err(Refused::Malformed)
        );
        assert_eq!(s.open(&"tg1.".repeat(2000), NOW), Err(Refused::Malformed));
        assert_eq!(s.open("tg1..", NOW), Err(Refused::Signature));
        let stateless = s.seal(&ProtocolVersion::V_2026_07_28, None, &Owner::default(), NOW);
        assert_eq!(s.open(&stateless, NOW), Err(Refused::Version));
    }

    #[test]
    fn a_rotated_key_still_opens_ids_of_the_previous_one() {
        let old = sealer(&[KEY_A]).seal(&V, None, &Owner::default(), NOW);
        let rotated = sealer(&[KEY_B, KEY_A]);
        assert!(rotated.open(&old, NOW).is_ok());
        let new = rotated.seal(&V, None, &Owner::default(), NOW);
        assert!(
            sealer(&[KEY_B]).open(&new, NOW).is_ok(),
            "the new key signs"
        );
        assert_eq!(
            sealer(&[KEY_B]).open(&old, NOW),
            Err(Refused::Signature),
            "once the old key is dropped"
        );
    }

    #[test]
    fn large_capabilities_keep_their_names_only() {
        let caps = json!({"sampling": {"big": "x".repeat(5000)}, "roots": {"listChanged": true}});
        let id = sealer(&[KEY_A]).seal(&V, Some(&caps), &Owner::default(), NOW);
        assert!(id.len() < 300, "{}", id.len());
        let opened = sealer(&[KEY_A]).open(&id, NOW).unwrap();
        assert_eq!(
            opened.capabilities,
            Some(json!({"sampling": {}, "roots": {}}))
        );
    }
}
