//! `toolgate import openapi`: a Swagger 2.0 / OpenAPI 3.0 / 3.1 description becomes a
//! toolgate config — one tool per operation, with its response schema as the contract.
//!
//! The spec is walked as plain JSON (`load`, `refs`) rather than through typed models:
//! vendor specs are often slightly off the standard, and an unknown field or a minor
//! violation should weaken one tool, not fail the import.

pub mod account;
pub mod cookie;
pub mod credentials;
pub mod emit;
pub mod example;
pub mod header;
pub mod keywords;
pub mod load;
pub mod media;
pub mod naming;
pub mod nesting;
pub mod operations;
pub mod path_style;
pub mod refs;
pub mod reimport;
pub mod repeated_prefix;
pub mod schema;
pub mod server;
pub mod shared;
pub mod size;
pub mod text;
pub mod yaml;

mod assemble;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use operations::Tool;
use refs::Refs;
use schema::Dialect;

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The spec file.
    pub spec: PathBuf,
    /// Dependency name (default: from the spec's title).
    pub dependency: Option<String>,
    /// Base URL instead of the spec's servers.
    pub base_url: Option<String>,
    /// Owner of every tool; without it (and without an earlier import's owner in the
    /// file) a placeholder that `check` refuses.
    pub owner: Option<String>,
    /// Prefix of every tool name (two vendors' `createMessage` in one file).
    pub prefix: Option<String>,
    /// The security scheme to send (default: the one most operations use).
    pub security: Option<String>,
    /// Parameters bound in config instead of asked of the model: (name, value), the
    /// value a constant or a `${VAR}` reference.
    pub bind: Vec<(String, String)>,
    /// What the model sees is trimmed and summarised; the full schema is enforced.
    pub compact: bool,
    /// Only operations matching one of these (name, operationId or path).
    pub include: Vec<String>,
    /// Not operations matching one of these.
    pub exclude: Vec<String>,
    /// Only operations with one of these tags.
    pub tags: Vec<String>,
    /// An existing config to merge into.
    pub existing: Option<String>,
    /// Folders besides the spec's own that `$ref`s may read files from.
    pub allow_dirs: Vec<PathBuf>,
}

/// Figures for the report.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Operations in the spec.
    pub operations: usize,
    /// Operations left out by `--include`/`--exclude`/`--tag`.
    pub filtered: usize,
    /// Tools generated.
    pub tools: usize,
    /// Tools with a response contract (not the permissive one).
    pub with_contract: usize,
    /// Skipped operations, by reason.
    pub skipped: Vec<(String, usize)>,
    /// Files read.
    pub files: usize,
    /// Wall time of the import.
    pub millis: u128,
    /// Tools whose response contract names no required field anywhere.
    pub no_required: Vec<String>,
    /// Bytes of every tool definition the model sees (name, description, input schema).
    pub definition_bytes: usize,
    /// The largest tool definitions, (name, bytes), largest first.
    pub largest: Vec<(String, usize)>,
}

/// The generated spec-derived parts, before they are written out.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Spec title.
    pub title: String,
    /// `info.version` as written.
    pub spec_version: String,
    /// The spec generation, for the header comment.
    pub format: String,
    /// Spec file name.
    pub file_name: String,
    /// The command line that generates this, for the header comment.
    pub command: String,
    /// Dependency name.
    pub dependency: String,
    /// Base URL.
    pub base_url: String,
    /// Further dependencies (name, base URL) for operations with servers of their own.
    pub extra_dependencies: Vec<(String, String)>,
    /// Dependency headers (auth, with `${ENV}` placeholders).
    pub headers: BTreeMap<String, String>,
    /// Query parameters carrying credentials, appended to the base URL.
    pub auth_query: Vec<(String, String)>,
    /// Env vars to export, with what each holds.
    pub env: Vec<(String, String)>,
    /// Rate-limit family, when the documented headers name one.
    pub rate_limit_headers: Option<&'static str>,
    /// Documented rate-limit and lifecycle headers (for a comment).
    pub documented_headers: Vec<String>,
    /// Contract version: `info.version` as `major.minor`.
    pub contract_version: String,
    /// Owner of every tool.
    pub owner: String,
    /// Every security scheme of the spec, described, the chosen one marked.
    pub schemes: Vec<String>,
    /// Tools, in spec order.
    pub tools: Vec<Tool>,
    /// The named schemas the tools' contracts share (`schemas.<dependency>`).
    pub schemas: BTreeMap<String, Value>,
    /// Skipped operations: (`METHOD /path (operationId)`, reason).
    pub skipped: Vec<(String, String)>,
    /// Spec-wide problems met while reading it.
    pub warnings: Vec<String>,
}

/// The result of an import.
#[derive(Debug)]
pub struct Outcome {
    /// The config text.
    pub yaml: String,
    /// Lines for stderr: the env vars to export, re-import changes, the summary.
    pub report: Vec<String>,
    /// Figures.
    pub stats: Stats,
    /// Each generated tool: (name, METHOD, spec path).
    pub tools: Vec<(String, String, String)>,
}

/// Runs the import.
pub fn run(opts: &Options) -> Result<Outcome, String> {
    // Wall time of a CLI command, for the summary line; tokio's clock works without a runtime.
    let started = tokio::time::Instant::now();
    let mut refs = Refs::with_allowed_dirs(opts.allow_dirs.clone());
    let (root_file, root) = refs.root(&opts.spec)?;
    let (dialect, format) = dialect(&root)?;
    // Names and options are checked before the rest of the spec is read.
    let named = assemble::Named::of(opts, &root)?;
    assemble::check_binds(opts)?;
    // Security before operations: a parameter that carries a credential is no argument.
    let mut read = assemble::read(
        opts,
        &mut refs,
        &root_file,
        &root,
        dialect,
        &named.dependency,
    )?;
    // Nothing to call (a description of the webhooks an API sends): say so before
    // asking for a base URL it would not need.
    if read.raw_ops.is_empty() {
        return Err(assemble::nothing_to_call(&root));
    }
    // Warnings that change where or what is called are also printed, not only written
    // into the config's header.
    let mut printed_warnings = Vec::new();
    let mut base_url = assemble::base_url(opts, &read, &mut printed_warnings)?;
    // Account headers are bound before any operation's parameters are read.
    let (bind, account_binds) = assemble::account_binds(opts, &mut read, &named.dependency);
    let mut cx = assemble::context(&mut refs, &root, dialect, &mut read, &named, bind);
    let (mut tools, skipped, filtered) = assemble::tools(opts, &mut cx, &read.raw_ops, &named);
    if let Some(refused) = cx.refs.refused() {
        return Err(refused.to_string());
    }
    printed_warnings.extend(assemble::misspelled_form_data(&skipped, &tools));
    // Every tool's contract is known: the named schemas they share are written once.
    let (set, defs) = cx.shared.take().unwrap_or_default();
    let mut warnings = std::mem::take(&mut read.warnings);
    let shared_set = shared::finish(&set, defs, &mut tools, &mut warnings);
    if tools.is_empty() && opts.existing.is_none() {
        // A config without tools does not pass `check`: say why instead of writing one.
        return Err(assemble::no_tools(filtered, read.raw_ops.len(), &skipped));
    }
    let main_server = read.spec_server.clone().ok();
    let mut extra_deps = assemble::own_servers(
        &mut tools,
        main_server,
        &named.dependency,
        &mut read.origin_left_open,
    );
    let address_warnings = assemble::address_warnings(&base_url, &extra_deps);
    let bound = std::mem::take(&mut cx.bound);
    // A server variable whose default is itself a placeholder (`{your-agent-url}`) is
    // the user's to fill in: it becomes an `${ENV}` reference, like a credential. The
    // spec's own text never names a variable: `$` in it is written `$$`.
    let mut env = std::mem::take(&mut read.auth.env);
    let operations = read.raw_ops.len();
    let bind_report = assemble::bind_report(
        opts,
        &bound,
        &account_binds,
        operations,
        &mut env,
        &mut warnings,
    );
    let dependency = &named.dependency;
    assemble::server_env(
        opts,
        &mut base_url,
        &mut extra_deps,
        dependency,
        &mut env,
        &mut warnings,
    );
    assemble::relative_origin(
        opts,
        dependency,
        read.origin_left_open.as_deref(),
        || names_no_server(&root, dialect),
        &mut base_url,
        &mut extra_deps,
        &mut env,
    );
    // Names are final: successors are resolved by them, then sizes are measured.
    resolve_successors(&mut tools);
    let no_required = assemble::no_required(&mut tools, &shared_set, opts.compact);
    let (definition_bytes, largest) = size::measure(&tools);
    let (rate_limit_headers, documented) = assemble::documented_headers(&tools);
    warnings.extend(read.auth.warnings.iter().cloned());
    warnings.extend(address_warnings.iter().cloned());
    warnings.extend(printed_warnings.iter().cloned());
    let imported = Imported {
        title: named.title,
        contract_version: major_minor(&named.spec_version),
        spec_version: named.spec_version,
        format: format.to_string(),
        file_name: opts
            .spec
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        command: command_line(opts, &named.dependency, &named.prefix),
        dependency: named.dependency,
        base_url,
        extra_dependencies: extra_deps,
        headers: read.auth.headers,
        auth_query: read.auth.query,
        env,
        rate_limit_headers,
        documented_headers: documented.into_iter().collect(),
        owner: named.owner,
        schemes: read.auth.schemes.clone(),
        tools,
        schemas: shared_set.components,
        skipped,
        warnings,
    };
    let figures = assemble::Figures {
        started,
        operations,
        filtered,
        files: refs.files_read(),
        no_required,
        definition_bytes,
        largest,
        owner_given: named.owner_given,
        bind_report,
        printed: address_warnings
            .into_iter()
            .chain(printed_warnings)
            .collect(),
    };
    assemble::outcome(opts, imported, figures)
}

/// `info.version` as the value of an `api-version` parameter, when it reads as one
/// (`2017-03-01`, `7.0-preview`, `1.6`): a word, starting with a digit.
/// Whether the API is one of Google's (served from `*.googleapis.com`), whose resource
/// names are paths.
fn names_resources_by_path(root: &Value) -> bool {
    let google = |url: &str| {
        url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .is_some_and(|h| h == "googleapis.com" || h.ends_with(".googleapis.com"))
    };
    let servers = root
        .get("servers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("url").and_then(Value::as_str))
        .any(google);
    let swagger_host = root
        .get("host")
        .and_then(Value::as_str)
        .is_some_and(|h| google(&format!("https://{h}/")));
    servers || swagger_host
}

/// `XERO_ACCOUNTING_XERO_TENANT_ID` for the header `Xero-Tenant-Id`.
fn account_var(dependency: &str, header: &str) -> String {
    format!(
        "{}_{}",
        dependency.to_ascii_uppercase(),
        emit::env_word(header)
    )
}

fn api_version(version: &str) -> Option<String> {
    let v = version.trim();
    (v.len() <= 40
        && v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
    .then(|| v.to_string())
}

/// The owner written when none is given; `toolgate check` refuses it.
pub const OWNER_PLACEHOLDER: &str = "<set an owner from your organisation>";

/// Whether an owner is a placeholder (`<…>`) rather than a person or rota.
pub fn is_placeholder_owner(owner: &str) -> bool {
    let o = owner.trim();
    o.starts_with('<') && o.ends_with('>')
}

/// `${VAR}` names in a value.
fn env_refs(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(i) = rest.find("${") {
        let Some(end) = rest[i..].find('}') else {
            break;
        };
        out.push(rest[i + 2..i + end].to_string());
        rest = &rest[i + end + 1..];
    }
    out
}

/// Whether a schema names a required field anywhere (its `$defs` included).
pub(crate) fn names_required(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => {
            m.get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty())
                || m.values().any(names_required)
        }
        Value::Array(a) => a.iter().any(names_required),
        _ => false,
    }
}

/// `https://{agent-url}/v1` → `https://${DEP_SERVER_VAR_1}/v1`, recording the variable;
/// any other `$` is written `$$`, a literal `$` to `${ENV}` expansion. The variable is
/// numbered rather than named after the placeholder: the spec's author must not be
/// able to pick the name of a variable the gateway reads (`{token}` in a spec titled
/// "GitHub" would otherwise read `GITHUB_TOKEN`).
fn placeholders_to_env(url: &str, dependency: &str, env: &mut Vec<(String, String)>) -> String {
    let prefix = format!("{}_SERVER_VAR_", dependency.to_ascii_uppercase());
    let mut out = String::new();
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if rest[..open].ends_with('$') {
            // `${NAME}` written by the spec: kept as text, never read.
            out.push_str(&escape_env(&rest[..=open + close]));
            rest = &rest[open + close + 1..];
            continue;
        }
        let name = &rest[open + 1..open + close];
        let part = format!("the `{name}` part of ");
        let var = match env
            .iter()
            .find(|(v, w)| v.starts_with(&prefix) && w.starts_with(&part))
        {
            Some((v, _)) => v.clone(),
            None => {
                let n = env.iter().filter(|(v, _)| v.starts_with(&prefix)).count() + 1;
                let var = format!("{prefix}{n}");
                env.push((var.clone(), format!("{part}{url}")));
                var
            }
        };
        out.push_str(&escape_env(&rest[..open]));
        out.push_str(&format!("${{{var}}}"));
        rest = &rest[open + close + 1..];
    }
    out.push_str(&escape_env(rest));
    out
}

/// Text from the spec for a field where `${VAR}` is expanded: every `$` doubled, so it
/// stays the text it was.
fn escape_env(text: &str) -> String {
    text.replace('$', "$$")
}

/// `toolgate import openapi spec.yaml --dependency d …`, as it can be run again.
fn command_line(opts: &Options, dependency: &str, prefix: &str) -> String {
    let mut parts = vec![
        "toolgate import openapi".to_string(),
        opts.spec
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        format!("--dependency {dependency}"),
    ];
    if let Some(u) = &opts.base_url {
        parts.push(format!("--base-url {u}"));
    }
    if let Some(o) = &opts.owner {
        parts.push(format!("--owner {o}"));
    }
    for d in &opts.allow_dirs {
        parts.push(format!("--allow-dir {}", d.display()));
    }
    if !prefix.is_empty() {
        parts.push(format!("--prefix {prefix}"));
    }
    if let Some(s) = &opts.security {
        parts.push(format!("--security {s}"));
    }
    for (k, v) in &opts.bind {
        parts.push(format!("--bind '{k}={v}'"));
    }
    if opts.compact {
        parts.push("--compact".into());
    }
    for (flag, values) in [
        ("--include", &opts.include),
        ("--exclude", &opts.exclude),
        ("--tag", &opts.tags),
    ] {
        for v in values {
            parts.push(format!("{flag} '{v}'"));
        }
    }
    parts.join(" ")
}

/// One line of figures.
pub fn summary(s: &Stats) -> String {
    let mut line = format!(
        "{} operations ({} files): {} tools, {} with an imported contract, {} learning theirs, {} skipped",
        s.operations,
        s.files,
        s.tools,
        s.with_contract,
        // An operation without a usable response schema gets `{}`, which `serve` learns.
        s.tools.saturating_sub(s.with_contract),
        s.skipped.iter().map(|(_, n)| n).sum::<usize>()
    );
    if s.filtered > 0 {
        line.push_str(&format!(", {} not selected", s.filtered));
    }
    for (reason, n) in &s.skipped {
        line.push_str(&format!("; {n} × {reason}"));
    }
    line.push_str(&format!("; {} ms", s.millis));
    line
}

fn dialect(root: &Value) -> Result<(Dialect, &'static str), String> {
    let version = |k: &str| {
        root.get(k).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    if let Some(v) = version("openapi") {
        if v.starts_with("3.1") || v.starts_with("3.2") {
            return Ok((Dialect::Oas31, "OpenAPI 3.1"));
        }
        if v.starts_with('3') {
            return Ok((Dialect::Oas30, "OpenAPI 3.0"));
        }
        return Err(format!(
            "OpenAPI {v} is not supported (2.0, 3.0 and 3.1 are)"
        ));
    }
    if let Some(v) = version("swagger") {
        if v.starts_with('2') {
            return Ok((Dialect::Swagger2, "Swagger 2.0"));
        }
        return Err(format!("Swagger {v} is not supported (2.0 is)"));
    }
    Err("this is not an OpenAPI or Swagger description (no `openapi` or `swagger` field)".into())
}

/// `Slack Web API` → `slack_web_api`.
pub fn dependency_name(title: &str) -> String {
    let mut s = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('_') && !s.is_empty() {
            s.push('_');
        }
    }
    let mut s = s.trim_matches('_').to_string();
    s.truncate(40);
    let s = s.trim_end_matches('_').to_string();
    if s.is_empty() { "api".into() } else { s }
}

/// Whether the spec names no server at all: no `servers` entry (OpenAPI 3), no `host`
/// (Swagger 2.0).
fn names_no_server(root: &Value, dialect: Dialect) -> bool {
    if dialect == Dialect::Swagger2 {
        return root.get("host").and_then(Value::as_str).is_none();
    }
    !root
        .get("servers")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|e| server_url(e).is_some()))
}

/// The base URL the spec names: Swagger 2.0's `schemes`/`host`/`basePath`, else the
/// first entry of `servers` that is an address or a path (a scheme-relative or bare
/// host given `https://`; of two differing only in scheme, the `https://` one). A
/// relative one is completed with an `${…_ORIGIN}` later. No server at all means the
/// host serving the description (Swagger 2.0 without `host`), or `/` on it (OpenAPI 3
/// without `servers`): relative too. So is a server whose host is a stand-in
/// (`https://example.com/rest`, a leading `{Endpoint}` variable without a usable
/// default): its path is kept and its origin is the user's to give, said by the second
/// value, rather than a base URL that cannot be called.
fn base_url(root: &Value, dialect: Dialect) -> Result<(String, Option<String>), String> {
    if names_no_server(root, dialect) {
        let base = if dialect == Dialect::Swagger2 {
            root.get("basePath").and_then(Value::as_str).unwrap_or("")
        } else {
            ""
        };
        return match server::classify(base.trim_end_matches('/')) {
            server::Server::Relative(u) => Ok((u, None)),
            _ => Err(format!(
                "the spec names no server, and its basePath `{base}` is not a path: pass --base-url"
            )),
        };
    }
    if dialect == Dialect::Swagger2 {
        let host = root.get("host").and_then(Value::as_str).unwrap_or_default();
        let scheme = root
            .get("schemes")
            .and_then(Value::as_array)
            .and_then(|s| {
                let s: Vec<&str> = s.iter().filter_map(Value::as_str).collect();
                s.iter()
                    .find(|x| **x == "https")
                    .or(s.first())
                    .map(|x| x.to_string())
            })
            .unwrap_or_else(|| "https".into());
        let base = root
            .get("basePath")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim_end_matches('/');
        // Some write the scheme into `host` as well.
        let url = if host.contains("://") {
            format!("{host}{base}")
        } else {
            format!("{scheme}://{host}{base}")
        };
        if let Some(path) = server::placeholder_origin(&url) {
            let why = format!("the spec's host `{host}` is written as a placeholder");
            return Ok((path, Some(why)));
        }
        return match server::classify(&url) {
            server::Server::Absolute(u) => Ok(open_placeholder_host(u)),
            _ => Err(format!(
                "the spec's host `{host}` with scheme `{scheme}` is not a URL: pass --base-url"
            )),
        };
    }
    let servers = root
        .get("servers")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut unusable = Vec::new();
    // A server that leaves its origin to the user gives way to a later one that names
    // it (APIs.guru lists `https://azure.local` before the vendor's own); of several
    // that all leave it open, the first that gives a path is the most said.
    let mut open: Option<(String, Option<String>)> = None;
    for entry in servers {
        let Some(url) = server_url(entry) else {
            continue;
        };
        // `{Endpoint}/customvision/v3.0`: the variable is the whole origin, and its
        // default (Azure writes `none`) is no host.
        let candidate = if let Some((name, path)) = leading_variable(&url)
            && let server::Server::Relative(p) = server::classify(path)
        {
            (
                p,
                Some(format!(
                    "the spec's server `{url}` leaves its origin, the variable `{name}`, to you"
                )),
            )
        } else if let Some(p) = server::placeholder_origin(&url) {
            (
                p,
                Some(format!(
                    "the spec's server `{url}` writes its origin as a placeholder"
                )),
            )
        } else {
            match server::classify(&url) {
                server::Server::Absolute(u) => {
                    match open_placeholder_host(prefer_https(&u, servers)) {
                        (u, None) => return Ok((u, None)),
                        left_open => left_open,
                    }
                }
                server::Server::Relative(u) => return Ok((u, None)),
                server::Server::Unusable => {
                    unusable.push(unusable_server(entry, &url));
                    continue;
                }
            }
        };
        if open
            .as_ref()
            .is_none_or(|(p, _)| p.is_empty() && !candidate.0.is_empty())
        {
            open = Some(candidate);
        }
    }
    if let Some(left_open) = open {
        return Ok(left_open);
    }
    Err(format!(
        "the spec's server URL {} is neither an address nor a path: pass --base-url",
        unusable.join(", ")
    ))
}

/// The base URL without trailing path segments that every operation path served from it
/// repeats (see [`repeated_prefix`]), with a warning; a repetition by only some
/// operations, or of a `--base-url` the user gave, is only reported.
fn without_repeated_prefix(
    base_url: String,
    given: bool,
    raw_ops: &[operations::RawOperation],
    warnings: &mut Vec<String>,
) -> String {
    let own_servers =
        |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|s| !s.is_empty());
    let paths: Vec<&str> = raw_ops
        .iter()
        .filter(|r| !own_servers(r.op.get("servers")) && !own_servers(r.path_servers.as_ref()))
        .map(|r| r.path.as_str())
        .collect();
    let Some(found) = repeated_prefix::find(&base_url, &paths) else {
        return base_url;
    };
    let prefix = &found.prefix;
    if found.everywhere() && !given {
        let stripped = repeated_prefix::strip(&base_url, prefix);
        warnings.push(format!(
            "every operation path starts with `{prefix}`, which the server URL `{base_url}` already ends with: base_url is `{}`, so calls go to `{prefix}/…` once, not `{prefix}{prefix}/…`; pass --base-url {base_url} to keep the prefix doubled",
            if stripped.is_empty() { "/" } else { stripped.as_str() }
        ));
        return stripped;
    }
    warnings.push(format!(
        "{} of {} operation paths start with `{prefix}`, which the {} `{base_url}` already ends with: they are called as `{prefix}{prefix}/…`; if the API serves them at `{prefix}/…`, pass --base-url without `{prefix}`",
        found.operations,
        found.of,
        if given { "--base-url" } else { "server URL" },
    ));
    base_url
}

/// A server URL that is no address, with the variables left in it said: one in the
/// port (`https://api.vendor.io:{port}/v1`) that the description gives no value for
/// has no stand-in an operator could fill by name.
fn unusable_server(entry: &Value, url: &str) -> String {
    let declared = entry.get("variables").and_then(Value::as_object);
    let left: Vec<String> = url
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .filter(|name| !name.is_empty())
        .map(|name| {
            if declared.is_some_and(|d| d.contains_key(name)) {
                format!("`{name}`, which it declares without a usable default or enum value")
            } else {
                format!("`{name}`, which it does not declare")
            }
        })
        .collect();
    if left.is_empty() {
        format!("`{url}`")
    } else {
        format!("`{url}` (the variable {})", left.join(", the variable "))
    }
}

/// `url` as the base URL; or, when its host is a stand-in ([`server::placeholder_host`]),
/// only its path, with why the origin is left to the user.
fn open_placeholder_host(url: String) -> (String, Option<String>) {
    if !server::placeholder_host(&url) {
        return (url, None);
    }
    let after_scheme = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    let path = after_scheme
        .find('/')
        .map_or("", |i| &after_scheme[i..])
        .trim_end_matches('/')
        .to_string();
    let why = format!("the spec's server `{url}` names a placeholder host");
    (path, Some(why))
}

/// `{Endpoint}/v1` → (`Endpoint`, `/v1`): a server URL that starts with a variable
/// standing for its scheme and host.
fn leading_variable(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix('{')?;
    let close = rest.find('}')?;
    let (name, path) = (&rest[..close], &rest[close + 1..]);
    (!name.is_empty() && (path.is_empty() || path.starts_with('/'))).then_some((name, path))
}

/// `url`, or its `https://` twin when `servers` lists one: many specs list the same
/// host under both schemes, and the first listed is not always the safer.
pub fn prefer_https(url: &str, servers: &[Value]) -> String {
    let Some(rest) = url.strip_prefix("http://") else {
        return url.to_string();
    };
    let twin = format!("https://{rest}");
    let listed = servers
        .iter()
        .filter_map(server_url)
        .any(|u| matches!(server::classify(&u), server::Server::Absolute(a) if a == twin));
    if listed { twin } else { url.to_string() }
}

/// The URL of an entry of a `servers` list, its variables at their defaults. A
/// variable whose default only stands in for a value ([`server::placeholder_default`]:
/// `HOSTNAME`, `none`, `your-domain`) is left as `{name}`, which becomes a value the
/// user gives, as a variable without a default does.
pub fn server_url(server: &Value) -> Option<String> {
    let mut url = server.get("url")?.as_str()?.to_string();
    if let Some(vars) = server.get("variables").and_then(Value::as_object) {
        for (k, v) in vars {
            // The default, else the first of the `enum` (a variable written with only
            // its choices, as some descriptions do for a port), that is a real value.
            let text = |x: &Value| match x {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let listed = v.get("enum").and_then(Value::as_array);
            let value = v
                .get("default")
                .into_iter()
                .chain(listed.into_iter().flatten())
                .map(text)
                .find(|d| !server::placeholder_default(k, v, d));
            if let Some(d) = value {
                url = url.replace(&format!("{{{k}}}"), &d);
            }
        }
    }
    Some(collapse_slashes(&url).trim_end_matches('/').to_string())
}

/// `https://host//api` → `https://host/api`: a variable written with its own leading
/// `/` after one in the URL (`https://host/{basePath}`, `basePath: /api`) doubles it,
/// and a server reads `//api` as another path. The `//` of the scheme stays.
fn collapse_slashes(url: &str) -> String {
    let start = match url.find("://") {
        Some(i) => i + 3,
        None if url.starts_with("//") => 2,
        None => 0,
    };
    let end = url[start..]
        .find(['?', '#'])
        .map_or(url.len(), |i| start + i);
    let mut out = String::with_capacity(url.len());
    out.push_str(&url[..start]);
    for c in url[start..end].chars() {
        if !(c == '/' && out.ends_with('/') && out.len() > start) {
            out.push(c);
        }
    }
    out.push_str(&url[end..]);
    out
}

/// `10` → `10.0`, `1.7.0` → `1.7`, `2023-01-01` → `2023.0`, `v3` → `3.0`.
pub fn major_minor(version: &str) -> String {
    let nums: Vec<String> = version
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_start_matches('0').to_string())
        .map(|s| if s.is_empty() { "0".into() } else { s })
        .take(2)
        .collect();
    match nums.as_slice() {
        [] => "1.0".into(),
        [m] => format!("{m}.0"),
        [m, n, ..] => format!("{m}.{n}"),
    }
}

/// `*` any run, `?` one character; everything else literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// A deprecated tool's successor: the tool whose operationId, name or path the spec
/// names; otherwise the hint stays in the description only.
fn resolve_successors(tools: &mut [Tool]) {
    let index: Vec<(String, Option<String>, String, String)> = tools
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.operation_id.clone(),
                t.path.clone(),
                t.method.clone(),
            )
        })
        .collect();
    for t in tools.iter_mut() {
        let Some(hint) = t.successor_hint.clone() else {
            continue;
        };
        let by_path = |method: &str| {
            index
                .iter()
                .find(|(_, _, p, m)| *p == hint && m == method)
                .map(|x| x.0.clone())
        };
        let found = index
            .iter()
            .find(|(n, id, _, _)| *n == hint || id.as_deref() == Some(hint.as_str()))
            .map(|x| x.0.clone())
            .or_else(|| by_path(&t.method))
            .or_else(|| by_path("GET"))
            .filter(|n| *n != t.name);
        match found {
            Some(n) => {
                t.description = format!("{} Use `{n}` instead.", t.description);
                t.successor_hint = Some(n);
            }
            None => {
                t.notes
                    .push(format!("deprecated; the spec names `{hint}` as its replacement, which is not an imported tool"));
                t.successor_hint = None;
            }
        }
    }
}

#[cfg(test)]
mod directory_tests;

#[cfg(test)]
mod classes_tests;
#[cfg(test)]
mod multipart_tests;
#[cfg(test)]
mod oas31_tests;
#[cfg(test)]
mod wire_tests;

#[cfg(test)]
mod hostile_tests;

#[cfg(test)]
mod tests {
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
        assert!(
            both.yaml.contains("  a_createMessage:") && both.yaml.contains("  b_createMessage:")
        );
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
        let config =
            toolgate_config::parse(&dir.join("t.yaml"), &short_out.yaml, &dir, &env).unwrap();
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
}
