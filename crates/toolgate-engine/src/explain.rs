//! What the model is told when a call fails: what failed, the error class, whether
//! retrying can help and when, and what to do instead. One function per situation so
//! the wording stays consistent; the texts never contain URLs, headers or secrets.

use std::time::Duration;

use toolgate_contract::Drift;

use toolgate_config::ToolSpec;

mod failure;
pub use failure::{Failed, failure};

/// What went wrong on the last attempt, as far as the message needs to know.
#[derive(Debug)]
pub enum Detail {
    /// No response within the attempt timeout.
    Timeout(Duration),
    /// Connection failure.
    Connect(String),
    /// The HTTP client refused to form the request; nothing was sent.
    NotFormed(String),
    /// A non-2xx status, with the start of the body.
    Status {
        /// HTTP status.
        status: u16,
        /// Start of the body, one line.
        excerpt: String,
    },
    /// A redirect as the final answer (never followed), with its target when it is a
    /// clean link without secrets.
    Redirect {
        /// HTTP status (3xx).
        status: u16,
        /// The `Location`, when it can be shown.
        location: Option<String>,
    },
    /// A 2xx whose body is not JSON.
    NotJson {
        /// Parser message.
        reason: String,
        /// Start of the body.
        excerpt: String,
        /// The `Content-Encoding` the body came with (toolgate asks for none and decodes
        /// none), when it names one: the encoding when it is a short plain token, else
        /// empty.
        encoding: Option<String>,
    },
    /// A reply (an HTTP body, an MCP result) whose JSON names one member twice in an
    /// object: readers disagree on which value counts, so it has no one reading.
    RepeatedMember {
        /// Where the parser found the second name (`line 1 column 29`), never the
        /// name, which the upstream wrote.
        position: String,
        /// Start of the body.
        excerpt: String,
    },
    /// The body was over the size cap.
    TooLarge {
        /// HTTP status.
        status: u16,
        /// The cap in bytes.
        limit: usize,
    },
    /// A 2xx body (or an MCP server's message) of more JSON values than toolgate
    /// parses for a reply of its size limit.
    TooManyValues {
        /// HTTP status; `None` for an MCP server's message, refused by the client.
        status: Option<u16>,
        /// The most values a reply may hold.
        limit: usize,
    },
    /// The reply did not fit in what toolgate may hold of every reply at once.
    NoRoom {
        /// Bytes every reply held then (the dependency's replies when `share`).
        held: usize,
        /// The gateway-wide limit, or the dependency's part of it when `share`.
        limit: usize,
        /// The dependency's part (half the limit) was full, not the whole.
        share: bool,
    },
    /// The body broke the contract.
    Drift(Drift),
    /// An MCP server broke the protocol (not JSON-RPC, a stream that ended unanswered).
    Protocol(String),
    /// An MCP server answered with a JSON-RPC error.
    Rpc {
        /// Its code.
        code: i64,
        /// Its message (cleaned of control characters and secrets, capped).
        message: String,
    },
    /// An MCP tool answered `isError: true`: its result goes to the model as it came.
    ToolError {
        /// The upstream's result, as received.
        result: bytes::Bytes,
        /// Its first text, cleaned and capped, for logs and `_meta`.
        excerpt: String,
    },
    /// An MCP tool with an output schema answered without `structuredContent`.
    NoStructuredContent,
}

impl Detail {
    /// The diff, if this was drift.
    pub fn into_drift(self) -> Option<Drift> {
        match self {
            Detail::Drift(d) => Some(d),
            _ => None,
        }
    }

    /// A short, stable name for drift that has no diff (the incident's identity and
    /// title): a body that is not JSON, one over the size limit, a redirect.
    pub fn drift_cause(&self) -> &'static str {
        match self {
            Detail::NotJson { .. } => "the response body is not JSON",
            Detail::RepeatedMember { .. } => "the response body names a member twice in one object",
            Detail::TooLarge { .. } => "the response body is larger than the size limit",
            Detail::TooManyValues { .. } => {
                "the response body holds more JSON values than toolgate reads"
            }
            Detail::Redirect { .. } => "the upstream answered with a redirect",
            Detail::NoStructuredContent => "the result has no structuredContent",
            _ => "the response does not match the contract",
        }
    }

    /// What the last attempt got, as the middle of a sentence: one wording per kind of
    /// answer, chosen by what it carried.
    fn describe(&self) -> String {
        match self {
            Detail::Timeout(t) if t.is_zero() => "the upstream did not answer in time".into(),
            Detail::Timeout(t) => format!("the upstream did not answer within {}", human(*t)),
            Detail::Connect(d) => format!("the connection to the upstream failed ({d})"),
            Detail::NotFormed(d) => {
                format!("toolgate could not form the request, so nothing was sent ({d})")
            }
            Detail::Redirect { status, location } => redirect(*status, location.as_deref()),
            Detail::Status { status, excerpt } => status_answer(*status, excerpt),
            Detail::NotJson {
                reason,
                excerpt,
                encoding,
            } => not_json(reason, excerpt, encoding.as_deref()),
            Detail::RepeatedMember { position, excerpt } => format!(
                "the upstream answered with JSON that names the same member twice in one \
                 object ({position}), so it reads two ways and toolgate passes neither on; \
                 it starts {}",
                quoted(excerpt)
            ),
            Detail::TooLarge { status, limit } => {
                format!(
                    "the upstream answered HTTP {status} with a body larger than the {} limit",
                    bytes(*limit)
                )
            }
            Detail::TooManyValues { status, limit } => too_many_values(*status, *limit),
            Detail::NoRoom { held, limit, share } => no_room(*held, *limit, *share),
            Detail::Drift(d) => d.summary(),
            Detail::Protocol(d) => format!("the MCP server broke the protocol ({d})"),
            Detail::Rpc { code, message } => rpc_error(*code, message),
            Detail::ToolError { excerpt, .. } if excerpt.is_empty() => {
                "the tool reported an error".into()
            }
            Detail::ToolError { excerpt, .. } => {
                format!("the tool reported an error, saying {}", quoted(excerpt))
            }
            Detail::NoStructuredContent => {
                "the MCP server's result has no structuredContent, though the tool declares an output schema".into()
            }
        }
    }
}

fn redirect(status: u16, location: Option<&str>) -> String {
    match location {
        Some(location) => format!(
            "the upstream answered HTTP {status}, redirecting to {}; toolgate does not follow redirects",
            quoted(location)
        ),
        None => format!(
            "the upstream answered HTTP {status}, a redirect; toolgate does not follow redirects"
        ),
    }
}

fn status_answer(status: u16, excerpt: &str) -> String {
    if excerpt.is_empty() {
        format!("the upstream answered HTTP {status}")
    } else if is_non_text(excerpt) {
        format!("the upstream answered HTTP {status} with {excerpt}")
    } else {
        format!(
            "the upstream answered HTTP {status}, saying {}",
            quoted(excerpt)
        )
    }
}

fn not_json(reason: &str, excerpt: &str, encoding: Option<&str>) -> String {
    if let Some(encoding) = encoding {
        let named = if encoding.is_empty() {
            String::new()
        } else {
            format!(" {}", quoted(encoding))
        };
        return format!(
            "the upstream answered with a body that is not JSON: it came with a \
             Content-Encoding{named} that toolgate did not ask for and does not decode"
        );
    }
    // Not read as text at all (a character set toolgate does not decode): the reason
    // alone says why; an excerpt of the bytes would say nothing more.
    if excerpt.is_empty() {
        format!("the upstream answered with a body that is not JSON: {reason}")
    } else if is_non_text(excerpt) {
        format!("the upstream answered with a body that is not JSON ({excerpt})")
    } else {
        format!(
            "the upstream answered with a body that is not JSON ({reason}), starting {}",
            quoted(excerpt)
        )
    }
}

/// `status` is `None` for an MCP server's message, refused by the client.
fn too_many_values(status: Option<u16>, limit: usize) -> String {
    match status {
        Some(status) => format!(
            "the upstream answered HTTP {status} with a body of more than {limit} JSON \
             values, more than toolgate reads of one reply (tiny or deeply nested values \
             would take many times the body's size to check)"
        ),
        None => format!(
            "the MCP server answered with a message of more than {limit} JSON values, \
             more than toolgate reads of one message (tiny or deeply nested values would \
             take many times its size to check)"
        ),
    }
}

/// `share`: the dependency's part of the reply memory was full, not the whole.
fn no_room(held: usize, limit: usize, share: bool) -> String {
    if share {
        format!(
            "the upstream answered, but toolgate was already holding {} of this \
             dependency's replies for other calls (its share is {}, half of what toolgate \
             holds at once, so that one dependency cannot take it all) and dropped this one",
            about_bytes(held),
            bytes(limit)
        )
    } else {
        format!(
            "the upstream answered, but toolgate was already holding {} of replies for \
             other calls (its limit is {}) and dropped this one",
            about_bytes(held),
            bytes(limit)
        )
    }
}

fn rpc_error(code: i64, message: &str) -> String {
    // Said by the server, or concluded for it when the calling client could not answer
    // its question (`toolgate-mcp-client`'s input-required rounds): either way the
    // server needs what this client lacks.
    if code == toolgate_mcp_client::codes::MISSING_REQUIRED_CLIENT_CAPABILITY {
        format!(
            "the MCP server needs to ask this client something it does not offer (error -32021: {})",
            quoted(message)
        )
    } else {
        format!(
            "the MCP server answered with error {code}, saying {}",
            quoted(message)
        )
    }
}

/// The arguments did not fit the input schema or could not form a request.
pub fn invalid_arguments(tool: &str, problem: &str) -> String {
    format!(
        "{tool} was not called: the arguments are invalid ({problem}). Error class: client_error. \
         Fix the arguments and call {tool} again; retrying the same arguments will not help."
    )
}

/// `now + wait`, saturating at the far future.
pub fn at(now: chrono::DateTime<chrono::Utc>, wait: Duration) -> chrono::DateTime<chrono::Utc> {
    chrono::Duration::from_std(wait)
        .ok()
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC)
}

/// The tool's contract as a sentence names it: "contract v3.1", or "the learned
/// contract" for one learned from responses (its version is only a marker).
pub fn contract_name(tool: &ToolSpec) -> String {
    if tool.contract.origin == toolgate_config::ContractOrigin::Learned {
        "the learned contract".to_owned()
    } else {
        format!("contract v{}", tool.contract.version)
    }
}

/// The upstream serves a newer contract than the tool's wrapper and the gate refuses.
pub fn wrapper_outdated(tool: &ToolSpec, upstream: &str) -> String {
    format!(
        "{} was not called: the upstream now serves contract v{upstream}, newer than this tool's v{}, and its owner \
         ({}) asked toolgate to refuse calls until the tool is updated. Error class: contract_drift. Retrying will not \
         help; continue without {}.",
        tool.name, tool.contract.version, tool.owner, tool.name
    )
}

/// In a brownout, the concurrency limit toward the dependency is reached.
pub fn saturated(tool: &str, dependency: &str, limit: u32) -> String {
    format!(
        "{tool} was not called: {dependency} is slow, so toolgate allows only {limit} calls to it at once and none \
         freed up within this call's deadline. Error class: overloaded. Wait a few seconds before calling {tool} \
         again, then make fewer calls to it, one at a time, and expect delays."
    )
}

/// The replies of calls in flight fill what toolgate may hold at once
/// (`gateway.max_buffered_response_bytes`), so the call was not sent.
pub fn no_room_for_replies(tool: &str, held: usize, limit: usize) -> String {
    format!(
        "{tool} was not called: toolgate is holding {} of upstream replies for other calls, its limit of {}. \
         Error class: overloaded. Wait a few seconds before calling {tool} again, and make fewer calls at once.",
        about_bytes(held),
        bytes(limit)
    )
}

/// The calling agent may not call the tool (`agents.<name>.tools` / `deny`).
pub fn forbidden(tool: &str, agent: &str) -> String {
    format!(
        "{tool} was not called: agent {agent} is not allowed to call it. Error class: forbidden. Do not retry; \
         continue with the tools you are allowed to use."
    )
}

/// The calling agent has used its calls for the window (`agents.<name>.quota`).
pub fn agent_quota(tool: &str, agent: &str, calls: u32, per: Duration, wait: Duration) -> String {
    format!(
        "{tool} was not called: agent {agent} has used its quota of {calls} calls per {}. Error class: rate_limited. \
         toolgate sent nothing. Do not call any tool before {} from now; then make fewer calls.",
        human(per),
        human(wait)
    )
}

/// The calling agent already has its most calls running (`agents.<name>.quota.concurrent`).
pub fn agent_concurrency(tool: &str, agent: &str, limit: u32) -> String {
    format!(
        "{tool} was not called: agent {agent} already has {limit} calls running, its limit. Error class: \
         rate_limited. toolgate sent nothing. Wait for a call to finish, then call {tool} again, one call at a time."
    )
}

/// The pacer refused at admission: what is left of the quota is used up or promised to
/// calls queued before this one, and it returns later than this call may wait.
pub fn quota_exhausted(tool: &str, dependency: &str, resets_in: Duration) -> String {
    format!(
        "{tool} was not called: the quota {dependency} advertised is used up or promised to calls queued before this \
         one, and it resets in {}, later than this call may wait. Error class: rate_limited. toolgate sent \
         nothing, so the upstream was not hit. Do not call {tool} again before then; continue with other tools or \
         tell the user when it will be available.",
        human(resets_in)
    )
}

/// The breaker is open.
pub fn circuit_open(
    tool: &str,
    dependency: &str,
    down_since: Option<chrono::DateTime<chrono::Utc>>,
    retry_in: Duration,
) -> String {
    let since = down_since
        .map(|t| format!(" since {} UTC", t.format("%H:%M")))
        .unwrap_or_default();
    format!(
        "{tool} was not called: {dependency} is failing{since}, so toolgate is not sending it requests (circuit open). \
         Error class: circuit_open. Next check in {}. Do not retry {tool} before then; continue without it.",
        human(retry_in)
    )
}

/// A tool of an upstream MCP server withheld (`on_change: block`) because its live
/// definition differs from its pin: nothing was sent, and the changed text is not
/// repeated (it is what is under review).
pub fn withheld(tool: &str, owner: &str) -> String {
    format!(
        "{tool} was not called: its definition changed upstream and awaits review by {owner}. Error class: \
         contract_drift. toolgate sent nothing. Retrying will not help until the change is reviewed; continue \
         without {tool}."
    )
}

/// One pending definition change as a model may read it: what kind of change, of which
/// pinned tool, prompt or resource template, never the upstream's new words (a changed
/// description is how tool poisoning looks, and the new text is not reviewed). A new
/// definition is not named: its name is the upstream's unreviewed text too.
pub fn definition_change(exposed: &str, change: &toolgate_contract::DefinitionChange) -> String {
    use toolgate_contract::{DefinitionChange as C, DefinitionKind as K};
    let kind = change.definition_kind();
    let inner = match change {
        C::Prompt(inner) | C::ResourceTemplate(inner) => inner.as_ref(),
        other => other,
    };
    let of = match kind {
        K::Tool => String::new(),
        other => format!("{} ", other.noun()),
    };
    let part = match inner {
        C::Added { .. } => {
            return format!(
                "a new {} is listed upstream; it is not served until it is pinned (pending review)",
                kind.noun()
            );
        }
        C::Removed { .. } => {
            return format!("{of}{exposed} is no longer listed upstream (pending review)");
        }
        C::Description { .. } => "the description",
        C::Title { .. } => "the title",
        C::InputSchema { .. } if kind == K::Prompt => "the arguments",
        C::InputSchema { .. } => "the input schema",
        C::OutputSchema { .. } => "the output schema",
        C::Annotations { .. } if kind == K::ResourceTemplate => "the details",
        C::Annotations { .. } | C::Prompt(_) | C::ResourceTemplate(_) => "the annotations",
    };
    // What the hints now allow is told in toolgate's words, never the server's.
    let widened = inner.widens();
    if kind == K::Tool && !widened.is_empty() {
        return format!(
            "{part} of {exposed} changed upstream: it now says it may {} (pending review)",
            widened.join(", ")
        );
    }
    format!("{part} of {of}{exposed} changed upstream (pending review)")
}

/// Whether every change of an incident is a new definition of one kind: its name is
/// then the upstream's unreviewed text, and the kind is what a model is told.
pub fn all_new(kinds: &[&str]) -> Option<toolgate_contract::DefinitionKind> {
    let (first, _) = toolgate_contract::DefinitionKind::of_change_kind(kinds.first()?);
    kinds
        .iter()
        .all(|k| toolgate_contract::DefinitionKind::of_change_kind(k) == (first, "added"))
        .then_some(first)
}

/// The model's line for an open definition-drift incident of `tool`, from the kinds of
/// change its detail lists (the stored title quotes the changed text, for people).
pub fn definition_incident(tool: &str, dependency: &str, kinds: &[&str]) -> String {
    if kinds.is_empty() {
        return format!(
            "MCP server {dependency} lists tools toolgate refuses (over its limits, or unreadable); they are not served"
        );
    }
    if let Some(kind) = all_new(kinds) {
        return format!(
            "a new {} on MCP server {dependency} is not pinned (pending review)",
            kind.noun()
        );
    }
    let mut parts: Vec<&str> = kinds
        .iter()
        .map(
            |k| match toolgate_contract::DefinitionKind::of_change_kind(k).1 {
                "removed" => "no longer listed",
                "description" => "description",
                "title" => "title",
                "arguments" => "arguments",
                "input_schema" => "input schema",
                "output_schema" => "output schema",
                "annotations" => "annotations",
                "details" => "details",
                _ => "definition",
            },
        )
        .collect();
    parts.dedup();
    format!(
        "{tool}: definition changed on MCP server {dependency} ({}; pending review)",
        parts.join(", ")
    )
}

/// Configured secret values of one tool — its dependency's header values (after
/// `${ENV}` expansion), the credentials in its base URL (query values, password) and
/// the literal parts of its own header templates — as they may come back in upstream
/// text: whole, as the credential after an auth scheme (`Bearer <token>`), and
/// percent-encoded. Built only when upstream text is about to be repeated.
#[derive(Debug, Default, Clone)]
pub struct Secrets(Vec<String>);

/// Shorter values are not scrubbed as substrings: a value of a few characters ("1",
/// "json", "v2") occurs in ordinary text, so replacing it would garble every excerpt,
/// and where the `[redacted]` marks fell would itself spell out the value.
const MIN_SECRET_CHARS: usize = 6;

impl Secrets {
    /// The secrets `tool` is configured with.
    pub fn of(tool: &ToolSpec) -> Secrets {
        let dep = &tool.dependency;
        let mut raw: Vec<String> = dep
            .headers
            .iter()
            .filter_map(|(_, v)| v.to_str().ok().map(str::to_owned))
            .collect();
        raw.extend(dep.base_url.query_pairs().map(|(_, v)| v.into_owned()));
        raw.extend(dep.base_url.password().map(str::to_owned));
        raw.extend(dep.secrets.iter().map(|s| s.0.clone()));
        for (_, template) in tool.http_request().into_iter().flat_map(|r| &r.headers) {
            for part in &template.0 {
                if let toolgate_config::template::Part::Lit(l) = part {
                    raw.push(l.clone());
                }
            }
        }
        Secrets::new(raw)
    }

    /// Secrets from plain values.
    pub fn new(values: impl IntoIterator<Item = String>) -> Secrets {
        let mut out = Vec::new();
        for value in values {
            let value = value.trim().to_owned();
            // "Bearer <token>", "Basic <b64>", "token <t>": the credential alone too;
            // and each value of a list of pairs ("api_key=<k>; session=",
            // `Digest username="u", response="<r>"`), which an upstream may echo bare.
            let mut parts: Vec<String> = Vec::new();
            for piece in value.split(|c: char| c.is_whitespace() || c == ';' || c == ',') {
                let piece = piece.trim();
                if piece.is_empty() || piece == value {
                    continue;
                }
                parts.push(piece.to_owned());
                if let Some((_, pair_value)) = piece.split_once('=') {
                    parts.push(pair_value.trim_matches('"').to_owned());
                }
            }
            let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            out.push(value);
            out.push(encoded);
            out.extend(parts);
        }
        out.retain(|v| v.chars().count() >= MIN_SECRET_CHARS);
        // Longest first, so a token inside a longer value is not half-replaced.
        out.sort_by_key(|v| std::cmp::Reverse(v.len()));
        out.dedup();
        Secrets(out)
    }

    /// `text` with every secret replaced by `[redacted]`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.0 {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }

    /// `text` cut off mid-secret loses the partial secret at its end.
    fn drop_partial_tail(&self, text: &mut String) {
        for secret in &self.0 {
            let cut = (1..secret.len())
                .rev()
                .filter(|k| secret.is_char_boundary(*k))
                .find(|k| text.ends_with(&secret[..*k]));
            if let Some(k) = cut {
                text.truncate(text.len() - k);
            }
        }
    }

    fn longest(&self) -> usize {
        self.0.first().map_or(0, String::len)
    }
}

/// What [`excerpt`] says of a body that is not text, after its length: toolgate's words,
/// never quoted as the upstream's.
const NON_TEXT: &str = " bytes of non-text";

fn is_non_text(excerpt: &str) -> bool {
    excerpt
        .strip_suffix(NON_TEXT)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// How much of a body is read for an excerpt (plus the longest secret, so a secret
/// crossing this point is still seen whole).
const EXCERPT_WINDOW: usize = 4096;
/// Characters of upstream text shown.
const EXCERPT_CHARS: usize = 200;

/// The first 200 characters of a body, on one line, for messages, with every secret
/// in `secrets` replaced by `[redacted]` and control characters removed; a body that
/// is not text is "N bytes of non-text".
pub fn excerpt(body: &[u8], secrets: &Secrets) -> String {
    let window = &body[..body.len().min(EXCERPT_WINDOW + secrets.longest())];
    if !looks_like_text(window) {
        return format!("{}{NON_TEXT}", body.len());
    }
    let text = String::from_utf8_lossy(window);
    // Controls and invisible formatting characters (bidi overrides, zero-width) go:
    // they can hide or reorder what the model and an operator read.
    let visible = visible(&text);
    let mut scrubbed = secrets.scrub(&visible);
    if window.len() < body.len() {
        secrets.drop_partial_tail(&mut scrubbed);
    }
    let one_line: String = scrubbed.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(EXCERPT_CHARS).collect();
    if one_line.chars().count() > EXCERPT_CHARS || window.len() < body.len() {
        out.push('…');
    }
    out
}

/// `text` as a reader sees it, without what could hide or restyle words: whitespace
/// becomes a space; terminal escape sequences (`ESC [ 31 m`, `ESC ] … BEL`) go whole,
/// not just their ESC, which would leave `[31m` behind; other controls and invisible
/// formatting characters (bidi overrides, zero-width, tag characters) go.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.peek() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ST (ESC \\).
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
        } else if !c.is_control() && !toolgate_contract::is_invisible(c) {
            out.push(c);
        }
    }
    out
}

/// Upstream text repeated in a note or `_meta` (a `Warning`, a deprecation link): on
/// one line, without controls, secrets scrubbed, at most `max` characters.
pub fn upstream_text(text: &str, secrets: &Secrets, max: usize) -> String {
    let visible = visible(text);
    let scrubbed = secrets.scrub(&visible);
    let mut out: String = scrubbed.chars().take(max).collect();
    if scrubbed.chars().count() > max {
        out.push('…');
    }
    out
}

/// Upstream-written text inside one of toolgate's sentences: a JSON string, so that it
/// reads as a quotation and nothing in it — a `"`, a line break, "toolgate: …" — can end
/// the quotation and go on in toolgate's voice. The text is cleaned first
/// ([`excerpt`], [`upstream_text`]); quoting only frames it.
#[must_use]
pub fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A successor or deprecation link worth repeating: URL-ish (absolute http(s) or a
/// path), at most 200 characters, with nothing a URL cannot hold. Anything else — a
/// 20 KB header value, prose, a secret — is not a link and is dropped.
pub fn link(value: &str, secrets: &Secrets) -> Option<String> {
    const MAX_LINK: usize = 200;
    let v = value.trim();
    let urlish = v.starts_with("https://") || v.starts_with("http://") || v.starts_with('/');
    let clean = v
        .chars()
        .all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>' | '"' | '\\'));
    (urlish && clean && v.len() <= MAX_LINK && secrets.scrub(v) == v).then(|| v.to_owned())
}

/// Text, not bytes: valid UTF-8 (a character cut at the end of the window is fine),
/// no NUL, and few control characters.
fn looks_like_text(window: &[u8]) -> bool {
    let valid = match std::str::from_utf8(window) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && window.len() - e.valid_up_to() < 4,
    };
    if !valid || window.contains(&0) {
        return false;
    }
    let controls = window
        .iter()
        .filter(|b| b.is_ascii_control() && !b.is_ascii_whitespace())
        .count();
    controls * 10 <= window.len()
}

/// `47 s`, `1.5 s`, `250 ms`, `3 min 20 s`.
pub fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 10_000 && !ms.is_multiple_of(1000) {
        format!("{:.1} s", d.as_secs_f64())
    } else if d.as_secs() < 120 {
        format!("{} s", d.as_secs())
    } else if d.as_secs() < 7200 {
        match d.as_secs() % 60 {
            0 => format!("{} min", d.as_secs() / 60),
            s => format!("{} min {s} s", d.as_secs() / 60),
        }
    } else {
        match d.as_secs() % 3600 / 60 {
            0 => format!("{} h", d.as_secs() / 3600),
            m => format!("{} h {m} min", d.as_secs() / 3600),
        }
    }
}

/// A size read at a glance: "1.4 MiB", "300 KiB" (to a tenth), else bytes.
fn about_bytes(n: usize) -> String {
    let n_f = n as f64;
    if n >= 1 << 20 {
        format!("{:.1} MiB", n_f / f64::from(1u32 << 20))
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n_f / 1024.0)
    } else {
        byte_count(n)
    }
}

fn bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        byte_count(n)
    }
}

/// "1 byte", "700 bytes".
fn byte_count(n: usize) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests;
