//! What a request says, read once: its params (tool name, arguments, `_meta`, …) are
//! read in the same pass over the body that frames the message
//! ([`super::jsonrpc::parse`]), and the revision it is answered under ([`Era`]) is
//! decided in one place ([`Era::decide`]). Every later stage — the HTTP transport's
//! routing and header checks, dispatch, the call path's context — takes these fields
//! instead of reading the body again.

use std::borrow::Cow;
use std::fmt;

use rmcp::model::ProtocolVersion;
use serde::de::{Deserialize, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// `_meta` keys of the 2026-07-28 revision.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The first revision without the `initialize` handshake.
pub const INLINE_VERSION: &str = "2026-07-28";

/// Whether a protocol version is one this server speaks; the list is rmcp's.
pub fn is_supported(version: &str) -> bool {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|v| v.as_str() == version)
}

/// A request's or notification's params, read in the same pass as the message itself
/// ([`super::jsonrpc::parse`]): the tool name, the arguments and `_meta` as typed
/// fields, every other member as sent.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Params {
    /// `name` (`tools/call`, `prompts/get`), when a string.
    pub name: Option<String>,
    /// `arguments`, as sent (`tools/call` needs an object or null).
    pub arguments: Option<Value>,
    /// A number in `arguments` that `arguments` holds as another value (an integer
    /// beyond 64 bits, a decimal with more digits than an `f64` keeps), as written:
    /// a call with one is refused rather than sent with another number.
    pub inexact_number: Option<String>,
    /// `_meta`, when an object.
    pub meta: Meta,
    /// Every other member (and `name` or `_meta` when not of their type).
    pub rest: Map<String, Value>,
}

impl Params {
    fn str(&self, key: &str) -> Option<&str> {
        self.rest.get(key)?.as_str()
    }

    /// `uri` (`resources/read`), when a string.
    pub fn uri(&self) -> Option<&str> {
        self.str("uri")
    }

    /// `level` (`logging/setLevel`), when a string.
    pub fn level(&self) -> Option<&str> {
        self.str("level")
    }

    /// `protocolVersion` (`initialize`), when a string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.str("protocolVersion")
    }

    /// `capabilities` (`initialize`), when an object.
    pub fn capabilities(&self) -> Option<&Value> {
        self.rest.get("capabilities").filter(|c| c.is_object())
    }

    /// `requestId` (`notifications/cancelled`).
    pub fn request_id(&self) -> Option<&Value> {
        self.rest.get("requestId")
    }

    /// The params object, for what is forwarded as sent (resources, prompts and
    /// completions of upstream servers) or read by an SDK type (`initialize`).
    pub fn into_value(self) -> Value {
        let mut out = Map::new();
        if let Some(name) = self.name {
            out.insert("name".into(), Value::String(name));
        }
        if let Some(arguments) = self.arguments {
            out.insert("arguments".into(), arguments);
        }
        out.extend(self.rest);
        if let Some(meta) = self.meta.map {
            out.insert("_meta".into(), Value::Object(meta));
        }
        Value::Object(out)
    }
}

/// A request's `_meta`, when it is an object.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Meta {
    map: Option<Map<String, Value>>,
    /// `io.modelcontextprotocol/protocolVersion`, when a string, and whether
    /// `io.modelcontextprotocol/clientCapabilities` is an object: read from `map` once,
    /// as the request is read. Routing, the era and the answer each ask again, and a
    /// lookup in `map` hashes the long key every time.
    version: Option<Box<str>>,
    has_capabilities: bool,
}

impl Meta {
    /// The `_meta` object of a request.
    pub fn of(map: Map<String, Value>) -> Meta {
        let version = map.get(META_VERSION).and_then(Value::as_str).map(Box::from);
        let has_capabilities = map.get(META_CAPABILITIES).is_some_and(Value::is_object);
        Meta {
            map: Some(map),
            version,
            has_capabilities,
        }
    }

    /// `io.modelcontextprotocol/protocolVersion`, when it is a string.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// `io.modelcontextprotocol/clientCapabilities`, when it is an object.
    pub fn capabilities(&self) -> Option<&Value> {
        if !self.has_capabilities {
            return None;
        }
        self.map.as_ref()?.get(META_CAPABILITIES)
    }

    /// `io.modelcontextprotocol/logLevel`, when it is a string.
    pub fn log_level(&self) -> Option<&str> {
        self.map.as_ref()?.get(META_LOG_LEVEL)?.as_str()
    }

    /// Whether the request declares 2026-07-28 or later: it then names its own log
    /// level, capabilities and version, and has no session.
    pub fn declares_inline(&self) -> bool {
        self.version().is_some_and(|v| v >= INLINE_VERSION)
    }

    /// Both keys the 2026-07-28 lifecycle requires are there.
    pub fn complete(&self) -> bool {
        self.version.is_some() && self.has_capabilities
    }

    /// The required keys that are missing or malformed, for the error.
    fn missing(&self) -> String {
        let mut missing = Vec::new();
        if self.version().is_none() {
            missing.push(META_VERSION);
        }
        if self.capabilities().is_none() {
            missing.push(META_CAPABILITIES);
        }
        missing.join(", ")
    }

    /// The object, for the call path (progress token, trace context, log level).
    pub fn into_map(self) -> Option<Map<String, Value>> {
        self.map
    }
}

/// The revision a request is answered under, decided once per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// The handshake revisions (up to 2025-11-25): a version negotiated by
    /// `initialize`; every answer is HTTP 200.
    Handshake,
    /// 2026-07-28: version and capabilities in each request's `_meta`; results carry
    /// `resultType` (lists also cache hints), and some errors are HTTP errors too.
    Modern,
}

/// Why a request cannot be answered under any revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EraRefusal {
    /// `_meta` names a version this server does not speak.
    Unsupported(String),
    /// A 2026-07-28 request without both required `_meta` keys: what is missing.
    MetaMalformed(String),
}

impl Era {
    /// The era of a request (not `initialize`) with this `method` and `meta`, sent in a
    /// session of the negotiated version `session`, if any. A request declaring
    /// 2026-07-28 or later, and `server/discover`, use the 2026-07-28 lifecycle, which
    /// needs both `_meta` keys.
    pub fn decide(method: &str, meta: &Meta, session: Option<&str>) -> Result<Era, EraRefusal> {
        let declared = meta.version();
        if let Some(version) = declared
            && !is_supported(version)
        {
            return Err(EraRefusal::Unsupported(version.to_owned()));
        }
        let modern = method == "server/discover" || declared.is_some_and(|v| v >= INLINE_VERSION);
        if modern && !meta.complete() {
            return Err(EraRefusal::MetaMalformed(meta.missing()));
        }
        if modern || session.is_some_and(|v| v >= INLINE_VERSION) {
            Ok(Era::Modern)
        } else {
            Ok(Era::Handshake)
        }
    }

    /// Whether results carry the 2026-07-28 shapes.
    pub fn is_modern(self) -> bool {
        self == Era::Modern
    }
}

/// `params` as the message reader meets it: an object, read into [`Params`], or
/// anything else (which the reader refuses), consumed without building it.
// Lives only while a message is read, and is moved out of once: boxing the object
// would cost an allocation per request for nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum ParamsField {
    Object(Params),
    NotObject,
}

impl<'de> Deserialize<'de> for ParamsField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ParamsField, D::Error> {
        d.deserialize_any(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = ParamsField;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("params")
    }

    /// One pass over the object: last value wins for a repeated key, as with a map,
    /// and nothing is refused for its type.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsField, A::Error> {
        let mut p = Params::default();
        // `name` and `_meta` are settled after the last member (the last one sent
        // wins, as in a map): a repeated key costs a replacement, never a removal
        // from the middle of `rest`.
        let (mut name, mut meta) = (None, None);
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if key == "arguments" {
                // Read as text first: the text alone tells whether every number in it
                // survives being held as a `Value`.
                let raw: &'de RawValue = map.next_value()?;
                p.inexact_number = super::exact_numbers::first_inexact(raw.get());
                p.arguments = Some(serde_json::from_str(raw.get()).map_err(A::Error::custom)?);
                continue;
            }
            let value: Value = map.next_value()?;
            match key.as_ref() {
                "name" => name = Some(value),
                "_meta" => meta = Some(value),
                _ => {
                    p.rest.insert(key.into_owned(), value);
                }
            }
        }
        match name {
            Some(Value::String(name)) => p.name = Some(name),
            Some(other) => {
                p.rest.insert("name".to_owned(), other);
            }
            None => {}
        }
        match meta {
            Some(Value::Object(meta)) => p.meta = Meta::of(meta),
            Some(other) => {
                p.rest.insert("_meta".to_owned(), other);
            }
            None => {}
        }
        Ok(ParamsField::Object(p))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ParamsField, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(ParamsField::NotObject)
    }

    fn visit_bool<E>(self, _: bool) -> Result<ParamsField, E> {
        Ok(ParamsField::NotObject)
    }

    fn visit_i64<E>(self, _: i64) -> Result<ParamsField, E> {
        Ok(ParamsField::NotObject)
    }

    fn visit_u64<E>(self, _: u64) -> Result<ParamsField, E> {
        Ok(ParamsField::NotObject)
    }

    fn visit_f64<E>(self, _: f64) -> Result<ParamsField, E> {
        Ok(ParamsField::NotObject)
    }

    fn visit_str<E>(self, _: &str) -> Result<ParamsField, E> {
        Ok(ParamsField::NotObject)
    }

    fn visit_unit<E>(self) -> Result<ParamsField, E> {
        Ok(ParamsField::NotObject)
    }
}

/// A key, borrowed from the body unless it had escapes.
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Params {
        match serde_json::from_str::<ParamsField>(text).unwrap() {
            ParamsField::Object(p) => p,
            ParamsField::NotObject => panic!("not an object: {text}"),
        }
    }

    #[test]
    fn fields_are_read_once_leniently_and_the_last_repeat_wins() {
        let p = read(
            r#"{"name":"a","name":"search","arguments":{"q":1},"uri":7,"level":"info","x":[1,{"y":2}],"_meta":{"progressToken":"p"}}"#,
        );
        assert_eq!(p.name.as_deref(), Some("search"));
        assert_eq!(p.arguments, Some(json!({"q": 1})));
        assert_eq!(p.uri(), None, "a number is no uri");
        assert_eq!(p.level(), Some("info"));
        assert_eq!(p.meta.clone().into_map().unwrap()["progressToken"], "p");
        assert_eq!(
            p.into_value(),
            json!({"name":"search","arguments":{"q":1},"uri":7,"level":"info","x":[1,{"y":2}],"_meta":{"progressToken":"p"}})
        );
        let p = read(r#"{"n\u0061me":"escaped","_meta":"not an object","capabilities":[]}"#);
        assert_eq!(p.name.as_deref(), Some("escaped"));
        assert_eq!(p.meta, Meta::default());
        assert_eq!(p.capabilities(), None);
        // A member not of its type is kept as sent, for what is forwarded.
        let p = read(r#"{"name":"a","name":5,"_meta":1}"#);
        assert_eq!(p.name, None);
        assert_eq!(p.into_value(), json!({"name": 5, "_meta": 1}));
        for not_an_object in ["[1,{}]", "null", "\"x\"", "1.5", "true"] {
            assert!(matches!(
                serde_json::from_str::<ParamsField>(not_an_object),
                Ok(ParamsField::NotObject)
            ));
        }
    }

    #[test]
    fn meta_read_once_answers_as_the_object_it_was_read_from() {
        // Each `_meta` as a client may send it; the fields read once must say what a
        // lookup in the object says, however the keys are spelt, repeated or typed.
        let cases = [
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol\u002FclientCapabilities":{"sampling":{}}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":null}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":"x","io.modelcontextprotocol/logLevel":"info"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolversion":"2026-07-28","io.modelcontextprotocol/ClientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01\u0000","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{}}"#,
            r#"{"_meta":null}"#,
            r#"{}"#,
        ];
        for text in cases {
            let meta = read(text).meta;
            let object: Value = serde_json::from_str(text).unwrap();
            let map = object.get("_meta").and_then(Value::as_object);
            let version = map
                .and_then(|m| m.get(META_VERSION))
                .and_then(Value::as_str);
            let capabilities = map
                .and_then(|m| m.get(META_CAPABILITIES))
                .filter(|c| c.is_object());
            assert_eq!(meta.version(), version, "{text}");
            assert_eq!(meta.capabilities(), capabilities, "{text}");
            assert_eq!(
                meta.complete(),
                version.is_some() && capabilities.is_some(),
                "{text}"
            );
            assert_eq!(
                meta.declares_inline(),
                version.is_some_and(|v| v >= INLINE_VERSION),
                "{text}"
            );
            assert_eq!(meta.clone().into_map().as_ref(), map, "{text}");
        }
    }

    #[test]
    fn the_era_is_decided_from_meta_method_and_session() {
        let meta = |v: Value| match v {
            Value::Object(m) => Meta::of(m),
            _ => Meta::default(),
        };
        let full = meta(json!({ META_VERSION: "2026-07-28", META_CAPABILITIES: {} }));
        assert_eq!(Era::decide("tools/call", &full, None), Ok(Era::Modern));
        assert_eq!(
            Era::decide("tools/call", &Meta::default(), Some("2025-11-25")),
            Ok(Era::Handshake)
        );
        assert_eq!(
            Era::decide(
                "tools/list",
                &meta(json!({ META_VERSION: "2099-01-01" })),
                None
            ),
            Err(EraRefusal::Unsupported("2099-01-01".into()))
        );
        assert_eq!(
            Era::decide(
                "tools/list",
                &meta(json!({ META_VERSION: "2026-07-28" })),
                None
            ),
            Err(EraRefusal::MetaMalformed(META_CAPABILITIES.into()))
        );
        assert_eq!(
            Era::decide("server/discover", &Meta::default(), None),
            Err(EraRefusal::MetaMalformed(format!(
                "{META_VERSION}, {META_CAPABILITIES}"
            )))
        );
        // A handshake version in `_meta` (complete) keeps the handshake shapes.
        let old = meta(json!({ META_VERSION: "2025-11-25", META_CAPABILITIES: {} }));
        assert_eq!(Era::decide("tools/list", &old, None), Ok(Era::Handshake));
    }
}
