//! Whether a body sent with a success status is an error envelope.
//!
//! Many APIs answer errors, throttling included, with a 200: GraphQL (`{"errors": …}`),
//! Kraken (`{"error": [...]}`), the MediaWiki Action API and Deezer (`{"error": {…}}`),
//! Baidu (`{"error_code": …}`), WeChat (`{"errcode": …}`), Bybit (`{"retCode": …}`),
//! Apigee (`{"fault": …}`), Slack (`"ok": false`) and Marketo (`"success": false`),
//! XML-RPC (`<methodResponse><fault>`), XML answers whose status says failure beside
//! their error (Sage Intacct's `<status>failure</status>`),
//! Google Maps Platform (`"status": "OVER_QUERY_LIMIT"`), and Tencent Cloud, whose every
//! answer is wrapped in `{"Response": …}` with the error inside.
//!
//! The same names also stand in healthy bodies with an empty value — `"error": null`,
//! `"errcode": 0` (WeChat's success), `"retCode": 0` (Bybit's), `"errors": []` — and a
//! `"success": false` can belong to one item of a listing. A successful body read as a
//! throttle fails a call whose data was fine, so only the body's own top-level members
//! count, and only with a value that says something went wrong. Nothing is parsed: the
//! first [`WINDOW`] bytes are scanned once, tracking depth and strings.

/// Bytes of a success body looked at.
pub(super) const WINDOW: usize = 256;

/// Top-level member names whose non-empty value is an error.
const ERROR_KEYS: [&str; 10] = [
    "errors",
    // `{"Code": "InsufficientRetrievalResUnits", "ErrorMessage": "…"}`: a message named
    // an error's is one whenever it says something.
    "errormessage",
    "error",
    "error_code",
    "errorcode",
    "errcode",
    "err_code",
    "retcode",
    "ret_code",
    "fault",
];

/// Top-level member names whose `false` is an error; spelled with `is` too (Shelly
/// Cloud's `{"isok": false, "errors": {…}}`).
const SUCCESS_KEYS: [&str; 6] = ["success", "ok", "isok", "is_ok", "issuccess", "is_success"];

/// Top-level status words that say the request failed: JSend's `"status": "fail"` /
/// `"error"`, and the `"status": "0"` of APIs such as Etherscan's
/// (`{"status":"0","message":"NOTOK","result":"Max rate limit reached"}`). Only a
/// string counts: a number 0 is as often a success code.
const FAILED_STATUS_WORDS: [&str; 6] = [
    "\"error\"",
    "\"fail\"",
    "\"failed\"",
    "\"failure\"",
    "\"0\"",
    "\"notok\"",
];

/// A member name as names are compared here: its letters and digits, lowercased
/// (`error-text`, `errorText` and `ERROR_TEXT` are one name).
fn folded(key: &[u8]) -> Folded {
    Folded::of(key)
}

/// A member name folded once ([`folded`]) and held on the stack when short, as nearly
/// every name is. Every successful reply's leading members are each compared with a
/// dozen of the rules' names; folding the name into a new allocation for each
/// comparison was half of deciding that a healthy body is no error envelope.
struct Folded {
    short: [u8; Folded::SHORT],
    len: usize,
    /// The folded name when it does not fit in `short`.
    long: Vec<u8>,
}

impl Folded {
    /// The longest folded name held on the stack.
    const SHORT: usize = 48;

    fn of(key: &[u8]) -> Folded {
        let mut short = [0u8; Folded::SHORT];
        let mut len = 0;
        for &b in key.iter().filter(|b| b.is_ascii_alphanumeric()) {
            if len == Folded::SHORT {
                return Folded {
                    short,
                    len: 0,
                    long: key
                        .iter()
                        .filter(|b| b.is_ascii_alphanumeric())
                        .map(u8::to_ascii_lowercase)
                        .collect(),
                };
            }
            short[len] = b.to_ascii_lowercase();
            len += 1;
        }
        Folded {
            short,
            len,
            long: Vec::new(),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        if self.long.is_empty() {
            &self.short[..self.len]
        } else {
            &self.long
        }
    }
}

impl std::ops::Deref for Folded {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Whether a member wraps the whole answer of a protocol, or its status: Tencent
/// Cloud's `Response`, MiniMax's `base_resp` (`{"base_resp": {"status_code": 1002,
/// "status_msg": "rate limit exceeded(RPM)"}}` with a 200), a `BaseResponse`. Its members
/// are read as top-level ones. A `data` or `result` member is the API's data, whose own
/// `errors` field says nothing of the reply.
///
/// A `header` inside such a wrapper holds the answer's status as well: Korea's public
/// data portal (data.go.kr) answers `{"response": {"header": {"resultCode": "22",
/// "resultMsg": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"}}}` with a 200.
///
/// Authorize.Net's `messages` holds the answer's status the same way: `{"messages":
/// {"resultCode": "Error", "message": [{"code": "E00007", "text": …}]}}`, sent with a 200.
fn is_wrapper(lower: &[u8]) -> bool {
    lower.ends_with(b"response")
        || lower.ends_with(b"resp")
        || lower.ends_with(b"header")
        || lower == b"messages"
}

/// Wrappers read inside one another (`response` → `header`).
const MAX_WRAPPERS: u8 = 2;

/// Members that hold the answer's own code, as a number: `code`, `status_code`, and the
/// result codes of [`is_result_code_key`]. Names are [`folded`].
fn is_code_key(lower: &[u8]) -> bool {
    const PLAIN: [&[u8]; 2] = [b"code", b"statuscode"];
    PLAIN.contains(&lower) || is_result_code_key(lower)
}

/// The result codes envelopes name after what they report (`resultCode`, `returnCode`,
/// `returnReasonCode`, `rspCode`). These are codes whatever their JSON type: data.go.kr
/// sends `"resultCode": "22"`. A bare `code` written as a string may be anything (an
/// order's, a country's), so only its number counts.
fn is_result_code_key(lower: &[u8]) -> bool {
    const HEADS: [&[u8]; 4] = [b"result", b"return", b"resp", b"rsp"];
    lower.ends_with(b"code") && HEADS.iter().any(|h| lower.starts_with(h))
}

/// Members that hold the answer's own message: `message`, `msg`, and the same words
/// after what they report (`status_msg`, `resultMsg`, `returnAuthMsg`, `resultMessage`).
fn is_message_key(lower: &[u8]) -> bool {
    lower.ends_with(b"msg") || lower.ends_with(b"message")
}

/// Whether the first [`WINDOW`] bytes of `body` are a JSON object with a top-level
/// member that reports an error. A top-level status or code that is 429 needs no words
/// beside it (`{"code": 429, "message": "", "data": null}`): no API numbers a success
/// with the status HTTP gives a throttle, so the answer's own code says it throttled.
pub(super) fn is_error_envelope(body: &[u8]) -> bool {
    let head = &body[..body.len().min(WINDOW)];
    // A reply that is nothing but a list of per-item results (a batch email API's
    // `[{"ErrorCode": 406, "Message": …}]`).
    if skip_ws(head).starts_with(b"[") && every_item_failed(skip_ws(head)) {
        return true;
    }
    reports_error(head, MAX_WRAPPERS)
        || status_is_429_alone(body)
        || only_words(body)
        || error_line(body)
        || markup_reports_throttle(&body[..body.len().min(2 * WINDOW)])
        || markup_reports_failure(&body[..body.len().min(2 * WINDOW)])
        || xml_rpc_fault(&body[..body.len().min(2 * WINDOW)])
        || markup_names_failure(&body[..body.len().min(2 * WINDOW)])
        || crate::sign_in_page::is_sign_in_page(body)
}

/// Whether an XML-RPC answer is a fault: XML-RPC sends every answer with a 200, a
/// failure as `<methodResponse><fault>…` (xmlrpc.com/spec.md, "Fault example"), which
/// a successful answer's `<params>` never holds before it. Two searches in the first
/// bytes, and only of a body that begins with markup.
fn xml_rpc_fault(head: &[u8]) -> bool {
    if skip_ws(head).first() != Some(&b'<') {
        return false;
    }
    let Some(at) = memchr::memmem::find(head, b"<methodResponse>") else {
        return false;
    };
    let after = skip_ws(&head[at + b"<methodResponse>".len()..]);
    after.starts_with(b"<fault>")
}

/// Whether an XML answer says by the names or attributes of its first tags that it
/// failed: a root whose `stat` or `status` attribute says failure (Flickr's `<rsp
/// stat="fail"><err code="98" msg="Invalid auth token" /></rsp>`, Subsonic's
/// `<subsonic-response status="failed">`, Last.fm's `<lfm status="failed">`, all sent
/// with a 200), a root that is an error (`<Error><Code>…`, which S3's copy operations
/// send with a 200), a first element inside the root named for an error and holding
/// something (CAS's `<cas:serviceResponse><cas:authenticationFailure code="INVALID_TICKET">`;
/// XML-RPC's `<fault>` is read by [`xml_rpc_fault`], a `<fault>` elsewhere may be data),
/// an element named for an error with a `code` attribute as the first inside the root's
/// first child (`<paymentService><reply><error code="5">`), or a SAML status code other
/// than `…:status:Success`. A record's status further down,
/// or an element named `error` holding nothing, is data.
fn markup_names_failure(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    let text = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if !text.starts_with('<')
        || text
            .get(..14)
            .is_some_and(|t| t.to_ascii_lowercase().starts_with("<!doctype html"))
        || text
            .get(..5)
            .is_some_and(|t| t.eq_ignore_ascii_case("<html"))
    {
        return false;
    }
    let names_an_error = |local: &str| {
        let lower = local.to_ascii_lowercase();
        matches!(lower.as_str(), "error" | "errors" | "err") || lower.ends_with("failure")
    };
    for (at, (local, attrs, inner)) in crate::walk::xml_start_tags(text, 8).enumerate() {
        let mut attrs = crate::walk::xml_attributes(attrs);
        let failed_status = |(name, value): (&str, &str)| {
            ["stat", "status"]
                .iter()
                .any(|n| name.eq_ignore_ascii_case(n))
                && ["fail", "failed", "failure", "error"]
                    .iter()
                    .any(|w| value.eq_ignore_ascii_case(w))
        };
        let saml_failure = |(name, value): (&str, &str)| {
            local.eq_ignore_ascii_case("StatusCode")
                && name.eq_ignore_ascii_case("Value")
                && value.contains(":status:")
                && !value.ends_with(":status:Success")
        };
        match at {
            0 if names_an_error(local) || attrs.any(failed_status) => return true,
            1 if names_an_error(local) && !(inner.is_empty() && attrs.next().is_none()) => {
                return true;
            }
            // One wrapper further down, an error that carries its code: a payment
            // service's `<paymentService><reply><error code="5">…</error>`.
            2 if names_an_error(local)
                && attrs.any(|(name, _)| name.eq_ignore_ascii_case("code")) =>
            {
                return true;
            }
            _ if attrs.any(saml_failure) => return true,
            _ => {}
        }
    }
    false
}

/// Whether an XML answer's leading elements hold a failed result code beside a message
/// saying a limit passed, as the JSON members do ([`reports_error`]): data.go.kr's gateway
/// answers a spent daily allowance with a 200 holding `<returnAuthMsg>LIMITED_NUMBER_OF_
/// SERVICE_REQUESTS_EXCEEDS_ERROR</returnAuthMsg><returnReasonCode>22</returnReasonCode>`.
/// Only elements holding text are looked at, in the first bytes; names lose their
/// namespace prefix.
fn markup_reports_throttle(head: &[u8]) -> bool {
    let (mut failed_code, mut throttle_message) = (false, false);
    any_markup_leaf(head, |local, inner| {
        let name = folded(local.as_bytes());
        if is_code_key(&name) {
            failed_code |= is_failure_number(inner.as_bytes());
        }
        if is_message_key(&name) {
            let lower = inner.to_ascii_lowercase();
            throttle_message |=
                lower.contains("too many requests") || crate::passed::says_limit_passed(inner);
        }
        failed_code && throttle_message
    })
}

/// Whether an XML answer's leading elements say the operation failed and hold its
/// error: Sage Intacct answers every request with a 200 and reports a refused sign-in or
/// a failed function as `<status>failure</status>` followed by
/// `<errormessage><error><errorno>XL03000006</errorno>…`; eBay's Trading API writes
/// `<Ack>Failure</Ack>` before its `<Errors>`. A record's status alone (a job listed
/// as `failed`) is data: only a failed status followed by an element named for the
/// error's code or message counts.
///
/// A `<resultCode>` reports on the answer only, so after a failed one its `<code>`,
/// `<text>` or `<message>` counts too: Authorize.Net's `<messages><resultCode>Error
/// </resultCode><message><code>E00003</code><text>…`.
fn markup_reports_failure(head: &[u8]) -> bool {
    let (mut failed, mut failed_result) = (false, false);
    any_markup_leaf(head, |local, inner| {
        let is_result = local.eq_ignore_ascii_case("resultCode");
        if is_result
            || ["status", "ack"]
                .iter()
                .any(|n| local.eq_ignore_ascii_case(n))
        {
            let says = ["failure", "failed", "fail", "error"]
                .iter()
                .any(|word| inner.eq_ignore_ascii_case(word));
            failed |= says;
            failed_result |= says && is_result;
            return false;
        }
        (failed
            && local
                .get(..5)
                .is_some_and(|h| h.eq_ignore_ascii_case("error")))
            || (failed_result
                && ["code", "text", "message"]
                    .iter()
                    .any(|n| local.eq_ignore_ascii_case(n)))
    })
}

/// Calls `found` with the local name and text of each element of a markup answer's
/// first bytes that holds text (the next tag closes it), until it returns `true`.
/// Names lose their namespace prefix; an HTML page is not read.
fn any_markup_leaf(head: &[u8], mut found: impl FnMut(&str, &str) -> bool) -> bool {
    // The window may cut a character: the whole characters before the cut are read.
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    let text = text.trim_start();
    if !text.starts_with('<')
        || text
            .get(..5)
            .is_some_and(|t| t.eq_ignore_ascii_case("<html"))
    {
        return false;
    }
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find('>') else {
            break;
        };
        let tag = &rest[..close];
        rest = &rest[close + 1..];
        if tag.starts_with(['/', '?', '!']) || tag.ends_with('/') {
            continue;
        }
        let name = tag.split_whitespace().next().unwrap_or("");
        let local = name.rsplit(':').next().unwrap_or(name);
        let Some(end) = rest.find('<') else {
            break;
        };
        let inner = rest[..end].trim();
        if !rest[end..].starts_with("</") || inner.is_empty() {
            continue;
        }
        if found(local, inner) {
            return true;
        }
    }
    false
}

/// Names of a member that holds a notice for the caller. Not `message`: a lone
/// `{"message": "Welcome to the API, rate limits apply"}` is a common healthy answer.
const NOTICE_KEYS: [&str; 3] = ["note", "information", "notice"];

/// Whether the whole answer is one notice and no data: Alpha Vantage answers a
/// throttled call with a 200 holding only `{"Note": "…API call frequency is 5 calls per
/// minute…"}` (later `{"Information": …}`). Such an answer is read for what its words
/// say; an answer with anything beside the sentence is data. Only a short body is
/// parsed, so a long answer costs nothing.
fn only_words(body: &[u8]) -> bool {
    if body.len() > 2 * WINDOW || !skip_ws(body).starts_with(b"{") {
        return false;
    }
    let Ok(serde_json::Value::Object(members)) = serde_json::from_slice(body) else {
        return false;
    };
    members.len() == 1
        && members
            .iter()
            .all(|(k, v)| v.is_string() && NOTICE_KEYS.iter().any(|n| k.eq_ignore_ascii_case(n)))
}

/// Whether the whole answer is one line of plain text naming itself an error and its
/// code: "ERROR 132 :: API UNITS BALANCE IS ZERO", as APIs that answer in CSV or text
/// send a failure with a 200. Only a short single line whose first word is `error`
/// followed by a number or a colon counts: data that mentions an error says more.
fn error_line(body: &[u8]) -> bool {
    let text = skip_ws(body);
    if text.len() > WINDOW || text.starts_with(b"{") || text.starts_with(b"<") {
        return false;
    }
    let line = text.strip_suffix(b"\n").unwrap_or(text);
    if line.contains(&b'\n') {
        return false;
    }
    let Some(rest) = line
        .get(..5)
        .filter(|w| w.eq_ignore_ascii_case(b"error"))
        .map(|_| &line[5..])
    else {
        return false;
    };
    let rest = skip_ws(rest);
    rest.first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b':')
}

/// Whether the object `head` starts has a member that reports an error; `wrappers`: how
/// many wrappers deep their members are read too.
fn reports_error(head: &[u8], wrappers: u8) -> bool {
    let mut members = TopLevel::new(head);
    let (mut failed_code, mut throttle_message) = (false, false);
    let (mut graphql_errors, mut partial_data) = (false, false);
    // A failed result code told in words ([`tells_a_failure`]).
    let mut failure = Failure {
        // Inside a wrapper (`…_response`) the members are the answer's own.
        nothing_came_back: wrappers < MAX_WRAPPERS,
        ..Failure::default()
    };
    while let Some((key, value)) = members.next_member() {
        // Folded once: each rule below compares the folded name.
        let name = folded(key);
        if wrappers > 0
            && is_wrapper(&name)
            && value.starts_with(b"{")
            && reports_error(value, wrappers - 1)
        {
            return true;
        }
        // A numbered `status` is the answer's own code too when a throttle message
        // stands beside it: Viber's REST API answers `{"status": 12, "status_message":
        // "tooManyRequests"}` with a 200.
        if is_code_key(&name) || *name == *b"status" {
            failed_code |= is_failure_number(value);
        }
        if is_result_code_key(&name) {
            // A result code that says in a word that the call failed (`"resultCode":
            // "Error"`): a result code reports on the answer, never holds data.
            if is_failure_word(value) {
                return true;
            }
            // A result code sent as a string of digits (`"resultCode": "22"`).
            let failed = value.strip_prefix(b"\"").is_some_and(is_failure_number);
            failed_code |= failed;
            failure.result_code |= failed || is_failure_number(value);
        }
        if is_message_key(&name) {
            throttle_message |= says_throttled(value);
        }
        failure.member(&name, value);
        if failed_code && throttle_message {
            return true;
        }
        if says_error_type(key, value) {
            return true;
        }
        // A GraphQL answer's `errors` beside the data it did return is a partial
        // success (GraphQL spec §7.1.2), whichever member comes first.
        if key.eq_ignore_ascii_case(b"data") {
            partial_data = !is_empty_value(value);
        }
        if key.eq_ignore_ascii_case(b"errors") && !is_empty_value(value) {
            graphql_errors = true;
            continue;
        }
        if value.starts_with(b"[")
            && (every_item_throttled(value) || (names_results(&name) && every_item_failed(value)))
        {
            return true;
        }
        // A list one object down (`{"SMSMessageData": {"Recipients": […]}}`); not inside
        // the API's data.
        if value.starts_with(b"{") && !is_data(&name) && holds_a_failed_list(value) {
            return true;
        }
        // Compared folded: `error_message` and `errorMessage` are one name (a map web
        // service's `{"status": "REQUEST_DENIED", "error_message": "…"}`).
        if ERROR_KEYS.iter().any(|k| *name == *folded(k.as_bytes()))
            || (wraps_an_error(&name) && value.starts_with(b"{"))
        {
            if !is_empty_value(value) {
                return true;
            }
        } else if says_failed(key, value) {
            return true;
        }
    }
    (graphql_errors && !partial_data) || failure.told()
}

/// A result code's value that names a failure in a word: `"Error"`, `"Failure"`, and the
/// words a payment's result is refused with (`"resultCode": "Refused"`, `"Declined"`,
/// `"Rejected"`). A result code reports on the answer, so these are its outcome, not a
/// record's state.
fn is_failure_word(value: &[u8]) -> bool {
    const REFUSED: [&str; 3] = ["\"refused\"", "\"declined\"", "\"rejected\""];
    FAILED_STATUS_WORDS
        .iter()
        .filter(|w| **w != "\"0\"")
        .chain(REFUSED.iter())
        .any(|w| value.len() >= w.len() && value[..w.len()].eq_ignore_ascii_case(w.as_bytes()))
}

/// What an object's members say of a failure told in words: a result code named so
/// (`returnCode`, `resultCode`) that is neither 0 nor a 2xx beside a message (LINE Pay
/// answers every call with a 200, a failure as `{"returnCode": "9000", "returnMessage":
/// "Internal error."}`), or a bare numbered `code` beside a message and nothing but codes,
/// messages, ids and nulls (`{"code": "2001003", "msg": "access token is missing or
/// expire", "data": null}`; Alipay's `{"alipay_trade_query_response": {"code": "40002",
/// "msg": "Invalid Arguments", "sub_code": …, "sub_msg": …}}`). A message saying the call
/// succeeded ("Txn Success" beside a result code 01, Alipay's `"code": "10000", "msg":
/// "Success"`) is an API numbering its successes otherwise, and a numbered `code` beside
/// data is the data's. A `code` written as a string of digits counts only inside a
/// wrapper or beside a `data` that is null: elsewhere it may be a record's (a voucher's).
///
/// Every successful body passes here: a member's name is folded once, and a message's
/// words are read only once a code has failed.
#[derive(Default)]
struct Failure<'a> {
    result_code: bool,
    number: bool,
    digits: bool,
    /// The first message member's value, read for its words at the end.
    message: Option<&'a [u8]>,
    beside_data: bool,
    nothing_came_back: bool,
}

impl<'a> Failure<'a> {
    /// Notes one member, its name [`folded`].
    fn member(&mut self, name: &[u8], value: &'a [u8]) {
        if name == b"code" {
            match value.strip_prefix(b"\"") {
                Some(digits) => self.digits |= is_failure_number(digits),
                None => self.number |= is_failure_number(value),
            }
        }
        let reports = names_a_report(name);
        if reports
            && self.message.is_none()
            && (name.ends_with(b"msg") || name.ends_with(b"message"))
        {
            self.message = Some(value);
        }
        let null = value.starts_with(b"null");
        self.nothing_came_back |= null && name == b"data";
        self.beside_data |= !(null || reports);
    }

    fn told(&self) -> bool {
        let coded = self.number || (self.digits && self.nothing_came_back);
        (self.result_code || (coded && !self.beside_data))
            && self.message.is_some_and(says_something_but_success)
    }
}

/// A member (its name folded) that reports on the answer rather than holding data: a code,
/// a message or an id (`sub_code`, `sub_msg`, `request_id`).
fn names_a_report(lower: &[u8]) -> bool {
    lower.ends_with(b"code")
        || lower.ends_with(b"msg")
        || lower.ends_with(b"message")
        || lower.ends_with(b"id")
}

/// A top-level `type` naming a kind of error, as PostHog and Stripe-like APIs write it
/// (`{"type": "authentication_error", "code": "invalid_api_key", "detail": …}`): a word
/// ending in `_error`. A bare `"type": "error"` is as often a record's kind (a log
/// event's) and is left to the members beside it.
///
/// A top-level member naming the answer's own type (`objectType`, `__type`, `$type`)
/// whose value is an exception's class says the same: Kaltura answers every failure
/// with a 200 whose object is `{"objectType": "KalturaAPIException", "code":
/// "INVALID_KS", …}`.
fn says_error_type(key: &[u8], value: &[u8]) -> bool {
    let Some(rest) = value.strip_prefix(b"\"") else {
        return false;
    };
    let Some(end) = rest.iter().position(|b| *b == b'"') else {
        return false;
    };
    let name = &rest[..end];
    if names_the_object_type(key) && names_an_exception(name) {
        return true;
    }
    if !key.eq_ignore_ascii_case(b"type") {
        return false;
    }
    name.len() <= 40
        && name.len() > b"_error".len()
        && name.ends_with(b"_error")
        && name.iter().all(|b| b.is_ascii_lowercase() || *b == b'_')
}

/// A member that names the type of the object it is in, as serialisers write it.
fn names_the_object_type(key: &[u8]) -> bool {
    [&b"objectType"[..], b"__type", b"$type", b"_type", b"type"]
        .iter()
        .any(|k| key.eq_ignore_ascii_case(k))
}

/// A class name of an exception: `KalturaAPIException`, `com.example.NotFoundException`;
/// one word of letters, digits and dots, ending in `Exception`.
fn names_an_exception(name: &[u8]) -> bool {
    name.len() <= 80
        && name.len() > b"Exception".len()
        && name.ends_with(b"Exception")
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_'))
}

/// A string value with words in it, none of which says the call succeeded.
fn says_something_but_success(value: &[u8]) -> bool {
    const SUCCESS: [&str; 6] = [
        "success",
        "successful",
        "successfully",
        "succeeded",
        "ok",
        "okay",
    ];
    let Some(text) = quoted_text(value) else {
        return false;
    };
    // Chinese and Japanese write success as 成功 ("处理成功", "認証に成功しました"), Korean as 성공.
    let unspaced = !text.is_ascii() && (text.contains("成功") || text.contains("성공"));
    let words = crate::passed::words(text);
    !unspaced && !words.is_empty() && !words.iter().any(|w| SUCCESS.contains(&w.as_str()))
}

/// Items of a per-item result list examined.
const MAX_ITEMS: usize = 8;
/// Members of an item that hold its error in words (Vonage's `error-text`).
const ITEM_ERROR_KEYS: [&str; 6] = [
    "errortext",
    "error",
    "errormessage",
    "errormsg",
    "errordescription",
    "reason",
];

/// Members of an item whose object holds its error (Expo's `details`).
const ITEM_ERROR_HOLDERS: [&str; 5] = ["details", "detail", "error", "errordetails", "errorinfo"];

/// Whether an item's error object names a throttle in one of its own error members.
fn holds_a_throttle(object: &[u8]) -> bool {
    let mut members = TopLevel::new(object);
    while let Some((key, value)) = members.next_member() {
        let name = folded(key);
        let key = name.as_bytes();
        if (key == b"code" || ITEM_ERROR_KEYS.iter().any(|n| key == n.as_bytes()))
            && (says_throttled(value) || is_limit_status(value))
        {
            return true;
        }
    }
    false
}

/// Whether a list of per-item results reports every item refused for throttling:
/// Vonage's SMS API answers a 200 whose `messages[]` each carry `"status": "1"` and
/// `"error-text": "Throughput Rate Exceeded - please wait [ 20 ] and retry"`. Each item
/// must say it failed (a status or code that is not 0 or a 2xx, or a failure word) and
/// say why in an error member, or in one of an error object beside (Expo's tickets,
/// `{"status": "error", "details": {"error": "MessageRateExceeded"}}`); a list with one
/// item that went through, or whose items merely hold text (log lines, messages), is
/// data: the items that went through would go through twice.
fn every_item_throttled(list: &[u8]) -> bool {
    let items = array_objects(list);
    !items.is_empty()
        && items.iter().all(|item| {
            let (mut failed, mut throttled) = (false, false);
            let mut members = TopLevel::new(item);
            while let Some((key, value)) = members.next_member() {
                let name = folded(key);
                let key = name.as_bytes();
                let is = |names: &[&str]| names.iter().any(|n| key == n.as_bytes());
                if is(&["status", "code", "statuscode"]) {
                    let digits = value.strip_prefix(b"\"").unwrap_or(value);
                    failed |= is_failure_number(digits)
                        || FAILED_STATUS_WORDS.iter().any(|w| {
                            value.len() >= w.len()
                                && value[..w.len()].eq_ignore_ascii_case(w.as_bytes())
                                && *w != "\"0\""
                        });
                }
                if is(&ITEM_ERROR_KEYS) {
                    throttled |= says_throttled(value) || is_limit_status(value);
                }
                // The error one level down, in an object of its own (the Expo push
                // service's tickets: `"details": {"error": "MessageRateExceeded"}`).
                if is(&ITEM_ERROR_HOLDERS) && value.starts_with(b"{") {
                    throttled |= holds_a_throttle(value);
                }
            }
            failed && throttled
        })
}

/// The objects of the JSON array `list` starts with, as far as the window shows each
/// whole (at most [`MAX_ITEMS`]).
fn array_objects(list: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 1;
    while i < list.len() && out.len() < MAX_ITEMS {
        match list[i] {
            b'{' => {
                let Some(end) = value_end(list, i) else {
                    break;
                };
                out.push(&list[i..end]);
                i = end;
            }
            b']' => break,
            b'"' | b'[' => match value_end(list, i) {
                // Not an object: the list is not one of results.
                Some(_) => return Vec::new(),
                None => break,
            },
            _ => i += 1,
        }
    }
    out
}

/// A member named as the error's wrapper — `error_response` (Taobao's TOP answers a
/// refusal with a 200 holding `{"error_response": {"code": 7, "msg": "App Call
/// Limited", …}}`), `errorResponse`, `error_info`, `errorDetails` — whose value is an
/// object. Counts and rates (`error_count`, `errorRate`) are data, and not named so.
fn wraps_an_error(lower: &[u8]) -> bool {
    const WRAPPED: [&str; 7] = [
        "response", "resp", "info", "detail", "details", "result", "object",
    ];
    lower
        .strip_prefix(b"error")
        .is_some_and(|rest| WRAPPED.iter().any(|w| rest == w.as_bytes()))
}

/// A number that is neither 0 nor a 2xx status: a code that says the call failed
/// (TikTok's `"code": 40100`). Alone it is not enough — some APIs number their successes
/// otherwise — so [`reports_error`] asks for a message saying throttled beside it.
fn is_failure_number(value: &[u8]) -> bool {
    let end = value
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(value.len());
    if end == 0
        || end > 9
        || value
            .get(end)
            .is_some_and(|b| matches!(b, b'.' | b'e' | b'E'))
    {
        return false;
    }
    std::str::from_utf8(&value[..end])
        .ok()
        .and_then(|d| d.parse::<u32>().ok())
        .is_some_and(|n| n != 0 && !(200..300).contains(&n))
}

/// A string value that says the caller is throttled: "Too many requests", or a usage
/// limit passed in words.
fn says_throttled(value: &[u8]) -> bool {
    let Some(text) = quoted_text(value) else {
        return false;
    };
    text.to_ascii_lowercase().contains("too many requests")
        || is_throttle_identifier(text)
        || crate::passed::says_limit_passed(text)
}

/// "Too many requests" written as one identifier, however it is cased or joined:
/// `tooManyRequests` (Viber's `status_message`), `TOO_MANY_REQUESTS`,
/// `too-many-requests`. Only a message that is nothing but the identifier counts.
fn is_throttle_identifier(text: &str) -> bool {
    text.len() <= 32
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
        && *folded(text.as_bytes()) == *b"toomanyrequests"
}

/// Top-level member names whose `true` is an error: eMAG Marketplace answers every
/// call with a 200 and `{"isError": true, "messages": […], "results": []}` when it
/// failed, as an MCP tool result's `isError` does.
const ERROR_FLAGS: [&str; 4] = ["iserror", "is_error", "haserror", "haserrors"];

/// Words a top-level string `result` fails with (`{"result": "error", "message": …}`).
/// Not `"0"`, which as a result is as often a success code.
const FAILED_RESULT_WORDS: [&str; 5] = [
    "\"error\"",
    "\"fail\"",
    "\"failed\"",
    "\"failure\"",
    "\"notok\"",
];

/// A `"success": false` / `"ok": false`, an `"isError": true`, a failed status or
/// result word, or a status or code that names a limit passed.
fn says_failed(key: &[u8], value: &[u8]) -> bool {
    let is = |names: &[&str]| names.iter().any(|k| key.eq_ignore_ascii_case(k.as_bytes()));
    let starts_with_any = |words: &[&str]| {
        words
            .iter()
            .any(|w| value.len() >= w.len() && value[..w.len()].eq_ignore_ascii_case(w.as_bytes()))
    };
    (is(&SUCCESS_KEYS) && value.starts_with(b"false"))
        || (is(&ERROR_FLAGS) && value.starts_with(b"true"))
        // `ACK` is how name-value-pair and XML trading APIs name the answer's status
        // (`ACK=Failure`, `<Ack>Failure</Ack>`).
        // `stat` is how some JSON answers name it (`{"stat": "fail", "code": 98, …}`), as
        // their XML form's root attribute does.
        || (is(&["status", "ack", "stat"]) && starts_with_any(&FAILED_STATUS_WORDS))
        || (is(&["result"]) && starts_with_any(&FAILED_RESULT_WORDS))
        || (is(&["status", "code"]) && is_limit_status(value))
        || (is(&["status"]) && says_request_not_done(value))
}

/// A status whose words say the request was not carried out: the BLS Public Data API's
/// `"status": "REQUEST_NOT_PROCESSED"` (its success is `REQUEST_SUCCEEDED`). The request
/// must be named, so a record's `NOT_PROCESSED` (an order's, a payment's) is data.
fn says_request_not_done(value: &[u8]) -> bool {
    // Most statuses are short words that do not start with the request: the first byte
    // settles them before any word is split.
    let Some(text) = quoted_bytes(value)
        .filter(|t| t.len() <= 64 && t.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'r')))
    else {
        return false;
    };
    let words = super::members::camel_words(&String::from_utf8_lossy(text));
    matches!(words.first().map(String::as_str), Some("request"))
        && words.windows(2).any(|pair| {
            pair[0] == "not"
                && matches!(
                    pair[1].as_str(),
                    "processed" | "completed" | "executed" | "serviced" | "accepted"
                )
        })
}

/// Top-level members that repeat the reply's HTTP status in the body.
const STATUS_MIRRORS: [&str; 8] = [
    "code",
    "status",
    "statuscode",
    "status_code",
    "httpstatus",
    "http_status",
    "httpcode",
    "http_code",
];

/// Whether the body's own top-level status or code is 429, Too Many Requests: Twelve
/// Data answers a spent minute with a 200 holding `{"code": 429, "status": "error"}`,
/// Miro and Resend repeat the 429 as `status` / `statusCode`, Akamai writes
/// `"httpStatus": "429 TOO_MANY_REQUESTS"`. Only the first [`WINDOW`] bytes and only
/// top-level members count: a 429 inside the data is a record, not this reply.
pub(super) fn mirrors_too_many_requests(body: &[u8]) -> bool {
    let mut members = TopLevel::new(&body[..body.len().min(WINDOW)]);
    while let Some((key, value)) = members.next_member() {
        if STATUS_MIRRORS
            .iter()
            .any(|k| key.eq_ignore_ascii_case(k.as_bytes()))
        {
            let digits = value.strip_prefix(b"\"").unwrap_or(value);
            if digits.starts_with(b"429") && digits.get(3).is_none_or(|b| !b.is_ascii_digit()) {
                return true;
            }
        }
    }
    false
}

/// Members an answer's envelope holds beside its status: its words, ids of the request,
/// when, the throttle's own numbers, where to read more, and an empty or wrapped
/// payload. Compared lower-cased without `_` or `-`.
const ENVELOPE_MEMBERS: [&str; 45] = [
    "code",
    "status",
    "statuscode",
    "httpstatus",
    "httpcode",
    "errorcode",
    "errno",
    "message",
    "msg",
    "error",
    "errors",
    "err",
    "errormessage",
    "errordescription",
    "description",
    "detail",
    "details",
    "title",
    "type",
    "reason",
    "info",
    "success",
    "ok",
    "data",
    "result",
    "requestid",
    "traceid",
    "timestamp",
    "time",
    "path",
    "retryafter",
    "retryin",
    "retry",
    "wait",
    "limit",
    "remaining",
    "reset",
    "resetat",
    "quota",
    "hint",
    "help",
    "moreinfo",
    "documentation",
    "docs",
    "link",
];

/// Whether every top-level member of `body` is one an envelope holds: a record that
/// carries a `code` of 429 among its own fields (`{"code": 429, "name": "Widget"}`) is
/// data, not an answer about the call.
fn only_envelope_members(body: &[u8]) -> bool {
    let mut members = TopLevel::new(body);
    let mut name = Vec::with_capacity(32);
    while let Some((key, _)) = members.next_member() {
        name.clear();
        name.extend(
            key.iter()
                .filter(|b| !matches!(b, b'_' | b'-'))
                .map(u8::to_ascii_lowercase),
        );
        if !ENVELOPE_MEMBERS.iter().any(|m| m.as_bytes() == name) {
            return false;
        }
    }
    true
}

/// Whether a top-level status or code is 429 and nothing else: the number `429`, the
/// string `"429"`, or `"429 "` before the status's words (`"429 TOO_MANY_REQUESTS"`). A
/// code that only starts with 429 (`"429A"`, `"429-B"`, a product's or a form's) is not,
/// nor one among a record's own fields.
fn status_is_429_alone(body: &[u8]) -> bool {
    let window = &body[..body.len().min(WINDOW)];
    let mut members = TopLevel::new(window);
    while let Some((key, value)) = members.next_member() {
        if !STATUS_MIRRORS
            .iter()
            .any(|k| key.eq_ignore_ascii_case(k.as_bytes()))
        {
            continue;
        }
        let (digits, quoted) = match value.strip_prefix(b"\"") {
            Some(inner) => (inner, true),
            None => (value, false),
        };
        let Some(after) = digits.strip_prefix(b"429") else {
            continue;
        };
        let alone = match after.first() {
            None => true,
            Some(b'"') => quoted,
            Some(b' ') => quoted,
            Some(b) => !quoted && !b.is_ascii_alphanumeric() && !matches!(b, b'.' | b'e' | b'E'),
        };
        if alone {
            return only_envelope_members(window);
        }
    }
    false
}

/// A string value whose words say a limit was passed: `OVER_QUERY_LIMIT`,
/// `RATE_LIMIT_EXCEEDED`, `QuotaExceeded`, `THROTTLED`. `ZERO_RESULTS`, `OK` or
/// `NOT_FOUND` say nothing of the kind.
fn is_limit_status(value: &[u8]) -> bool {
    quoted_bytes(value).is_some_and(names_a_limit_passed)
}

/// Whether a status or code text (unquoted) says a limit was passed, by its words
/// (`_`, `-`, spaces and case changes split them): a limit or quota word with an
/// over/exceeded/reached word, a throttle word, or a budget of calls per period
/// followed by `limit` (DingTalk's `Forbidden.AccessDenied.QpsLimitForApi`: a code that
/// names the per-second limit is that limit refusing). `LIMIT_OVERRIDE` is not one.
pub(super) fn names_a_limit_passed(text: &[u8]) -> bool {
    const LIMIT: [&str; 4] = ["limit", "quota", "ratelimit", "rate"];
    const PASSED: [&str; 5] = ["over", "exceeded", "exceeds", "exceed", "reached"];
    const THROTTLED: [&str; 5] = [
        "throttled",
        "throttling",
        "throttle",
        "ratelimited",
        "overquota",
    ];
    if text.len() > 64 {
        return false;
    }
    // Bytes that are not UTF-8 split words as any other non-alphanumeric character does.
    let words = super::members::camel_words(&String::from_utf8_lossy(text));
    // Queries, requests or transactions a second, minute or hour.
    const PER_PERIOD: [&str; 8] = ["qps", "qpm", "qph", "rps", "rpm", "rph", "tps", "tpm"];
    let any = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    let budget_limit = words
        .windows(2)
        .any(|pair| PER_PERIOD.contains(&pair[0].as_str()) && pair[1] == "limit");
    any(&THROTTLED) || (any(&LIMIT) && any(&PASSED)) || budget_limit
}

/// `null`, `false`, zero, `""`, `"0"`, `[]` or `{}` at the start of a value: the
/// member is there, and says nothing went wrong. A value cut off by the window is not
/// empty when what is seen of it is not.
/// The bytes of a string value up to its first quote (escapes are not decoded: the words
/// read here are plain), or `None` when `value` is not a string.
fn quoted_bytes(value: &[u8]) -> Option<&[u8]> {
    let rest = value.strip_prefix(b"\"")?;
    rest.iter().position(|b| *b == b'"').map(|end| &rest[..end])
}

/// [`quoted_bytes`] as text, when it is UTF-8.
fn quoted_text(value: &[u8]) -> Option<&str> {
    quoted_bytes(value).and_then(|t| std::str::from_utf8(t).ok())
}

fn is_empty_value(v: &[u8]) -> bool {
    let word =
        |w: &[u8]| v.starts_with(w) && v.get(w.len()).is_none_or(|b| !b.is_ascii_alphanumeric());
    if word(b"null") || word(b"false") || word(b"0") || word(b"\"\"") || word(b"\"0\"") {
        return true;
    }
    for (open, close) in [(b'[', b']'), (b'{', b'}')] {
        if let Some(rest) = v.strip_prefix(&[open]) {
            return skip_ws(rest).first() == Some(&close);
        }
    }
    false
}

fn skip_ws(b: &[u8]) -> &[u8] {
    &b[b.iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len())..]
}

/// The top-level members of a JSON object, read from a prefix of it: each key's raw
/// bytes (escapes left as they are) and the bytes where its value starts.
struct TopLevel<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> TopLevel<'a> {
    /// Members of `bytes` when it starts (after whitespace) with `{`; none otherwise.
    fn new(bytes: &'a [u8]) -> TopLevel<'a> {
        let start = bytes.len() - skip_ws(bytes).len();
        match bytes.get(start) {
            Some(b'{') => TopLevel {
                bytes,
                at: start + 1,
            },
            _ => TopLevel {
                bytes,
                at: bytes.len(),
            },
        }
    }

    /// The next member at depth one, or `None` at the object's end or where the window
    /// cuts a key.
    fn next_member(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let b = self.bytes;
        self.at = b.len() - skip_ws(&b[self.at.min(b.len())..]).len();
        if b.get(self.at) == Some(&b',') {
            self.at += 1;
            self.at = b.len() - skip_ws(&b[self.at..]).len();
        }
        if b.get(self.at) != Some(&b'"') {
            return None;
        }
        let key_start = self.at + 1;
        let key_end = string_end(b, key_start)?;
        let after = skip_ws(&b[key_end + 1..]);
        let after = skip_ws(after.strip_prefix(b":")?);
        let value_start = b.len() - after.len();
        // A value the window cuts is still judged by what is seen of it.
        self.at = value_end(b, value_start).unwrap_or(b.len());
        Some((&b[key_start..key_end], &b[value_start..]))
    }
}

/// The index of the `"` closing the string whose content starts at `from`.
pub(super) fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The index just past the value starting at `from`, or `None` when the window cuts it.
fn value_end(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i + 1)? + 1;
                if depth == 0 {
                    return Some(i);
                }
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                if depth == 0 {
                    // The enclosing object's end: a scalar ended here.
                    return Some(i);
                }
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether an object member holds, as a member of its own, a list of results that all
/// failed ([`every_item_failed`]); one level down, no deeper.
fn holds_a_failed_list(object: &[u8]) -> bool {
    let mut members = TopLevel::new(object);
    while let Some((key, value)) = members.next_member() {
        if value.starts_with(b"[") && names_results(&folded(key)) && every_item_failed(value) {
            return true;
        }
    }
    false
}

mod items;
use items::{every_item_failed, is_data, names_results};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod limit_words;
