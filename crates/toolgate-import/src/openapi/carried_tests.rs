//! What a description says beyond types, carried into the tool the way a model and the
//! argument check need it: the 2020-12 keywords that refuse arguments, members hidden
//! on one side through `allOf`, deprecation as the standard and vendors write it (with
//! dates), and the name a description gives its body.

use serde_json::{Value, json};

use super::directory_tests::{check, import_and_check};

fn api(version: &str, paths: Value, components: Value) -> Value {
    json!({
        "openapi": version,
        "info": {"title": "Carried", "version": "1.0"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
        "components": components,
    })
}

fn ok() -> Value {
    json!({"200": {"description": "ok"}})
}

/// A POST taking `schema` as its JSON body.
fn post(schema: Value) -> Value {
    json!({"/things": {"post": {"operationId": "create_thing",
        "requestBody": {"required": true, "content": {"application/json": {"schema": schema}}},
        "responses": ok()}}})
}

/// Whether the checked config's `tool` takes `args`.
fn takes(yaml: &str, tool: &str, args: Value) -> bool {
    let config = check(yaml).unwrap_or_else(|e| panic!("check: {e}\n{yaml}"));
    config.tools[tool].input_validator.is_valid(&args)
}

fn description(doc: &Value, tool: &str) -> String {
    doc["tools"][tool]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn dependent_required_and_contains_bounds_refuse_the_arguments_the_description_refuses() {
    let (out, _) = import_and_check(&api(
        "3.1.0",
        post(json!({"type": "object", "properties": {
            "card": {"type": "object",
                "properties": {"number": {"type": "string"}, "cvc": {"type": "string"}},
                "dependentRequired": {"number": ["cvc"]}},
            "tags": {"type": "array", "items": {"type": "string"},
                "contains": {"const": "main"}, "minContains": 1, "maxContains": 1},
        }})),
        json!({}),
    ));
    let y = &out.yaml;
    assert!(
        takes(
            y,
            "create_thing",
            json!({"body": {"card": {"number": "4242", "cvc": "123"}, "tags": ["main", "x"]}})
        ),
        "{y}"
    );
    assert!(
        !takes(
            y,
            "create_thing",
            json!({"body": {"card": {"number": "4242"}}})
        ),
        "a number without its cvc: {y}"
    );
    assert!(
        !takes(
            y,
            "create_thing",
            json!({"body": {"tags": ["main", "main"]}})
        ),
        "`main` twice: {y}"
    );
}

#[test]
fn a_read_only_member_a_composed_schema_requires_is_not_asked_of_the_model() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        post(json!({"$ref": "#/components/schemas/Thing"})),
        json!({"schemas": {
            "Base": {"type": "object", "properties": {
                "id": {"type": "string", "readOnly": true},
                "created": {"type": "string", "readOnly": true}}},
            "Thing": {"allOf": [{"$ref": "#/components/schemas/Base"}],
                "type": "object", "required": ["id", "created", "name"],
                "properties": {"name": {"type": "string"}}},
        }}),
    ));
    assert!(
        takes(
            &out.yaml,
            "create_thing",
            json!({"body": {"name": "widget"}})
        ),
        "the server assigns `id` and `created`: {}",
        doc["tools"]["create_thing"]["input_schema"]
    );
    assert!(
        !takes(&out.yaml, "create_thing", json!({"body": {}})),
        "`name` is still required"
    );
}

#[test]
fn a_write_only_member_a_composed_schema_requires_is_not_expected_in_a_reply() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({"/users/{id}": {"get": {"operationId": "get_user",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/User"}}}}}}}}),
        json!({"schemas": {
            "Secret": {"type": "object", "properties": {"password": {"type": "string", "writeOnly": true}}},
            "User": {"allOf": [{"$ref": "#/components/schemas/Secret"}],
                "type": "object", "required": ["login", "password"],
                "properties": {"login": {"type": "string"}}},
        }}),
    ));
    let user = doc["schemas"]
        .as_object()
        .and_then(|deps| deps.values().find_map(|d| d.get("User")))
        .unwrap_or_else(|| panic!("the shared User: {}", out.yaml));
    assert_eq!(user["required"], json!(["login"]), "{}", out.yaml);
}

#[test]
fn a_vendor_flag_marks_the_tool_deprecated_as_the_standard_flag_does() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({
            "/assets": {"get": {"operationId": "list_assets", "x-deprecated": true, "summary": "List assets.", "responses": ok()}},
            "/items": {"get": {"operationId": "list_items", "x-deprecated": false, "summary": "List items.", "responses": ok()}},
        }),
        json!({}),
    ));
    assert!(
        description(&doc, "list_assets").starts_with("DEPRECATED"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains("GET /assets — deprecated"),
        "{}",
        out.yaml
    );
    assert_eq!(description(&doc, "list_items"), "List items.");
}

#[test]
fn the_dates_and_reason_a_vendor_extension_gives_are_told_to_the_model() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({
            "/classrooms": {"get": {"operationId": "list_classrooms", "deprecated": true,
                "summary": "List classrooms.",
                "x-github": {"category": "classroom", "deprecationDate": "2026-05-22", "removalDate": "2026-08-28"},
                "responses": ok()}},
            "/cases": {"get": {"operationId": "list_cases", "deprecated": true,
                "summary": "List cases.",
                "x-ms-deprecation": {"date": "2022-08-01T00:00:00Z", "removalDate": "2023-02-01T00:00:00Z",
                    "description": "Will stop returning data; use the APIs under /security."},
                "responses": ok()}},
        }),
        json!({}),
    ));
    let classrooms = description(&doc, "list_classrooms");
    assert!(
        classrooms.contains("since 2026-05-22, to be removed on 2026-08-28"),
        "{classrooms}\n{}",
        out.yaml
    );
    let cases = description(&doc, "list_cases");
    assert!(cases.contains("to be removed on 2023-02-01"), "{cases}");
    assert!(cases.contains("use the APIs under /security."), "{cases}");
}

#[test]
fn the_comment_above_a_deprecated_tool_names_its_removal_date() {
    let (out, _) = import_and_check(&api(
        "3.0.3",
        json!({
            "/classrooms": {"get": {"operationId": "list_classrooms", "deprecated": true,
                "summary": "List classrooms.",
                "x-github": {"deprecationDate": "2026-05-22", "removalDate": "2026-08-28T00:00:00Z"},
                "responses": ok()}},
            "/rooms": {"get": {"operationId": "list_rooms", "x-sunset": "2027-01-31\nINJECTED: 1",
                "summary": "List rooms.", "responses": ok()}},
            "/halls": {"get": {"operationId": "list_halls", "deprecated": true,
                "summary": "List halls.", "responses": ok()}},
        }),
        json!({}),
    ));
    assert!(
        out.yaml
            .contains("# GET /classrooms — deprecated, to be removed on 2026-08-28\n"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains("# GET /halls — deprecated\n"),
        "{}",
        out.yaml
    );
    // A removal date is written as the spec gives it, but never as a line of its own.
    assert!(
        !out.yaml
            .lines()
            .any(|l| l.trim_start().starts_with("INJECTED")),
        "{}",
        out.yaml
    );
}

#[test]
fn a_deprecated_parameter_or_member_is_marked_deprecated_for_the_model() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({"/things": {"post": {"operationId": "create_thing",
            "parameters": [
                {"name": "legacy_mode", "in": "query", "deprecated": true, "schema": {"type": "string"}},
                {"name": "page_token", "in": "query", "x-deprecated": "Use cursor", "schema": {"type": "string"}},
            ],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "properties": {
                    "name": {"type": "string"},
                    "old_name": {"type": "string", "x-deprecated": "Replaced with name"},
                    "older": {"type": "string", "deprecated": true}}}}}},
            "responses": ok()}}}),
        json!({}),
    ));
    let props = &doc["tools"]["create_thing"]["input_schema"]["properties"];
    assert_eq!(props["legacy_mode"]["deprecated"], true, "{}", out.yaml);
    assert_eq!(props["page_token"]["deprecated"], true, "{}", out.yaml);
    let body = &props["body"]["properties"];
    assert_eq!(body["old_name"]["deprecated"], true, "{}", out.yaml);
    assert_eq!(
        body["old_name"]["description"],
        "Deprecated: Replaced with name"
    );
    assert_eq!(body["older"]["deprecated"], true);
    assert_eq!(body["name"].get("deprecated"), None);
    // Still sent when given: deprecated is not removed.
    assert!(takes(
        &out.yaml,
        "create_thing",
        json!({"legacy_mode": "x", "body": {"old_name": "n"}})
    ));
}

#[test]
fn the_body_argument_keeps_its_name_and_takes_the_name_the_description_gives_it_as_its_title() {
    let two = json!({
        "swagger": "2.0",
        "info": {"title": "Two", "version": "1"},
        "host": "api.example.com", "basePath": "/v2", "schemes": ["https"],
        "consumes": ["application/json"],
        "paths": {"/pets": {"post": {"operationId": "add_pet",
            "parameters": [{"name": "pet", "in": "body", "required": true,
                "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}],
            "responses": {"200": {"description": "ok"}}}}},
    });
    let (out, doc) = import_and_check(&two);
    let props = &doc["tools"]["add_pet"]["input_schema"]["properties"];
    assert_eq!(props["body"]["title"], "pet", "{}", out.yaml);
    assert!(props.get("pet").is_none());
    let three = api(
        "3.0.1",
        json!({"/teams": {"put": {"operationId": "set_teams",
            "x-github": {"requestBodyParameterName": "teams"},
            "requestBody": {"content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}},
            "responses": ok()}},
            "/orders": {"post": {"operationId": "create_order",
            "x-codegen-request-body-name": "body",
            "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
            "responses": ok()}}}),
        json!({}),
    );
    let (out, doc) = import_and_check(&three);
    assert_eq!(
        doc["tools"]["set_teams"]["input_schema"]["properties"]["body"]["title"], "teams",
        "{}",
        out.yaml
    );
    assert_eq!(
        doc["tools"]["create_order"]["input_schema"]["properties"]["body"].get("title"),
        None
    );
    assert!(takes(
        &out.yaml,
        "set_teams",
        json!({"body": ["justice-league"]})
    ));
}

#[test]
fn a_read_only_member_of_a_form_body_is_no_field_the_model_is_asked_for() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({"/things": {"post": {"operationId": "create_thing",
            "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}},
            "responses": ok()}}}),
        json!({"schemas": {"Thing": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "string", "readOnly": true},
            "name": {"type": "string"}}}}}),
    ));
    let props = &doc["tools"]["create_thing"]["input_schema"]["properties"];
    assert!(props.get("id").is_none(), "{}", out.yaml);
    assert!(
        takes(&out.yaml, "create_thing", json!({"name": "widget"})),
        "{}",
        out.yaml
    );
}

#[test]
fn a_parameter_or_member_a_vendor_deprecates_under_its_own_name_is_deprecated_with_its_reason() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({"/payments": {"post": {"operationId": "create_payment",
            "parameters": [
                {"name": "location_id", "in": "query", "x-is-deprecated": true, "schema": {"type": "string"}},
                {"name": "cursor", "in": "query", "schema": {"type": "string"}},
            ],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "properties": {
                    "amount": {"type": "integer"},
                    "shopperIP": {"type": "string", "description": "The shopper's IP address.",
                        "deprecated": true, "x-deprecatedInVersion": "68",
                        "x-deprecatedMessage": "Use `deviceIP` instead."},
                    "top_k": {"type": "integer", "deprecated": true,
                        "x-stainless-deprecation-message": "Ignored by newer models."},
                    "levels": {"type": "string", "enum": ["low", "high"],
                        "x-enumDeprecated": [false, true]}}}}}},
            "responses": ok()}}}),
        json!({}),
    ));
    let props = &doc["tools"]["create_payment"]["input_schema"]["properties"];
    assert_eq!(props["location_id"]["deprecated"], true, "{}", out.yaml);
    assert_eq!(props["cursor"].get("deprecated"), None, "{}", out.yaml);
    let body = &props["body"]["properties"];
    assert_eq!(
        body["shopperIP"]["description"],
        "The shopper's IP address. Deprecated since version 68: Use `deviceIP` instead.",
        "{}",
        out.yaml
    );
    assert_eq!(
        body["top_k"]["description"], "Deprecated: Ignored by newer models.",
        "{}",
        out.yaml
    );
    // A list saying which enum values are deprecated does not deprecate the member.
    assert_eq!(body["levels"].get("deprecated"), None, "{}", out.yaml);
}

#[test]
fn an_operation_deprecated_in_a_version_is_told_the_version_and_the_vendors_reason() {
    let (out, doc) = import_and_check(&api(
        "3.0.3",
        json!({"/payments/details": {"post": {"operationId": "payment_details", "deprecated": true,
            "x-deprecatedInVersion": "68", "x-deprecatedMessage": "Use /v2/payments/details instead.",
            "summary": "Submit details.", "responses": ok()}}}),
        json!({}),
    ));
    let d = description(&doc, "payment_details");
    assert!(
        d.starts_with("DEPRECATED: the API marks this operation deprecated since version 68; prefer its replacement. Use /v2/payments/details instead."),
        "{d}\n{}",
        out.yaml
    );
}
