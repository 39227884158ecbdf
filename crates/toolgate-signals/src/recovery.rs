//! What a failed reply says would fix it, beyond its status: the account behind the
//! calls (credits or a period's allowance spent, a plan without room, an account pending,
//! disabled or deleted), the credentials (expired, invalid, short of a scope), nothing
//! but time (an operation in progress, a lock, a service briefly unavailable), the
//! request itself, or nothing at all (the method is not implemented).
//!
//! The status alone cannot tell these apart: vendors send a spent budget as 402, 403,
//! 409, 422 or 429 ("Your searches for the month have run out", Pinecone's
//! `QUOTA_EXCEEDED`), an expired token as 400 (S3's `ExpiredToken`), and a passing state
//! as 409 or 423 ("operation_in_progress", "Resource is locked"). What decides is the
//! reply's own codes and messages, read by their words (`recovery/said.rs`), and gRPC's
//! status names and numbers (`UNAVAILABLE`, `{"code": 14, "details": []}`), mapped by
//! gRPC's own retry guidance. The class it leads to is decided by
//! `toolgate_resilience::classify`; this module only reads.
//!
//! Bounded: only the prefix [`crate::body::read`] passes, at most [`MAX_NODES`] JSON
//! values to [`MAX_DEPTH`] levels, [`MAX_TEXTS`] texts of at most [`MAX_TEXT`] bytes.

use serde_json::Value;

pub(crate) mod challenge;
mod cjk;
mod languages;
mod said;

pub(crate) use said::grpc_number;

/// JSON values looked at.
const MAX_NODES: usize = 256;
/// Levels of nesting looked into.
const MAX_DEPTH: usize = 6;
/// Codes and messages kept from one body.
const MAX_TEXTS: usize = 16;
/// Longest code or message read; a longer one is cut at a character boundary.
const MAX_TEXT: usize = 300;
/// XML tags looked at.
const MAX_TAGS: usize = 128;

/// What would fix a failed call, by what its reply says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// The account behind the calls must change, or its allowance renew: credits or a
    /// day's or month's allowance spent, a plan without room for this call, the caller's
    /// user or account pending, disabled, suspended or deleted
    /// (`recovery/said/caller_state.rs`). Waiting seconds does not help, and no other
    /// call to the dependency passes either (the engine holds them).
    Account,
    /// A count of things the account may hold is full (instances, projects, seats, the
    /// space it stores in; `recovery/said/held_count.rs`): this call fails until the
    /// owner raises the limit or something is removed, while the account's other calls
    /// (reading, deleting what frees room) still pass. The account's to mend, as
    /// [`Recovery::Account`], but the engine holds no other call back for it.
    Holdings,
    /// The credentials were refused: expired, invalid, or short of a scope.
    Credentials,
    /// A passing state of the upstream: the same request may pass in a moment (gRPC
    /// `UNAVAILABLE`, `ABORTED`, `DEADLINE_EXCEEDED`; an operation in progress, a lock).
    Transient,
    /// The request itself is wrong, whatever the status says (gRPC `INVALID_ARGUMENT`,
    /// `FAILED_PRECONDITION`, `OUT_OF_RANGE`, `ALREADY_EXISTS`, `NOT_FOUND`; "invalid
    /// parameter"; a card declined).
    Request,
    /// The upstream does not do what was asked (gRPC `UNIMPLEMENTED`, "not implemented",
    /// a method or command it does not have: "Method not found", "no such command").
    Unsupported,
    /// The upstream no longer does what was asked: a 4xx whose words say the called
    /// endpoint, API version or model reached its end (read by `body::read`).
    Retired,
}

/// Names whose string values are codes: read as words and as gRPC status names.
const CODE_KEYS: [&str; 10] = [
    "code",
    "errorcode",
    "errcode",
    "error",
    "status",
    "type",
    "reason",
    "errortype",
    "category",
    "title",
];
/// Names under which a string is a gRPC status name.
const GRPC_KEYS: [&str; 2] = ["code", "status"];
/// Names whose string values are messages, read as words.
const MESSAGE_KEYS: [&str; 13] = [
    "message",
    // `{"status": "0", "message": "NOTOK", "result": "Invalid API Key"}`: in a failed
    // reply, a result written as a sentence is what went wrong.
    "result",
    // eMAG Marketplace's `{"isError": true, "messages": ["…"], "results": []}`.
    "messages",
    // `{"errors": "Account is suspended."}`, `{"errors": ["permission denied"]}`.
    "errors",
    "msg",
    "errmsg",
    "errormessage",
    "detail",
    "details",
    "description",
    "errordescription",
    "additionaldetails",
    "faultstring",
];

/// What the first bytes of a failed reply's body say would fix it; `None` when they say
/// nothing this module reads, whatever the reply's status.
#[cfg(test)]
#[must_use]
pub(crate) fn read(prefix: &[u8]) -> Option<Recovery> {
    read_refusal(0, prefix)
}

/// Whether an account's refusal in these first bytes says no more than a budget spent
/// ("Out of resource quota."): asked only of a reply read as the account's.
#[must_use]
pub(crate) fn budget_said_alone(prefix: &[u8]) -> bool {
    said::budget_said_alone(&found_in(prefix).texts)
}

/// The codes, messages and markers the first bytes of a body hold.
fn found_in(prefix: &[u8]) -> Found {
    let mut found = Found::default();
    match serde_json::from_slice::<Value>(prefix) {
        Ok(v) => {
            let mut nodes = 0;
            visit(&v, None, 0, &mut nodes, &mut found);
        }
        Err(_) => {
            let text = String::from_utf8_lossy(prefix);
            let text = text.trim_start();
            if text.starts_with('<') {
                markup(text, &mut found);
            } else if !text.starts_with(['{', '[']) {
                found.text(text);
            }
        }
    }
    found
}

/// What the first bytes of a failed reply of `status` say would fix it. A 403 refuses
/// the caller: only words that say what
/// was asked is refused by the state of what it names or by a business rule make it the
/// request's ("Cannot delete a paid invoice"); what else would read as the request's
/// under another status (an input called invalid, a thing not found) is left to the 403,
/// since what the caller may not see or do reads the same way.
#[must_use]
pub(crate) fn read_refusal(status: u16, prefix: &[u8]) -> Option<Recovery> {
    let mut found = found_in(prefix);
    // An `ErrorInfo`'s reason is the most specific a body can be (AIP-193): a code the
    // API chose for machines, so it comes before the status it details and before the
    // words of the message written for people ("organization's policy" is no account).
    if found.sign_in {
        return Some(Recovery::Credentials);
    }
    // "Usage limit exceeded for plan Watt" beside `"period": "minute"` is a minute's
    // limit, which comes back by waiting, not a plan's allowance spent.
    if let Some(unit) = found.window {
        for t in &mut found.texts {
            t.push_str(" per ");
            t.push_str(unit);
        }
    }
    // A 507 whose words speak of a quota or a limit says the space that is full is the
    // account's to free or raise; one that names none (a bare 507, the status's own
    // name) is the server's own disk, left to the status.
    if status == 507 && found.reason.is_none() && found.texts.iter().any(|t| said::names_a_quota(t))
    {
        let said = said::decide(&found.texts, found.grpc.or(found.soap), false);
        return Some(said.unwrap_or(Recovery::Holdings));
    }
    let count_full = found.count_full;
    found.reason.or_else(|| {
        let said = said::decide(&found.texts, found.grpc.or(found.soap), status == 403);
        // "quota(s) exceeded for this resource" beside `{"resource": "instances_servers",
        // "quota": 10, "current": 10}`: the count says what the words do not.
        if count_full && !matches!(said, Some(Recovery::Account | Recovery::Credentials)) {
            return Some(Recovery::Holdings);
        }
        // A body that says in a member of its own that the call may be retried (Increase's
        // `"retryable": true`) is a passing state, whatever else its words say of the
        // request; an account or credentials it names are still theirs to mend.
        match said {
            Some(Recovery::Account | Recovery::Holdings | Recovery::Credentials) => said,
            _ if found.retryable => Some(Recovery::Transient),
            _ => said,
        }
    })
}

/// The codes and messages of one body, and the gRPC status it names.
#[derive(Default)]
struct Found {
    texts: Vec<String>,
    grpc: Option<Recovery>,
    /// What a SOAP fault's code says ([`soap_fault`]).
    soap: Option<Recovery>,
    /// What a `google.rpc.ErrorInfo`'s reason says ([`error_info`]).
    reason: Option<Recovery>,
    /// A member counts a named resource at or over its quota ([`count_at_its_quota`]).
    count_full: bool,
    /// The body is a sign-in page ([`crate::sign_in_page`]).
    sign_in: bool,
    /// A member of the body says the call may be retried ([`RETRYABLE_KEYS`]).
    retryable: bool,
    /// The window a member names for the limit the body reports (`"period":
    /// "minute"`, [`WINDOW_KEYS`]): read with the body's words, as "per minute" is.
    window: Option<&'static str>,
}

/// Names of a member that states the window a limit counts in.
const WINDOW_KEYS: [&str; 3] = ["period", "window", "interval"];

/// The windows such a member may name.
const WINDOW_UNITS: [&str; 7] = ["second", "minute", "hour", "day", "week", "month", "year"];

/// Names of a boolean by which an error says whether the same call may pass when sent
/// again: Increase's `retryable`, `is_retryable`, `retriable`.
const RETRYABLE_KEYS: [&str; 4] = ["retryable", "retriable", "isretryable", "isretriable"];

impl Found {
    fn text(&mut self, s: &str) {
        if self.texts.len() >= MAX_TEXTS || s.trim().is_empty() {
            return;
        }
        // A gRPC client's error string passed on as the message ("rpc error: code =
        // Unavailable desc = …"): the status it names, as if sent as a code.
        if let Some(r) = said::grpc_in_error_string(s) {
            self.grpc.get_or_insert(r);
        }
        let mut end = s.len().min(MAX_TEXT);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.texts.push(s[..end].to_owned());
    }

    /// A code's words; and, under the names gRPC's JSON forms give it (`code` in
    /// Connect's, `status` in Google's), a gRPC status name.
    fn code(&mut self, key: &str, s: &str) {
        if GRPC_KEYS.contains(&key)
            && let Some(r) = said::grpc_name(s)
        {
            self.grpc.get_or_insert(r);
        }
        self.text(s);
    }
}

fn visit(v: &Value, key: Option<&str>, depth: usize, nodes: &mut usize, out: &mut Found) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            if let Some(r) = grpc_status_object(map) {
                out.grpc.get_or_insert(r);
            }
            if let Some(r) = error_info(map) {
                out.reason.get_or_insert(r);
            }
            if count_at_its_quota(map) {
                out.count_full = true;
            }
            if let Some(text) = odata_message(key, map) {
                out.text(text);
            }
            if let Some(text) = coded_text(map) {
                out.text(text);
            }
            if let Some(text) = message_about_a_field(map) {
                out.text(&text);
            }
            let detail = named_failure_detail(map);
            if let Some(text) = detail {
                out.text(text);
            }
            // A message written as an object keyed by what failed (`{"message":
            // {"limit_reached": ["Your project limit is 10 projects!"]}}`): its texts are
            // the message's.
            let under_message =
                key.is_some_and(|k| MESSAGE_KEYS.contains(&member_name(k).as_str()));
            for (k, child) in map {
                *nodes += 1;
                if *nodes > MAX_NODES {
                    return;
                }
                // The name of the code says less than the detail read in its place.
                if detail.is_some() && k == "message" {
                    continue;
                }
                let texts_only = child.is_string()
                    || child
                        .as_array()
                        .is_some_and(|a| a.iter().all(Value::is_string));
                let name = if under_message && texts_only {
                    key
                } else {
                    Some(k.as_str())
                };
                visit(child, name, depth + 1, nodes, out);
            }
        }
        Value::Array(items) => {
            for child in items {
                *nodes += 1;
                if *nodes > MAX_NODES {
                    return;
                }
                visit(child, key, depth + 1, nodes, out);
            }
        }
        Value::Bool(true)
            if key
                .is_some_and(|k| RETRYABLE_KEYS.contains(&crate::walk::normalise(k).as_str())) =>
        {
            out.retryable = true;
        }
        Value::String(s) => {
            let Some(k) = key.map(member_name) else {
                return;
            };
            if WINDOW_KEYS.contains(&k.as_str()) {
                let unit = s.trim().to_ascii_lowercase();
                let unit = unit.strip_suffix('s').unwrap_or(&unit);
                if let Some(u) = WINDOW_UNITS.iter().find(|u| **u == unit) {
                    out.window.get_or_insert(u);
                }
                return;
            }
            if CODE_KEYS.contains(&k.as_str()) || names_a_code(&k) {
                out.code(&k, s);
            } else if MESSAGE_KEYS.contains(&k.as_str()) || names_a_message(&k) {
                out.text(s);
            }
        }
        _ => {}
    }
}

/// A member's name as the tables above hold it: normalised, without the number a body
/// adds when it has more than one of a kind (Sage Intacct's `<description2>` beside an
/// empty `<description>`, `message2`). A name that is only digits stays as it is.
fn member_name(key: &str) -> String {
    let mut name = crate::walk::normalise(key);
    let kept = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if kept > 0 {
        name.truncate(kept);
    }
    name
}

/// A code named after what it reports: `sub_code` (Alipay's `isv.invalid-signature`
/// under a numeric `code`), `status_code`, `result_code`, `return_code`, and any error
/// code named for where it comes from (CloudKit's `serverErrorCode`). A bare `…_code` is
/// not one: a `country_code` or a `currency_code` is data.
fn names_a_code(key: &str) -> bool {
    const HEADS: [&str; 5] = ["sub", "status", "result", "return", "reason"];
    key.strip_suffix("code")
        .is_some_and(|head| HEADS.contains(&head) || head.ends_with("error"))
        // An error's name is its code written as a word (`errorName: "accessDenied"`).
        || key.strip_suffix("name").is_some_and(|head| head.ends_with("error"))
        // OAuth 1.0a's problem reporting names its code `oauth_problem`.
        || key == "oauthproblem"
}

/// A message named after what it reports: `status_message` (`{"status": "ERROR",
/// "status_message": "Invalid integration key"}`), `sub_msg`, `result_msg`, and the
/// `response_desc`, `result_desc` payment gateways shorten it to; and one written for
/// people, in their language or for a screen (`translated`, `localized`, `display`,
/// `diagnostics`: [`crate::walk::PEOPLE_TEXT_NAMES`]).
fn names_a_message(key: &str) -> bool {
    key.ends_with("message")
        // `error-text`, `errorText`: the text of the error is its message.
        || key.strip_suffix("text").is_some_and(|head| head.ends_with("error"))
        // Why an item was rejected or failed, named so: `reject_reason`, `failureReason`.
        // A bare `reason` is a code ([`CODE_KEYS`]). A payment's `refusalReason` or
        // `declineReason` ("Not enough balance") speaks of the payer's card, not of the
        // caller's account, and is left unread.
        || key.strip_suffix("reason").is_some_and(|head| {
            ["reject", "rejection", "failure", "error"].contains(&head)
        })
        // `errorSummary`, `error_summary`: a summary is the message.
        || key.ends_with("summary")
        // Jira's `errorMessages`, a list of them.
        || key.ends_with("messages")
        || key.ends_with("msg")
        || crate::walk::PEOPLE_TEXT_NAMES.contains(&key)
        || key.strip_suffix("desc").is_some_and(|head| head.len() >= 2)
        // Portuguese `mensagem`, Spanish `mensaje`, German `meldung`, … .
        || crate::walk::MESSAGE_NAMES.contains(&key)
        // apilayer's APIs put the sentence under `info` beside a numeric code and a type
        // ("Your monthly usage limit has been reached. Please upgrade …").
        || key == "info"
}

/// The message of an OData error in its verbose JSON form (OData v2 and v3, as SAP
/// Gateway, SAP Business One's Service Layer and SharePoint write it): `{"error":
/// {"code": "…", "message": {"lang": "en-us", "value": "Invalid session."}}}`. The text
/// is under `value`, a name no message has elsewhere, so it is read only here.
fn odata_message<'a>(
    key: Option<&str>,
    map: &'a serde_json::Map<String, Value>,
) -> Option<&'a str> {
    if !key.is_some_and(|k| k.eq_ignore_ascii_case("message")) {
        return None;
    }
    map.get("lang")?.as_str()?;
    map.get("value")?.as_str()
}

/// The message of an error written `{"code": "E00007", "text": "User authentication
/// failed due to invalid authentication values."}`, as Authorize.Net's JSON answers
/// (and the JSON forms of XML APIs that name a message `<text>`) write it. A `text` is
/// read only beside a `code`: elsewhere it is as often data (a post's, a message's).
fn coded_text(map: &serde_json::Map<String, Value>) -> Option<&str> {
    let code = map.get("code")?;
    if !(code.is_string() || code.is_number()) {
        return None;
    }
    map.get("text")?.as_str()
}

/// An error's message read with the name of the input it is about: `{"Code": "Invalid",
/// "Message": "Invalid unique identifier.", "PropertyName": "API Key"}` says the key was
/// refused, though its message names no key. The name comes under a member that names
/// the input at fault (`field`, `param`, `parameter`, `propertyName`, `property`); the
/// message as it is is read too.
fn message_about_a_field(map: &serde_json::Map<String, Value>) -> Option<String> {
    const FIELD_NAMES: [&str; 5] = ["field", "param", "parameter", "propertyname", "property"];
    let field = map.iter().find_map(|(k, v)| {
        FIELD_NAMES
            .contains(&crate::walk::normalise(k).as_str())
            .then(|| v.as_str())
            .flatten()
    })?;
    let message = map.iter().find_map(|(k, v)| {
        (crate::walk::normalise(k) == "message")
            .then(|| v.as_str())
            .flatten()
    })?;
    (!field.trim().is_empty()).then(|| format!("{message} ({field})"))
}

/// The detail of a JSON-RPC error whose message is only the name the specification gives
/// its code: CometBFT answers a transaction already in its cache with `{"code": -32603,
/// "message": "Internal error", "data": "tx already exists in cache"}`, Zabbix an expired
/// session with `{"code": -32602, "message": "Invalid params.", "data": "Session
/// terminated, re-login, please."}`. The `data` string says what happened where "Internal
/// error" (-32603), "Server error" (-32000 to -32099), "Invalid params" (-32602) or
/// "Invalid Request" (-32600) does not; any other message is the server's own words and
/// is read as such, and `data` beside it is left unread, as data.
fn named_failure_detail(map: &serde_json::Map<String, Value>) -> Option<&str> {
    map.get("code")?.as_i64()?;
    let message = map.get("message")?.as_str()?.trim().trim_end_matches('.');
    let named_only = [
        "internal error",
        "server error",
        "invalid params",
        "invalid request",
    ]
    .iter()
    .any(|name| message.eq_ignore_ascii_case(name));
    let data = map.get("data")?.as_str()?;
    (named_only && !data.trim().is_empty()).then_some(data)
}

/// Whether an error's member counts a resource the account holds at or over its quota:
/// `{"resource": "instances_servers", "quota": 10, "current": 10}`. A count kept per
/// window (a member naming a period, a window or a reset) is a throttle's, and a count
/// with no resource named may be anything's.
fn count_at_its_quota(map: &serde_json::Map<String, Value>) -> bool {
    const QUOTAS: [&str; 4] = ["quota", "limit", "max", "maximum"];
    const COUNTS: [&str; 4] = ["current", "used", "usage", "inuse"];
    const NAMES: [&str; 4] = ["resource", "resourcetype", "metric", "kind"];
    const WINDOWED: [&str; 6] = [
        "period", "window", "interval", "reset", "resetat", "resetsat",
    ];
    let number = |names: &[&str]| {
        map.iter().find_map(|(k, v)| {
            names
                .contains(&crate::walk::normalise(k).as_str())
                .then(|| v.as_f64())
                .flatten()
        })
    };
    let named = map.iter().any(|(k, v)| {
        v.as_str().is_some_and(|s| !s.trim().is_empty())
            && NAMES.contains(&crate::walk::normalise(k).as_str())
    });
    let windowed = map
        .keys()
        .any(|k| WINDOWED.contains(&crate::walk::normalise(k).as_str()));
    match (number(&QUOTAS), number(&COUNTS)) {
        (Some(quota), Some(count)) => named && !windowed && quota > 0.0 && count >= quota,
        _ => false,
    }
}

/// A `google.rpc.Status` as grpc-gateway and its kin write it: an integer `code` beside
/// a `message` and a `details` array (`{"code": 14, "message": "…", "details": []}`).
/// A bare numeric `code` is too often a vendor's own number to be read as gRPC's.
fn grpc_status_object(map: &serde_json::Map<String, Value>) -> Option<Recovery> {
    let code = map.get("code")?.as_u64()?;
    let shaped = map.get("details").is_some_and(Value::is_array)
        && map.get("message").is_none_or(Value::is_string);
    if !shaped {
        return None;
    }
    said::grpc_number(code)
}

/// A `google.rpc.ErrorInfo` among a Google-style error's `details` (`{"@type":
/// "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED", "domain":
/// "googleapis.com"}`): its reason names what would fix the failure where the status
/// cannot (a 403 `PERMISSION_DENIED` is a project without the API enabled, without
/// billing, or a token short of a scope). Only the reasons `google.api.ErrorReason`
/// defines are read ([`said::error_reason`]); another domain's are read as words.
fn error_info(map: &serde_json::Map<String, Value>) -> Option<Recovery> {
    let kind = map.get("@type")?.as_str()?;
    if !kind.ends_with("google.rpc.ErrorInfo") {
        return None;
    }
    said::error_reason(map.get("reason")?.as_str()?)
}

/// The text of an XML error's elements named like codes and messages (S3's
/// `<Code>ExpiredToken</Code><Message>…</Message>`); an HTML page's words are for
/// people and are not read.
fn markup(text: &str, out: &mut Found) {
    let text = &cdata_as_text(text);
    let head = text.get(..text.len().min(256)).unwrap_or_default();
    if head.to_ascii_lowercase().contains("<html") {
        // A sign-in page in place of the API, or one that sends the caller to sign in,
        // asks for credentials.
        if crate::sign_in_page::is_sign_in_page(text.as_bytes()) {
            out.sign_in = true;
        }
        // A page's running text is for people; its title and headings name the failure
        // in a line, as a message does ("403.502 - Forbidden: Too many requests from the
        // same client IP", "Page Expired").
        for line in crate::walk::page_headings(text) {
            out.text(line);
        }
        return;
    }
    markup_attributes(text, out);
    // An object store's error document (`<Error><Code>…</Code>…<HostId>`, S3's shape)
    // that says only `QuotaExceeded`: these stores answer a throttle with `SlowDown`, so
    // the quota is the space or the count of objects the bucket or its owner may hold.
    if object_store_error(text) {
        let codes = crate::walk::xml_elements(text, MAX_TAGS)
            .filter(|(name, _)| crate::walk::normalise(name) == "code");
        if codes
            .into_iter()
            .any(|(_, v)| crate::walk::normalise(v) == "quotaexceeded")
        {
            out.reason.get_or_insert(Recovery::Holdings);
        }
    }
    // An XML-RPC fault names its members in a `<name>` element, the value in the
    // element after it: `<name>faultString</name><value><string>Access Denied</string>`.
    let mut member: Option<String> = None;
    for (name, value) in crate::walk::xml_elements(text, MAX_TAGS) {
        let local = crate::walk::normalise(name);
        // A SOAP 1.2 subcode comes after the code it refines (`Sender`, then
        // `wsse:InvalidSecurity`): the later code read is the more specific one.
        if let Some(r) = soap_fault(&local, value) {
            out.soap = Some(r);
        }
        if local == "name" {
            member = Some(crate::walk::normalise(value));
            continue;
        }
        if value.is_empty() {
            continue;
        }
        let key = member.take().unwrap_or_else(|| member_name(&local));
        // Named as in JSON: eBay's `<ShortMessage>`, a `<ResultCode>`.
        if CODE_KEYS.contains(&key.as_str()) || names_a_code(&key) {
            out.code(&key, value);
        } else if MESSAGE_KEYS.contains(&key.as_str()) || names_a_message(&key) || key == "text" {
            // SOAP 1.2 writes its reason as `<env:Reason><env:Text>…`.
            out.text(value);
        } else if key == "value"
            && let Some((_, code)) = value.rsplit_once(':')
        {
            // A SOAP 1.2 code or subcode (`ter:NotAuthorized`): read as a code's words.
            out.text(code);
        }
    }
}

/// An XML text with each CDATA section written as the plain text it holds (`<error
/// code="4"><![CDATA[Security violation]]></error>`), so its element reads it as any
/// other text; markup inside a section is blanked, as it is text there. An unclosed
/// section runs to the end.
fn cdata_as_text(text: &str) -> std::borrow::Cow<'_, str> {
    const OPEN: &str = "<![CDATA[";
    if !text.contains(OPEN) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let inner = &rest[at + OPEN.len()..];
        let (section, after) = inner.split_once("]]>").unwrap_or((inner, ""));
        out.extend(
            section
                .chars()
                .map(|c| if matches!(c, '<' | '>') { ' ' } else { c }),
        );
        rest = after;
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Whether an XML body is an object store's error document: a root `Error` that names
/// the request's `HostId` or `BucketName`, as S3 and the stores that speak its API write
/// it.
fn object_store_error(text: &str) -> bool {
    let mut names = crate::walk::xml_elements(text, MAX_TAGS).map(|(name, _)| name);
    names.next().is_some_and(|root| root == "Error")
        && names.any(|name| matches!(name, "HostId" | "BucketName"))
}

/// What the tags of an XML error say in their attributes and names: a code or a message
/// written as an attribute (`<err code="98" msg="Invalid auth token" />`, `<error
/// code="40" message="Wrong username or password"/>`), the text of an element named for
/// the failure it reports (`<cas:authenticationFailure code="INVALID_TICKET">Ticket …
/// not recognized`), a status code's URI read by its last part (SAML's `<StatusCode
/// Value="urn:oasis:names:tc:SAML:2.0:status:AuthnFailed"/>`), and the condition a
/// WebDAV `DAV:error` names ([`dav_condition`]).
fn markup_attributes(text: &str, out: &mut Found) {
    let dav = dav_error(text);
    for (local, attrs, inner) in crate::walk::xml_start_tags(text, MAX_TAGS) {
        let element = member_name(local);
        if dav && let Some(r) = dav_condition(local) {
            out.reason.get_or_insert(r);
        }
        if element.ends_with("failure") && !inner.is_empty() {
            out.text(inner);
        }
        for (name, value) in crate::walk::xml_attributes(attrs) {
            let key = member_name(name);
            if value.trim().is_empty() {
                continue;
            }
            if ATTRIBUTE_CODE_KEYS.contains(&key.as_str()) || names_a_code(&key) {
                out.code(&key, value);
            } else if MESSAGE_KEYS.contains(&key.as_str()) || names_a_message(&key) {
                out.text(value);
            } else if key == "value"
                && element == "statuscode"
                && let Some((_, code)) = value.rsplit_once(':')
            {
                out.text(code);
            }
        }
    }
}

/// Names of an attribute that holds an error's code. Fewer than an element's
/// ([`CODE_KEYS`]): a `title`, `type` or `status` attribute is as often a record's (a
/// photo's `title="…"`).
const ATTRIBUTE_CODE_KEYS: [&str; 5] = ["code", "errorcode", "errcode", "error", "reason"];

/// Whether an XML body is a WebDAV error: a root `error` element in the `DAV:`
/// namespace (RFC 4918 §16).
fn dav_error(text: &str) -> bool {
    let Some((root, attrs, _)) = crate::walk::xml_start_tags(text, 4).next() else {
        return false;
    };
    // The namespace is declared in the root's own attributes (`xmlns:D="DAV:"`), which
    // the attribute reader skips as declarations.
    root.eq_ignore_ascii_case("error") && (attrs.contains("\"DAV:\"") || attrs.contains("'DAV:'"))
}

/// The condition a WebDAV error names by an element of its own (RFC 4918 §16, RFC 3744
/// §7.1.1, RFC 4791 §5.3.2.1): its name, written in lowercase words joined by hyphens
/// (`lock-token-submitted`, `CALDAV:valid-calendar-data`, `need-privileges`), says what
/// the request failed. A privilege the principal lacks (`need-privileges`) is the
/// credentials'; every other one is a precondition of the request or of the resource's
/// state (a 403 among them: another request passes, other credentials do not help).
/// The quota of what the account may store (RFC 4331 §6, `quota-not-exceeded` with a
/// 507) is the account's; the server's own disk (`sufficient-disk-space`) is left to the
/// status.
fn dav_condition(local: &str) -> Option<Recovery> {
    let named = local.contains('-')
        && local
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !named {
        return None;
    }
    match local {
        "need-privileges" => Some(Recovery::Credentials),
        "quota-not-exceeded" => Some(Recovery::Account),
        "sufficient-disk-space" => None,
        _ => Some(Recovery::Request),
    }
}

/// A SOAP fault's code: SOAP 1.1's `<faultcode>soap:Client</faultcode>` (and its dotted
/// kin, `Client.Authentication`) and SOAP 1.2's `<env:Value>env:Sender</env:Value>` say
/// the request is at fault (SOAP 1.1 §4.4.1: "the message was incorrectly formed or did
/// not contain the appropriate information"), which matters because SOAP sends every
/// fault as a 500. A `Server`/`Receiver` fault is left to the status, unless its dotted
/// subcode names a rule the request broke ([`names_a_business_rule`]). A 1.2 `Value` counts
/// only with a namespace prefix, as a fault code is written.
fn soap_fault(local: &str, value: &str) -> Option<Recovery> {
    let value = value.trim();
    let (prefixed, code) = match value.rsplit_once(':') {
        Some((_, code)) => (true, code),
        None => (false, value),
    };
    if matches!(local, "faultcode" | "value")
        && (prefixed || local == "faultcode")
        && let Some(r) = addressing_fault(code).or_else(|| protocol_fault(code))
    {
        return Some(r);
    }
    let mut parts = code.split('.');
    let head = parts.next().unwrap_or_default();
    let client = match local {
        "faultcode" => {
            head.eq_ignore_ascii_case("client")
                || head.eq_ignore_ascii_case("sender")
                || (head.eq_ignore_ascii_case("server")
                    && parts.next().is_some_and(names_a_business_rule))
        }
        "value" => prefixed && head == "Sender",
        _ => false,
    };
    client.then_some(Recovery::Request)
}

/// The faults WS-Addressing defines for a message it cannot deliver (W3C WS-Addressing
/// 1.0 SOAP Binding §6.4, as WCF and other SOAP stacks send them with a 500): an action
/// the endpoint does not have (`ActionNotSupported`, "… cannot be processed at the
/// receiver, due to a ContractFilter mismatch") and an address it does not serve
/// (`DestinationUnreachable`) are what the tool calls, not its arguments; an endpoint
/// unavailable for now passes; an addressing header missing or invalid is the request's.
fn addressing_fault(code: &str) -> Option<Recovery> {
    match code {
        "ActionNotSupported" | "DestinationUnreachable" => Some(Recovery::Unsupported),
        "EndpointUnavailable" => Some(Recovery::Transient),
        "InvalidAddressingHeader" | "MessageAddressingHeaderRequired" => Some(Recovery::Request),
        _ => None,
    }
}

/// The faults the SOAP envelope and its security headers define for themselves, named by
/// their code alone: the envelope's own (SOAP 1.1 §4.4.1, SOAP 1.2 part 1 §5.4.6: a
/// version not spoken, a header marked `mustUnderstand` the receiver does not process, an
/// encoding it does not know) are the request's to change; WS-Security's (OASIS WSS 1.1
/// §12: `InvalidSecurity`, `FailedCheck`, …) and WS-Trust's (§11: `FailedAuthentication`,
/// `InvalidSecurityToken`) refuse the credentials the message carries, whatever code
/// (`Sender`, `Client`, `Server`) they refine.
fn protocol_fault(code: &str) -> Option<Recovery> {
    match code {
        "VersionMismatch" | "MustUnderstand" | "DataEncodingUnknown" => Some(Recovery::Request),
        "InvalidSecurity"
        | "InvalidSecurityToken"
        | "FailedAuthentication"
        | "FailedCheck"
        | "SecurityTokenUnavailable"
        | "UnsupportedSecurityToken"
        | "UnsupportedAlgorithm"
        | "AuthenticationBadElements" => Some(Recovery::Credentials),
        _ => None,
    }
}

/// A dotted fault subcode that names a rule of the business or of validation, not the
/// server's own failure: Travelport's `Server.Business` ("No availability on chosen
/// flights") beside its `Server.System`.
fn names_a_business_rule(subcode: &str) -> bool {
    ["business", "validation"]
        .iter()
        .any(|rule| subcode.eq_ignore_ascii_case(rule))
}

#[cfg(test)]
mod tests;
