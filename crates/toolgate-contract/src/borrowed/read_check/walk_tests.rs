//! The walk's shortcuts (a string read to its end at once where its schema only takes
//! strings) against the general step: the same verdicts and escape sites, on the edges
//! a shortcut could get wrong and on generated schemas and documents.

use super::ReadCheck;
use crate::borrowed::choices::Choices;
use crate::borrowed::read_check::tests::{gen_instance, gen_root};
use crate::borrowed::scan::tests::to_escape;
use proptest::prelude::*;
use serde_json::{Value, json};

fn compiled(schema: &Value) -> ReadCheck {
    ReadCheck::compile(schema, None).expect("the schema is decided while reading")
}

/// The check with its shortcuts and without them say the same of `bytes`: the verdict,
/// both ways of asking, and the escape sites noted.
fn same_as_general_step(schema: &Value, bytes: &[u8]) -> bool {
    let fast = compiled(schema);
    let general = compiled(schema).without_shortcuts();
    let verdict = fast.vouches_for(bytes);
    assert_eq!(verdict, general.vouches_for(bytes), "{schema} {bytes:?}");
    let sites = fast.vouch(bytes).map(|s| s.offsets().to_vec());
    assert_eq!(
        sites,
        general.vouch(bytes).map(|s| s.offsets().to_vec()),
        "{schema} {bytes:?}"
    );
    if let Some(sites) = sites {
        assert_eq!(sites, to_escape(bytes));
    }
    verdict
}

fn search_result_schema() -> Value {
    json!({
        "type": "object",
        "required": ["title", "score"],
        "properties": {
            "title": {"type": "string"},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "published": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "source": {"$ref": "#/$defs/source"}
        },
        "$defs": {"source": {"type": "object", "properties": {"name": {"type": "string"}}}}
    })
}

#[test]
fn strings_a_schema_only_types_are_read_without_the_general_step() {
    let check = compiled(&search_result_schema());
    let body =
        br#"{"title":"A","score":0.5,"published":"2026","tags":["a","b"],"source":{"name":"n"}}"#;
    // The object, the score, the tags array and the source object take the step; the
    // five strings do not.
    assert_eq!(check.values_stepped(body), (true, 4));
    let general = compiled(&search_result_schema()).without_shortcuts();
    assert_eq!(general.values_stepped(body), (true, 9));
}

#[test]
fn a_value_of_another_kind_where_only_strings_are_taken_is_refused() {
    let schema = search_result_schema();
    for (body, vouched) in [
        (&br#"{"title":"A","score":1}"#[..], true),
        (br#"{"title":1,"score":1}"#, false),
        (br#"{"title":null,"score":1}"#, false),
        (br#"{"title":["A"],"score":1}"#, false),
        (br#"{"title":{},"score":1}"#, false),
        (br#"{"title":"A","score":"1"}"#, false),
        (br#"{"title":"A","score":1,"published":null}"#, true),
        (br#"{"title":"A","score":1,"published":true}"#, false),
        (br#"{"title":"A","score":1,"tags":["a",1]}"#, false),
        (br#"{"title":"A","score":1,"tags":["a",null]}"#, false),
        (
            br#"{"title":"A","score":1,"tags":["a","b\u00e9\"\\"]}"#,
            true,
        ),
        (br#"{"title":"A","score":1,"tags":["a","b]}"#, false),
        (b"{\"title\":\"A\x01\",\"score\":1}", false),
        (
            b"{ \"title\" : \n \"A\" , \"score\" : 1 , \"tags\" : [ \"a\" ,\t\"b\" ] }",
            true,
        ),
    ] {
        assert_eq!(
            same_as_general_step(&schema, body),
            vouched,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn strings_whose_text_a_rule_reads_still_take_the_general_step() {
    let schema = json!({"type": "object", "properties": {
        "short": {"type": "string", "maxLength": 2},
        "kind": {"enum": ["a", "b"]},
        "plain": {"type": "string"}
    }});
    let check = compiled(&schema);
    assert_eq!(
        check.values_stepped(br#"{"short":"ab","kind":"a","plain":"x"}"#),
        (true, 3)
    );
    for (body, vouched) in [
        (&br#"{"short":"abc"}"#[..], false),
        (br#"{"short":"\u00e9\u00e9"}"#, true),
        (br#"{"kind":"c"}"#, false),
        (br#"{"kind":"\u0062"}"#, true),
    ] {
        assert_eq!(
            same_as_general_step(&schema, body),
            vouched,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn nested_and_empty_arrays_and_objects_decide_as_the_general_step() {
    let schema = json!({"type": "object", "properties": {
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
        "any": {},
        "open": {"type": "object"}
    }});
    for (body, vouched) in [
        (&br#"{"grid":[["a"],["b","c"],[]]}"#[..], true),
        (br#"{"grid":[]}"#, true),
        (br#"{"grid":["a"]}"#, false),
        (br#"{"grid":[[["a"]]]}"#, false),
        (br#"{"grid":[["a",]]}"#, false),
        (br#"{"any":"x","open":{}}"#, true),
        (br#"{"any":["x",{"y":"z"}],"open":{"k":"v"}}"#, true),
        (br#"{"open":"x"}"#, false),
        (br#"{}"#, true),
        (br#"{"grid":[[]],}"#, false),
    ] {
        assert_eq!(
            same_as_general_step(&schema, body),
            vouched,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

/// Strings do not step into a list, so the deepest list the check reads (100 deep)
/// holds a string as any other value, and one more level is left to the full check.
#[test]
fn a_string_at_the_depth_limit_is_read_and_one_list_deeper_is_not_vouched_for() {
    let schema = json!({
        "$defs": {"nest": {"type": ["array", "string"], "items": {"$ref": "#/$defs/nest"}}},
        "$ref": "#/$defs/nest"
    });
    let nested = |depth: usize| format!("{}\"x\"{}", "[".repeat(depth), "]".repeat(depth));
    assert!(same_as_general_step(&schema, nested(100).as_bytes()));
    assert!(!same_as_general_step(&schema, nested(101).as_bytes()));
}

#[test]
fn a_repeated_name_or_an_unknown_one_in_a_closed_object_is_refused() {
    let closed = json!({"type": "object", "additionalProperties": false,
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
    for (body, vouched) in [
        (&br#"{"a":"x","b":"y"}"#[..], true),
        (br#"{"a":"x","a":"y"}"#, false),
        (br#"{"b":"x","a":"y","b":"z"}"#, false),
        (br#"{"a":"x","c":"y"}"#, false),
    ] {
        assert_eq!(
            same_as_general_step(&closed, body),
            vouched,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
    // A name only `required` lists takes `additionalProperties`' schema.
    let extra_strings = json!({"type": "object", "required": ["r"],
        "additionalProperties": {"type": "string"}});
    for (body, vouched) in [
        (&br#"{"r":"x"}"#[..], true),
        (br#"{"r":1}"#, false),
        (br#"{"r":"x","s":"y"}"#, true),
        (br#"{"r":"x","s":"y","s":"z"}"#, false),
    ] {
        assert_eq!(
            same_as_general_step(&extra_strings, body),
            vouched,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn strings_through_aliases_and_picks_by_kind_decide_as_the_general_step() {
    let schema = json!({"type": "object", "properties": {
        "named": {"$ref": "#/$defs/a"},
        "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "listed": {"oneOf": [{"type": "array"}, {"type": "string", "minLength": 2}]},
        "numbers": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    }, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "string"}}});
    for (body, vouched) in [
        (&br#"{"named":"x","maybe":"y","listed":"zz"}"#[..], true),
        (br#"{"named":1}"#, false),
        (br#"{"maybe":null}"#, true),
        (br#"{"maybe":1}"#, false),
        (br#"{"listed":"z"}"#, false),
        (br#"{"numbers":"1"}"#, false),
    ] {
        assert_eq!(
            same_as_general_step(&schema, body),
            vouched,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

/// The general step follows at most 32 aliases in a row; a string at the end of a longer
/// chain is not vouched for by the shortcut either.
#[test]
fn a_string_past_a_chain_of_aliases_longer_than_the_check_follows_is_not_vouched_for() {
    let chain = |links: usize| {
        let mut defs = serde_json::Map::new();
        for i in 0..links {
            defs.insert(
                format!("a{i}"),
                json!({"$ref": format!("#/$defs/a{}", i + 1)}),
            );
        }
        defs.insert(format!("a{links}"), json!({"type": "string"}));
        json!({"type": "array", "items": {"$ref": "#/$defs/a0"}, "$defs": defs})
    };
    assert!(same_as_general_step(&chain(3), br#"["x"]"#));
    assert!(!same_as_general_step(&chain(40), br#"["x"]"#));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_walks_shortcuts_decide_as_its_general_step_on_generated_documents(
        seed in 1u64..,
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        broken: bool,
    ) {
        let mut c = Choices(seed);
        let schema = gen_root(&mut c);
        let instance = gen_instance(&schema, &schema, &mut c, 5);
        let mut bytes = if c.one_in(2) {
            serde_json::to_vec(&instance)
        } else {
            serde_json::to_vec_pretty(&instance)
        }
        .expect("serialises");
        if broken {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        same_as_general_step(&schema, &bytes);
    }
}
