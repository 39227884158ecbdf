//! The credentials of one operation. The dependency sends the credentials most
//! operations take ([`super::emit::auth`]); an operation that states a requirement of
//! its own is sent what it states instead: nothing for `security: []` (a sign-in, a
//! health check), its own scheme when none of its alternatives is the dependency's,
//! and a credential parameter it requires (ClearBlade's `ClearBlade-DevToken`, beside
//! the `ClearBlade-UserToken` most operations take) from a variable of its own, never
//! the dependency's other credential with it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::credentials::Found;
use super::emit::{self, Auth};
use super::operations::{RawOperation, Tool};
use super::refs::Refs;

/// One credential a tool sends itself: where, under which name, and its value.
#[derive(Debug, Clone)]
struct Own {
    location: &'static str,
    name: String,
    value: String,
}

/// What an operation's requirement makes its tool send and leave out: its own
/// credentials, the dependency's headers it omits, the dependency's cookies it drops,
/// the base URL's query keys it omits.
struct Sending<'a> {
    own: &'a mut Vec<Own>,
    omit: &'a mut Vec<String>,
    cookies: &'a mut Vec<String>,
    query: &'a mut Vec<String>,
}

/// What the per-operation rules need of the spec and of what the dependency sends.
#[derive(Debug, Default)]
pub struct Requirements {
    schemes: Map<String, Value>,
    /// The spec's `security`, which operations without their own inherit.
    global: Option<Value>,
    /// Schemes the dependency sends, and the header names each put there.
    sent: BTreeMap<String, Vec<String>>,
    /// Header names the dependency sends for credential parameters.
    param_headers: Vec<String>,
    /// Query names the dependency's base URL carries.
    base_query: Vec<String>,
    /// Cookies the dependency's schemes put first in every tool's `Cookie` header, as
    /// (cookie name, value template).
    cookies: Vec<(String, String)>,
    /// Credentials of schemes the dependency does not send, made once for all tools.
    own_schemes: BTreeMap<String, Vec<Own>>,
    /// Variables of credential parameters the dependency does not send, by name.
    own_params: BTreeMap<(String, String), String>,
    prefix: String,
    /// Variables added for tools, with what each holds: listed with the others.
    pub env: Vec<(String, String)>,
}

impl Requirements {
    /// The rules for a spec whose dependency sends `auth`; the variables it reads are
    /// taken, and a tool's own never repeat them.
    pub fn new(
        root: &Value,
        schemes: Map<String, Value>,
        auth: &Auth,
        dependency: &str,
    ) -> Requirements {
        Requirements {
            schemes,
            global: root.get("security").cloned(),
            sent: auth.sent_schemes.iter().cloned().collect(),
            param_headers: auth.param_headers.clone(),
            base_query: auth.query.iter().map(|(k, _)| k.clone()).collect(),
            cookies: auth.cookies.clone(),
            prefix: emit::env_prefix(dependency),
            env: auth.env.clone(),
            ..Requirements::default()
        }
    }

    /// The variables added for tools, each with what it holds.
    pub fn added(&self, before: usize) -> Vec<(String, String)> {
        self.env.iter().skip(before).cloned().collect()
    }

    /// Makes `tool` send what its operation requires, and nothing the dependency sends
    /// that it does not. `found` are the spec's credential parameters.
    pub fn apply(&mut self, refs: &mut Refs, raw: &RawOperation, found: &[Found], tool: &mut Tool) {
        let mut own: Vec<Own> = Vec::new();
        let mut omit: Vec<String> = Vec::new();
        let mut dropped: Vec<String> = Vec::new();
        let mut omit_query: Vec<String> = Vec::new();
        // The operation's own list, else the spec's: an operation that inherits a
        // requirement the dependency does not send (most operations naming another)
        // needs its credentials as much as one that states it.
        let stated = raw.op.get("security").and_then(Value::as_array);
        if let Some(req) = stated.or(self.global.as_ref().and_then(Value::as_array)) {
            let req = req.clone();
            let mut sending = Sending {
                own: &mut own,
                omit: &mut omit,
                cookies: &mut dropped,
                query: &mut omit_query,
            };
            self.security(&req, stated.is_some(), &mut sending, &mut tool.notes);
        }
        // Credentials declared as parameters are the spec's mechanism only where no
        // scheme is sent; beside one, they are its alternatives (Google's `key`).
        if self.sent.is_empty() {
            self.parameters(refs, raw, found, &mut own, &mut omit, &mut tool.notes);
        }
        write(tool, own, omit, omit_query, &self.dropped_pairs(&dropped));
    }

    /// The `name=value` pairs of the dependency's cookies named in `names`.
    fn dropped_pairs(&self, names: &[String]) -> Vec<String> {
        self.cookies
            .iter()
            .filter(|(c, _)| names.contains(c))
            .map(|(c, v)| format!("{c}={v}"))
            .collect()
    }

    /// The cookie names the dependency's scheme `name` sends.
    fn scheme_cookies(&self, name: &str) -> Vec<String> {
        let Some(scheme) = self.schemes.get(name) else {
            return Vec::new();
        };
        match (
            scheme.get("in").and_then(Value::as_str),
            scheme.get("name").and_then(Value::as_str),
        ) {
            (Some("cookie"), Some(cookie)) if self.cookies.iter().any(|(c, _)| c == cookie) => {
                vec![cookie.to_string()]
            }
            _ => Vec::new(),
        }
    }

    /// The query key the dependency's scheme `name` puts on the base URL.
    fn scheme_query(&self, name: &str) -> Vec<String> {
        let Some(scheme) = self.schemes.get(name) else {
            return Vec::new();
        };
        match (
            scheme.get("in").and_then(Value::as_str),
            scheme.get("name").and_then(Value::as_str),
        ) {
            (Some("query"), Some(key)) if self.base_query.iter().any(|q| q == key) => {
                vec![key.to_string()]
            }
            _ => Vec::new(),
        }
    }

    /// The operation's own `security` list.
    fn security(
        &mut self,
        req: &[Value],
        stated: bool,
        sending: &mut Sending<'_>,
        notes: &mut Vec<String>,
    ) {
        let alternatives: Vec<&Map<String, Value>> =
            req.iter().filter_map(Value::as_object).collect();
        let scheme_headers: Vec<String> = self.sent.values().flatten().cloned().collect();
        let scheme_cookies: Vec<String> = self
            .sent
            .keys()
            .flat_map(|k| self.scheme_cookies(k))
            .collect();
        let scheme_query: Vec<String> = self
            .sent
            .keys()
            .flat_map(|k| self.scheme_query(k))
            .collect();
        if alternatives.iter().all(|a| a.is_empty()) {
            // `security: []` or `[{}]`: served without credentials, the key on the base
            // URL's query as much as a header or a cookie.
            let mut named = scheme_headers.clone();
            named.extend(scheme_cookies.iter().map(|c| format!("cookie {c}")));
            named.extend(scheme_query.iter().map(|q| format!("query parameter {q}")));
            if !named.is_empty() {
                notes.push(format!(
                    "the operation takes no credentials (`security: []`): the dependency's {} not sent",
                    listed(&named, "is", "are")
                ));
                sending.omit.extend(scheme_headers);
                sending.cookies.extend(scheme_cookies);
                sending.query.extend(scheme_query);
            }
            return;
        }
        // `{}` among others makes credentials optional; an alternative the dependency
        // sends needs nothing more.
        if alternatives.iter().any(|a| a.is_empty())
            || alternatives
                .iter()
                .any(|a| a.keys().all(|k| self.sends_like(k)))
        {
            return;
        }
        let usable = alternatives.iter().find(|a| {
            a.keys().all(|k| {
                self.schemes
                    .get(k)
                    .is_some_and(|s| emit::unsendable(s).is_none() && expressible(s))
            })
        });
        let Some(alternative) = usable else {
            // An inherited requirement nothing can send is the spec's, said once
            // among the warnings, not on every tool.
            if !stated {
                return;
            }
            let names: Vec<String> = alternatives
                .iter()
                .flat_map(|a| a.keys().cloned())
                .collect();
            notes.push(format!(
                "the operation requires {}, which the dependency does not send and a tool cannot: add it by hand",
                listed(&names, "", "")
            ));
            return;
        };
        let mut names = Vec::new();
        let mut slots: Vec<(&'static str, String)> = Vec::new();
        for k in alternative.keys() {
            let slot = self.schemes.get(k).and_then(slot);
            // What the dependency sends already stays (SoundCloud's `AuthHeader`, with
            // the `ClientId` some operations require besides it), and two schemes of
            // one credential (Google's `Oauth2` and `Oauth2c`, two flows of one bearer
            // token) are sent once.
            let known = slot.as_ref().is_some_and(|s| slots.contains(s));
            slots.extend(slot);
            if known || self.sends_like(k) {
                continue;
            }
            names.push(k.clone());
            let made = self.scheme_credentials(k);
            sending.own.extend(made);
        }
        // The dependency's scheme credentials the alternative does not name are not sent.
        let mut replaced = false;
        for (k, headers) in &self.sent {
            let kept = alternative.keys().any(|a| self.same_credential(k, a));
            if !kept {
                replaced = true;
                sending.omit.extend(headers.iter().cloned());
                sending.cookies.extend(self.scheme_cookies(k));
                sending.query.extend(self.scheme_query(k));
            }
        }
        notes.push(format!(
            "the operation requires {} {} the dependency's credentials: sent by the tool",
            listed(&names, "", ""),
            if replaced { "instead of" } else { "besides" }
        ));
    }

    /// The scheme `name`'s credentials, from variables of their own.
    fn scheme_credentials(&mut self, name: &str) -> Vec<Own> {
        if let Some(made) = self.own_schemes.get(name) {
            return made.clone();
        }
        let Some(scheme) = self.schemes.get(name).cloned() else {
            return Vec::new();
        };
        let mut scratch = Auth {
            env: self.env.clone(),
            ..Auth::default()
        };
        let prefix = format!("{}_{}", self.prefix, emit::env_word(name));
        emit::send_scheme(&mut scratch, name, &scheme, &prefix);
        let mut made: Vec<Own> = scratch
            .headers
            .into_iter()
            .map(|(name, value)| Own {
                location: "header",
                name,
                value,
            })
            .collect();
        made.extend(scratch.query.into_iter().map(|(name, value)| Own {
            location: "query",
            name,
            value,
        }));
        made.extend(scratch.cookies.into_iter().map(|(name, value)| Own {
            location: "cookie",
            name,
            value,
        }));
        self.env = scratch.env;
        self.own_schemes.insert(name.to_string(), made.clone());
        made
    }

    /// The credential parameters the operation declares: one it requires that the
    /// dependency does not send is sent by the tool; one the dependency sends that the
    /// operation does not declare, beside others it does, is not.
    fn parameters(
        &mut self,
        refs: &mut Refs,
        raw: &RawOperation,
        found: &[Found],
        own: &mut Vec<Own>,
        omit: &mut Vec<String>,
        notes: &mut Vec<String>,
    ) {
        let declared = declared(refs, raw);
        let mine: Vec<(&Found, bool)> = declared
            .iter()
            .filter_map(|(name, at, required)| {
                found
                    .iter()
                    .find(|f| f.is(name, at))
                    .map(|f| (f, *required))
            })
            .collect();
        if mine.is_empty() {
            return;
        }
        let mut sent_by_tool = Vec::new();
        for (f, required) in &mine {
            if !required || self.dependency_sends(f) {
                continue;
            }
            let key = (f.location.clone(), f.name.to_ascii_lowercase());
            let var = match self.own_params.get(&key) {
                Some(v) => v.clone(),
                None => {
                    let v = fresh(
                        &self.env,
                        format!("{}_{}", self.prefix, emit::env_word(&f.name)),
                    );
                    self.env.push((
                        v.clone(),
                        format!("the `{}` value, which some operations require", f.name),
                    ));
                    self.own_params.insert(key, v.clone());
                    v
                }
            };
            let location = if f.location == "query" {
                "query"
            } else {
                "header"
            };
            own.push(Own {
                location,
                name: f.name.clone(),
                value: format!("${{{var}}}"),
            });
            sent_by_tool.push(f.name.clone());
        }
        let unneeded: Vec<String> = self
            .param_headers
            .iter()
            .filter(|h| !mine.iter().any(|(f, _)| f.is(h, "header")))
            .cloned()
            .collect();
        if !sent_by_tool.is_empty() {
            notes.push(format!(
                "the operation requires the credential {}, which the dependency does not send: sent by the tool",
                listed(&sent_by_tool, "", "")
            ));
        }
        if !unneeded.is_empty() {
            notes.push(format!(
                "the operation declares other credentials than the dependency's {}, which {} not sent",
                listed(&unneeded, "", ""),
                if unneeded.len() == 1 { "is" } else { "are" }
            ));
            omit.extend(unneeded);
        }
    }

    /// Whether the dependency sends the scheme `name`, or one that carries the same
    /// credential in the same place (another OAuth 2 flow's bearer token).
    fn sends_like(&self, name: &str) -> bool {
        self.sent.keys().any(|k| self.same_credential(k, name))
    }

    /// Whether the schemes `a` and `b` carry one credential in one place: they are one
    /// scheme, or two flows of one authorization server's token ([`same::one_token`]),
    /// or two names of the key a base URL's query carries (a tool cannot replace that
    /// one). Two `apiKey` schemes of one header or cookie name are two keys: the spec
    /// names each scheme for the credential it is (an admin key, a project key).
    fn same_credential(&self, a: &str, b: &str) -> bool {
        if a == b {
            return true;
        }
        let (Some(sa), Some(sb)) = (self.schemes.get(a), self.schemes.get(b)) else {
            return false;
        };
        match (slot(sa), slot(sb)) {
            (Some(x), Some(y)) if x == y => match x.0 {
                "bearer" => same::one_token(sa, sb),
                "key" => x.1.starts_with("query:"),
                _ => true,
            },
            _ => false,
        }
    }

    fn dependency_sends(&self, f: &Found) -> bool {
        match f.location.as_str() {
            "query" => self.base_query.iter().any(|q| q == &f.name),
            _ => self
                .param_headers
                .iter()
                .chain(self.sent.values().flatten())
                .any(|h| f.is(h, "header")),
        }
    }
}

/// A scheme a tool's own headers, query or `Cookie` header can send.
fn expressible(scheme: &Value) -> bool {
    match scheme.get("type").and_then(Value::as_str) {
        Some("apiKey") => matches!(
            scheme.get("in").and_then(Value::as_str),
            Some("header" | "query" | "cookie")
        ),
        Some("http") => matches!(
            scheme
                .get("scheme")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase)
                .as_deref(),
            Some("bearer" | "basic")
        ),
        Some("oauth2" | "openIdConnect" | "basic") => true,
        _ => false,
    }
}

/// What a scheme sends and where: a bearer token (OAuth 2, OpenID Connect, HTTP
/// bearer) and a password (HTTP basic) in `Authorization`, a key under its name.
fn slot(scheme: &Value) -> Option<(&'static str, String)> {
    let kind = scheme.get("type").and_then(Value::as_str)?;
    let http = scheme
        .get("scheme")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    match (kind, http.as_deref()) {
        ("oauth2" | "openIdConnect", _) | ("http", Some("bearer")) => {
            Some(("bearer", "authorization".into()))
        }
        ("basic", _) | ("http", Some("basic")) => Some(("basic", "authorization".into())),
        ("apiKey", _) => {
            let at = scheme.get("in").and_then(Value::as_str)?;
            let name = scheme.get("name").and_then(Value::as_str)?;
            let name = if at == "header" {
                name.to_ascii_lowercase()
            } else {
                name.to_string()
            };
            Some(("key", format!("{at}:{name}")))
        }
        _ => None,
    }
}

/// The query and header parameters of an operation and its path: name, location and
/// whether the operation requires it.
fn declared(refs: &mut Refs, raw: &RawOperation) -> Vec<(String, String, bool)> {
    let own = raw
        .op
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| (raw.file.as_path(), p));
    let shared = raw.shared_params.iter().map(|(f, p)| (f.as_path(), p));
    let mut out = Vec::new();
    for (file, p) in own.chain(shared).collect::<Vec<_>>() {
        let Ok((_, p)) = refs.deref(file, p) else {
            continue;
        };
        let (Some(name), Some(at)) = (
            p.get("name").and_then(Value::as_str),
            p.get("in").and_then(Value::as_str),
        ) else {
            continue;
        };
        if matches!(at, "query" | "header") {
            let required = p.get("required") == Some(&Value::Bool(true));
            out.push((name.to_string(), at.to_string(), required));
        }
    }
    out
}

/// Writes the tool's own credentials into its request, the dependency headers it
/// leaves out as `omit_headers`, the base URL's query keys as `omit_query`, and takes
/// the dependency's cookie `dropped` pairs out of its `Cookie` header.
fn write(
    tool: &mut Tool,
    own: Vec<Own>,
    omit: Vec<String>,
    mut omit_query: Vec<String>,
    dropped: &[String],
) {
    cookies(tool, &own, dropped);
    for o in own.iter().filter(|o| o.location != "cookie") {
        let key = if o.location == "query" {
            "query"
        } else {
            "headers"
        };
        let map = tool
            .request
            .entry(key)
            .or_insert_with(|| json!({}))
            .as_object_mut();
        if let Some(map) = map
            && !map.keys().any(|k| k.eq_ignore_ascii_case(&o.name))
        {
            map.insert(o.name.clone(), json!(o.value));
        }
    }
    let mut omitted: Vec<String> = Vec::new();
    for h in omit {
        // A header the tool sends itself replaces the dependency's already.
        let replaced = own
            .iter()
            .any(|o| o.location == "header" && o.name.eq_ignore_ascii_case(&h));
        if !replaced && !omitted.iter().any(|o| o.eq_ignore_ascii_case(&h)) {
            omitted.push(h);
        }
    }
    if !omitted.is_empty() {
        tool.request.insert("omit_headers".into(), json!(omitted));
    }
    omit_query.dedup();
    if !omit_query.is_empty() {
        tool.request.insert("omit_query".into(), json!(omit_query));
    }
}

/// The tool's `Cookie` header without the `dropped` pairs and with its own cookie
/// credentials first, as the dependency's are: a request carries one such header.
fn cookies(tool: &mut Tool, own: &[Own], dropped: &[String]) {
    let own: Vec<String> = own
        .iter()
        .filter(|o| o.location == "cookie")
        .map(|o| format!("{}={}", o.name, o.value))
        .collect();
    if own.is_empty() && dropped.is_empty() {
        return;
    }
    let Some(headers) = tool
        .request
        .entry("headers")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    else {
        return;
    };
    let key = headers
        .keys()
        .find(|k| k.eq_ignore_ascii_case("cookie"))
        .cloned()
        .unwrap_or_else(|| "Cookie".to_string());
    let pairs: Vec<String> = headers
        .get(&key)
        .and_then(Value::as_str)
        .map(|h| h.split("; ").map(str::to_string).collect())
        .unwrap_or_default();
    let name_of = |p: &str| p.split('=').next().unwrap_or("").to_string();
    let mut kept: Vec<String> = own.clone();
    kept.extend(
        pairs
            .into_iter()
            .filter(|p| !dropped.contains(p) && !own.iter().any(|o| name_of(o) == name_of(p))),
    );
    if kept.is_empty() {
        headers.remove(&key);
    } else {
        headers.insert(key, Value::String(kept.join("; ")));
    }
    if headers.is_empty() {
        tool.request.remove("headers");
    }
}

/// `base`, or `base_2`, … when taken.
fn fresh(env: &[(String, String)], base: String) -> String {
    let taken = |v: &str| env.iter().any(|(e, _)| e == v);
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}_{n}"))
        .find(|v| !taken(v))
        .unwrap_or(base)
}

/// `` `a` `` or `` `a` and `b` ``, followed by `one` or `many` when given.
fn listed(names: &[String], one: &str, many: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let verb = if names.len() == 1 { one } else { many };
    let text = match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    if verb.is_empty() {
        text
    } else {
        format!("{text} {verb}")
    }
}

mod same;

#[cfg(test)]
mod tests;
