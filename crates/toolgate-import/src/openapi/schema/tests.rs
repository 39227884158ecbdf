use super::*;

/// `doc` written as `spec.json` in a directory of its own under the temporary one,
/// named after `tag`: the directory (to remove after) and the file.
fn spec_file(tag: &str, doc: &Value) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "{tag}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spec.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    (dir, file)
}

fn convert_in(dialect: Dialect, side: Side, doc: Value, pointer: &str) -> Value {
    let (dir, file) = spec_file("toolgate-schema", &doc);
    let mut refs = Refs::default();
    let (root, d) = refs.root(&file).unwrap();
    let node = d.pointer(pointer).unwrap().clone();
    let (out, warnings) = Converter::new(&mut refs, dialect, side).root(&root, &node);
    assert!(warnings.is_empty(), "{warnings:?}");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn convert(dialect: Dialect, side: Side, schema: Value) -> Value {
    convert_in(dialect, side, json!({ "s": schema }), "/s")
}

fn valid(schema: &Value, instance: Value) -> bool {
    jsonschema::draft202012::new(schema)
        .unwrap()
        .is_valid(&instance)
}

#[test]
fn a_shared_set_is_looked_at_once_per_definition_however_many_operations_share_it() {
    let doc = json!({"components": {"schemas": {
        "Loop1": {"$ref": "#/components/schemas/Loop2"},
        "Loop2": {"$ref": "#/components/schemas/Loop1"},
        "Item": {"type": "object", "properties": {"l": {"$ref": "#/components/schemas/Loop1"}}},
        "Other": {"type": "string"},
    }}});
    let (dir, file) = spec_file("toolgate-schema-shared", &doc);
    let mut refs = Refs::default();
    let (root, _) = refs.root(&file).unwrap();
    let mut shared = BTreeMap::new();
    let item = json!({"$ref": "#/components/schemas/Item"});
    let other = json!({"$ref": "#/components/schemas/Other"});
    let (_, first) = Converter::new(&mut refs, Dialect::Oas30, Side::Response).shared_root(
        &mut shared,
        &root,
        &item,
    );
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(shared["Loop1"], json!(true));
    assert_eq!(shared["Loop2"], json!(true));
    // Later operations neither report the loop again nor walk what is converted.
    for schema in [&item, &other, &item] {
        let (out, again) = Converter::new(&mut refs, Dialect::Oas30, Side::Response).shared_root(
            &mut shared,
            &root,
            schema,
        );
        assert!(again.is_empty(), "{again:?}");
        assert!(out.get("$ref").is_some());
    }
    assert_eq!(shared.len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nullable_in_3_0_and_x_nullable_in_2_0() {
    let s = convert(
        Dialect::Oas30,
        Side::Response,
        json!({"type": "string", "nullable": true}),
    );
    assert_eq!(s, json!({"type": ["string", "null"]}));
    let s = convert(
        Dialect::Swagger2,
        Side::Response,
        json!({"type": "string", "enum": ["a"], "x-nullable": true}),
    );
    assert!(valid(&s, Value::Null) && valid(&s, json!("a")) && !valid(&s, json!("b")));
    // `nullable` means nothing in 2.0, and a typeless nullable is wrapped.
    let s = convert(
        Dialect::Swagger2,
        Side::Response,
        json!({"type": "integer", "nullable": true}),
    );
    assert!(!valid(&s, Value::Null));
    let s = convert(
        Dialect::Oas30,
        Side::Response,
        json!({"allOf": [{"type": "object"}], "nullable": true}),
    );
    assert!(valid(&s, Value::Null) && valid(&s, json!({})) && !valid(&s, json!(1)));
}

#[test]
fn boolean_exclusive_bounds_become_numeric() {
    let s = convert(
        Dialect::Oas30,
        Side::Response,
        json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 10, "exclusiveMaximum": false}),
    );
    assert_eq!(
        s,
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": 10})
    );
    assert!(!valid(&s, json!(0)) && valid(&s, json!(10)));
}

#[test]
fn closed_objects_stay_closed_in_requests_and_open_in_responses() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}});
    let req = convert(Dialect::Swagger2, Side::Request, schema.clone());
    assert!(!valid(&req, json!({"a": "x", "b": 1})));
    let resp = convert(Dialect::Swagger2, Side::Response, schema);
    assert!(valid(&resp, json!({"a": "x", "b": 1})));
    assert!(!valid(&resp, json!({"a": 1})));
}

#[test]
fn objects_closed_by_unevaluated_properties_are_open_in_responses_too() {
    // OpenAPI 3.1's own closing keyword (the Train Travel API's payment `source`, whose
    // `cvc` is write-only: left out of the response schema, so a documented response
    // holding it was refused), read as `additionalProperties: false` is.
    let schema = json!({"type": "object", "unevaluatedProperties": false, "properties": {
        "a": {"type": "string"}, "cvc": {"type": "integer", "writeOnly": true}}});
    let req = convert(Dialect::Oas31, Side::Request, schema.clone());
    assert!(!valid(&req, json!({"a": "x", "b": 1})));
    let resp = convert(Dialect::Oas31, Side::Response, schema);
    assert!(
        valid(&resp, json!({"a": "x", "cvc": 123, "b": 1})),
        "{resp}"
    );
    assert!(!valid(&resp, json!({"a": 1})));
}

#[test]
fn a_default_of_another_type_is_read_as_the_schemas_type_or_left_out() {
    let s = convert(
        Dialect::Oas30,
        Side::Request,
        json!({"type": "object", "properties": {
            "green": {"type": "boolean", "default": "1"},
            "oneway": {"type": "boolean", "default": "false"},
            "limit": {"type": "integer", "default": "100"},
            "ratio": {"type": "number", "default": "0.5"},
            "code": {"type": "string", "default": 7},
        }}),
    );
    let p = &s["properties"];
    assert_eq!(p["green"]["default"], true);
    assert_eq!(p["oneway"]["default"], false);
    assert_eq!(p["limit"]["default"], 100);
    assert_eq!(p["ratio"]["default"], 0.5);
    assert_eq!(p["code"]["default"], "7");
    // No reading as the type: left out (with a warning).
    assert_eq!(default_of_type("integer", &json!("fast")), Some(None));
    assert_eq!(default_of_type("integer", &json!(3)), None);
}

#[test]
fn a_format_name_written_as_the_pattern_is_that_format() {
    let doc = json!({"s": {"type": "object", "properties": {
        "since": {"type": "string", "pattern": "date-time"},
        "day": {"type": "string", "pattern": "date", "format": "date"},
        "code": {"type": "string", "pattern": "^[a-z]+$"},
    }}});
    let dir = std::env::temp_dir().join(format!("toolgate-format-pattern-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spec.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let mut refs = Refs::default();
    let (root, d) = refs.root(&file).unwrap();
    let node = d.pointer("/s").unwrap().clone();
    let (s, warnings) = Converter::new(&mut refs, Dialect::Oas30, Side::Request).root(&root, &node);
    let _ = std::fs::remove_dir_all(&dir);
    // Read as a regular expression, `date-time` refuses every real timestamp.
    assert!(
        valid(
            &s,
            json!({"since": "2025-10-15T13:51:08.378Z", "day": "2025-10-15"})
        ),
        "{s}"
    );
    assert_eq!(s["properties"]["since"]["format"], "date-time");
    assert!(s["properties"]["day"].get("pattern").is_none());
    assert_eq!(s["properties"]["code"]["pattern"], "^[a-z]+$");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("read as `format: date-time`")),
        "{warnings:?}"
    );
}

#[test]
fn unusable_patterns_are_dropped_and_unusable_schemas_replaced() {
    let compiles = |s: &Value| {
        jsonschema::draft202012::new(s)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let (s, notes) = usable(
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}, "b": {"type": "string", "pattern": "^x$"}}}),
        compiles,
        json!({}),
    );
    assert!(s["properties"]["a"].get("pattern").is_none());
    assert_eq!(s["properties"]["b"]["pattern"], "^x$");
    assert_eq!(notes.len(), 1, "{notes:?}");
    let (s, notes) = usable(json!({"type": 7}), compiles, json!({}));
    assert_eq!(s, json!({}));
    assert!(notes[0].contains("accepts anything"), "{notes:?}");
}

#[test]
fn a_loop_of_bare_refs_accepts_anything_instead_of_looping() {
    let doc = json!({"components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}}});
    let dir = std::env::temp_dir().join(format!("toolgate-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spec.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let mut refs = Refs::default();
    let (root, _) = refs.root(&file).unwrap();
    let (s, warnings) = Converter::new(&mut refs, Dialect::Oas31, Side::Response)
        .root(&root, &json!({"$ref": "#/components/schemas/A"}));
    assert!(!warnings.is_empty());
    assert!(valid(&s, json!({"anything": 1})), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn type_file_is_a_string() {
    let s = convert(Dialect::Swagger2, Side::Request, json!({"type": "file"}));
    assert_eq!(s["type"], "string");
}

#[test]
fn definitions_become_defs_and_recursion_stays_finite() {
    let doc = json!({
        "definitions": {
            "Node": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}}}
        }
    });
    let s = convert_in(Dialect::Swagger2, Side::Response, doc, "/definitions/Node");
    assert_eq!(s["properties"]["children"]["items"]["$ref"], "#/$defs/Node");
    assert_eq!(s["$defs"]["Node"]["required"], json!(["name"]));
    assert!(valid(
        &s,
        json!({"name": "a", "children": [{"name": "b", "children": []}]})
    ));
    assert!(!valid(
        &s,
        json!({"name": "a", "children": [{"children": []}]})
    ));
}

#[test]
fn all_of_is_kept_and_one_of_without_discriminator_tolerates_overlap() {
    let s = convert(
        Dialect::Oas30,
        Side::Response,
        json!({"allOf": [{"type": "object", "required": ["id"]}, {"required": ["name"]}]}),
    );
    assert!(!valid(&s, json!({"id": 1})) && valid(&s, json!({"id": 1, "name": "x"})));
    let s = convert(
        Dialect::Oas30,
        Side::Response,
        json!({"oneOf": [{"type": "object"}, {"type": "object", "required": ["id"]}]}),
    );
    assert!(valid(&s, json!({"id": 1})), "overlapping branches: {s}");
    assert!(!valid(&s, json!(3)));
}

#[test]
fn discriminator_pins_each_branch_to_its_tag() {
    let doc = json!({"components": {"schemas": {
        "Cat": {"type": "object", "properties": {"kind": {"type": "string"}, "meow": {"type": "boolean"}}},
        "Dog": {"type": "object", "properties": {"kind": {"type": "string"}, "bark": {"type": "boolean"}}},
        "Pet": {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat"}}}
    }}});
    let s = convert_in(
        Dialect::Oas30,
        Side::Response,
        doc,
        "/components/schemas/Pet",
    );
    // Both branches would accept any object; the tag chooses exactly one.
    assert!(valid(&s, json!({"kind": "cat", "meow": true})));
    assert!(
        valid(&s, json!({"kind": "Dog"})),
        "implicit mapping by name: {s}"
    );
    assert!(!valid(&s, json!({"kind": "fish"})));
    // Without the (optional) tag, matching both branches is no reason to refuse.
    assert!(valid(&s, json!({"meow": true})), "{s}");
}

#[test]
fn discriminator_without_mapping_reads_each_branch_tag_from_its_enum_or_const() {
    // As OpenAI's chat messages: `role` is the tag, each branch allows one value.
    let doc = json!({"components": {"schemas": {
        "UserMessage": {"type": "object", "required": ["role", "content"], "properties": {
            "role": {"type": "string", "enum": ["user"]}, "content": {"type": "string"}}},
        "ToolMessage": {"allOf": [{"type": "object", "required": ["role"], "properties": {
            "role": {"$ref": "#/components/schemas/ToolRole"}}}, {"required": ["tool_call_id"]}]},
        "ToolRole": {"type": "string", "const": "tool"},
        "Untagged": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "Message": {"oneOf": [{"$ref": "#/components/schemas/UserMessage"},
                              {"$ref": "#/components/schemas/ToolMessage"},
                              {"$ref": "#/components/schemas/Untagged"}],
                    "discriminator": {"propertyName": "role"}}
    }}});
    let s = convert_in(
        Dialect::Oas30,
        Side::Request,
        doc,
        "/components/schemas/Message",
    );
    assert!(valid(&s, json!({"role": "user", "content": "hi"})), "{s}");
    assert!(
        valid(&s, json!({"role": "tool", "tool_call_id": "c1"})),
        "{s}"
    );
    assert!(!valid(&s, json!({"role": "UserMessage", "content": "hi"})));
    // A branch that gives no value of its own keeps the schema's name.
    assert!(valid(&s, json!({"role": "Untagged"})));
    assert!(
        !valid(&s, json!({"role": "tool"})),
        "tool_call_id is required"
    );
}

#[test]
fn read_only_and_write_only_on_the_right_side() {
    let schema = json!({"type": "object", "required": ["id", "password", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true},
            "password": {"type": "string", "writeOnly": true},
            "name": {"type": "string"}}});
    let req = convert(Dialect::Oas30, Side::Request, schema.clone());
    assert!(req["properties"].get("id").is_none());
    assert_eq!(req["required"], json!(["password", "name"]));
    // A closed object keeps them allowed (not required): echoing one back is harmless.
    let mut closed = schema.clone();
    closed["additionalProperties"] = json!(false);
    let req = convert(Dialect::Oas30, Side::Request, closed);
    assert!(valid(&req, json!({"id": 1, "password": "p", "name": "n"})));
    assert!(valid(&req, json!({"password": "p", "name": "n"})));
    let resp = convert(Dialect::Oas30, Side::Response, schema);
    assert!(resp["properties"].get("password").is_none());
    assert_eq!(resp["required"], json!(["id", "name"]));
}

#[test]
fn an_enum_modelled_as_a_string_is_closed_in_requests_only() {
    // After Azure's `provisioningState` and metric `unit` (storagecache, sql-metrics):
    // their own response examples hold values the list does not.
    let open = |model_as_string: bool| {
        json!({"type": "object", "properties": {"state": {"type": "string",
                "enum": ["Succeeded", "Failed"],
                "x-ms-enum": {"name": "ProvisioningState", "modelAsString": model_as_string}}}})
    };
    let resp = convert(Dialect::Swagger2, Side::Response, open(true));
    assert!(valid(&resp, json!({"state": "Creating"})));
    assert!(!valid(&resp, json!({"state": 1})), "the type still holds");
    let req = convert(Dialect::Swagger2, Side::Request, open(true));
    assert!(!valid(&req, json!({"state": "Creating"})));
    assert!(valid(&req, json!({"state": "Failed"})));
    // `modelAsString: false` is a closed enum, on both sides.
    let resp = convert(Dialect::Oas30, Side::Response, open(false));
    assert!(!valid(&resp, json!({"state": "Creating"})));
}

#[test]
fn oas31_ref_siblings_are_kept_and_types_pass_through() {
    let doc = json!({"components": {"schemas": {"Id": {"type": ["string", "null"]},
            "X": {"type": "object", "properties": {"id": {"$ref": "#/components/schemas/Id", "maxLength": 3}}}}}});
    let s = convert_in(Dialect::Oas31, Side::Response, doc, "/components/schemas/X");
    assert!(valid(&s, json!({"id": null})) && valid(&s, json!({"id": "abc"})));
    assert!(!valid(&s, json!({"id": "abcd"})));
}

#[test]
fn a_definition_used_many_times_is_never_copied_to_be_looked_at_or_converted() {
    // A large component referred to from many properties: each use looks at it (is it
    // read-only? which tag does this branch pin?) and the first converts it, but none
    // may copy it, or an API whose components reach each other copies its whole graph
    // once per use.
    let uses = 40;
    let mut props = Map::new();
    for i in 0..uses {
        props.insert(format!("p{i}"), json!({"$ref": "#/components/schemas/Big"}));
    }
    let big_props: Map<String, Value> = (0..200)
        .map(|i| {
            (
                format!("f{i}"),
                json!({"type": "string", "description": "x"}),
            )
        })
        .collect();
    let doc = json!({"components": {"schemas": {
        "Big": {"type": "object", "properties": big_props,
                "allOf": [{"$ref": "#/components/schemas/Tagged"}]},
        "Tagged": {"type": "object", "properties": {"kind": {"$ref": "#/components/schemas/Kind"}}},
        "Kind": {"type": "string", "enum": ["big"]},
        "Holder": {"type": "object", "properties": props},
        "Choice": {"oneOf": [{"$ref": "#/components/schemas/Big"}, {"$ref": "#/components/schemas/Holder"}],
                   "discriminator": {"propertyName": "kind"}},
    }}});
    let (dir, file) = spec_file("toolgate-schema-copies", &doc);
    let mut refs = Refs::default();
    let (root, _) = refs.root(&file).unwrap();
    for side in [Side::Request, Side::Response] {
        let (out, warnings) = Converter::new(&mut refs, Dialect::Oas30, side).root(
            &root,
            &json!({"type": "array", "items": {"$ref": "#/components/schemas/Choice"}}),
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            out["$defs"]["Holder"]["properties"]
                .as_object()
                .unwrap()
                .len(),
            uses
        );
        assert_eq!(
            out["$defs"]["Choice"]["anyOf"][0]["allOf"][1]["properties"]["kind"]["enum"],
            json!(["big"])
        );
    }
    assert_eq!(refs.copies, 0, "definitions copied to be read");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bare_root_keeps_its_definition_only_when_a_ref_names_it() {
    // A text that merely contains the reference, quotes and all, is no use of it.
    let doc = json!({"components": {"schemas": {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
        "B": {"type": "string", "enum": ["x\"#/$defs/A", "#/$defs/Ab"]},
        "R": {"type": "object", "properties": {"again": {"$ref": "#/components/schemas/R"}}},
    }}});
    let a = convert_in(
        Dialect::Oas30,
        Side::Request,
        json!({"s": {"$ref": "#/components/schemas/A"}, "components": doc["components"]}),
        "/s",
    );
    assert_eq!(a["properties"]["b"]["$ref"], "#/$defs/B", "{a}");
    assert!(a["$defs"].get("A").is_none(), "{a}");
    assert!(a["$defs"].get("B").is_some(), "{a}");
    let r = convert_in(
        Dialect::Oas30,
        Side::Request,
        json!({"s": {"$ref": "#/components/schemas/R"}, "components": doc["components"]}),
        "/s",
    );
    assert_eq!(
        r["$defs"]["R"]["properties"]["again"]["$ref"], "#/$defs/R",
        "{r}"
    );
    assert!(valid(&r, json!({"again": {"again": {}}})));
}

#[test]
fn converters_sharing_conversions_convert_each_definition_once_and_give_the_same_schemas() {
    // Many operations whose bodies reach the same components (and the same problems
    // in them): converted once for the import, each tool's `$defs` and warnings are
    // what converting them for that tool alone gives.
    let doc = json!({"components": {"schemas": {
        "Base": {"type": "object", "properties": {"id": {"type": "string", "readOnly": true},
                 "n": {"type": "integer", "default": "seven"}}},
        "A": {"allOf": [{"$ref": "#/components/schemas/Base"}],
              "properties": {"b": {"$ref": "#/components/schemas/B"},
                             "gone": {"$ref": "#/components/schemas/Missing"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"},
              "c": {"type": "array", "items": {"$ref": "#/components/schemas/C"}}}},
        "C": {"type": "string", "pattern": "uuid", "minLength": "x"},
        "L1": {"$ref": "#/components/schemas/L2"},
        "L2": {"$ref": "#/components/schemas/L1"},
    }}});
    let (dir, file) = spec_file("toolgate-schema-conversions", &doc);
    let mut refs = Refs::default();
    let (root, _) = refs.root(&file).unwrap();
    let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
    let tools = [
        vec![r("A")],
        vec![r("B"), r("C")],
        vec![json!({"type": "array", "items": r("B")}), r("L1")],
        vec![r("C")],
        vec![r("A"), r("L2")],
    ];
    let convert_all = |refs: &mut Refs, conversions: Option<&mut Conversions>| {
        let mut out = Vec::new();
        let mut conversions = conversions;
        for parts in &tools {
            let mut conv = Converter::new(refs, Dialect::Oas30, Side::Request);
            if let Some(c) = conversions.as_deref_mut() {
                conv = conv.sharing(c);
            }
            let converted: Vec<Value> = parts.iter().map(|p| conv.part(&root, p)).collect();
            let (defs, warnings) = conv.finish();
            out.push((converted, defs, warnings));
        }
        out
    };
    let alone = convert_all(&mut refs, None);
    let mut conversions = Conversions::default();
    let shared = convert_all(&mut refs, Some(&mut conversions));
    assert_eq!(shared, alone);
    assert!(
        alone[0].2.iter().any(|w| w.contains("Missing")),
        "{:?}",
        alone[0].2
    );
    assert!(
        alone[2].2.iter().any(|w| w.contains("only refers")),
        "{:?}",
        alone[2].2
    );
    // Base, A, B, C, L1, L2: each once, however many tools reach it.
    assert_eq!(conversions.made, 6);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `S0: {$ref: S1}`, …, `S{n-1}: {type: string}`: a chain of `n` aliases, as converted
/// definitions.
fn alias_chain(n: usize) -> BTreeMap<String, Value> {
    (0..n)
        .map(|i| {
            let def = if i + 1 < n {
                json!({ "$ref": format!("#/$defs/S{}", i + 1) })
            } else {
                json!({ "type": "string" })
            };
            (format!("S{i}"), def)
        })
        .collect()
}

#[test]
fn a_long_chain_of_aliases_is_followed_once_not_once_per_link() {
    let n = 10_000;
    let mut defs = alias_chain(n);
    let mut warnings = Vec::new();
    let starts = (0..n).map(|i| format!("S{i}")).collect();
    let links = break_ref_loops(&mut defs, starts, &mut warnings);
    // Every link once: following the chain from each of its definitions took
    // n²/2 = 50 million.
    assert_eq!(links, n - 1);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(defs["S0"], json!({ "$ref": "#/$defs/S1" }));
    assert_eq!(defs[&format!("S{}", n - 1)], json!({ "type": "string" }));
}

#[test]
fn a_loop_at_the_end_of_a_long_chain_is_still_broken_whatever_the_order() {
    let n = 1_000;
    let mut defs = alias_chain(n);
    // The last definition refers back into the chain: S500 … S999 loop.
    defs.insert(format!("S{}", n - 1), json!({ "$ref": "#/$defs/S500" }));
    let mut warnings = Vec::new();
    // From the end first, so later walks meet definitions already walked.
    let starts = (0..n).rev().map(|i| format!("S{i}")).collect();
    let links = break_ref_loops(&mut defs, starts, &mut warnings);
    assert!(links <= 2 * n, "{links} links followed for {n} definitions");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    for i in 500..n {
        assert_eq!(defs[&format!("S{i}")], json!(true), "S{i}");
    }
    // The definitions before the loop lead into it: they refer to what now accepts
    // anything, and are kept as they are.
    assert_eq!(defs["S0"], json!({ "$ref": "#/$defs/S1" }));
}
