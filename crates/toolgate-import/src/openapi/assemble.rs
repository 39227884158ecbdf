//! The stages of `run`, in its order: the names the config is written under, what
//! the spec says of its security and operations, the tools, the servers they are
//! called at, what is bound and what the user must export.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use serde_json::Value;

use super::operations::{Context, RawOperation, Tool};
use super::refs::Refs;
use super::requirement::Requirements;
use super::schema::Dialect;
use super::{
    OWNER_PLACEHOLDER, Options, account, account_var, api_version, credentials, dependency_name,
    emit, env_refs, escape_env, glob, is_placeholder_owner, media, names_resources_by_path, naming,
    open_placeholder_host, operations, placeholders_to_env, reimport, repeated_prefix, server,
    shared, size, without_repeated_prefix,
};
use toolgate_config::address;

/// The names the config is written under.
pub(super) struct Named {
    pub(super) title: String,
    /// `info.version` as written.
    pub(super) spec_version: String,
    pub(super) dependency: String,
    pub(super) owner: String,
    /// Whether the owner came from `--owner` or an earlier import, not the placeholder.
    pub(super) owner_given: bool,
    /// Of every tool's name.
    pub(super) prefix: String,
}

impl Named {
    /// From the spec's `info`, the options and an earlier import; an option that
    /// cannot work is refused here, before the rest of the spec is read.
    pub(super) fn of(opts: &Options, root: &Value) -> Result<Self, String> {
        let info = root.get("info").cloned().unwrap_or(Value::Null);
        let title = info
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("API")
            .trim()
            .to_string();
        let spec_version = match info.get("version") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => "1.0".into(),
        };
        let dependency = opts
            .dependency
            .clone()
            .unwrap_or_else(|| dependency_name(&title));
        // The spec's contact is the vendor's support desk, not who is alerted here when a
        // contract drifts: without --owner (or an earlier import's owner) the config gets
        // a placeholder that `check` refuses.
        let (previous_prefix, previous_owner) = match &opts.existing {
            Some(existing) => reimport::previous(existing, &dependency),
            None => (None, None),
        };
        let owner_given = opts.owner.is_some() || previous_owner.is_some();
        let owner = opts
            .owner
            .clone()
            .or(previous_owner)
            .unwrap_or_else(|| OWNER_PLACEHOLDER.to_string());
        if is_placeholder_owner(&owner) && opts.owner.is_some() {
            return Err(format!(
                "--owner {owner}: name the person or rota alerted when a contract drifts"
            ));
        }
        let prefix = opts.prefix.clone().or(previous_prefix).unwrap_or_default();
        if !prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(format!(
                "--prefix {prefix}: use letters, digits, `_`, `-` or `.` (tool names allow no others)"
            ));
        }
        Ok(Named {
            title,
            spec_version,
            dependency,
            owner,
            owner_given,
            prefix,
        })
    }
}

/// `--bind NAME=VALUE` options that cannot work.
pub(super) fn check_binds(opts: &Options) -> Result<(), String> {
    for (name, value) in &opts.bind {
        if name.is_empty() || value.contains(['{', '}']) && !value.contains("${") {
            return Err(format!(
                "--bind {name}={value}: write NAME=VALUE, the value a constant or `${{VAR}}`"
            ));
        }
    }
    Ok(())
}

/// What the spec says of its server, its security and its operations.
pub(super) struct Read {
    /// The spec's own server, as an address or a path, or why it has none usable.
    pub(super) spec_server: Result<String, String>,
    /// Why the origin is the user's to give, when a server leaves it open.
    pub(super) origin_left_open: Option<String>,
    pub(super) auth: emit::Auth,
    pub(super) credential_params: HashSet<String>,
    pub(super) raw_ops: Vec<RawOperation>,
    /// Spec-wide problems met so far.
    pub(super) warnings: Vec<String>,
    /// Headers every operation requires to say whose account the calls are for.
    pub(super) accounts: Vec<account::AccountHeader>,
    /// Credentials the operations declare as parameters, which the dependency sends.
    pub(super) param_credentials: Vec<credentials::Found>,
    /// Every credential the operations declare as a parameter.
    pub(super) found: Vec<credentials::Found>,
    /// What each operation's own requirement makes its tool send or leave out.
    pub(super) requirements: Requirements,
}

/// The spec's server, security schemes, operations and the credentials its
/// parameters carry.
pub(super) fn read(
    opts: &Options,
    refs: &mut Refs,
    root_file: &Path,
    root: &Value,
    dialect: Dialect,
    dependency: &str,
) -> Result<Read, String> {
    // The spec's own server, as an address or a path; an operation listing the same
    // one needs no dependency of its own, even when --base-url replaces it.
    let (spec_server, origin_left_open) = match super::base_url(root, dialect) {
        Ok((url, why)) => (Ok(url), why),
        Err(e) => (Err(e), None),
    };
    let mut auth = emit::auth(root, dialect, dependency, opts.security.as_deref())?;
    let credential_params: HashSet<String> = auth.credential_params.iter().cloned().collect();
    let listed = operations::list(refs, root_file, root);
    // A `$ref` refused for where it points says so first, with the fix.
    if let Some(refused) = refs.refused() {
        return Err(refused.to_string());
    }
    let (raw_ops, warnings) = listed?;
    // A key the spec lists among an operation's arguments is never the model's to give.
    // When nothing the spec's schemes say is sent, it is the dependency's to send.
    let declared: Vec<credentials::Declared<'_>> = raw_ops
        .iter()
        .map(|r| (r.file.as_path(), &r.op, r.shared_params.as_slice()))
        .collect();
    let found = credentials::find(refs, &declared);
    let accounts = account::find(refs, &declared);
    let all_found = found.clone();
    let param_credentials =
        if auth.headers.is_empty() && auth.query.is_empty() && auth.cookies.is_empty() {
            emit::send_parameters(&mut auth, &found, dependency, raw_ops.len());
            found
        } else {
            emit::parameters_beside_schemes(
                &mut auth,
                found,
                dependency,
                &credential_params,
                raw_ops.len(),
            )
        };
    // A query parameter's name from the spec lands in `base_url`, where `${…}` is expanded.
    for (k, _) in &mut auth.query {
        *k = escape_env(k);
    }
    let requirements = Requirements::new(root, emit::schemes(root, dialect), &auth, dependency);
    Ok(Read {
        spec_server,
        origin_left_open,
        auth,
        credential_params,
        raw_ops,
        warnings,
        accounts,
        param_credentials,
        found: all_found,
        requirements,
    })
}

/// Why a description without operations makes no config.
pub(super) fn nothing_to_call(root: &Value) -> String {
    let webhooks = root
        .get("webhooks")
        .or_else(|| root.get("x-webhooks"))
        .and_then(Value::as_object)
        .map_or(0, |w| w.len());
    if webhooks > 0 {
        format!(
            "the description has no operations ({webhooks} webhook{} only): nothing to call",
            if webhooks == 1 { "" } else { "s" }
        )
    } else {
        "the description has no operations: nothing to call".to_string()
    }
}

/// The main dependency's base URL: `--base-url`, else the spec's server, without a
/// prefix every path repeats.
pub(super) fn base_url(
    opts: &Options,
    read: &Read,
    printed_warnings: &mut Vec<String>,
) -> Result<String, String> {
    let base_url = match (&opts.base_url, &read.spec_server) {
        (Some(u), _) => u.clone(),
        (None, Ok(u)) => u.clone(),
        (None, Err(e)) => return Err(e.clone()),
    };
    Ok(without_repeated_prefix(
        base_url,
        opts.base_url.is_some(),
        &read.raw_ops,
        printed_warnings,
    ))
}

/// An account header bound in config, with the variable it is sent from.
pub(super) type AccountBind = (account::AccountHeader, String);

/// The parameters bound in config, `--bind` and the account headers, with the
/// variable each account header is sent from.
pub(super) fn account_binds(
    opts: &Options,
    read: &mut Read,
    dependency: &str,
) -> (Vec<(String, String)>, Vec<AccountBind>) {
    // A header every operation requires to say whose account the calls are for is bound
    // once for the deployment (as `--bind` would), unless bound already or a credential.
    let mut bind = opts.bind.clone();
    let mut account_binds: Vec<AccountBind> = Vec::new();
    for header in std::mem::take(&mut read.accounts) {
        let taken = header.spellings.iter().any(|h| {
            bind.iter().any(|(n, _)| n.eq_ignore_ascii_case(h))
                || read.param_credentials.iter().any(|f| f.is(h, "header"))
                || read.auth.headers.keys().any(|k| k.eq_ignore_ascii_case(h))
        });
        if taken {
            continue;
        }
        let var = account_var(dependency, header.name());
        for spelling in &header.spellings {
            bind.push((spelling.clone(), format!("${{{var}}}")));
        }
        account_binds.push((header, var));
    }
    (bind, account_binds)
}

/// What every operation shares, for `operations::build`.
pub(super) fn context<'a>(
    refs: &'a mut Refs,
    root: &'a Value,
    dialect: Dialect,
    read: &mut Read,
    named: &Named,
    bind: Vec<(String, String)>,
) -> Context<'a> {
    Context {
        refs,
        dialect,
        root,
        credential_params: std::mem::take(&mut read.credential_params),
        param_credentials: std::mem::take(&mut read.param_credentials),
        auth_cookies: read.auth.cookies.clone(),
        api_version: api_version(&named.spec_version),
        resource_names: names_resources_by_path(root),
        bind,
        bound: BTreeMap::new(),
        shared: Some((named.dependency.clone(), BTreeMap::new())),
        input_verdicts: Default::default(),
        fingerprints: Default::default(),
        conversions: Default::default(),
        refused: None,
    }
}

/// The tools of the selected operations, named; the skipped operations with why;
/// how many were not selected.
pub(super) fn tools(
    opts: &Options,
    cx: &mut Context<'_>,
    read: &mut Read,
    named: &Named,
) -> (Vec<Tool>, Vec<(String, String)>, usize) {
    let raw_ops = &read.raw_ops;
    let (prefix, dependency) = (&named.prefix, &named.dependency);
    let mut names = naming::Names::default();
    if let Some(existing) = &opts.existing {
        for n in reimport::foreign_tools(existing, dependency) {
            names.reserve(&n);
        }
    }
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut filtered = 0;
    for raw in raw_ops {
        let op_id = raw.op.get("operationId").and_then(Value::as_str);
        let unprefixed = naming::base_name(op_id, &raw.method, &raw.path);
        // The whole name is kept for `claim`, which shortens it: a numbered duplicate
        // of a long name is then shortened from the whole name too.
        let full = naming::clean(&format!("{prefix}{unprefixed}"));
        let base = naming::fit(&full);
        if !selected(opts, raw, op_id, [base.as_str(), unprefixed.as_str()]) {
            filtered += 1;
            continue;
        }
        let label = format!(
            "{} {}{}",
            raw.method.to_uppercase(),
            raw.path,
            op_id.map(|i| format!(" ({i})")).unwrap_or_default()
        );
        match operations::build(cx, raw) {
            Ok(mut tool) => {
                read.requirements
                    .apply(cx.refs, raw, &read.found, &mut tool);
                tool.name = names.claim(&full);
                if tool.name != base {
                    tool.notes.push(format!(
                        "named `{}`: `{base}` is taken by another operation or tool",
                        tool.name
                    ));
                }
                tools.push(tool);
            }
            Err(skip) => skipped.push((label, skip.0)),
        }
    }
    (tools, skipped, filtered)
}

/// Whether `--include`, `--exclude` and `--tag` select the operation, by its tool
/// name (`names`: as fitted, and without the prefix), `operationId` or path.
fn selected(opts: &Options, raw: &RawOperation, op_id: Option<&str>, names: [&str; 2]) -> bool {
    let [base, unprefixed] = names;
    let tags: Vec<&str> = raw
        .op
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let subjects = [base, unprefixed, op_id.unwrap_or(""), raw.path.as_str()];
    (opts.include.is_empty()
        || opts
            .include
            .iter()
            .any(|g| subjects.iter().any(|s| glob(g, s))))
        && !opts
            .exclude
            .iter()
            .any(|g| subjects.iter().any(|s| glob(g, s)))
        && (opts.tags.is_empty() || opts.tags.iter().any(|t| tags.contains(&t.as_str())))
}

/// A printed warning when operations take `application/form-data`, no registered
/// media type.
pub(super) fn misspelled_form_data(skipped: &[(String, String)], tools: &[Tool]) -> Option<String> {
    let misspelled = skipped
        .iter()
        .filter(|(_, why)| why.contains(media::READ_AS_MULTIPART))
        .count()
        + tools
            .iter()
            .filter(|t| t.notes.iter().any(|n| n.contains(media::READ_AS_MULTIPART)))
            .count();
    (misspelled > 0).then(|| format!(
        "{misspelled} {} `application/form-data`, which is no registered media type: {}, its text fields sent as the parts of one; if the API takes a URL-encoded form there, write `application/x-www-form-urlencoded` in the description and import again",
        if misspelled == 1 { "operation takes" } else { "operations take" },
        media::READ_AS_MULTIPART,
    ))
}

/// Why no operation became a tool.
pub(super) fn no_tools(filtered: usize, operations: usize, skipped: &[(String, String)]) -> String {
    format!(
        "no operation became a tool: {} of {} not selected by --include/--exclude/--tag, {} skipped{}",
        filtered,
        operations,
        skipped.len(),
        skipped
            .first()
            .map(|(l, r)| format!(" (e.g. {l}: {r})"))
            .unwrap_or_default()
    )
}

/// Operations served from another host (their own `servers`) get a dependency of
/// their own, with the same credentials: one base URL per dependency.
pub(super) fn own_servers(
    tools: &mut [Tool],
    main_server: Option<String>,
    dependency: &str,
    origin_left_open: &mut Option<String>,
) -> Vec<(String, String)> {
    let mut extra_deps: Vec<(String, String)> = Vec::new();
    // Two servers on one host (`example.com/a`, `example.com/b`) derive the same name:
    // the second is numbered, as a tool name is.
    let mut dep_names = naming::Names::default();
    dep_names.reserve(dependency);
    for t in tools.iter_mut() {
        let Some(url) = t.server.clone() else {
            continue;
        };
        // An operation's own server on a stand-in host leaves its origin to the user
        // as the spec's does: its path is kept, behind the same origin variable.
        let mut url = match server::stand_in_host(&url) {
            false => url,
            true => {
                let (path, why) = open_placeholder_host(url);
                if let Some(why) = why {
                    origin_left_open.get_or_insert(why);
                }
                path
            }
        };
        // An operation's own server is written for it: when its path starts again with
        // the server's trailing segments (VTEX's `…/crossselling/accessories` for
        // `/api/…/crossselling/accessories/{productId}`), it means them once, as the
        // spec's own server does when every path repeats them (`without_repeated_prefix`).
        if let Some(found) = repeated_prefix::find(&url, &[t.path.as_str()]) {
            let prefix = &found.prefix;
            t.notes.push(format!(
                "its server `{url}` ends with `{prefix}`, which its path starts with again: called at `{prefix}/…` once"
            ));
            url = repeated_prefix::strip(&url, prefix);
        }
        if Some(&url) == main_server.as_ref() {
            t.server = None;
            continue;
        }
        let name = match extra_deps.iter().find(|(_, u)| *u == url) {
            Some((n, _)) => n.clone(),
            None => {
                let host = url::Url::parse(&url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_string))
                    .unwrap_or_else(|| format!("server{}", extra_deps.len() + 2));
                let n = dep_names.claim(&format!("{dependency}_{}", dependency_name(&host)));
                extra_deps.push((n.clone(), url.clone()));
                n
            }
        };
        t.notes
            .push(format!("served from {url}: dependency `{name}`"));
        t.dependency = Some(name);
    }
    extra_deps
}

/// Where the spec sends the gateway: a metadata or link-local address is refused by
/// `check`; loopback and private ones are legitimate for internal APIs, but a
/// published spec naming one deserves a second look.
pub(super) fn address_warnings(base_url: &str, extra_deps: &[(String, String)]) -> Vec<String> {
    let mut address_warnings = Vec::new();
    for url in std::iter::once(base_url).chain(extra_deps.iter().map(|(_, u)| u.as_str())) {
        if let Some(c) = address::classify(url)
            && c.kind != address::AddressKind::Public
        {
            address_warnings.push(if c.kind.refused() {
                format!(
                    "{}; `toolgate check` refuses it unless the dependency sets `allow_link_local: true` — make sure the spec is the API's own",
                    c.explain(url)
                )
            } else {
                format!("{}; fine for an internal API, but check that the spec is meant to send calls there", c.explain(url))
            });
        }
    }
    address_warnings
}

/// How many tools each bound parameter and account header was found in, for the
/// report, and the variables they are sent from, for `env`.
pub(super) fn bind_report(
    opts: &Options,
    bound: &BTreeMap<String, usize>,
    account_binds: &[AccountBind],
    operations: usize,
    env: &mut Vec<(String, String)>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut bind_report = Vec::new();
    for (name, value) in &opts.bind {
        let n = bound.get(name).copied().unwrap_or(0);
        if n == 0 {
            warnings.push(format!(
                "--bind {name}: no selected operation has a parameter `{name}`"
            ));
        }
        bind_report.push(format!(
            "{name} bound to {value} in {n} tool{}",
            if n == 1 { "" } else { "s" }
        ));
        for var in env_refs(value) {
            if !env.iter().any(|(v, _)| *v == var) {
                env.push((var, format!("the value of parameter `{name}`")));
            }
        }
    }
    for (header, var) in account_binds {
        let n: usize = header
            .spellings
            .iter()
            .map(|s| bound.get(s).copied().unwrap_or(0))
            .sum();
        if n == 0 {
            continue;
        }
        bind_report.push(format!(
            "header `{}`, which {} of {} operations require, is sent from ${{{var}}} in {n} tool{}, not asked of the model: it names whose account the calls are for (`--bind '{}=…'` sets it otherwise)",
            header.name(),
            header.operations,
            operations,
            if n == 1 { "" } else { "s" },
            header.name(),
        ));
        if !env.iter().any(|(v, _)| v == var) {
            env.push((
                var.clone(),
                format!("the `{}` header every operation sends", header.name()),
            ));
        }
    }
    bind_report
}

/// The spec's server URLs with their placeholders as `${ENV}` references.
pub(super) fn server_env(
    opts: &Options,
    base_url: &mut String,
    extra_deps: &mut [(String, String)],
    dependency: &str,
    env: &mut Vec<(String, String)>,
    warnings: &mut Vec<String>,
) {
    let spec_urls = opts.base_url.is_none().then_some(base_url);
    for url in spec_urls
        .into_iter()
        .chain(extra_deps.iter_mut().map(|(_, u)| u))
    {
        if url.contains("${") {
            warnings.push(format!(
                "the server URL `{url}` contains `${{…}}`: a spec does not choose which environment variables toolgate reads, so it is kept as text"
            ));
        }
        *url = placeholders_to_env(url, dependency, env);
    }
}

/// A relative server URL (`/v1.33`, or none at all) is relative to wherever the
/// spec is served from, which the file does not say: the origin is the user's to
/// give, like a credential.
pub(super) fn relative_origin(
    opts: &Options,
    dependency: &str,
    origin_left_open: Option<&str>,
    names_no_server: impl FnOnce() -> bool,
    base_url: &mut String,
    extra_deps: &mut [(String, String)],
    env: &mut Vec<(String, String)>,
) {
    let main_relative = opts.base_url.is_none() && !base_url.contains("://");
    let extra_relative = extra_deps.iter().any(|(_, u)| !u.contains("://"));
    if main_relative || extra_relative {
        let var = format!("{}_ORIGIN", emit::env_prefix(dependency));
        env.push((
            var.clone(),
            if let Some(why) = origin_left_open {
                format!("scheme and host of the API, e.g. https://api.example.com; {why}")
            } else if !main_relative {
                "scheme and host the spec is served from, e.g. https://api.example.com; operations' own servers give only a path".to_string()
            } else if names_no_server() {
                "scheme and host of the API, e.g. https://api.example.com; the spec names no server".to_string()
            } else {
                format!(
                    "scheme and host of the API, e.g. https://api.example.com; the spec gives only the path `{}`",
                    if base_url.is_empty() { "/" } else { base_url.as_str() }
                )
            },
        ));
        if main_relative {
            *base_url = format!("${{{var}}}{base_url}");
        }
        for (_, url) in extra_deps.iter_mut().filter(|(_, u)| !u.contains("://")) {
            *url = format!("${{{var}}}{url}");
        }
    }
}

/// The tools whose contract names no required field, each with a note; with
/// `--compact`, every tool in the shorter form.
pub(super) fn no_required(
    tools: &mut [Tool],
    shared_set: &shared::Finished,
    compact: bool,
) -> Vec<String> {
    let mut no_required = Vec::new();
    for t in tools.iter_mut() {
        if t.response_schema
            .as_ref()
            .is_some_and(|s| !shared::names_required(s, shared_set.compiled.as_deref()))
        {
            t.notes.push("the response schema names no required field: a renamed field cannot show as drift for this tool".into());
            no_required.push(t.name.clone());
        }
        if compact {
            size::compact(t);
        }
    }
    no_required
}

/// The rate-limit family the documented response headers name, and the rate-limit
/// and lifecycle headers among them.
pub(super) fn documented_headers(tools: &[Tool]) -> (Option<&'static str>, BTreeSet<String>) {
    let mut all_headers: Vec<String> = Vec::new();
    for t in tools {
        for h in &t.response_headers {
            if !all_headers.iter().any(|x| x.eq_ignore_ascii_case(h)) {
                all_headers.push(h.clone());
            }
        }
    }
    let rate_limit_headers = operations::header_family(&all_headers);
    let mut documented: BTreeSet<String> = all_headers
        .iter()
        .filter(|h| {
            let l = h.to_ascii_lowercase();
            l.contains("ratelimit") || l.contains("rate-limit")
        })
        .cloned()
        .collect();
    documented.extend(operations::lifecycle_headers(&all_headers));
    (rate_limit_headers, documented)
}

/// What the report gives beside the config.
pub(super) struct Figures {
    pub(super) started: tokio::time::Instant,
    pub(super) operations: usize,
    pub(super) filtered: usize,
    pub(super) files: usize,
    pub(super) no_required: Vec<String>,
    pub(super) definition_bytes: usize,
    pub(super) largest: Vec<(String, usize)>,
    pub(super) owner_given: bool,
    pub(super) bind_report: Vec<String>,
    /// Warnings printed besides being written into the config.
    pub(super) printed: Vec<String>,
}

/// The config text (merged into an earlier import's when there is one), the figures
/// and the report.
pub(super) fn outcome(
    opts: &Options,
    imported: super::Imported,
    figures: Figures,
) -> Result<super::Outcome, String> {
    let mut report = Vec::new();
    let yaml = match &opts.existing {
        Some(existing) => {
            let (yaml, changes) = reimport::merge(existing, imported.clone())?;
            report.extend(changes);
            yaml
        }
        None => emit::config(&imported),
    };
    let stats = super::Stats {
        operations: figures.operations,
        filtered: figures.filtered,
        tools: imported.tools.len(),
        with_contract: imported
            .tools
            .iter()
            .filter(|t| t.response_schema.is_some())
            .count(),
        skipped: operations::group(&imported.skipped),
        files: figures.files,
        millis: figures.started.elapsed().as_millis(),
        no_required: figures.no_required,
        definition_bytes: figures.definition_bytes,
        largest: figures.largest,
    };
    let lines = report_lines(
        opts,
        &imported,
        &stats,
        figures.owner_given,
        figures.bind_report,
        &figures.printed,
    );
    report.extend(lines);
    let tools = imported
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.method.clone(), t.path.clone()))
        .collect();
    Ok(super::Outcome {
        yaml,
        report,
        stats,
        tools,
    })
}

/// Lines for stderr after the config is made: the owner and schemes to choose, what
/// is bound, the contracts that cannot show a rename, sizes, what to export, the
/// printed warnings and the summary.
fn report_lines(
    opts: &Options,
    imported: &super::Imported,
    stats: &super::Stats,
    owner_given: bool,
    bind_report: Vec<String>,
    printed: &[String],
) -> Vec<String> {
    let mut report = Vec::new();
    if !owner_given {
        report.push(format!(
            "owner: not set — every tool's owner is `{OWNER_PLACEHOLDER}`, which `toolgate check` refuses; re-run with --owner (the person or rota in your organisation alerted when a contract drifts) or edit the file"
        ));
    }
    if imported.schemes.len() > 1 {
        report.push(format!(
            "security schemes (choose with --security NAME): {}",
            imported.schemes.join("; ")
        ));
    }
    report.extend(bind_report);
    if !stats.no_required.is_empty() {
        let shown: Vec<&str> = stats
            .no_required
            .iter()
            .take(8)
            .map(String::as_str)
            .collect();
        report.push(format!(
            "{} of {} response contracts name no required field, so a renamed field cannot show as drift: {}{}",
            stats.no_required.len(),
            stats.with_contract,
            shown.join(", "),
            if stats.no_required.len() > shown.len() { ", …" } else { "" }
        ));
    }
    report.push(size::report(stats, opts.compact));
    if !imported.env.is_empty() {
        report.push(format!(
            "export before `toolgate serve`: {}",
            imported
                .env
                .iter()
                .map(|(v, what)| format!("{v} ({what})"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for w in printed {
        report.push(format!("warning: {w}"));
    }
    report.push(super::summary(stats));
    report
}
