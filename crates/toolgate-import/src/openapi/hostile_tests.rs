//! Hostile API descriptions: `$ref`s that reach outside the spec's folder or at files
//! that never end, text nested to stall the parser, base URLs at the metadata service,
//! environment variable names and template braces chosen by the spec's author.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::*;

/// A fresh `<tmp>/toolgate-hostile-<name>-<pid>/spec` folder; its parent is "outside".
fn dirs(name: &str) -> (PathBuf, PathBuf) {
    let parent = std::env::temp_dir().join(format!(
        "toolgate-hostile-{name}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    let spec = parent.join("spec");
    std::fs::create_dir_all(&spec).unwrap();
    (parent, spec)
}

/// A spec whose one operation's response schema is `$ref: <target>`.
fn spec_with_ref(target: &str) -> String {
    format!(
        r#"
openapi: 3.0.3
info: {{title: Refs, version: '1.0', contact: {{email: o@example.com}}}}
servers: [{{url: 'https://api.example.com'}}]
paths:
  /thing:
    get:
      operationId: thing
      responses:
        '200':
          description: ok
          content: {{application/json: {{schema: {{$ref: '{target}'}}}}}}
"#
    )
}

const SECRET: &str = "type: object\ndescription: TOP-SECRET-CONTENT\nproperties: {password: {type: string, enum: [hunter2]}}\n";

fn run_spec(dir: &Path, text: &str, allow_dirs: Vec<PathBuf>) -> Result<Outcome, String> {
    let file = dir.join("api.yaml");
    std::fs::write(&file, text).unwrap();
    // The owner is the importing organisation's (a spec's contact is never taken).
    run(&Options {
        spec: file,
        allow_dirs,
        owner: Some("api-team@example.com".into()),
        ..Options::default()
    })
}

/// The refusal names the `$ref`, the file it is in, why, and the fix; never the content.
fn assert_refused(err: &str, reference: &str, dir: &Path, why: &str) {
    assert!(err.contains(&format!("`$ref: {reference}`")), "{err}");
    assert!(
        err.contains(&format!("{}", dir.join("api.yaml").display())) || err.contains("api.yaml"),
        "{err}"
    );
    assert!(err.contains(why), "{err}");
    assert!(
        !err.contains("TOP-SECRET") && !err.contains("hunter2"),
        "{err}"
    );
}

#[test]
fn ref_confinement_symlink_escape() {
    let (parent, dir) = dirs("symlink");
    std::fs::write(parent.join("secret.yaml"), SECRET).unwrap();
    std::os::unix::fs::symlink(parent.join("secret.yaml"), dir.join("models.yaml")).unwrap();
    let err = run_spec(&dir, &spec_with_ref("models.yaml"), vec![]).unwrap_err();
    assert_refused(&err, "models.yaml", &dir, "outside the spec's folder");
    assert!(err.contains("--allow-dir"), "{err}");
    // A symlink that stays inside the folder is followed.
    std::fs::write(dir.join("real.yaml"), "type: object\n").unwrap();
    std::os::unix::fs::symlink(dir.join("real.yaml"), dir.join("alias.yaml")).unwrap();
    assert!(run_spec(&dir, &spec_with_ref("alias.yaml"), vec![]).is_ok());
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn ref_confinement_dot_dot_escape() {
    let (parent, dir) = dirs("dotdot");
    std::fs::write(parent.join("secret.yaml"), SECRET).unwrap();
    let err = run_spec(&dir, &spec_with_ref("../secret.yaml"), vec![]).unwrap_err();
    assert_refused(&err, "../secret.yaml", &dir, "outside the spec's folder");
    // `..` that stays inside (a subfolder's file referring to a sibling) is fine.
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models/a.yaml"), "$ref: '../common.yaml'\n").unwrap();
    std::fs::write(dir.join("common.yaml"), "type: object\n").unwrap();
    assert!(run_spec(&dir, &spec_with_ref("models/a.yaml"), vec![]).is_ok());
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn ref_confinement_absolute_path() {
    let (parent, dir) = dirs("absolute");
    let secret = parent.join("secret.yaml");
    std::fs::write(&secret, SECRET).unwrap();
    let target = secret.display().to_string();
    let err = run_spec(&dir, &spec_with_ref(&target), vec![]).unwrap_err();
    assert_refused(&err, &target, &dir, "outside the spec's folder");
    // `--allow-dir` admits the folder the operator trusts, and only that one.
    let out = run_spec(&dir, &spec_with_ref(&target), vec![parent.clone()]).unwrap();
    assert!(out.yaml.contains("--allow-dir"), "{}", out.yaml);
    let err = run_spec(&dir, &spec_with_ref("/etc/passwd"), vec![parent.clone()]).unwrap_err();
    assert_refused(&err, "/etc/passwd", &dir, "outside the spec's folder");
    let err = run_spec(&dir, &spec_with_ref("x.yaml"), vec![parent.join("nope")]).unwrap_err();
    assert!(
        err.contains("--allow-dir") && err.contains("not a directory"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn ref_confinement_dev_zero() {
    let (parent, dir) = dirs("devzero");
    let err = run_spec(&dir, &spec_with_ref("/dev/zero"), vec![]).unwrap_err();
    assert_refused(&err, "/dev/zero", &dir, "outside the spec's folder");
    // Even from an allowed folder, a device is never opened.
    let err = run_spec(&dir, &spec_with_ref("/dev/zero"), vec!["/dev".into()]).unwrap_err();
    assert_refused(&err, "/dev/zero", &dir, "not a regular file");
    // Nor is one given as the spec itself.
    let err = run(&Options {
        spec: "/dev/zero".into(),
        ..Options::default()
    })
    .unwrap_err();
    assert!(err.contains("not a regular file"), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn ref_confinement_fifo() {
    let (parent, dir) = dirs("fifo");
    let fifo = dir.join("pipe.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Opening a FIFO without a writer blocks forever: it must not be opened at all.
    let err = run_spec(&dir, &spec_with_ref("pipe.yaml"), vec![]).unwrap_err();
    assert_refused(&err, "pipe.yaml", &dir, "not a regular file");
    let err = run(&Options {
        spec: fifo,
        ..Options::default()
    })
    .unwrap_err();
    assert!(err.contains("not a regular file"), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn ref_confinement_oversized_file() {
    let (parent, dir) = dirs("oversized");
    // Sparse: the size is there without the disk space.
    let big = std::fs::File::create(dir.join("big.yaml")).unwrap();
    big.set_len(load::MAX_FILE_BYTES + 1).unwrap();
    drop(big);
    let err = run_spec(&dir, &spec_with_ref("big.yaml"), vec![]).unwrap_err();
    assert_refused(&err, "big.yaml", &dir, "larger than 64 MiB");
    let err = run(&Options {
        spec: dir.join("big.yaml"),
        ..Options::default()
    })
    .unwrap_err();
    assert!(err.contains("larger than 64 MiB"), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn ref_confinement_network_refs_are_not_fetched() {
    let (parent, dir) = dirs("network");
    let out = run_spec(
        &dir,
        &spec_with_ref("http://169.254.169.254/latest/meta-data/iam.yaml"),
        vec![],
    )
    .unwrap();
    assert!(
        out.yaml
            .contains("points at the network, and nothing is fetched")
            && out.yaml.contains("download the file next to the spec"),
        "{}",
        out.yaml
    );
    let _ = std::fs::remove_dir_all(&parent);
}

/// 200 KB of nested flow sequences: the YAML parser alone would spend about a minute.
fn nested(levels: usize) -> String {
    "x: ".to_string() + &"[\n".repeat(levels)
}

#[test]
fn deeply_nested_yaml_is_refused_before_parsing() {
    let (parent, dir) = dirs("nested");
    let text = nested(100_000);
    assert!(text.len() >= 200_000);
    let err = run_spec(&dir, &text, vec![]).unwrap_err();
    assert!(
        err.contains("nested more than 100 levels deep at line 101"),
        "{err}"
    );
    // The same in a `$ref`'d file stops the import too.
    std::fs::write(dir.join("deep.yaml"), &text).unwrap();
    let err = run_spec(&dir, &spec_with_ref("deep.yaml"), vec![]).unwrap_err();
    assert_refused(&err, "deep.yaml", &dir, "nested more than 100 levels");
    // Nested mappings, and JSON, are bounded as well.
    let err = run_spec(&dir, &"{a: ".repeat(50_000), vec![]).unwrap_err();
    assert!(err.contains("nested more than"), "{err}");
    let err = run_spec(&dir, &"[".repeat(200_000), vec![]).unwrap_err();
    assert!(err.contains("nested more than"), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

/// A spec whose response schema is a 10 KB anchor, aliased `uses` times in an
/// extension: each alias is one jump for the parser's own guard, and a whole copy.
fn aliased_spec(uses: usize) -> String {
    let props: Vec<String> = (0..100)
        .map(|i| format!("p{i}: {{type: string, description: '{}'}}", "x".repeat(80)))
        .collect();
    spec_with_ref("#/components/schemas/Big")
        + &format!(
            "components:\n  schemas:\n    Big: &big {{type: object, properties: {{{}}}}}\nx-uses: [{}]\n",
            props.join(", "),
            vec!["*big"; uses].join(", ")
        )
}

#[test]
fn yaml_aliases_expanding_a_spec_past_the_bound_are_refused_before_they_are_copied() {
    let (parent, dir) = dirs("aliases");
    // 8,000 copies of 10 KB: 80 MB read as copies, from a 0.1 MB file.
    let err = run_spec(&dir, &aliased_spec(8_000), vec![]).unwrap_err();
    assert!(err.contains("expanded past 64 MiB by its aliases"), "{err}");
    assert!(err.contains("passed at `x-uses["), "{err}");
    // The same in a `$ref`'d file stops the import too.
    std::fs::write(dir.join("big.yaml"), aliased_spec(8_000)).unwrap();
    let err = run_spec(
        &dir,
        &spec_with_ref("big.yaml#/components/schemas/Big"),
        vec![],
    )
    .unwrap_err();
    assert_refused(
        &err,
        "big.yaml#/components/schemas/Big",
        &dir,
        "expanded past 64 MiB",
    );
    // A few aliases of the same anchor import as copies.
    let out = run_spec(&dir, &aliased_spec(20), vec![]).unwrap();
    assert!(out.yaml.contains("p99"), "{}", out.yaml);
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_byte_order_mark_is_read_past_and_utf16_is_named_with_the_fix() {
    let (parent, dir) = dirs("encoding");
    let spec = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "Marked", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/t": {"get": {"operationId": "t", "responses": {"200": {"description": "ok"}}}}}
    })
    .to_string();
    let file = dir.join("api.json");
    std::fs::write(&file, format!("\u{FEFF}{spec}")).unwrap();
    let options = Options {
        spec: file.clone(),
        owner: Some("api-team@example.com".into()),
        ..Options::default()
    };
    assert!(run(&options).is_ok());
    let wide: Vec<u8> = format!("\u{FEFF}{spec}")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    std::fs::write(&file, wide).unwrap();
    let err = run(&options).unwrap_err();
    assert!(
        err.contains("UTF-16") && err.contains("save it as UTF-8"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&parent);
}

/// Each disguise of the metadata service (and of link-local) a spec may give as its server.
const METADATA_FORMS: &[&str] = &[
    "http://169.254.169.254",
    "https://127.0.0.1:1@169.254.169.254/v1",
    "http://2852039166",
    "http://0xa9fea9fe",
    "http://0251.0376.0251.0376",
    "http://169.254.43518",
    "http://[fe80::1]",
    "http://[::ffff:169.254.169.254]",
    "http://[fd00:ec2::254]",
    "http://metadata.google.internal/computeMetadata/v1",
    "http://0.0.0.0:8080",
];

fn spec_with_server(url: &str) -> String {
    format!(
        r#"{{"openapi": "3.0.3", "info": {{"title": "Meta", "version": "1", "contact": {{"email": "o@example.com"}}}},
        "servers": [{{"url": "{url}"}}],
        "paths": {{"/x": {{"get": {{"operationId": "x", "responses": {{"204": {{"description": "none"}}}}}}}}}}}}"#
    )
}

fn check(dir: &Path, yaml: &str) -> Result<toolgate_config::Config, String> {
    let env = |_: &str| Some("k".to_string());
    toolgate_config::parse(&dir.join("t.yaml"), yaml, dir, &env).map_err(|e| e.to_string())
}

#[test]
fn base_urls_at_metadata_addresses_warn_at_import_and_fail_check() {
    let (parent, dir) = dirs("metadata");
    for url in METADATA_FORMS {
        let out = run_spec(&dir, &spec_with_server(url), vec![]).unwrap();
        let warning = out
            .report
            .iter()
            .find(|l| l.starts_with("warning:"))
            .unwrap_or_else(|| panic!("{url}: no warning in {:?}", out.report));
        assert!(warning.contains("allow_link_local"), "{url}: {warning}");
        assert!(out.yaml.contains("# warning:"), "{url}");
        let err = check(&dir, &out.yaml).expect_err(url);
        assert!(
            err.contains("dependencies.meta.base_url") && err.contains("allow_link_local: true"),
            "{url}: {err}"
        );
        // The dependency's own opt-in, written by a person, lets it through.
        let allowed = out
            .yaml
            .replace("    base_url:", "    allow_link_local: true\n    base_url:");
        check(&dir, &allowed).unwrap_or_else(|e| panic!("{url}: {e}"));
    }
    // Swagger 2.0's `host` is a base URL too.
    let swagger = r#"{"swagger": "2.0", "info": {"title": "Meta", "version": "1", "contact": {"email": "o@example.com"}},
        "host": "169.254.169.254", "schemes": ["http"],
        "paths": {"/x": {"get": {"operationId": "x", "responses": {"204": {"description": "none"}}}}}}"#;
    let out = run_spec(&dir, swagger, vec![]).unwrap();
    assert!(
        out.report.iter().any(|l| l.contains("metadata")),
        "{:?}",
        out.report
    );
    assert!(check(&dir, &out.yaml).is_err());
    // Loopback and private addresses are internal APIs: a warning, and `check` passes.
    for url in [
        "http://127.0.0.1:8080",
        "http://10.1.2.3",
        "http://2130706433",
    ] {
        let out = run_spec(&dir, &spec_with_server(url), vec![]).unwrap();
        assert!(
            out.report
                .iter()
                .any(|l| l.starts_with("warning:") && l.contains("internal API")),
            "{url}: {:?}",
            out.report
        );
        check(&dir, &out.yaml).unwrap_or_else(|e| panic!("{url}: {e}"));
    }
    let out = run_spec(&dir, &spec_with_server("https://api.example.com"), vec![]).unwrap();
    assert!(!out.report.iter().any(|l| l.starts_with("warning:")));
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn env_names_chosen_by_a_spec_are_not_read() {
    let (parent, dir) = dirs("env");
    // A spec titled "GitHub" whose server variable is `{token}` would have the gateway
    // read GITHUB_TOKEN; one that writes `${…}` names any variable it likes.
    let spec = r#"
openapi: 3.0.3
info: {title: GitHub, version: '1', contact: {email: o@example.com}}
servers:
  - url: 'https://{token}.example.com/${AWS_SECRET_ACCESS_KEY}/{region}'
    variables:
      token: {default: '{token}'}
      region: {default: '${GITHUB_TOKEN}'}
components:
  securitySchemes:
    k: {type: apiKey, in: query, name: '${HOME}'}
security: [{k: []}]
paths:
  /x:
    get:
      operationId: x
      servers: [{url: 'https://other.example.com/$${PATH}'}]
      responses: {'204': {description: none}}
  /y: {get: {operationId: y, responses: {'204': {description: none}}}}
"#;
    let out = run_spec(&dir, spec, vec![]).unwrap();
    let asked = RefCell::new(Vec::<String>::new());
    let env = |k: &str| {
        asked.borrow_mut().push(k.to_string());
        Some("v".to_string())
    };
    let config = toolgate_config::parse(&dir.join("t.yaml"), &out.yaml, &dir, &env)
        .unwrap_or_else(|e| panic!("{e}\n{}", out.yaml));
    let asked = asked.into_inner();
    for name in ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "HOME", "PATH"] {
        assert!(
            !asked.iter().any(|a| a == name),
            "{name} was read: {asked:?}"
        );
    }
    // Every variable read is one the import told the user to export.
    let exported = out.report.iter().find(|l| l.starts_with("export")).unwrap();
    for a in &asked {
        assert!(
            a.starts_with("GITHUB_") && exported.contains(a.as_str()),
            "{a}: {exported}"
        );
    }
    // The spec's `${…}` is text in the URL the gateway calls.
    let base = config.dependencies["github"].base_url.as_str().to_string();
    assert!(base.contains("AWS_SECRET_ACCESS_KEY"), "{base}");
    assert!(
        out.yaml
            .contains("a spec does not choose which environment variables")
    );
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn header_enum_with_braces_is_literal() {
    let (parent, dir) = dirs("braces");
    let mut paths = String::new();
    for i in 0..6 {
        paths.push_str(&format!(
            r#"
  /things/{{id}}/v{i}:
    get:
      operationId: get_{i}
      parameters:
        - {{name: id, in: path, required: true, schema: {{type: string}}}}
        - {{name: X-Mode, in: header, schema: {{type: string, enum: ['{{foo}}']}}}}
        - {{name: X-Env, in: header, required: true, schema: {{type: string, default: '${{HOME}}'}}}}
        - {{name: fmt, in: query, schema: {{type: string, const: '{{{{x}}}}'}}}}
      responses: {{'204': {{description: none}}}}"#
        ));
    }
    let spec = format!(
        "openapi: 3.1.0\ninfo: {{title: Braces, version: '1', contact: {{email: o@example.com}}}}\nservers: [{{url: 'https://api.example.com'}}]\npaths:{paths}\n"
    );
    let out = run_spec(&dir, &spec, vec![]).unwrap();
    let config = check(&dir, &out.yaml).unwrap_or_else(|e| panic!("{e}\n{}", out.yaml));
    let tool = &config.tools["get_0"];
    let request = tool.http_request().unwrap();
    let args: serde_json::Map<String, Value> =
        serde_json::from_value(serde_json::json!({"id": "7"})).unwrap();
    let rendered = request.render(&tool.dependency.base_url, &args).unwrap();
    assert_eq!(rendered.headers["x-mode"], "{foo}");
    assert_eq!(rendered.headers["x-env"], "${HOME}");
    assert_eq!(rendered.url.query(), Some("fmt=%7B%7Bx%7D%7D"));
    assert_eq!(rendered.url.path(), "/things/7/v0");
    let _ = std::fs::remove_dir_all(&parent);
}

/// `S0` refers to `S1`, … to `S{n-1}`, as a bare `$ref` (`wrap: false`) or as the type
/// of a property; the one operation answers `S0`.
fn ref_chain_spec(n: usize, wrap: bool) -> String {
    ref_chain_spec_at(n, wrap, "response")
}

/// As [`ref_chain_spec`], with the chain in the operation's `response` or its request
/// body (`request`).
fn ref_chain_spec_at(n: usize, wrap: bool, side: &str) -> String {
    let schemas: serde_json::Map<String, Value> = (0..n)
        .map(|i| {
            let next = if i + 1 < n {
                serde_json::json!({ "$ref": format!("#/components/schemas/S{}", i + 1) })
            } else {
                serde_json::json!({ "type": "string" })
            };
            let def = if wrap {
                serde_json::json!({ "type": "object", "properties": { "next": next } })
            } else {
                next
            };
            (format!("S{i}"), def)
        })
        .collect();
    let chain = serde_json::json!({ "application/json": { "schema": { "$ref": "#/components/schemas/S0" } } });
    let operation = if side == "request" {
        serde_json::json!({ "operationId": "x", "requestBody": { "required": true, "content": chain },
            "responses": { "204": { "description": "done" } } })
    } else {
        serde_json::json!({ "operationId": "x", "responses": { "200": {
            "description": "ok", "content": chain } } })
    };
    serde_json::json!({
        "openapi": "3.0.3",
        "info": { "title": "Chain", "version": "1.0" },
        "servers": [{ "url": "https://api.example.com" }],
        "paths": { "/x": { "post": operation } },
        "components": { "schemas": schemas }
    })
    .to_string()
}

#[test]
fn a_ref_chain_thousands_of_schemas_long_is_refused_naming_where_it_starts() {
    let (parent, dir) = dirs("ref-chain");
    for wrap in [false, true] {
        let err = run_spec(&dir, &ref_chain_spec(3_000, wrap), vec![]).unwrap_err();
        assert!(
            err.contains("`S0` starts a chain of 2999 `$ref`s") && err.contains("more than 1000"),
            "{err}"
        );
    }
    // Within the bound, the chain is imported.
    let out = run_spec(&dir, &ref_chain_spec(200, true), vec![]).unwrap();
    assert_eq!(out.tools.len(), 1);
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_request_schema_ref_chain_past_the_bound_is_refused_after_one_walk_of_it() {
    let (parent, dir) = dirs("input-ref-chain");
    for wrap in [false, true] {
        let n = 3_000;
        super::ref_chain::WALKED.with(|w| w.set(0));
        let err = run_spec(&dir, &ref_chain_spec_at(n, wrap, "request"), vec![]).unwrap_err();
        assert!(
            err.starts_with(
                "the request schema of POST /x: the schema `S0` starts a chain of 2999 `$ref`s"
            ) && err.contains("more than 1000"),
            "{err}"
        );
        // Each definition of the chain walked once, not once per link that reaches it
        // (n²/2 = 4.5 million): the bound costs what converting the schema does.
        let walked = super::ref_chain::WALKED.with(std::cell::Cell::get);
        assert!(
            walked <= n,
            "{walked} definitions walked for a chain of {n}"
        );
    }
    // Within the bound, the chain is imported and the tool takes it.
    let out = run_spec(&dir, &ref_chain_spec_at(200, true, "request"), vec![]).unwrap();
    assert_eq!(out.tools.len(), 1);
    let _ = std::fs::remove_dir_all(&parent);
}
