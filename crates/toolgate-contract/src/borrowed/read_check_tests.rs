//! The read check against `jsonschema` and `serde_json`: on generated schemas (every
//! keyword it decides, keywords it hands to `jsonschema`, `$ref`s to recursive `$defs`
//! from both, annotations) and documents generated to fit them or not, it must vouch
//! exactly for the documents the validator accepts; on those documents broken one byte
//! at a time it must never vouch for what `serde_json` refuses.

use super::*;
use crate::borrowed::choices::Choices;
use crate::borrowed::scan::tests::to_escape;
use proptest::prelude::*;
use serde_json::{Value, json};

const NAMES: [&str; 5] = ["id", "name", "tags", "é", "a\"b"];
const WORDS: [&str; 5] = ["", "a", "alpha", "中文字", "x\\y\n"];

fn gen_scalar(c: &mut Choices) -> Value {
    match c.next(6) {
        0 => Value::Null,
        1 => Value::Bool(c.one_in(2)),
        2 => json!(c.next(200) as i64 - 100),
        3 => json!((c.next(200) as f64 - 100.0) + 0.5),
        _ => json!(WORDS[c.next(5) as usize]),
    }
}

fn gen_bound(c: &mut Choices) -> Value {
    if c.one_in(2) {
        json!(c.next(40) as i64 - 20)
    } else {
        json!(c.next(40) as f64 - 20.25)
    }
}

/// A schema made of the keywords the read check decides (plus annotations).
fn gen_schema(c: &mut Choices, depth: u32) -> Value {
    let mut s = serde_json::Map::new();
    if c.one_in(5) {
        s.insert("description".into(), json!("annotated"));
        s.insert("x-vendor".into(), json!({"any": ["thing"]}));
        s.insert("format".into(), json!("date-time"));
    }
    let choice = if depth == 0 { c.next(4) } else { c.next(11) };
    match choice {
        0 => {
            s.insert("type".into(), json!("string"));
            if c.one_in(2) {
                s.insert("minLength".into(), json!(c.next(3)));
            }
            if c.one_in(2) {
                s.insert("maxLength".into(), json!(c.next(6)));
            }
        }
        1 => {
            let t = if c.one_in(2) { "integer" } else { "number" };
            let t = if c.one_in(3) {
                json!([t, "null"])
            } else {
                json!(t)
            };
            s.insert("type".into(), t);
            for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if c.one_in(3) {
                    s.insert(key.into(), gen_bound(c));
                }
            }
        }
        2 => {
            let values: Vec<Value> = (0..=c.next(3))
                .map(|_| match c.next(3) {
                    0 => Value::Null,
                    1 => Value::Bool(c.one_in(2)),
                    _ => json!(WORDS[c.next(5) as usize]),
                })
                .collect();
            if values.len() == 1 && c.one_in(2) {
                s.insert("const".into(), values[0].clone());
            } else {
                s.insert("enum".into(), Value::Array(values));
            }
        }
        3 => {
            let kinds = [
                "null", "boolean", "string", "integer", "number", "array", "object",
            ];
            let first = c.next(7) as usize;
            let picked: Vec<Value> = (0..=c.next(2))
                .map(|i| json!(kinds[(first + i as usize * 3) % 7]))
                .collect();
            s.insert("type".into(), Value::Array(picked));
        }
        4 | 5 => {
            if !c.one_in(4) {
                s.insert("type".into(), json!("object"));
            }
            let mut props = serde_json::Map::new();
            for name in NAMES {
                if c.one_in(2) {
                    props.insert(name.into(), gen_schema(c, depth - 1));
                }
            }
            s.insert("properties".into(), Value::Object(props));
            let required: Vec<Value> = NAMES
                .iter()
                .filter(|_| c.one_in(3))
                .map(|n| json!(n))
                .collect();
            s.insert("required".into(), Value::Array(required));
            match c.next(3) {
                0 => {
                    s.insert("additionalProperties".into(), json!(false));
                }
                1 => {
                    s.insert("additionalProperties".into(), gen_schema(c, depth - 1));
                }
                _ => {}
            }
        }
        6 => {
            if !c.one_in(4) {
                s.insert("type".into(), json!("array"));
            }
            s.insert("items".into(), gen_schema(c, depth - 1));
            if c.one_in(2) {
                s.insert("minItems".into(), json!(c.next(2)));
            }
            if c.one_in(2) {
                s.insert("maxItems".into(), json!(c.next(4)));
            }
            if c.one_in(3) {
                s.insert("uniqueItems".into(), json!(false));
            }
        }
        7 => {
            let mut r = serde_json::Map::new();
            r.insert("$ref".into(), json!("#/$defs/node"));
            if c.one_in(2) {
                r.insert("title".into(), json!("a node"));
            }
            return Value::Object(r);
        }
        // Keywords handed to `jsonschema`, alone or around a `$ref` into the schema.
        8 => {
            let nullable_node = json!({"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]});
            return match c.next(6) {
                0 => nullable_node,
                1 => json!({"type": "string", "pattern": "^[a-z]*$"}),
                2 => {
                    json!({"allOf": [gen_schema(c, depth - 1), {"type": ["object", "string", "null"]}]})
                }
                3 => json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
                4 => json!({"enum": [1, "a", null, 2.5]}),
                _ => json!({"$ref": "#/$defs/node", "required": ["label", "children"]}),
            };
        }
        9 => {
            let mut props = serde_json::Map::new();
            props.insert(
                "id".into(),
                json!({"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]}),
            );
            props.insert("name".into(), gen_schema(c, depth - 1));
            props.insert("tags".into(), json!({"type": "object", "minProperties": 1}));
            s.insert("type".into(), json!("object"));
            s.insert("properties".into(), Value::Object(props));
        }
        _ => return Value::Bool(!c.one_in(6)),
    }
    Value::Object(s)
}

/// The root: a schema, with a recursive `node` definition its `$ref`s can reach.
pub(super) fn gen_root(c: &mut Choices) -> Value {
    let mut root = gen_schema(c, 3);
    if let Value::Object(map) = &mut root {
        map.insert(
            "$defs".into(),
            json!({"node": {
                "type": "object",
                "required": ["label"],
                "properties": {
                    "label": {"type": "string", "maxLength": 5},
                    "next": {"type": ["null", "object"], "$ref": null},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                }
            }}),
        );
        // `next` refers back to the node (a `$ref` alone: siblings would not be decided).
        map["$defs"]["node"]["properties"]["next"] = json!({"$ref": "#/$defs/node"});
        if c.one_in(3) {
            map.insert(
                "$schema".into(),
                json!("https://json-schema.org/draft/2020-12/schema"),
            );
        }
    }
    root
}

/// A document that fits `schema` most of the time, and something else otherwise.
pub(super) fn gen_instance(schema: &Value, root: &Value, c: &mut Choices, depth: u32) -> Value {
    if c.one_in(10) || depth == 0 {
        return if depth > 0 && c.one_in(2) {
            json!({"label": "l", "extra": [1, "two"]})
        } else {
            gen_scalar(c)
        };
    }
    let Value::Object(s) = schema else {
        return gen_scalar(c);
    };
    for key in ["anyOf", "allOf", "oneOf"] {
        if let Some(options) = s.get(key).and_then(Value::as_array) {
            let option = options[c.next(options.len() as u64) as usize].clone();
            return gen_instance(&option, root, c, depth - 1);
        }
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let target = root.pointer(&r[1..]).cloned().unwrap_or(Value::Bool(true));
        return gen_instance(&target, root, c, depth - 1);
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        return values[c.next(values.len() as u64) as usize].clone();
    }
    if let Some(value) = s.get("const") {
        return value.clone();
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => ts[c.next(ts.len() as u64) as usize]
            .as_str()
            .unwrap_or("null")
            .to_owned(),
        _ if s.contains_key("properties") => "object".into(),
        _ if s.contains_key("items") => "array".into(),
        _ => return gen_scalar(c),
    };
    match ty.as_str() {
        "string" => json!(WORDS[c.next(5) as usize]),
        "integer" => json!(c.next(60) as i64 - 30),
        "number" => {
            if c.one_in(2) {
                json!(c.next(60) as i64 - 30)
            } else {
                json!(c.next(60) as f64 - 30.5)
            }
        }
        "boolean" => Value::Bool(c.one_in(2)),
        "array" => {
            let items = s.get("items").cloned().unwrap_or(Value::Bool(true));
            Value::Array(
                (0..c.next(4))
                    .map(|_| gen_instance(&items, root, c, depth - 1))
                    .collect(),
            )
        }
        "object" => {
            let mut out = serde_json::Map::new();
            let props = s.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for name in NAMES {
                let sub = props.and_then(|p| p.get(name));
                let wanted = required.contains(&name) || (sub.is_some() && c.one_in(2));
                if wanted && !c.one_in(12) {
                    let fallback = s
                        .get("additionalProperties")
                        .cloned()
                        .unwrap_or(Value::Bool(true));
                    let sub = sub.cloned().unwrap_or(fallback);
                    out.insert(name.into(), gen_instance(&sub, root, c, depth - 1));
                }
            }
            if c.one_in(5) {
                out.insert("other".into(), gen_scalar(c));
            }
            Value::Object(out)
        }
        _ => Value::Null,
    }
}

fn judge(schema: &Value, bytes: &[u8]) -> bool {
    let validator = jsonschema::validator_for(schema).expect("generated schemas compile");
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => validator.is_valid(&value),
        Err(_) => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn vouches_exactly_for_what_the_validator_accepts(seed in 1u64..) {
        let mut c = Choices(seed);
        let schema = gen_root(&mut c);
        let check = ReadCheck::compile(&schema, None).expect("only decided keywords were generated");
        let instance = gen_instance(&schema, &schema, &mut c, 5);
        let text = if c.one_in(2) {
            serde_json::to_string(&instance)
        } else {
            serde_json::to_string_pretty(&instance)
        }
        .expect("serialises");
        prop_assert_eq!(
            check.vouches_for(text.as_bytes()),
            judge(&schema, text.as_bytes()),
            "schema {} document {}", schema, text
        );
        // Vouching while noting escapes decides the same, and notes every one.
        let sites = check.vouch(text.as_bytes());
        prop_assert_eq!(sites.is_some(), check.vouches_for(text.as_bytes()));
        if let Some(sites) = sites {
            prop_assert_eq!(sites.offsets(), &to_escape(text.as_bytes())[..], "{}", text);
        }
    }

    #[test]
    fn never_vouches_for_a_broken_document(seed in 1u64.., at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut c = Choices(seed);
        let schema = gen_root(&mut c);
        let check = ReadCheck::compile(&schema, None).expect("only decided keywords were generated");
        let instance = gen_instance(&schema, &schema, &mut c, 5);
        let mut bytes = serde_json::to_vec(&instance).expect("serialises");
        let i = at.index(bytes.len());
        bytes[i] = byte;
        if check.vouches_for(&bytes) {
            prop_assert!(judge(&schema, &bytes), "vouched for {:?}", String::from_utf8_lossy(&bytes));
        }
        match check.vouch(&bytes) {
            Some(sites) => prop_assert_eq!(sites.offsets(), &to_escape(&bytes)[..]),
            None => prop_assert!(!check.vouches_for(&bytes)),
        }
    }
}

/// A search answer like the one `bench/run` serves: the shortcut must be taken for it.
#[test]
fn vouches_for_a_real_search_answer() {
    let schema = json!({
        "type": "object", "required": ["query", "results", "total"],
        "properties": {
            "query": {"type": "string"}, "total": {"type": "integer", "minimum": 0},
            "next_cursor": {"type": ["string", "null"]},
            "results": {"type": "array", "items": {"$ref": "#/$defs/result"}}
        },
        "$defs": {
            "result": {"type": "object", "required": ["title", "url", "snippet", "score"],
                "properties": {
                    "title": {"type": "string"}, "url": {"type": "string"},
                    "snippet": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1},
                    "published": {"type": ["string", "null"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "source": {"$ref": "#/$defs/source"}}},
            "source": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "domain": {"type": "string"}, "rank": {"type": "integer"}}}
        }
    });
    let results: Vec<Value> = (0..20)
        .map(|i| {
            json!({"title": format!("Result {i} \"quoted\""), "url": format!("https://example.com/{i}"),
                   "snippet": "A snippet with an escape\\n and é", "score": 0.5 + f64::from(i) / 100.0,
                   "published": null, "tags": ["rust", "mcp"],
                   "source": {"name": "example", "domain": "example.com", "rank": i}})
        })
        .collect();
    let body = json!({"query": "rust", "total": 20, "next_cursor": null, "results": results});
    let bytes = serde_json::to_vec(&body).expect("serialises");
    let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
    assert!(check.vouches_for(&bytes));

    // A renamed field, a score out of range, a missing nested field: not vouched for.
    let renamed =
        String::from_utf8(bytes.clone())
            .expect("utf-8")
            .replacen("\"snippet\"", "\"summary\"", 1);
    assert!(!check.vouches_for(renamed.as_bytes()));
    let out_of_range = String::from_utf8(bytes.clone()).expect("utf-8").replacen(
        "\"score\":0.5",
        "\"score\":1.5",
        1,
    );
    assert!(!check.vouches_for(out_of_range.as_bytes()));
    let unnamed = String::from_utf8(bytes)
        .expect("utf-8")
        .replacen("\"name\":\"example\",", "", 1);
    assert!(!check.vouches_for(unnamed.as_bytes()));
}

/// Keywords it does not decide are handed to `jsonschema` with the value they judge:
/// each of these schemas has a read check, and it agrees with the validator.
#[test]
fn hands_what_it_does_not_decide_to_the_validator() {
    let handed = [
        json!({"allOf": [{"type": "object"}, {"required": ["a"]}]}),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        json!({"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 1}]}),
        json!({"not": {"type": "string"}}),
        json!({"if": {"type": "string"}, "then": {"minLength": 2}}),
        json!({"type": "string", "pattern": "^a"}),
        json!({"type": "object", "patternProperties": {"^x": {"type": "string"}}}),
        json!({"type": "object", "propertyNames": {"maxLength": 1}}),
        json!({"type": "object", "minProperties": 2}),
        json!({"type": "object", "dependentRequired": {"a": ["b"]}}),
        json!({"type": "array", "uniqueItems": true}),
        json!({"type": "array", "contains": {"type": "string"}}),
        json!({"type": "array", "prefixItems": [{"type": "string"}]}),
        json!({"type": "number", "multipleOf": 2}),
        json!({"enum": [1, 2]}),
        json!({"const": {"a": 1}}),
        json!({"type": "number", "maximum": 18_446_744_073_709_551_615_u64}),
        json!({"properties": {"a": {"unevaluatedProperties": false}}}),
        json!({"properties": {"a/b~c é\"": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "null"}]}},
               "$defs": {"n": {"type": "integer", "maximum": 3}}}),
        json!({"$ref": "#/$defs/a", "type": "object", "$defs": {"a": {"required": ["a"]}}}),
        json!({"required": (0..65).map(|i| format!("f{i}")).collect::<Vec<_>>()}),
    ];
    let documents = [
        "null",
        "1",
        "2",
        "3",
        "4",
        "1.5",
        "\"a\"",
        "\"ab\"",
        "\"x\"",
        "[]",
        "[\"a\",\"a\"]",
        "[1]",
        "{}",
        "{\"a\":1}",
        "{\"a\":1,\"b\":2}",
        "{\"x\":1}",
        "{\"a\":{}}",
        "{\"a\":{\"z\":1}}",
        "{\"a/b~c é\\\"\":2}",
        "{\"a/b~c é\\\"\":9}",
        "{\"a/b~c é\\\"\":null}",
    ];
    // The delegated `$ref` resolves through a pointer with `/`, `~`, a quote and `é`.
    let escaped = ReadCheck::compile(&handed[18], None).expect("a read check");
    assert!(escaped.vouches_for(documents[18].as_bytes()));
    assert!(!escaped.vouches_for(documents[19].as_bytes()));
    for schema in handed {
        let check = ReadCheck::compile(&schema, None)
            .unwrap_or_else(|| panic!("no read check for {schema}"));
        for text in documents {
            assert_eq!(
                check.vouches_for(text.as_bytes()),
                judge(&schema, text.as_bytes()),
                "schema {schema} document {text}"
            );
            // A value read whole for the validator has its escapes noted too.
            if let Some(sites) = check.vouch(text.as_bytes()) {
                assert_eq!(sites.offsets(), to_escape(text.as_bytes()), "{text}");
            }
        }
    }
}

/// An `anyOf` or `oneOf` whose branches hold different kinds of value is decided while
/// reading, with no validator: what an imported contract writes for an operation that
/// answers a body or nothing (`null`), a nullable reference, a tag or a list of tags.
/// Branches that may hold the same kind still go to the validator, which alone can tell
/// "any of" from "one of" there.
#[test]
fn alternatives_of_different_kinds_are_decided_while_reading() {
    let repo = json!({"type": "object", "required": ["id"],
                      "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}});
    let decided = [
        json!({"anyOf": [{"$ref": "#/$defs/repo"}, {"type": "null"}], "$defs": {"repo": repo}}),
        json!({"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]}),
        json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"},
                         {"type": "number", "minimum": 1}], "description": "a tag or tags"}),
        json!({"properties": {"a": {"anyOf": [
            {"anyOf": [{"type": "boolean"}, {"type": "null"}]}, {"type": "object", "required": ["z"]}
        ]}}}),
        json!({"oneOf": [false, {"type": "string"}]}),
    ];
    let handed = [
        // Two objects: which one accepts is more than a kind.
        json!({"anyOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]}),
        // An integer is a number too: "one of" rejects what both accept.
        json!({"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 1}]}),
        // A branch with no `type` may hold anything.
        json!({"anyOf": [{"required": ["a"]}, {"type": "null"}]}),
        // A keyword beside the alternatives applies too.
        json!({"type": "object", "anyOf": [{"type": "object"}, {"type": "null"}]}),
    ];
    let documents = [
        "null",
        "true",
        "0",
        "1",
        "2.5",
        "-3",
        "\"\"",
        "\"a\"",
        "\"ab\"",
        "[]",
        "[\"x\"]",
        "[1]",
        "{}",
        "{\"id\":1}",
        "{\"id\":\"1\"}",
        "{\"id\":1,\"name\":null}",
        "{\"a\":null}",
        "{\"a\":true}",
        "{\"a\":{}}",
        "{\"a\":{\"z\":0}}",
        "{\"a\":1}",
        "{\"b\":1}",
        " null ",
        "nul",
        "[1,",
    ];
    for (schema, delegates) in decided
        .iter()
        .map(|s| (s, 0))
        .chain(handed.iter().map(|s| (s, 1)))
    {
        let check = ReadCheck::compile(schema, None)
            .unwrap_or_else(|| panic!("no read check for {schema}"));
        assert_eq!(check.delegated(), delegates, "{schema}");
        for text in documents {
            assert_eq!(
                check.vouches_for(text.as_bytes()),
                judge(schema, text.as_bytes()),
                "schema {schema} document {text}"
            );
        }
    }
}

/// A `$ref` outside the schema (a file, a shared component) or an `$id` means no read
/// check: the full way resolves those with the contract's own retriever and registry.
#[test]
fn a_schema_that_is_not_self_contained_has_no_read_check() {
    for schema in [
        json!({"$ref": "other.json#/x"}),
        json!({"properties": {"a": {"$ref": "file:///etc/passwd"}}}),
        json!({"$ref": "toolgate:schemas/api/Pet"}),
        json!({"$id": "https://example.com/s", "type": "string"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}),
    ] {
        assert!(ReadCheck::compile(&schema, None).is_none(), "{schema}");
    }
}

/// Where the validator's answer needs more than this check reads, it steps aside: a
/// float with no fraction under `integer`, an integer too large to compare exactly, and
/// a repeated member name whose first value does not fit but whose last one does.
#[test]
fn steps_aside_where_it_does_not_decide() {
    let cases = [
        (json!({"type": "integer"}), "1.0"),
        (
            json!({"type": "integer", "minimum": 0}),
            "18446744073709551615",
        ),
        (
            json!({"properties": {"a": {"type": "integer"}}}),
            r#"{"a":"x","a":1}"#,
        ),
    ];
    for (schema, text) in cases {
        let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
        assert!(
            judge(&schema, text.as_bytes()),
            "the validator accepts {text}"
        );
        assert!(!check.vouches_for(text.as_bytes()), "{text}");
    }
}

/// `format` is an annotation for the contract's validator (2020-12's default), so the
/// read check may ignore it; if the validator ever starts checking formats, this fails.
#[test]
fn format_is_an_annotation_for_the_validator_too() {
    let schema = json!({"type": "string", "format": "email"});
    assert!(judge(&schema, br#""not an email""#));
    let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
    assert!(check.vouches_for(br#""not an email""#));
}

#[test]
fn self_referring_aliases_end() {
    let schema = json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}});
    // `jsonschema` refuses such a schema; the read check, given one, never loops.
    if let Some(check) = ReadCheck::compile(&schema, None) {
        assert!(!check.vouches_for(b"1"));
    }
}

/// Shared components (what imported contracts are made of): decided keywords inside
/// them are checked in passing, and a component's `anyOf` or `pattern` is handed to a
/// validator that resolves the component references through the shared registry.
#[test]
fn reads_through_shared_components() {
    use crate::{ResponseContract, SchemaFiles, SharedSchemas};
    use std::collections::BTreeMap;
    use std::sync::Arc;
    let components: BTreeMap<String, Value> = [
        (
            "Pet",
            json!({"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "minimum": 1},
            "name": {"type": "string"},
            "owner": {"anyOf": [{"$ref": "toolgate:schemas/api/User"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"$ref": "toolgate:schemas/api/Tag"}}}}),
        ),
        (
            "User",
            json!({"type": "object", "required": ["login"], "properties": {
            "login": {"type": "string", "pattern": "^[a-z]+$"}}}),
        ),
        ("Tag", json!({"type": "string", "enum": ["cat", "dog"]})),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let shared =
        Arc::new(SharedSchemas::new([("api".to_owned(), components)].into()).expect("valid"));
    let schema = json!({"type": "array", "items": {"$ref": "toolgate:schemas/api/Pet"}});
    let contract =
        ResponseContract::compile_shared(&schema, None, &SchemaFiles::none(), Some(&shared))
            .expect("compiles");
    assert!(contract.checks_while_reading());
    let check = ReadCheck::compile(&schema, Some(&shared)).expect("a read check");
    let documents = [
        (r#"[]"#, true),
        (r#"[{"id":1,"name":"a"}]"#, true),
        (
            r#"[{"id":1,"name":"a","owner":null,"tags":["cat","dog"]}]"#,
            true,
        ),
        (r#"[{"id":1,"name":"a","owner":{"login":"ann"}}]"#, true),
        (r#"[{"id":1,"name":"a","owner":{"login":"Ann"}}]"#, false),
        (r#"[{"id":1,"name":"a","owner":{}}]"#, false),
        (r#"[{"id":0,"name":"a"}]"#, false),
        (r#"[{"id":1,"title":"a"}]"#, false),
        (r#"[{"id":1,"name":"a","tags":["cow"]}]"#, false),
    ];
    for (text, valid) in documents {
        let value: Value = serde_json::from_str(text).expect("json");
        assert_eq!(contract.check(&value).is_ok(), valid, "{text}");
        assert_eq!(check.vouches_for(text.as_bytes()), valid, "{text}");
        assert_eq!(
            contract.check_bytes(text.as_bytes()).is_ok(),
            valid,
            "{text}"
        );
    }
}

/// No object that names a member twice is vouched for, wherever it is (under a schema's
/// properties, under `additionalProperties`, in a value any schema accepts) and however
/// many names it has, while the same bodies with distinct names are.
#[test]
fn a_member_named_twice_is_never_vouched_for() {
    let many = |last: &str| {
        let mut members: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        members.push(format!("\"{last}\":0"));
        format!("{{{}}}", members.join(","))
    };
    let schemas = [
        json!(true),
        json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        json!({"type": "object", "additionalProperties": {"type": ["object", "integer", "array"]}}),
    ];
    let cases = [
        (r#"{"a":1,"a":1}"#.to_owned(), r#"{"a":1,"b":1}"#.to_owned()),
        (
            r#"{"x":{"b":1,"b":2}}"#.to_owned(),
            r#"{"x":{"b":1,"c":2}}"#.to_owned(),
        ),
        (
            r#"{"x":[{"b":1},{"c":1,"c":1}]}"#.to_owned(),
            r#"{"x":[{"b":1},{"b":1}]}"#.to_owned(),
        ),
        // Nested objects' names are their own: an inner name may repeat an outer one.
        (
            r#"{"n":{"n":{"n":1},"b":2,"b":3}}"#.to_owned(),
            r#"{"n":{"n":{"n":1},"b":2}}"#.to_owned(),
        ),
        // An object of more names than are compared one by one.
        (many("k7"), many("k40")),
        // A name written with an escape spells the same name.
        (
            r#"{"a":1,"\u0061":1}"#.to_owned(),
            r#"{"a":1,"\u0062":1}"#.to_owned(),
        ),
    ];
    for schema in &schemas {
        let check = ReadCheck::compile(schema, None).expect("decided keywords only");
        for (repeated, distinct) in &cases {
            assert!(
                !check.vouches_for(repeated.as_bytes()),
                "{schema}: {repeated}"
            );
            assert!(
                check.vouches_for(distinct.as_bytes()),
                "{schema}: {distinct}"
            );
        }
    }
}

/// `value` as compact JSON, with the first member of its `nth` object (in the order
/// they open) written twice: the second time with its name spelled with escapes when
/// `escaped`, so only a reader that decodes names sees the repeat.
fn with_a_repeat(value: &Value, nth: usize, escaped: bool) -> String {
    fn name(text: &str, escaped: bool) -> String {
        if !escaped {
            return serde_json::to_string(text).expect("serialises");
        }
        let spelled: String = text
            .encode_utf16()
            .map(|unit| format!("\\u{unit:04x}"))
            .collect();
        format!("\"{spelled}\"")
    }
    fn write(value: &Value, nth: usize, escaped: bool, seen: &mut usize, out: &mut String) {
        match value {
            Value::Object(members) => {
                let here = *seen;
                *seen += 1;
                out.push('{');
                for (i, (key, member)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&name(key, false));
                    out.push(':');
                    write(member, nth, escaped, seen, out);
                    if i == 0 && here == nth {
                        out.push(',');
                        out.push_str(&name(key, escaped));
                        out.push(':');
                        out.push_str(&member.to_string());
                    }
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, nth, escaped, seen, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, nth, escaped, &mut 0, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A member named twice anywhere — a name of the schema's `properties` or not, spelled
    /// the same or with escapes — is never vouched for, as the full reading refuses it.
    #[test]
    fn never_vouches_for_a_generated_document_that_repeats_a_name(seed in 1u64.., nth in 0usize..6, escaped: bool) {
        let mut c = Choices(seed);
        let schema = gen_root(&mut c);
        let check = ReadCheck::compile(&schema, None).expect("only decided keywords were generated");
        let instance = gen_instance(&schema, &schema, &mut c, 5);
        let text = with_a_repeat(&instance, nth, escaped);
        let (_, repeated) = crate::borrowed::Doc::parse_noting_repeats(text.as_bytes())
            .expect("still JSON");
        if repeated {
            prop_assert!(!check.vouches_for(text.as_bytes()), "schema {} document {}", schema, text);
            prop_assert!(check.vouch(text.as_bytes()).is_none(), "{}", text);
        } else {
            // No object to repeat in: the same document as before.
            prop_assert_eq!(check.vouches_for(text.as_bytes()), judge(&schema, text.as_bytes()));
        }
    }
}

/// The names of a schema's `properties` are told apart by their place in the schema, the
/// others by comparing them: on both sides of that line (the 64th name, names past it,
/// names outside the schema), with escapes, other scripts and numbers at the edges of
/// their bounds, the check vouches exactly where the full reading accepts.
#[test]
fn names_of_the_schema_and_others_are_judged_alike() {
    let mut properties = serde_json::Map::new();
    for i in 0..70 {
        properties.insert(format!("p{i}"), json!({"type": "integer"}));
    }
    properties.insert("é".into(), json!({"type": "string"}));
    properties.insert("a\"b".into(), json!({"type": "string"}));
    properties.insert("中文".into(), json!({"type": ["string", "null"]}));
    properties.insert(
        "bounded".into(),
        json!({"type": "number", "minimum": -1, "maximum": 9007199254740992_u64}),
    );
    properties.insert("nested".into(), json!({"$ref": "#"}));
    properties.insert("plain".into(), json!({"type": "string"}));
    properties.insert("short".into(), json!({"type": "string", "maxLength": 2}));
    properties.insert("free".into(), json!({}));
    let schema = json!({
        "type": "object",
        "required": ["p0", "p63", "p64"],
        "properties": properties,
        "additionalProperties": {"type": ["integer", "object"]}
    });
    let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
    let base = r#""p0":1,"p63":1,"p64":1"#;
    let deep = |inner: &str| {
        let mut text = format!("{{{base},{inner}}}");
        for _ in 0..60 {
            text = format!("{{{base},\"nested\":{text}}}");
        }
        text
    };
    let cases = [
        // Names of the schema: the first, at the bits' edge, past it.
        format!(r#"{{{base},"p0":2}}"#),
        format!(r#"{{{base},"p62":1,"p62":1}}"#),
        format!(r#"{{{base},"p63":2}}"#),
        format!(r#"{{{base},"p64":2}}"#),
        format!(r#"{{{base},"p69":1,"p68":1,"p69":1}}"#),
        format!(r#"{{{base},"p62":1,"p65":1,"p66":1}}"#),
        // Spelled with escapes, and in other scripts.
        format!(r#"{{{base},"\u0070\u0030":1}}"#),
        format!(r#"{{{base},"\u0070\u0036\u0035":1,"p65":1}}"#),
        format!(r#"{{{base},"é":"x","\u00e9":"y"}}"#),
        format!(r#"{{{base},"a\"b":"x","a\u0022b":"y"}}"#),
        format!(r#"{{{base},"中文":null,"\u4e2d\u6587":"z"}}"#),
        format!(r#"{{{base},"é":"x","a\"b":"y","中文":"z"}}"#),
        // Names outside the schema, among the schema's and alone.
        format!(r#"{{{base},"x":1,"p1":1,"x":2}}"#),
        format!(r#"{{{base},"x":1,"p1":1,"y":2}}"#),
        format!(r#"{{{base},"p00":1,"p0 ":1,"P0":1}}"#),
        format!(r#"{{{base},"x":1,"\u0078":1}}"#),
        // Numbers at the edges of a bound and of exact comparison.
        format!(r#"{{{base},"bounded":-1}}"#),
        format!(r#"{{{base},"bounded":-1.0000000001}}"#),
        format!(r#"{{{base},"bounded":9007199254740992}}"#),
        format!(r#"{{{base},"bounded":9007199254740993}}"#),
        format!(r#"{{{base},"bounded":1e308}}"#),
        format!(r#"{{{base},"bounded":-0}}"#),
        format!(r#"{{{base},"p1":18446744073709551615}}"#),
        format!(r#"{{{base},"p1":-9223372036854775808}}"#),
        // Strings no rule reads are read to their end, not decoded: the same escapes
        // are accepted and refused as where a rule reads them.
        format!(r#"{{{base},"plain":"\u00e9\n\"\\\/\t","short":"\u00e9\n"}}"#),
        format!(r#"{{{base},"plain":"\ud83d\ude00","short":"\ud83d\ude00"}}"#),
        format!(r#"{{{base},"short":"\ud83d\ude00\u0041"}}"#),
        format!(r#"{{{base},"plain":"\ud83d"}}"#),
        format!(r#"{{{base},"plain":"\ud83dx"}}"#),
        format!(r#"{{{base},"plain":"\udc00"}}"#),
        format!(r#"{{{base},"plain":"\ud83d\u0041"}}"#),
        format!(r#"{{{base},"plain":"\u00g0"}}"#),
        format!(r#"{{{base},"plain":"\x"}}"#),
        format!(r#"{{{base},"plain":"a\u0001b"}}"#),
        format!("{{{base},\"plain\":\"a\u{1}b\"}}"),
        format!(r#"{{{base},"plain":"unterminated\"}}"#),
        format!(r#"{{{base},"free":["\ud83d\ude00",{{"k":"\u0041\""}},"\u20ac"]}}"#),
        format!(r#"{{{base},"free":["\ud800"]}}"#),
        format!(r#"{{{base},"free":{{"\u0041":"\"","A":1}}}}"#),
        // A repeat, and none, sixty objects down.
        deep(r#""p5":1,"p5":1"#),
        deep(r#""p5":1,"p6":1"#),
        deep(r#""z":1,"z":{}"#),
        // A required name written twice does not stand for a missing one.
        r#"{"p0":1,"p0":1,"p63":1}"#.to_owned(),
    ];
    for case in &cases {
        assert_eq!(
            check.vouches_for(case.as_bytes()),
            judge_reading(&schema, case.as_bytes()),
            "{case}"
        );
    }
    // The cases hold both verdicts.
    let vouched = cases
        .iter()
        .filter(|c| check.vouches_for(c.as_bytes()))
        .count();
    assert!(
        vouched > 5 && vouched < cases.len() - 5,
        "{vouched} vouched for"
    );
}

/// The full reading's verdict: one JSON document, naming no member twice, that the
/// validator accepts.
fn judge_reading(schema: &Value, bytes: &[u8]) -> bool {
    let repeated = crate::borrowed::Doc::parse_noting_repeats(bytes).is_ok_and(|(_, r)| r);
    !repeated && judge(schema, bytes)
}

/// `bench/run`'s contract: a result of seven names, one of them an object of three.
fn search_result_schema() -> Value {
    json!({
        "type": "object",
        "required": ["title", "url"],
        "properties": {
            "title": {"type": "string"},
            "url": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "source": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "rank": {"type": "integer"}}
            }
        },
        "additionalProperties": {"type": "integer"}
    })
}

#[test]
fn an_object_written_in_its_schemas_order_is_checked_without_reading_its_names() {
    let schema = search_result_schema();
    let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
    let body = br#"[{"title":"a","url":"b","tags":["x"],"source":{"name":"n","rank":1}},
        {"title":"c","url":"d","tags":[],"source":{"name":"m","rank":2}}]"#;
    let list = json!({"type": "array", "items": schema});
    let check_list = ReadCheck::compile(&list, None).expect("decided keywords only");
    assert_eq!(check_list.names_read(body), (true, 0));
    // A name the guess misses (outside the schema, or in another order) is read, and
    // so is every name after it in that object: the next object guesses again.
    let with_other = br#"[{"title":"a","n":1,"url":"b","tags":[]},{"title":"c","url":"d"}]"#;
    assert_eq!(check_list.names_read(with_other), (true, 3));
    let shuffled = br#"{"url":"b","title":"a"}"#;
    assert_eq!(check.names_read(shuffled), (true, 2));
}

#[test]
fn a_name_met_where_the_schema_expects_it_is_judged_as_when_read() {
    let schema = search_result_schema();
    let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
    let cases = [
        // In the schema's order, with space around names and colons.
        r#"{"title":"a","url":"b"}"#,
        " { \"title\" : \"a\" ,\n\t\"url\"\r: \"b\" } ",
        // The expected name spelled with an escape, longer, shorter, or another case.
        r#"{"t\u0069tle":"a","url":"b"}"#,
        r#"{"titles":1,"title":"a","url":"b"}"#,
        r#"{"titl":1,"title":"a","url":"b"}"#,
        r#"{"Title":1,"title":"a","url":"b"}"#,
        r#"{"title":"a","urls":1,"url":"b"}"#,
        // Expected, then written again, or again with an escape.
        r#"{"title":"a","title":"a","url":"b"}"#,
        r#"{"title":"a","t\u0069tle":"a","url":"b"}"#,
        r#"{"title":"a","url":"b","title":"c"}"#,
        // Its value of the wrong kind; a required name missing.
        r#"{"title":1,"url":"b"}"#,
        r#"{"title":"a","tags":["x"]}"#,
        // Broken JSON right after an expected name.
        r#"{"title" "a","url":"b"}"#,
        r#"{"title""#,
        r#"{"title"#,
        r#"{"title":"a","url"}"#,
        r#"{"title":"a","url":"b","#,
    ];
    for case in cases {
        let bytes = case.as_bytes();
        assert_eq!(
            check.vouches_for(bytes),
            judge_reading(&schema, bytes),
            "{case}"
        );
        if let Some(sites) = check.vouch(bytes) {
            assert_eq!(sites.offsets(), to_escape(bytes), "{case}");
        }
    }
}

/// A score between 0 and 1, the commonest bounded number in an answer.
fn unit_score_schema() -> Value {
    json!({"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}})
}

#[test]
fn a_fraction_whose_whole_part_settles_its_bounds_is_judged_without_being_read() {
    let check = ReadCheck::compile(&unit_score_schema(), None).expect("decided keywords only");
    // Between 0 and 1 whatever its digits: even one that rounds up to 1.0 is within.
    let within = br#"[0.5,0.9999,0.99999999999999999999,0.0]"#;
    assert_eq!(check.numbers_read(within), (true, 0));
    // A whole part the bounds do not settle, an exponent, a sign or an integer: read.
    for (body, vouched) in [
        (&b"[1.5]"[..], false),
        (b"[1.0]", true),
        (b"[-0.5]", false),
        (b"[-0.0]", true),
        (b"[5e-1]", true),
        (b"[1]", true),
    ] {
        let (judged, read) = check.numbers_read(body);
        assert_eq!(judged, vouched, "{}", String::from_utf8_lossy(body));
        assert_eq!(judged, judge(&unit_score_schema(), body));
        assert_eq!(read, 1, "{}", String::from_utf8_lossy(body));
    }
}

/// A number's token as an upstream may write it: whole parts at the edges of what the
/// check settles without reading (none, one, fifteen and sixteen digits), fractions of
/// every length, long runs of nines that round up, signs and exponents.
fn fraction_token() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "-"]),
        prop::sample::select(vec![
            "0",
            "1",
            "2",
            "9",
            "10",
            "999999999999999",
            "1000000000000000",
            "9007199254740993",
            "123456789012345678901234567890",
        ]),
        prop_oneof!["[0-9]{1,4}", "9{15,40}", "0{1,30}[1-9]?", "[0-9]{17,60}"],
        prop::sample::select(vec!["", "e0", "e-1", "E+2", "e400", "e-400"]),
    )
        .prop_map(|(sign, whole, fraction, exponent)| format!("{sign}{whole}.{fraction}{exponent}"))
}

fn number_bound() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        prop::sample::select(vec![
            json!(0),
            json!(1),
            json!(-1),
            json!(2),
            json!(10),
            json!(0.5),
            json!(-0.5),
            json!(9.999),
            json!(999999999999999_u64),
            json!(1000000000000000_u64),
            json!(9007199254740992_u64),
            json!(1e300),
        ])
        .prop_map(Some),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Fractions are judged against every kind of bound as the validator judges the
    /// value `serde_json` reads, whether or not the check reads them.
    #[test]
    fn fractions_are_judged_against_bounds_as_the_validator_judges_them(
        token in fraction_token(),
        integer in any::<bool>(),
        bounds in prop::array::uniform4(number_bound()),
    ) {
        let mut schema = json!({"type": if integer { "integer" } else { "number" }});
        for (key, bound) in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
            .into_iter()
            .zip(bounds)
        {
            if let Some(bound) = bound {
                schema[key] = bound;
            }
        }
        // Every token here has a fraction or an exponent, so `serde_json` reads a float,
        // which the check never vouches for under `integer` (the full check decides).
        let list = json!({"type": "array", "items": schema.clone()});
        for (schema, body) in [(&schema, token.clone()), (&schema, format!(" {token}\n")), (&list, format!("[{token},{token}]"))] {
            let check = ReadCheck::compile(schema, None).expect("decided keywords only");
            prop_assert_eq!(
                check.vouches_for(body.as_bytes()),
                judge(schema, body.as_bytes()) && !integer,
                "{} against {}", body, schema
            );
        }
    }
}

/// An object's names are expected in the order its schema's `properties` declares them,
/// even when the schema lists `required` first: a body written in the declared order
/// reads none of its names, its optional ones included, and is judged as before.
#[test]
fn names_are_expected_in_declared_order_when_required_is_listed_first() {
    let schema = json!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["id", "text"],
            "properties": {
                "id": {"type": "string"},
                "score": {"type": "integer"},
                "text": {"type": "string"}
            }
        }
    });
    let check = ReadCheck::compile(&schema, None).expect("decided keywords only");
    let body = br#"[{"id":"a","score":1,"text":"t"},{"id":"b","score":2,"text":"u"}]"#;
    assert_eq!(check.names_read(body), (true, 0));
    for case in [
        &br#"[{"id":"a","text":"t"}]"#[..],
        br#"[{"score":1,"text":"t"}]"#,
        br#"[{"text":"t","id":"a","score":"1"}]"#,
        br#"[{"id":"a","score":1,"text":"t","id":"b"}]"#,
    ] {
        assert_eq!(
            check.vouches_for(case),
            judge_reading(&schema, case),
            "{}",
            String::from_utf8_lossy(case)
        );
    }
}
