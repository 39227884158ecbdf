//! Writing the config: the dependency (base URL, credentials as `${ENV}` placeholders,
//! rate-limit family) and one entry per tool, with comments saying where a tool is
//! weaker than its operation and which operations were skipped, and why.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::input_defs::InputDefs;
use super::operations::Tool;
use super::schema::Dialect;
use super::{Imported, operations};

/// How the dependency authenticates.
#[derive(Debug, Default)]
pub struct Auth {
    /// Dependency headers.
    pub headers: BTreeMap<String, String>,
    /// Query parameters carrying a key (appended to the base URL).
    pub query: Vec<(String, String)>,
    /// Cookies carrying a key, as (cookie name, `${VAR}`). A request has one `Cookie`
    /// header (RFC 6265 § 5.4), and a dependency header beside an operation's own cookie
    /// parameters would be a second: so each tool's `Cookie` template sends them, first.
    pub cookies: Vec<(String, String)>,
    /// Env vars and what each must hold.
    pub env: Vec<(String, String)>,
    /// `apiKey` parameter names: never arguments.
    pub credential_params: Vec<String>,
    /// Schemes that could not be expressed.
    pub warnings: Vec<String>,
    /// Every scheme the spec defines, one line each, the chosen one marked.
    pub schemes: Vec<String>,
    /// The schemes the dependency sends, each with the header names it put there.
    pub sent_schemes: Vec<(String, Vec<String>)>,
    /// Header names the dependency sends for credential parameters.
    pub param_headers: Vec<String>,
}

/// The security schemes a spec defines (`securityDefinitions` in 2.0).
pub fn schemes(root: &Value, dialect: Dialect) -> Map<String, Value> {
    match dialect {
        Dialect::Swagger2 => root.get("securityDefinitions"),
        _ => root.pointer("/components/securitySchemes"),
    }
    .and_then(Value::as_object)
    .cloned()
    .unwrap_or_default()
}

/// The security scheme `choice` names, else the one most operations use, as dependency
/// headers or query parameters. Every scheme is listed, so the user can pick another
/// (an admin key and a project key often sit side by side).
pub fn auth(
    root: &Value,
    dialect: Dialect,
    dependency: &str,
    choice: Option<&str>,
) -> Result<Auth, String> {
    let schemes = schemes(root, dialect);
    let mut out = Auth {
        credential_params: api_key_params(&schemes),
        ..Auth::default()
    };
    let usage = SchemeUse::of(root);
    let mut chosen = choose_scheme(&schemes, &usage, choice)?;
    // Unless `--security` names one, a fixed credential offered beside an expiring
    // token is taken instead of it (see `fixed_alternative`).
    let mut preferred = None;
    if choice.is_none()
        && let Some(top) = &chosen
        && let Some(alternative) = fixed_alternative(&schemes, &usage, top)
    {
        preferred = Some((top.clone(), alternative.clone()));
        chosen = alternative.first().cloned();
    }
    let mut together = Vec::new();
    if let Some(c) = &chosen {
        together.push(c.clone());
        // The schemes the preferred alternative names with it (`{key: [], id: []}`).
        if let Some((_, alternative)) = &preferred {
            together.extend(alternative.iter().skip(1).cloned());
        }
        for other in required_with(&schemes, &usage, c, &mut out.warnings) {
            if !together.contains(&other) {
                together.push(other);
            }
        }
        let needed = needed_alternatives(root, &schemes, c, &together, &mut out.warnings);
        together.extend(needed);
    }
    out.schemes = scheme_lines(&schemes, &usage, &together);
    if let (Some((top, _)), Some(c)) = (&preferred, &chosen) {
        let why = expiring(schemes.get(top)).unwrap_or_default();
        let said = format!(
            " — sent rather than `{top}`, which every operation naming `{top}` takes it in place of: `{top}` is {why}, which a fixed value in the config cannot renew (`--security {top}` sends it instead)"
        );
        let mark = format!("`{c}` (");
        if let Some(line) = out.schemes.iter_mut().find(|l| l.starts_with(&mark)) {
            line.push_str(&said);
        }
    }
    if chosen.is_none() {
        if !schemes.is_empty() {
            out.warnings.push(
                "no security scheme of the spec can be sent; add the credentials by hand".into(),
            );
        }
        return Ok(out);
    }
    let prefix = env_prefix(dependency);
    for name in together {
        send_named_scheme(&mut out, &schemes, name, &prefix);
    }
    Ok(out)
}

/// The parameter names of every `apiKey` scheme: never arguments; nor, where a scheme
/// signs each request with AWS Signature Version 2, the query parameters that carry the
/// signature and the key it is made with (see [`SIGNATURE_V2_PARAMS`]).
fn api_key_params(schemes: &Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = schemes
        .values()
        .filter(|s| s.get("type").and_then(Value::as_str) == Some("apiKey"))
        .filter_map(|s| s.get("name").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    if schemes.values().any(|s| signature_version(s) == Some(2)) {
        names.extend(SIGNATURE_V2_PARAMS.iter().map(|n| n.to_string()));
    }
    names
}

/// AWS Signature Version 2's query parameters: the access key's id, the signature, how
/// it was made, and when. A signer computes them for each request; asked of the model,
/// they would hand it a credential's name and still never sign the call.
const SIGNATURE_V2_PARAMS: &[&str] = &[
    "AWSAccessKeyId",
    "Signature",
    "SignatureMethod",
    "SignatureVersion",
    "Timestamp",
    "Expires",
    "SecurityToken",
];

/// The AWS Signature version a scheme signs each request with (`awsSigv2`, `awsSigv4`).
fn signature_version(scheme: &Value) -> Option<u32> {
    let t = scheme
        .get("x-amazon-apigateway-authtype")
        .and_then(Value::as_str)?
        .to_ascii_lowercase();
    t.strip_prefix("awssigv")?.parse().ok()
}

/// How many operations each scheme heads the requirement of, and how many each
/// requirement is: an operation's own list, else the spec's global one, which is the
/// requirement of every operation that states none (Velo Payments' `OAuth2`, inherited
/// by 94 of its 100 operations, is its credential, not one list among three). The
/// requirement a scheme heads is counted too: `{apiKey: [], clientId: []}` needs both.
#[derive(Default)]
struct SchemeUse {
    counts: BTreeMap<String, usize>,
    requirements: BTreeMap<Vec<String>, usize>,
    /// For each scheme that heads a list, the other requirements the same lists offer
    /// as alternatives to it (`[{oauth: []}, {key: []}]`), with how many operations'
    /// lists do.
    alternatives: BTreeMap<String, Vec<(Vec<String>, usize)>>,
}

impl SchemeUse {
    fn of(root: &Value) -> SchemeUse {
        const METHODS: &[&str] = &[
            "get", "put", "post", "delete", "patch", "head", "options", "trace",
        ];
        let mut usage = SchemeUse::default();
        let mut inheriting = 0;
        for (_, item) in super::operations::path_items(root) {
            let operations = item
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(m, _)| METHODS.contains(&m.to_ascii_lowercase().as_str()));
            for (_, op) in operations {
                match op.get("security") {
                    Some(s) => usage.count(s, 1),
                    None => inheriting += 1,
                }
            }
        }
        // Operations written in other files (a path item that is a `$ref`) are not
        // seen here: the global list then still counts once.
        if let Some(g) = root.get("security") {
            usage.count(g, inheriting.max(1));
        }
        usage
    }

    /// Counts the first requirement of a list that names any scheme, `times` times,
    /// and the alternatives the list offers to it.
    fn count(&mut self, req: &Value, times: usize) {
        let mut named = req
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .filter(|r| !r.is_empty())
            .map(|r| r.keys().cloned().collect::<Vec<_>>());
        let Some(all) = named.next() else {
            return;
        };
        let offered = self.alternatives.entry(all[0].clone()).or_default();
        for other in named {
            match offered.iter_mut().find(|(o, _)| *o == other) {
                Some((_, n)) => *n += times,
                None => offered.push((other, times)),
            }
        }
        *self.counts.entry(all[0].clone()).or_default() += times;
        *self.requirements.entry(all).or_default() += times;
    }
}

/// The scheme `choice` names (an error when the spec defines none of that name), else
/// the sendable one most operations' requirements head with, else the first sendable one.
fn choose_scheme(
    schemes: &Map<String, Value>,
    usage: &SchemeUse,
    choice: Option<&str>,
) -> Result<Option<String>, String> {
    match choice {
        Some(c) if schemes.contains_key(c) => Ok(Some(c.to_string())),
        Some(c) => Err(format!(
            "--security {c}: the spec defines no such security scheme; it defines {}",
            if schemes.is_empty() {
                "none".to_string()
            } else {
                schemes
                    .keys()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )),
        // A scheme whose key cannot be sent is listed but not picked by default.
        None => Ok(usage
            .counts
            .iter()
            .filter(|(k, _)| schemes.get(*k).is_some_and(|s| unsendable(s).is_none()))
            .max_by_key(|(_, n)| **n)
            .map(|(k, _)| k.clone())
            .or_else(|| {
                schemes
                    .iter()
                    .find(|(_, s)| unsendable(s).is_none())
                    .map(|(k, _)| k.clone())
            })),
    }
}

/// A fixed credential to send in place of `top` when `top` is a token that expires
/// (OAuth 2, OpenID Connect: issued by a sign-in flow for an hour or so, which a
/// `${VAR}` set once cannot renew) and every list `top` heads offers, as an
/// alternative, a requirement whose schemes are all fixed ones toolgate can send (an
/// API key, HTTP basic, a bearer token of the user's own). Azure's services list
/// Microsoft Entra ID's OAuth 2 first and their `api-key` second: the key is the
/// credential a config can hold. The alternative most lists offer, the first of those.
fn fixed_alternative(
    schemes: &Map<String, Value>,
    usage: &SchemeUse,
    top: &str,
) -> Option<Vec<String>> {
    expiring(schemes.get(top))?;
    let heads = usage.counts.get(top).copied().unwrap_or(0);
    let fixed = |name: &String| {
        schemes
            .get(name)
            .is_some_and(|s| unsendable(s).is_none() && expiring(Some(s)).is_none())
    };
    let offered: Vec<&(Vec<String>, usize)> = usage
        .alternatives
        .get(top)?
        .iter()
        .filter(|(r, n)| *n >= heads && r.iter().all(fixed))
        .collect();
    let most = offered.iter().map(|(_, n)| *n).max()?;
    offered
        .into_iter()
        .find(|(_, n)| *n == most)
        .map(|(r, _)| r.clone())
}

/// What makes a scheme's credential expire, said as the scheme's kind: an OAuth 2 or
/// OpenID Connect token; `None` for a fixed one.
fn expiring(scheme: Option<&Value>) -> Option<String> {
    let scheme = scheme?;
    match scheme.get("type").and_then(Value::as_str)? {
        "oauth2" => {
            let flows: Vec<&str> = scheme
                .get("flows")
                .and_then(Value::as_object)
                .map(|f| f.keys().map(String::as_str).collect())
                .or_else(|| scheme.get("flow").and_then(Value::as_str).map(|f| vec![f]))
                .unwrap_or_default();
            Some(if flows.is_empty() {
                "an OAuth 2 token".to_string()
            } else {
                format!("an OAuth 2 token ({} flow)", flows.join(", "))
            })
        }
        "openIdConnect" => Some("an OpenID Connect token".to_string()),
        _ => None,
    }
}

/// The schemes sent together with the chosen one: the rest of the requirement most
/// lists head with it, when each of them can be sent (a warning for each that cannot).
fn required_with(
    schemes: &Map<String, Value>,
    usage: &SchemeUse,
    chosen: &str,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut together = Vec::new();
    let Some((all, _)) = usage
        .requirements
        .iter()
        .filter(|(r, _)| r.iter().any(|s| s == chosen))
        .max_by_key(|(_, n)| **n)
    else {
        return together;
    };
    for other in all.iter().filter(|o| *o != chosen) {
        match schemes.get(other) {
            Some(s) if unsendable(s).is_none() => together.push(other.clone()),
            _ => warnings.push(format!(
                "security scheme `{chosen}` is required together with `{other}`, which cannot be sent; add its credentials by hand"
            )),
        }
    }
    together
}

/// A key listed as an alternative (`[{key: []}, {token: []}]`) whose parameter every
/// operation requires is needed too: Trello's operations each require `key` and
/// `token`, whatever its requirement lists say. The ones not in `together` yet, each
/// with a warning.
fn needed_alternatives(
    root: &Value,
    schemes: &Map<String, Value>,
    chosen: &str,
    together: &[String],
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut needed = Vec::new();
    for (k, s) in schemes {
        let (Some("apiKey"), Some(param), Some(at)) = (
            s.get("type").and_then(Value::as_str),
            s.get("name").and_then(Value::as_str),
            s.get("in").and_then(Value::as_str),
        ) else {
            continue;
        };
        if together.contains(k)
            || needed.contains(k)
            || unsendable(s).is_some()
            || !required_everywhere(root, param, at)
        {
            continue;
        }
        needed.push(k.clone());
        warnings.push(format!(
            "security scheme `{k}` is listed as an alternative to `{chosen}`, but every operation requires its {at} parameter `{param}`: both are sent"
        ));
    }
    needed
}

/// Every scheme the spec defines, one line each: what it is, how many operations'
/// requirements it heads, its description, whether it can be sent, and whether it is.
fn scheme_lines(
    schemes: &Map<String, Value>,
    usage: &SchemeUse,
    together: &[String],
) -> Vec<String> {
    let mut lines = Vec::new();
    for (k, s) in schemes {
        let kind = s.get("type").and_then(Value::as_str).unwrap_or("?");
        let detail = match (kind, s.get("in").and_then(Value::as_str)) {
            ("apiKey", Some(at)) => format!(
                "apiKey in {at} `{}`",
                s.get("name").and_then(Value::as_str).unwrap_or("?")
            ),
            ("http", _) => format!(
                "http {}",
                s.get("scheme").and_then(Value::as_str).unwrap_or("?")
            ),
            (k, _) => k.to_string(),
        };
        let used = usage.counts.get(k).copied().unwrap_or(0);
        let mut line = format!(
            "`{k}` ({detail}; first choice of {used} operation{})",
            if used == 1 { "" } else { "s" }
        );
        if let Some(d) = s.get("description").and_then(Value::as_str) {
            line.push_str(&format!(": {}", super::text::trim_text(d, 80)));
        }
        if let Some(why) = unsendable(s) {
            line.push_str(&format!(" [cannot be sent: {why}]"));
        }
        if together.contains(k) {
            line.push_str(" [used]");
        }
        lines.push(line);
    }
    lines
}

/// Sends the scheme `name` from the dependency (a warning when it is not defined or
/// cannot be sent), recording it with the headers it added when it sent anything.
fn send_named_scheme(out: &mut Auth, schemes: &Map<String, Value>, name: String, prefix: &str) {
    let Some(scheme) = schemes.get(&name) else {
        out.warnings
            .push(format!("security scheme `{name}` is not defined"));
        return;
    };
    if let Some(why) = unsendable(scheme) {
        out.warnings.push(format!(
            "security scheme `{name}` cannot be sent ({why}); add its credentials by hand"
        ));
        return;
    }
    let before: Vec<String> = out.headers.keys().cloned().collect();
    let sent_before = (out.env.len(), out.query.len(), out.cookies.len());
    send_scheme(out, &name, scheme, prefix);
    let added: Vec<String> = out
        .headers
        .keys()
        .filter(|h| !before.contains(h))
        .cloned()
        .collect();
    if !added.is_empty() || sent_before != (out.env.len(), out.query.len(), out.cookies.len()) {
        out.sent_schemes.push((name, added));
    }
}

/// Whether nine in ten of the spec's operations (at least two) require the parameter
/// `name` in `location`, declared on the operation or its path (`$ref`s inside the
/// document followed).
fn required_everywhere(root: &Value, name: &str, location: &str) -> bool {
    const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head", "options"];
    let resolve = |p: &Value| -> Option<Value> {
        match p.get("$ref").and_then(Value::as_str) {
            Some(r) => root.pointer(r.strip_prefix('#')?).cloned(),
            None => Some(p.clone()),
        }
    };
    let params = |v: Option<&Value>| -> Vec<Value> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(&resolve)
            .collect()
    };
    let (mut total, mut requiring) = (0usize, 0usize);
    for (_, item) in super::operations::path_items(root) {
        let shared = params(item.get("parameters"));
        for method in METHODS {
            let Some(op) = item.get(*method) else {
                continue;
            };
            total += 1;
            let requires = params(op.get("parameters")).iter().chain(&shared).any(|p| {
                p.get("in").and_then(Value::as_str) == Some(location)
                    && p.get("required") == Some(&Value::Bool(true))
                    && p.get("name").and_then(Value::as_str).is_some_and(|n| {
                        if location == "header" {
                            n.eq_ignore_ascii_case(name)
                        } else {
                            n == name
                        }
                    })
            });
            requiring += usize::from(requires);
        }
    }
    requiring >= 2 && requiring * 10 >= total * 9
}

/// The start of every variable the import names for `dependency`: its name in capitals,
/// written as a shell, a systemd unit and a Kubernetes manifest take a variable's name
/// (letters, digits and `_`, not starting with a digit). `1password_connect` reads
/// `_1PASSWORD_CONNECT_TOKEN`: `export 1PASSWORD_CONNECT_TOKEN=…` is a shell error, so
/// the variable the config names could never be set; `--dependency my-api` reads
/// `MY_API_TOKEN`.
pub fn env_prefix(dependency: &str) -> String {
    let word = env_word(dependency);
    if word.starts_with(|c: char| c.is_ascii_digit()) || word.is_empty() {
        format!("_{word}")
    } else {
        word
    }
}

/// A name as an environment variable's word: `X-Auth-Token` → `X_AUTH_TOKEN`.
pub fn env_word(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// `base`, or `base_2`, `base_3`… when an earlier scheme of the same requirement took
/// it (two API keys sent together).
fn fresh_var(out: &Auth, base: String) -> String {
    let taken = |v: &str| out.env.iter().any(|(e, _)| e == v);
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}_{n}"))
        .find(|v| !taken(v))
        .unwrap_or(base)
}

/// One scheme's credentials as a dependency header or query parameter.
pub(super) fn send_scheme(out: &mut Auth, name: &str, scheme: &Value, prefix: &str) {
    let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
    let http_scheme = scheme
        .get("scheme")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_ascii_lowercase();
    let header = |out: &mut Auth, key: &str, value: String| {
        if out.headers.keys().any(|h| h.eq_ignore_ascii_case(key)) {
            out.warnings.push(format!(
                "security scheme `{name}` sends `{key}`, which another scheme of the same requirement already sends; add it by hand"
            ));
            false
        } else {
            out.headers.insert(key.to_string(), value);
            true
        }
    };
    match (kind, http_scheme.as_str()) {
        ("http", "bearer") | ("oauth2", _) | ("openIdConnect", _) => {
            let var = fresh_var(out, format!("{prefix}_TOKEN"));
            if header(out, "Authorization", format!("Bearer ${{{var}}}")) {
                out.env
                    .push((var, format!("the bearer token for `{name}`")));
            }
        }
        ("http", "basic") | ("basic", _) => {
            let var = fresh_var(out, format!("{prefix}_BASIC_AUTH"));
            if header(out, "Authorization", format!("Basic ${{{var}}}")) {
                out.env.push((var, "base64 of `user:password`".to_string()));
            }
        }
        ("apiKey", _) => {
            let key = scheme
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("X-API-Key");
            let var = fresh_var(out, format!("{prefix}_API_KEY"));
            let mut what = match scheme.get("description").and_then(Value::as_str) {
                Some(d) => super::text::trim_text(d, 60),
                None => format!("the `{key}` value"),
            };
            if key.eq_ignore_ascii_case("authorization") {
                // The variable is the whole header, so a scheme word belongs in it.
                what.push_str(
                    "; the whole header value, scheme included, e.g. `Bot …` or `Bearer …`",
                );
            }
            match scheme.get("in").and_then(Value::as_str) {
                Some("query") => out.query.push((query_key(key), format!("${{{var}}}"))),
                Some("cookie") => {
                    if out.cookies.iter().any(|(c, _)| c == key) {
                        out.warnings.push(format!(
                            "security scheme `{name}` sends the cookie `{key}`, which another scheme of the same requirement already sends; add it by hand"
                        ));
                        return;
                    }
                    out.cookies.push((key.to_string(), format!("${{{var}}}")));
                }
                _ => {
                    if !header(out, key, format!("${{{var}}}")) {
                        return;
                    }
                }
            }
            out.env.push((var, what));
        }
        _ => out.warnings.push(format!(
            "security scheme `{name}` ({kind}) cannot be expressed; add its headers by hand"
        )),
    }
}

/// Sends the credential parameter `f` as an `apiKey` scheme's would be; the variable
/// it is read from, when one was added.
fn send_parameter(out: &mut Auth, f: &super::credentials::Found, prefix: &str) -> Option<String> {
    let before = out.env.len();
    let scheme = json!({"type": "apiKey", "in": f.location, "name": f.name});
    let headers = out.headers.len();
    send_scheme(out, &f.name, &scheme, prefix);
    if out.headers.len() > headers {
        out.param_headers.push(f.name.clone());
    }
    let (var, what) = out.env.get_mut(before)?;
    what.push_str("; the spec declares it as an ordinary parameter");
    Some(var.clone())
}

/// The credentials a spec declares as ordinary parameters ([`super::credentials`]),
/// sent by the dependency as an `apiKey` scheme's would be, when none of the spec's
/// schemes is sent. Each is said in a warning, because the importer, not the spec,
/// made it a credential (it is no scheme `--security` could choose).
pub fn send_parameters(
    out: &mut Auth,
    found: &[super::credentials::Found],
    dependency: &str,
    operations: usize,
) {
    let prefix = env_prefix(dependency);
    let chosen = super::credentials::chosen(found);
    for f in &chosen {
        if let Some(var) = send_parameter(out, f, &prefix) {
            out.warnings.push(format!(
                "the {} parameter `{}` of {} of {} operations carries a credential, but no security scheme says so: the dependency sends it from `{var}`, the model is not asked for it",
                f.location, f.name, f.operations, operations
            ));
        }
    }
    let left: Vec<String> = found
        .iter()
        .filter(|f| !chosen.contains(f))
        .map(|f| format!("`{}`", f.name))
        .collect();
    if !left.is_empty() {
        out.warnings.push(format!(
            "the credential parameter{} {} {} not sent and not asked of the model: the spec makes {} optional, an alternative to the one sent",
            if left.len() == 1 { "" } else { "s" },
            left.join(", "),
            if left.len() == 1 { "is" } else { "are" },
            if left.len() == 1 { "it" } else { "them" },
        ));
    }
}

/// The credentials a spec declares as ordinary parameters ([`super::credentials`])
/// beside a security scheme that is sent. One the operations require, or a header on
/// (almost) all of them (Trakt's `trakt-api-key` beside OAuth), is sent too, as the
/// scheme's key is; another (Google's optional `key` and `access_token` query
/// parameters beside OAuth) is an alternative to the scheme, and left out. Neither is asked of the model, and both are said in a warning. Only
/// a parameter whose name or description says it is a credential counts: one that is
/// merely everywhere (an `X-Tenant-Key`) is the caller's. Returns the parameters the
/// tools leave out of their arguments.
pub fn parameters_beside_schemes(
    out: &mut Auth,
    found: Vec<super::credentials::Found>,
    dependency: &str,
    scheme_params: &std::collections::HashSet<String>,
    operations: usize,
) -> Vec<super::credentials::Found> {
    let prefix = env_prefix(dependency);
    let sent_already = |out: &Auth, f: &super::credentials::Found| {
        scheme_params.contains(&f.name)
            || out.headers.keys().any(|h| f.is(h, "header"))
            || out.query.iter().any(|(q, _)| f.is(q, "query"))
    };
    let mut left_out = Vec::new();
    let mut companions = 0;
    for f in found {
        if !f.said || sent_already(out, &f) {
            continue;
        }
        // A name the scheme is taken to carry (`token`, `api_key`) is that scheme's.
        let scheme_alias =
            super::operations::CREDENTIAL_NAMES.contains(&f.name.to_ascii_lowercase().as_str());
        // A header on (almost) every operation identifies the caller whatever the spec
        // says of it (Trakt marks its `trakt-api-key` optional); optional query keys
        // beside OAuth are Google's alternatives to it.
        let everywhere = f.location == "header" && f.operations * 5 >= operations * 4;
        if (f.required || everywhere) && !scheme_alias && companions < super::credentials::MAX_SENT
        {
            companions += 1;
            if let Some(var) = send_parameter(out, &f, &prefix) {
                out.warnings.push(format!(
                    "the {} parameter `{}` carries a credential the operations require besides the security scheme: the dependency sends it from `{var}`, the model is not asked for it",
                    f.location, f.name
                ));
            }
        } else {
            out.warnings.push(format!(
                "the {} parameter `{}` carries a credential: the dependency sends the security scheme's instead, and the model is not asked for it",
                f.location, f.name
            ));
        }
        left_out.push(f);
    }
    left_out
}

/// Why an `apiKey` scheme's key cannot be sent where the spec puts it: a header name
/// that is not an HTTP token, or a query parameter without a name.
pub(super) fn unsendable(scheme: &Value) -> Option<String> {
    if scheme.get("type").and_then(Value::as_str) != Some("apiKey") {
        return None;
    }
    // AWS writes Signature Versions 2 and 4 as an `Authorization` key; each is a
    // signature of each request, which no fixed header value can be.
    match signature_version(scheme) {
        Some(4) => return Some(
            "it is AWS Signature Version 4, a signature computed for each request, which toolgate does not compute; its `X-Amz-*` signing parameters are not asked of the model".into(),
        ),
        Some(v) => return Some(format!(
            "it is AWS Signature Version {v}, a signature computed for each request, which toolgate does not compute; its signing parameters (`AWSAccessKeyId`, `Signature`, `SignatureMethod`, `SignatureVersion`, `Timestamp`) are not asked of the model"
        )),
        None => {}
    }
    let name = scheme.get("name").and_then(Value::as_str);
    match scheme.get("in").and_then(Value::as_str) {
        Some("query") if name.is_some_and(|n| n.trim().is_empty()) => {
            Some("its query parameter has no name".into())
        }
        Some("query") => None,
        // A cookie's name is a token, as a header's is (RFC 6265 § 4.1.1).
        Some("cookie") => match name {
            Some(n) if !super::header::is_header_name(n) => {
                Some(format!("`{n}` is not a valid cookie name"))
            }
            _ => None,
        },
        _ => match name {
            Some(n) if !super::header::is_header_name(n) => {
                Some(format!("`{n}` is not a valid HTTP header name"))
            }
            _ => None,
        },
    }
}

/// A query parameter name as it goes into the base URL: anything but letters, digits
/// and `-._~` percent-encoded (`api key` → `api%20key`), so the URL stays one.
fn query_key(name: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(name, KEEP).to_string()
}

/// The dependency entry.
pub fn dependency(imp: &Imported, base_url: &str, query: &[(String, String)]) -> Value {
    let mut base = base_url.to_string();
    for (i, (k, v)) in query.iter().enumerate() {
        base.push(if i == 0 && !base.contains('?') {
            '?'
        } else {
            '&'
        });
        base.push_str(k);
        base.push('=');
        base.push_str(v);
    }
    let mut d = Map::new();
    d.insert("base_url".into(), json!(base));
    if !imp.headers.is_empty() {
        d.insert("headers".into(), json!(imp.headers));
    }
    if let Some(f) = imp.rate_limit_headers {
        d.insert("rate_limit_headers".into(), json!(f));
    }
    Value::Object(d)
}

/// A tool entry as the config writes it.
pub fn tool_entry(imp: &Imported, t: &Tool, version: &str) -> Value {
    let mut e = Map::new();
    e.insert(
        "dependency".into(),
        json!(t.dependency.as_deref().unwrap_or(&imp.dependency)),
    );
    e.insert("owner".into(), json!(imp.owner));
    e.insert("description".into(), json!(t.description));
    e.insert("request".into(), Value::Object(t.request.clone()));
    if !t.annotations.is_empty() {
        e.insert("annotations".into(), Value::Object(t.annotations.clone()));
    }
    e.insert("input_schema".into(), t.input_schema.clone());
    if let Some(full) = &t.full_input_schema {
        e.insert("full_input_schema".into(), full.clone());
    }
    // A schema from the description is marked `origin: imported`, so status, metrics and
    // the console tell it from one a person wrote; an operation without one gets `{}`,
    // which `serve` learns.
    let contract = match &t.response_schema {
        Some(schema) => json!({
            "version": version,
            "origin": "imported",
            "response_schema": schema.clone(),
        }),
        None => json!({ "version": version, "response_schema": {} }),
    };
    e.insert("contract".into(), contract);
    if let Some(s) = &t.successor_hint {
        e.insert("successor".into(), json!(s));
    }
    Value::Object(e)
}

/// A tool's entry, `name:` and [`tool_entry`]'s fields, written at the config's
/// `tools:` level without building the entry: its schemas (up to megabytes for an API
/// whose components all reach each other) are written where they are, not copied.
fn write_tool_entry<'a>(
    out: &mut String,
    imp: &Imported,
    t: &'a Tool,
    version: &str,
    input_defs: &mut InputDefs<'a>,
) {
    use super::yaml::{write_entry, write_map_entry};
    out.push_str("  ");
    out.push_str(&yaml_key(&t.name));
    out.push_str(":\n");
    let dependency = json!(t.dependency.as_deref().unwrap_or(&imp.dependency));
    write_entry(out, "dependency", &dependency, 2);
    write_entry(out, "owner", &json!(imp.owner), 2);
    write_entry(out, "description", &json!(t.description), 2);
    write_map_entry(out, "request", &t.request, 2);
    if !t.annotations.is_empty() {
        write_map_entry(out, "annotations", &t.annotations, 2);
    }
    input_defs.write(out, "input_schema", &t.input_schema, 2);
    if let Some(full) = &t.full_input_schema {
        input_defs.write(out, "full_input_schema", full, 2);
    }
    out.push_str("    contract:\n");
    write_entry(out, "version", &json!(version), 3);
    match &t.response_schema {
        Some(schema) => {
            write_entry(out, "origin", &json!("imported"), 3);
            write_entry(out, "response_schema", schema, 3);
        }
        None => write_entry(out, "response_schema", &json!({}), 3),
    }
    if let Some(s) = &t.successor_hint {
        write_entry(out, "successor", &json!(s), 2);
    }
}

/// A key as the YAML writer writes it.
fn yaml_key(key: &str) -> String {
    if super::yaml::plain_is_safe(key) {
        key.to_string()
    } else {
        super::yaml::double_quoted(key)
    }
}

/// An entry kept from an existing config, with the comment lines written above it
/// (an earlier import's `# METHOD /path` marker among them, so that import can still
/// recognise its tools).
#[derive(Debug, Clone)]
pub struct KeptEntry {
    /// Key.
    pub name: String,
    /// Value.
    pub value: Value,
    /// Comment lines as written, without their indentation.
    pub comments: Vec<String>,
}

/// Entries of an existing config that the import keeps as they are.
#[derive(Debug, Default)]
pub struct Kept {
    /// Top-level sections other than `dependencies` and `tools` (`gateway`, `alerts`, …).
    pub top: Map<String, Value>,
    /// Other dependencies (other imported APIs among them).
    pub deps: Vec<KeptEntry>,
    /// Other APIs' shared schema sets (`schemas.<set>`).
    pub schemas: Vec<KeptEntry>,
    /// Hand-written tools, other imports' tools, and tools of ours the new spec no
    /// longer has.
    pub tools: Vec<KeptEntry>,
    /// The dependency as the existing file defines it: its hand-tuned settings
    /// (timeouts, retries, status page, credentials) win over the generated ones.
    pub dependency: Option<Value>,
}

/// The whole config for a fresh import.
pub fn config(imp: &Imported) -> String {
    config_with(imp, &[], &Kept::default())
}

/// The whole config: header comment, kept entries, dependency, tools (each after its
/// comments), skipped operations. `versions` overrides contract versions per tool.
pub fn config_with(imp: &Imported, versions: &[(String, String)], kept: &Kept) -> String {
    let version_of = |name: &str| {
        versions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| imp.contract_version.clone())
    };
    let mut out = String::new();
    // Everything from the spec goes through `comment`, which keeps a text with line
    // breaks inside the comment instead of letting it become YAML.
    out.push_str(&comment(
        &format!(
            "{} {} ({}, {}), imported by `toolgate import openapi`.",
            imp.title, imp.spec_version, imp.format, imp.file_name
        ),
        "",
    ));
    out.push_str(&comment(&format!("Generated by: {}", imp.command), ""));
    out.push_str(&comment(
        &format!(
            "{} tools; contract version {} from info.version. Re-run the import with -o this file to see contract changes.",
            imp.tools.len(),
            imp.contract_version
        ),
        "",
    ));
    if !imp.env.is_empty() {
        let vars: Vec<String> = imp.env.iter().map(|(v, w)| format!("{v} ({w})")).collect();
        out.push_str(&comment(
            &format!("Export before `toolgate serve`: {}", vars.join(", ")),
            "",
        ));
    }
    if !imp.documented_headers.is_empty() {
        out.push_str(&comment(
            &format!(
                "Documented response headers: {}",
                imp.documented_headers.join(", ")
            ),
            "",
        ));
    }
    for w in &imp.warnings {
        out.push_str(&comment(&format!("warning: {w}"), ""));
    }
    for s in &imp.schemes {
        out.push_str(&comment(&format!("Security scheme: {s}"), ""));
    }
    if imp.schemes.len() > 1 {
        out.push_str(&comment(
            "Another scheme: re-run the import with --security NAME.",
            "",
        ));
    }
    if !kept.top.is_empty() {
        out.push_str(&yaml(&Value::Object(kept.top.clone())));
    }
    out.push_str("dependencies:\n");
    for e in &kept.deps {
        out.push_str(&kept_entry(e));
    }
    out.push_str(&comment(
        &format!(
            "Imported from {} {} ({}) by: {}",
            imp.title, imp.spec_version, imp.file_name, imp.command
        ),
        "  ",
    ));
    let dep_entry = kept
        .dependency
        .clone()
        .unwrap_or_else(|| dependency(imp, &imp.base_url, &imp.auth_query));
    let dep = json!({ imp.dependency.clone(): dep_entry });
    out.push_str(&indent(&yaml(&dep), "  "));
    for (name, url) in &imp.extra_dependencies {
        let entry = dependency(imp, url, &imp.auth_query);
        let dep = json!({ name.clone(): entry });
        out.push_str(&indent(&yaml(&dep), "  "));
    }
    if !imp.schemas.is_empty() || !kept.schemas.is_empty() {
        out.push_str("schemas:\n");
        for e in &kept.schemas {
            out.push_str(&kept_entry(e));
        }
        if !imp.schemas.is_empty() {
            out.push_str(&comment(
                &format!(
                    "Named schemas of {} {}, written once and shared by its tools' contracts ($ref: toolgate:schemas/{}/<name>).",
                    imp.title, imp.spec_version, imp.dependency
                ),
                "  ",
            ));
            let set = json!({ imp.dependency.clone(): Value::Object(imp.schemas.clone().into_iter().collect()) });
            out.push_str(&indent(&yaml(&set), "  "));
        }
    }
    if imp.tools.is_empty() && kept.tools.is_empty() {
        out.push_str("tools: {}\n");
    } else {
        out.push_str("tools:\n");
    }
    for e in &kept.tools {
        out.push_str(&kept_entry(e));
    }
    let mut input_defs = InputDefs::count(&imp.tools);
    for t in &imp.tools {
        let end = match (t.deprecated, &t.removal) {
            (true, Some(date)) => format!(" — deprecated, to be removed on {date}"),
            (true, None) => " — deprecated".to_string(),
            (false, _) => String::new(),
        };
        out.push_str(&comment(&format!("{} {}{end}", t.method, t.path), "  "));
        for n in &t.notes {
            out.push_str(&comment(n, "  "));
        }
        write_tool_entry(&mut out, imp, t, &version_of(&t.name), &mut input_defs);
    }
    if !imp.skipped.is_empty() {
        out.push_str(&format!(
            "# Skipped: {} operation{}, by reason.\n",
            imp.skipped.len(),
            if imp.skipped.len() == 1 { "" } else { "s" }
        ));
        for (reason, _) in operations::group(&imp.skipped) {
            out.push_str(&comment(&format!("{reason}:"), ""));
            for (label, r) in &imp.skipped {
                if *r == reason {
                    out.push_str(&comment(label, "  "));
                }
            }
        }
    }
    out
}

fn yaml(v: &Value) -> String {
    super::yaml::to_string(v)
}

fn kept_entry(e: &KeptEntry) -> String {
    let mut out = String::new();
    for c in &e.comments {
        out.push_str(&comment(c, "  "));
    }
    out.push_str(&indent(
        &yaml(&json!({ e.name.clone(): e.value.clone() })),
        "  ",
    ));
    out
}

fn indent(text: &str, by: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(by);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `# text`, one line per line of `text` (any line break a spec string holds, `\r` and
/// Unicode ones included, starts a new comment line). A comment cannot escape, and a
/// character YAML forbids raw makes the whole file unreadable: each becomes U+FFFD.
fn comment(text: &str, by: &str) -> String {
    let text = if text.is_empty() { " " } else { text };
    text.split(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
        .filter(|l| !l.is_empty())
        .map(|l| {
            let printable: String = l
                .chars()
                .map(|c| {
                    if c != '\t' && super::yaml::must_escape(c) {
                        '\u{FFFD}'
                    } else {
                        c
                    }
                })
                .collect();
            format!("{by}# {printable}\n")
        })
        .collect::<String>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_text_with_line_breaks_stays_inside_comments() {
        let c = comment("title\nevil: 1\r\nmore\u{2028}x", "  ");
        assert_eq!(c, "  # title\n  # evil: 1\n  # more\n  # x\n");
        let parsed: Value = yaml_serde::from_str(&format!("a: 1\n{c}")).unwrap();
        assert_eq!(parsed, json!({"a": 1}));
    }

    #[test]
    fn control_characters_in_comments_cannot_break_the_file() {
        let text: String = ('\u{0}'..='\u{A0}')
            .chain(['\u{FEFF}', '\u{FFFE}', '\u{FFFF}'])
            .collect();
        let c = comment(&format!("title {text} end"), "");
        let parsed: Value = yaml_serde::from_str(&format!("{c}a: 1\n")).unwrap();
        assert_eq!(parsed, json!({"a": 1}));
    }
}
