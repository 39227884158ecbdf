use super::*;

#[test]
fn versions_and_names() {
    assert_eq!(major_minor("1.7.0"), "1.7");
    assert_eq!(major_minor("10"), "10.0");
    assert_eq!(major_minor("v2"), "2.0");
    assert_eq!(major_minor("2023-10-01"), "2023.10");
    assert_eq!(major_minor("beta"), "1.0");
    assert_eq!(
        dependency_name("Discord HTTP API (Preview)"),
        "discord_http_api_preview"
    );
    assert_eq!(dependency_name("!!!"), "api");
}

#[test]
fn server_placeholders_become_env_references() {
    let mut env = Vec::new();
    let url = placeholders_to_env("https://{your-agent-url}/v1", "do_api", &mut env);
    assert_eq!(url, "https://${DO_API_SERVER_VAR_1}/v1");
    assert_eq!(env[0].0, "DO_API_SERVER_VAR_1");
    // The same placeholder elsewhere is the same variable; `$` is text.
    let again = placeholders_to_env(
        "https://{your-agent-url}/v2?a=$x&b=${HOME}",
        "do_api",
        &mut env,
    );
    assert_eq!(again, "https://${DO_API_SERVER_VAR_1}/v2?a=$$x&b=$${HOME}");
    assert_eq!(env.len(), 1);
    assert_eq!(
        placeholders_to_env("https://a.example.com", "d", &mut env),
        "https://a.example.com"
    );
}

#[test]
fn globs() {
    assert!(glob("chat.*", "chat.postMessage"));
    assert!(glob("/v2/droplets*", "/v2/droplets/{id}"));
    assert!(glob("get_?", "get_a"));
    assert!(!glob("chat.*", "users.list"));
    assert!(glob("*", ""));
}

const PETS: &str = r#"
openapi: 3.0.3
info: {title: Pet Store, version: 2.3.1}
servers: [{url: 'https://{region}.pets.example.com/v1', variables: {region: {default: eu}}}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
security: [{key: []}]
paths:
  /pets/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get:
      operationId: get pet
      tags: [pets]
      parameters:
        - {name: Accept, in: header, schema: {type: string, enum: [application/vnd.pets.v2+json]}}
        - {name: X-Api-Key, in: header, required: true, schema: {type: string}}
        - {name: fields, in: query, required: true, schema: {type: string, default: all}}
        - {name: api_key, in: query, schema: {type: string}}
      responses:
        '200': {description: ok, headers: {Retry-After: {schema: {type: integer}}}, content: {application/json: {schema: {type: object}}}}
    delete:
      operationId: get_pet
      deprecated: true
      x-replaced-by: get_pet
      responses: {'204': {description: gone}}
  /pets/{id}/photo:
    put:
      tags: [photos]
      requestBody:
        required: true
        content: {multipart/form-data: {schema: {type: object}}}
      responses: {'200': {description: ok}}
"#;

fn owned() -> Options {
    Options {
        owner: Some("team@mine.example".into()),
        ..Options::default()
    }
}

fn run_raw(spec: &str, opts: Options) -> Result<Outcome, String> {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-import-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).map_err(|e| e.to_string())?;
    let out = run(&Options { spec: file, ..opts });
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn import(spec: &str, opts: Options) -> Result<(Value, Outcome), String> {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-import-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join("spec.yaml");
    std::fs::write(&file, spec).map_err(|e| e.to_string())?;
    let out = run(&Options { spec: file, ..opts })?;
    let doc: Value = yaml_serde::from_str(&out.yaml).map_err(|e| e.to_string())?;
    let env = |_: &str| Some("k".to_string());
    toolgate_config::parse(&dir.join("t.yaml"), &out.yaml, &dir, &env)
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok((doc, out))
}

#[test]
fn without_an_owner_the_config_fails_check_until_one_is_set() {
    // The spec's contact is the vendor's desk, never the default owner.
    let spec = PETS.replace(
        "info: {title: Pet Store, version: 2.3.1}",
        "info: {title: Pet Store, version: 2.3.1, contact: {email: support@vendor.example}}",
    );
    let e = import(&spec, Options::default()).unwrap_err();
    assert!(
        e.contains("owner is the placeholder") && e.contains("--owner"),
        "{e}"
    );
    let out = run_raw(&spec, Options::default()).unwrap();
    assert!(!out.yaml.contains("support@vendor.example"));
    assert!(
        out.report.iter().any(|l| l.starts_with("owner: not set")),
        "{:?}",
        out.report
    );
    // A re-import keeps the owner set in the file.
    let fixed = out.yaml.replace(OWNER_PLACEHOLDER, "team@mine.example");
    let again = run_raw(
        &spec,
        Options {
            existing: Some(fixed),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(
        again.yaml.contains("owner: team@mine.example"),
        "{}",
        again.yaml
    );
    assert!(!again.report.iter().any(|l| l.starts_with("owner: not set")));
}

#[test]
fn parameters_credentials_annotations_names_and_skips() {
    let (doc, out) = import(
        PETS,
        Options {
            owner: Some("pets@example.com".into()),
            ..Options::default()
        },
    )
    .unwrap();
    let dep = &doc["dependencies"]["pet_store"];
    assert_eq!(dep["base_url"], "https://eu.pets.example.com/v1");
    assert_eq!(dep["headers"]["X-Api-Key"], "${PET_STORE_API_KEY}");
    let get = &doc["tools"]["get_pet"];
    // The one allowed Accept value is sent, not asked for; credentials never appear.
    assert_eq!(
        get["request"]["headers"]["Accept"],
        "application/vnd.pets.v2+json"
    );
    let props = get["input_schema"]["properties"].as_object().unwrap();
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["fields", "id"]);
    assert_eq!(get["input_schema"]["required"], serde_json::json!(["id"]));
    assert_eq!(get["request"]["query"]["fields"], "{fields}");
    assert_eq!(get["annotations"]["readOnlyHint"], true);
    assert_eq!(get["contract"]["version"], "2.3");
    assert_eq!(
        get["contract"]["origin"], "imported",
        "from the description"
    );
    // `get_pet` was taken by the sanitised `get pet`: the second gets a suffix.
    let del = &doc["tools"]["get_pet_2"];
    assert_eq!(del["annotations"]["destructiveHint"], true);
    assert_eq!(del["annotations"]["idempotentHint"], true);
    assert_eq!(del["successor"], "get_pet");
    assert_eq!(
        del["contract"].get("origin"),
        None,
        "nothing imported: learned"
    );
    assert!(
        del["description"]
            .as_str()
            .unwrap()
            .starts_with("DEPRECATED")
    );
    assert!(
        out.yaml.contains("drift cannot be detected"),
        "204 is permissive and says so"
    );
    assert!(out.yaml.contains("# Skipped: 1 operation"));
    assert!(out.yaml.contains("multipart/form-data"));
    assert_eq!(out.stats.operations, 3);
    assert_eq!(out.stats.tools, 2);
    assert_eq!(out.stats.with_contract, 1);
    assert!(out.report.iter().any(|l| l.contains("PET_STORE_API_KEY")));
    assert_eq!(
        dep.get("rate_limit_headers"),
        None,
        "Retry-After names no quota family"
    );
    assert!(
        out.yaml
            .contains("# Documented response headers: Retry-After")
    );
}

#[test]
fn tags_and_globs_select_operations() {
    let owner = Some("pets@example.com".to_string());
    let (doc, out) = import(
        PETS,
        Options {
            owner: owner.clone(),
            tags: vec!["pets".into()],
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(out.stats.filtered, 2);
    assert_eq!(doc["tools"].as_object().unwrap().len(), 1);
    // Only the multipart upload is tagged `photos`: nothing to write, and it says why.
    let e = import(
        PETS,
        Options {
            owner: owner.clone(),
            tags: vec!["photos".into()],
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        e.contains("2 of 3 not selected by --include/--exclude/--tag, 1 skipped")
            && e.contains("multipart"),
        "{e}"
    );
    let (doc, out) = import(
        PETS,
        Options {
            owner,
            exclude: vec!["*/photo".into()],
            include: vec!["/pets/*".into()],
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(out.stats.filtered, 1);
    assert!(out.stats.skipped.is_empty());
    assert!(doc["tools"].get("get_pet").is_some());
    assert!(doc["tools"].get("get_pet_2").is_some());
}

#[test]
fn an_operation_server_that_is_a_path_is_called_on_the_spec_origin() {
    // InfluxDB's: `/health` and `/ready` are served at the root, beside `/api/v2`.
    let spec = r#"
openapi: 3.0.0
info: {title: Influx, version: '2'}
servers: [{url: /api/v2}]
paths:
  /buckets: {get: {operationId: buckets, responses: {'204': {description: none}}}}
  /health:
    servers: [{url: ''}]
    get: {operationId: health, responses: {'204': {description: none}}}
  /ready:
    servers: [{url: /}]
    get: {operationId: ready, responses: {'204': {description: none}}}
  /legacy:
    get: {operationId: legacy, servers: [{url: 'v1/'}], responses: {'204': {description: none}}}
"#;
    let imported = |spec: &str| {
        let out = run_raw(spec, owned()).unwrap();
        super::directory_tests::check(&out.yaml).unwrap();
        let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
        (doc, out)
    };
    let (doc, out) = imported(spec);
    assert_eq!(out.stats.tools, 4, "{}", out.yaml);
    assert!(out.stats.skipped.is_empty(), "{:?}", out.stats.skipped);
    let deps = doc["dependencies"].as_object().unwrap();
    assert_eq!(deps["influx"]["base_url"], "${INFLUX_ORIGIN}/api/v2");
    let base = |tool: &str| {
        let dep = doc["tools"][tool]["dependency"].as_str().unwrap();
        deps[dep]["base_url"].as_str().unwrap().to_string()
    };
    assert_eq!(base("health"), "${INFLUX_ORIGIN}");
    assert_eq!(base("ready"), "${INFLUX_ORIGIN}");
    assert_eq!(base("legacy"), "${INFLUX_ORIGIN}/v1");
    assert_eq!(doc["tools"]["buckets"]["dependency"], "influx");
    // One origin for them all, asked once.
    let exports = out
        .report
        .iter()
        .filter(|l| l.contains("INFLUX_ORIGIN"))
        .count();
    assert!(exports >= 1, "{:?}", out.report);
    assert!(!out.report.iter().any(|l| l.contains("INFLUX_ORIGIN_2")));
    // Beside an absolute server, a path's origin is asked for, as the spec's own.
    let absolute = spec.replace(
        "[{url: /api/v2}]",
        "[{url: 'https://influx.example.com/api/v2'}]",
    );
    let (doc, out) = imported(&absolute);
    let deps = doc["dependencies"].as_object().unwrap();
    assert_eq!(
        deps["influx"]["base_url"],
        "https://influx.example.com/api/v2"
    );
    let dep = doc["tools"]["health"]["dependency"].as_str().unwrap();
    assert_eq!(deps[dep]["base_url"], "${INFLUX_ORIGIN}");
    assert!(
        out.report
            .iter()
            .any(|l| l.contains("operations' own servers give only a path")),
        "{:?}",
        out.report
    );
}

#[test]
fn operations_on_another_host_get_a_dependency_of_their_own() {
    let spec = r#"
openapi: 3.0.0
info: {title: Cloud, version: '1', contact: {email: c@example.com}}
servers: [{url: 'https://api.cloud.example.com'}]
components: {securitySchemes: {b: {type: http, scheme: bearer}}}
security: [{b: []}]
paths:
  /v2/things: {get: {operationId: things, responses: {'204': {description: none}}}}
  /v1/chat:
    servers: [{url: 'https://{agent}', variables: {agent: {default: '{your-agent-url}'}}}]
    post: {operationId: chat, responses: {'204': {description: none}}}
  /v1/embed:
    post:
      operationId: embed
      servers: [{url: 'https://inference.cloud.example.com'}]
      responses: {'204': {description: none}}
  /upload:
    put: {operationId: upload, servers: [{url: 'https://'}], responses: {'204': {description: none}}}
"#;
    let (doc, out) = import(spec, owned()).unwrap();
    let deps = doc["dependencies"].as_object().unwrap();
    assert_eq!(deps.len(), 3, "{deps:?}");
    let embed_dep = doc["tools"]["embed"]["dependency"].as_str().unwrap();
    assert_eq!(embed_dep, "cloud_inference_cloud_example_com");
    assert_eq!(
        deps[embed_dep]["base_url"],
        "https://inference.cloud.example.com"
    );
    assert_eq!(
        deps[embed_dep]["headers"]["Authorization"],
        "Bearer ${CLOUD_TOKEN}"
    );
    let chat_dep = doc["tools"]["chat"]["dependency"].as_str().unwrap();
    assert_eq!(deps[chat_dep]["base_url"], "https://${CLOUD_SERVER_VAR_1}");
    assert!(out.report.iter().any(|l| l.contains("CLOUD_SERVER_VAR_1")));
    assert_eq!(doc["tools"]["things"]["dependency"], "cloud");
    assert!(out.yaml.contains("is not a usable base URL"));
    assert_eq!(out.stats.tools, 3);
}

#[test]
fn swagger_2_base_url_and_form_data() {
    let spec = r##"{"swagger": "2.0", "info": {"title": "Chat", "version": "1", "contact": {"email": "c@example.com"}},
            "host": "chat.example.com", "basePath": "/api/", "schemes": ["http", "https"],
            "securityDefinitions": {"o": {"type": "oauth2", "flow": "implicit", "authorizationUrl": "https://x", "scopes": {}}},
            "security": [{"o": []}],
            "paths": {"/post": {"post": {"operationId": "post", "consumes": ["application/x-www-form-urlencoded"],
                "parameters": [{"name": "token", "in": "formData", "type": "string"},
                               {"name": "token", "in": "header", "type": "string"},
                               {"name": "text", "in": "formData", "type": "string", "required": true},
                               {"name": "n", "in": "formData", "type": "integer", "minimum": 0, "exclusiveMinimum": true, "x-nullable": true}],
                "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/R"}}}}}},
            "definitions": {"R": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}"##;
    let (doc, _) = import(spec, owned()).unwrap();
    assert_eq!(
        doc["dependencies"]["chat"]["base_url"],
        "https://chat.example.com/api"
    );
    assert_eq!(
        doc["dependencies"]["chat"]["headers"]["Authorization"],
        "Bearer ${CHAT_TOKEN}"
    );
    let t = &doc["tools"]["post"];
    assert_eq!(t["request"]["body_encoding"], "form");
    assert_eq!(t["request"]["body"]["text"], "{text}");
    assert_eq!(t["input_schema"]["required"], serde_json::json!(["text"]));
    // `token` is a credential wherever a secured operation declares it.
    assert!(t["input_schema"]["properties"].get("token").is_none());
    assert!(t["request"]["body"].get("token").is_none());
    assert!(t["request"].get("headers").is_none());
    assert_eq!(t["input_schema"]["properties"]["n"]["exclusiveMinimum"], 0);
    assert_eq!(
        t["input_schema"]["properties"]["n"]["type"],
        serde_json::json!(["integer", "null"])
    );
    // The named response schema is written once, in the API's shared set.
    assert_eq!(
        t["contract"]["response_schema"],
        serde_json::json!({"$ref": "toolgate:schemas/chat/R"})
    );
    assert_eq!(
        doc["schemas"]["chat"]["R"]["properties"]["ok"]["type"],
        "boolean"
    );
}

const TWO_KEYS: &str = r#"
openapi: 3.0.3
info: {title: Msg, version: '1.0'}
servers: [{url: 'https://api.msg.example.com'}]
components:
  securitySchemes:
    AdminKey: {type: apiKey, in: header, name: X-Admin-Key, description: Organisation admin key}
    ProjectKey: {type: http, scheme: bearer, description: Project API key}
security: [{AdminKey: []}]
paths:
  /Accounts/{account_sid}/Messages:
    post:
      operationId: createMessage
      parameters: [{name: account_sid, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [To]
              properties:
                To: {type: string}
                Tags: {type: array, items: {type: string}}
                Meta: {type: object, additionalProperties: {type: string}}
                Ids: {type: array, items: {type: integer}}
            encoding:
              Meta: {style: deepObject, explode: true}
              Ids: {style: form, explode: false}
      responses:
        '201':
          description: created
          content: {application/json: {schema: {type: object, properties: {sid: {type: string}, "1_2": {type: string}}}}}
"#;

#[test]
fn schemes_are_listed_and_chosen_bound_parameters_leave_the_input_forms_keep_their_style() {
    let (doc, out) = import(
        TWO_KEYS,
        Options {
            security: Some("ProjectKey".into()),
            bind: vec![("account_sid".into(), "${MSG_ACCOUNT}".into())],
            ..owned()
        },
    )
    .unwrap();
    let dep = &doc["dependencies"]["msg"];
    assert_eq!(dep["headers"]["Authorization"], "Bearer ${MSG_TOKEN}");
    assert!(dep["headers"].get("X-Admin-Key").is_none());
    let schemes = out
        .report
        .iter()
        .find(|l| l.starts_with("security schemes"))
        .unwrap();
    assert!(
        schemes.contains("`AdminKey`")
            && schemes.contains("`ProjectKey`")
            && schemes.contains("[used]"),
        "{schemes}"
    );
    assert!(out.yaml.contains("# Security scheme: `AdminKey`"));
    let t = &doc["tools"]["createMessage"];
    assert_eq!(t["request"]["path"], "/Accounts/${MSG_ACCOUNT}/Messages");
    assert!(t["input_schema"]["properties"].get("account_sid").is_none());
    assert!(
        out.report
            .iter()
            .any(|l| l.contains("MSG_ACCOUNT") && l.starts_with("export")),
        "{:?}",
        out.report
    );
    assert_eq!(
        t["request"]["form_style"],
        serde_json::json!({"Tags": "repeat", "Meta": "deep", "Ids": "comma"})
    );
    // A contract without any `required` cannot show a rename, and says so.
    assert!(out.yaml.contains("names no required field"));
    assert!(
        out.report
            .iter()
            .any(|l| l.starts_with("1 of 1 response contracts name no required field")),
        "{:?}",
        out.report
    );
    // `1_2` is a string to every YAML reader: quoted.
    assert!(out.yaml.contains("\"1_2\":"), "{}", out.yaml);
    assert!(
        out.report
            .iter()
            .any(|l| l.starts_with("tool definitions:"))
    );
    // A constant is bound as it is, encoded.
    let (doc, _) = import(
        TWO_KEYS,
        Options {
            bind: vec![("account_sid".into(), "AC 1".into())],
            ..owned()
        },
    )
    .unwrap();
    assert_eq!(
        doc["tools"]["createMessage"]["request"]["path"],
        "/Accounts/AC%201/Messages"
    );
    let e = import(
        TWO_KEYS,
        Options {
            security: Some("Nope".into()),
            ..owned()
        },
    )
    .unwrap_err();
    assert!(e.contains("`AdminKey`, `ProjectKey`"), "{e}");
}

#[test]
fn several_apis_live_in_one_file_each_re_importable_with_its_prefix() {
    let msg = TWO_KEYS.replace("title: Msg", "title: Alpha");
    let other = TWO_KEYS.replace("title: Msg", "title: Beta");
    let first = run_raw(
        &msg,
        Options {
            prefix: Some("a_".into()),
            ..owned()
        },
    )
    .unwrap();
    assert!(first.yaml.contains("  a_createMessage:"));
    let both = run_raw(
        &other,
        Options {
            prefix: Some("b_".into()),
            existing: Some(first.yaml.clone()),
            ..owned()
        },
    )
    .unwrap();
    assert!(both.yaml.contains("  a_createMessage:") && both.yaml.contains("  b_createMessage:"));
    // Re-importing the first API (without repeating --prefix) replaces its tools and
    // shows the contract change instead of adding `_2` copies.
    let changed = msg.replace("sid: {type: string}", "sid: {type: integer}");
    let again = run_raw(
        &changed,
        Options {
            existing: Some(both.yaml.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!again.yaml.contains("createMessage_2"), "{}", again.yaml);
    assert!(again.yaml.contains("  b_createMessage:"));
    assert!(
        again
            .report
            .iter()
            .any(|l| l.starts_with("a_createMessage: contract 1.0 →")),
        "{:?}",
        again.report
    );
    assert!(
        !again.report.iter().any(|l| l.contains("new tool")),
        "{:?}",
        again.report
    );
    // …and the other API's tools are still its own to re-import.
    let names = reimport::imported_names(&again.yaml);
    assert!(
        names.contains(&"a_createMessage".to_string())
            && names.contains(&"b_createMessage".to_string())
    );
    let env = |_: &str| Some("k".to_string());
    let dir = std::env::temp_dir();
    toolgate_config::parse(&dir.join("t.yaml"), &again.yaml, &dir, &env)
        .map_err(|e| e.to_string())
        .unwrap();
}

#[test]
fn compact_definitions_are_smaller_and_still_enforce_the_full_schema() {
    let spec = r#"
openapi: 3.1.0
info: {title: Big, version: '1'}
servers: [{url: 'https://big.example.com'}]
paths:
  /x:
    post:
      operationId: make
      description: "A very long description. A very long description. A very long description. A very long description. A very long description. A very long description. A very long description. A very long description."
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                a: {type: object, properties: {b: {type: object, properties: {c: {type: object, required: [d], properties: {d: {type: string, description: deep}}}}}}}
      responses: {'204': {description: none}}
"#;
    let (full, full_out) = import(spec, owned()).unwrap();
    let (short, short_out) = import(
        spec,
        Options {
            compact: true,
            ..owned()
        },
    )
    .unwrap();
    assert!(short_out.stats.definition_bytes < full_out.stats.definition_bytes);
    let t = &short["tools"]["make"];
    assert_eq!(
        t["full_input_schema"],
        full["tools"]["make"]["input_schema"]
    );
    assert_ne!(t["input_schema"], t["full_input_schema"]);
    let dir = std::env::temp_dir();
    let env = |_: &str| Some("k".to_string());
    let config = toolgate_config::parse(&dir.join("t.yaml"), &short_out.yaml, &dir, &env).unwrap();
    let tool = &config.tools["make"];
    let bad = serde_json::json!({"body": {"a": {"b": {"c": {}}}}});
    assert!(
        !tool.input_validator.is_valid(&bad),
        "the full schema is enforced"
    );
    assert!(
        tool.input_validator
            .is_valid(&serde_json::json!({"body": {"a": {"b": {"c": {"d": "x"}}}}}))
    );
}
