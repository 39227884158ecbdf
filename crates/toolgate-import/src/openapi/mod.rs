//! `toolgate import openapi`: a Swagger 2.0 / OpenAPI 3.0 / 3.1 description becomes a
//! toolgate config — one tool per operation, with its response schema as the contract.
//!
//! The spec is walked as plain JSON (`load`, `refs`) rather than through typed models:
//! vendor specs are often slightly off the standard, and an unknown field or a minor
//! violation should weaken one tool, not fail the import.

pub mod account;
pub mod cookie;
pub mod credentials;
pub mod duplicates;
pub mod emit;
pub mod example;
pub mod header;
pub mod input_defs;
pub mod json_bytes;
pub mod keywords;
pub mod list_format;
pub mod load;
pub mod media;
pub mod naming;
pub use toolgate_config::yaml::nesting;
pub mod operations;
pub mod path_style;
pub mod ref_chain;
pub mod refs;
pub mod reimport;
pub mod repeated_prefix;
pub mod requirement;
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
    let (mut tools, skipped, filtered) = assemble::tools(opts, &mut cx, &mut read, &named);
    if let Some(refused) = cx.refs.refused() {
        return Err(refused.to_string());
    }
    if let Some(refused) = cx.refused.take() {
        return Err(refused);
    }
    // Every file the operations reach has been read: a key one of them writes twice
    // with different values changes what was imported, so it is printed too.
    printed_warnings.extend(cx.refs.duplicate_keys().iter().cloned());
    printed_warnings.extend(assemble::misspelled_form_data(&skipped, &tools));
    // Every tool's contract is known: the named schemas they share are written once.
    let (set, defs) = cx.shared.take().unwrap_or_default();
    if let Some((start, links)) = ref_chain::too_long(&defs) {
        return Err(ref_chain::refusal(&start, links));
    }
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
    env.extend(read.requirements.added(env.len()));
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
        emit::env_prefix(dependency),
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
    let prefix = format!("{}_SERVER_VAR_", emit::env_prefix(dependency));
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
mod carried_tests;
#[cfg(test)]
mod classes_tests;
#[cfg(test)]
mod duplicates_tests;
#[cfg(test)]
mod methods_tests;
#[cfg(test)]
mod multipart_tests;
#[cfg(test)]
mod oas31_tests;
#[cfg(test)]
mod wire_tests;

#[cfg(test)]
mod alternative_schemes_tests;
#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod paging_tests;
#[cfg(test)]
mod paging_without_extensions_tests;
#[cfg(test)]
mod reply_format_tests;
#[cfg(test)]
mod reserved_tests;
#[cfg(test)]
mod separators_tests;
#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod style_tests;
#[cfg(test)]
mod success_tests;
#[cfg(test)]
mod vendor_tests;

#[cfg(test)]
mod tests;
