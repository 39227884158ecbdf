//! Reading spec files: JSON or YAML, by content rather than extension, each file once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Largest spec file read; a description bigger than this is not a spec but a mistake.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Every file of one spec, loaded on first use and kept for the rest of the import.
#[derive(Debug, Default)]
pub struct Files {
    cache: HashMap<PathBuf, Arc<Value>>,
}

impl Files {
    /// The parsed file at `path` (canonicalised, so `a/../b.yml` and `b.yml` are one file).
    pub fn get(&mut self, path: &Path) -> Result<(PathBuf, Arc<Value>), String> {
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        if let Some(v) = self.cache.get(&canonical) {
            return Ok((canonical, v.clone()));
        }
        let value = Arc::new(read(&canonical)?);
        self.cache.insert(canonical.clone(), value.clone());
        Ok((canonical, value))
    }

    /// How many files have been read.
    pub fn count(&self) -> usize {
        self.cache.len()
    }
}

/// Reads one file as JSON if it parses as JSON, else as YAML.
pub fn read(path: &Path) -> Result<Value, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {} MiB",
            path.display(),
            MAX_FILE_BYTES / 1024 / 1024
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses spec text: JSON first (it is also YAML, but the JSON parser is faster and
/// its errors are clearer for JSON files), then YAML.
pub fn parse(text: &str) -> Result<Value, String> {
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(v) = serde_json::from_str(text)
    {
        return Ok(v);
    }
    SpecValue
        .deserialize(yaml_serde::Deserializer::from_str(text))
        .map_err(|e| describe(&e))
}

fn describe(e: &yaml_serde::Error) -> String {
    match e.location() {
        Some(l) => format!(
            "neither JSON nor YAML (line {}, column {})",
            l.line(),
            l.column()
        ),
        None => format!("neither JSON nor YAML ({e})"),
    }
}

/// A spec value read from YAML. Unlike `serde_json::Value`'s own reader, an integer
/// beyond 64 bits (a vendor's `maximum: 18446744073709551616`) is kept as the nearest
/// float instead of failing the whole file: a bound that large is never exact anyway.
struct SpecValue;

impl<'de> DeserializeSeed<'de> for SpecValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(SpecVisitor)
    }
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or_else(|_| float(v as f64), Value::from))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v).map_or_else(|_| float(v as f64), Value::from))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        SpecValue.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(SpecValue)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key_seed(SpecKey)? {
            let v = map.next_value_seed(SpecValue)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// A mapping key as text: `200:` and `true:` are names in a spec, not numbers.
struct SpecKey;

impl<'de> DeserializeSeed<'de> for SpecKey {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        match SpecValue.deserialize(d)? {
            Value::String(s) => Ok(s),
            Value::Null => Ok("null".into()),
            other => Ok(other.to_string()),
        }
    }
}

/// A float as a JSON number; `.inf` and `.nan` have none and read as null.
fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_parse_to_the_same_value() {
        let j = parse(r#"{"openapi": "3.0.0", "paths": {}}"#).unwrap();
        let y = parse("openapi: 3.0.0\npaths: {}\n").unwrap();
        assert_eq!(j["paths"], y["paths"]);
        assert!(parse("a: [unclosed").is_err());
    }

    #[test]
    fn integers_beyond_64_bits_read_as_floats() {
        let v =
            parse("maximum: 99999999999999999999\nminimum: -99999999999999999999\nn: 7\n200: ok\n")
                .unwrap();
        assert_eq!(v["maximum"].as_f64(), Some(1e20));
        assert_eq!(v["minimum"].as_f64(), Some(-1e20));
        assert_eq!(v["n"], 7);
        assert_eq!(v["200"], "ok");
        // The same number in JSON already reads as a float.
        let j = parse(r#"{"maximum": 99999999999999999999}"#).unwrap();
        assert_eq!(j["maximum"].as_f64(), Some(1e20));
    }
}
