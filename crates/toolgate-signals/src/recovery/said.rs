//! The words that say what would fix a failure, and gRPC's status names and numbers.
//!
//! A text is read as words (`passed::words`: `ExpiredToken` is "expired token",
//! `transaction_cap_exceeded` is "transaction cap exceeded"), and a rule is a pair of
//! words near each other or a phrase, never a vendor's name: "insufficient credits",
//! "upgrade your plan", "account … deleted", "cap exceeded", a day's or month's allowance
//! passed, "expired token", "invalid scope", "in progress", "is locked". Look-alikes are
//! ruled out by what they speak of: a card declined is the customer's, a recipient
//! marked inactive is not the account, an hourly limit comes back within the hour, a
//! "page token" is not a credential, a rule an input must keep is not a state.

use super::Recovery;
use crate::passed::{says_limit_passed, words};

mod caller_state;
mod held_count;
mod outcome;

/// The periods whose allowance, once spent, does not come back by waiting seconds; in
/// the plural too, as a gateway writes a period with its count ("the limit of 1000
/// requests per 1 days").
const PERIODS: [&str; 13] = [
    "daily", "day", "days", "today", "monthly", "month", "months", "yearly", "year", "years",
    "annual", "cycle", "billing",
];
/// Windows a throttle counts in: a text naming one, or telling to wait, is about a
/// wait, even when it also sells a bigger plan ("exceeded the maximum requests per
/// minute, please wait or upgrade your subscription").
const SHORT_WINDOWS: [&str; 12] = [
    "second", "seconds", "sec", "minute", "minutes", "min", "hour", "hours", "hourly", "rpm",
    "rps", "qps",
];
/// Words of requests in flight at once, which a throttle counts.
const IN_FLIGHT: [&str; 4] = ["concurrent", "concurrency", "simultaneous", "parallel"];
/// Who an account state is about.
const HOLDERS: [&str; 5] = [
    "account",
    "organization",
    "organisation",
    "workspace",
    "trial",
];
/// The states of an account that refuse every call.
const STATES: [&str; 15] = [
    "suspended",
    "disabled",
    "deactivated",
    "inactive",
    "pending",
    "expired",
    "blocked",
    "banned",
    "closed",
    "frozen",
    "deleted",
    "terminated",
    "locked",
    "ended",
    // "Account Barred": kept from sending by the upstream.
    "barred",
];
/// Words that make the account after them someone else's, one the request names: a
/// customer's, a transfer's recipient or destination ("customer account 4411 is
/// closed", "the destination account is frozen"). Its state is the request's to
/// change, not the caller's account's.
const OTHERS: [&str; 10] = [
    "customer",
    "customers",
    "payer",
    "payers",
    "recipient",
    "destination",
    "beneficiary",
    "payee",
    "receiving",
    "counterparty",
];
/// The states only an upstream puts a tenant or a project in.
const STANDING: [&str; 6] = [
    "suspended",
    "disabled",
    "deactivated",
    "blocked",
    "banned",
    "frozen",
];
/// What says the holder may not do anything at all.
const REFUSED_HOLDER: [&str; 3] = ["unable", "cannot", "prohibited"];

/// What a credential is called; in Russian, Portuguese, Spanish and German too, as
/// payment and accounting APIs of those markets write their messages ("Неверный
/// токен", "A chave de API fornecida é inválida", "Passwort ungültig").
const CREDENTIALS: [&str; 21] = [
    "token",
    "auth",
    "dpop",
    "tokens",
    "credential",
    "credentials",
    "signature",
    "apikey",
    "password",
    "jwt",
    "authorization",
    "authentication",
    "токен",
    "пароль",
    "ключ",
    "chave",
    "senha",
    "clave",
    "contraseña",
    "schlüssel",
    "passwort",
];
/// What makes a credential refused (and an input wrong), in the same languages.
const REFUSED: [&str; 23] = [
    "expired",
    "expire",
    "invalid",
    "bad",
    "missing",
    "revoked",
    "unrecognized",
    "unrecognised",
    "incorrect",
    "wrong",
    "mismatch",
    "malformed",
    "insufficient",
    "неверный",
    "неверные",
    "неверная",
    "недействительный",
    "inválida",
    "inválido",
    "incorrecta",
    "incorrecto",
    "ungültig",
    "ungültiger",
];
/// Tokens that are not credentials: a page's, a cursor's, a request's own key.
const NOT_CREDENTIALS: [&str; 6] = [
    "page",
    "pagination",
    "cursor",
    "continuation",
    "idempotency",
    "sync",
];
/// Where a parser tells a token it could not read: "Unexpected token < in JSON at
/// position 0", "invalid token at line 1 column 5" are about the syntax of a body.
const SYNTA: [&str; 13] = [
    "json",
    "xml",
    "yaml",
    "position",
    "line",
    "column",
    "col",
    "offset",
    "character",
    "char",
    "parse",
    "parsing",
    "syntax",
];
/// What names a token as a credential even beside a parser's words ("JWT malformed:
/// unexpected token at position 10", "invalid JSON Web Token").
const CREDENTIAL_KINDS: [&str; 9] = [
    "jwt", "bearer", "access", "refresh", "oauth", "auth", "session", "web", "id",
];
/// An OAuth error code that refuses the grant, the client or the user's consent
/// (RFC 6749 §5.2, OpenID Connect Core §3.1.2.6): a token endpoint's refusal.
const OAUTH_REFUSALS: [[&str; 2]; 5] = [
    ["invalid", "grant"],
    ["invalid", "client"],
    ["consent", "required"],
    ["login", "required"],
    ["interaction", "required"],
];

/// What an input is called, for "invalid parameter" and its like.
const INPUTS: [&str; 13] = [
    "argument",
    "arguments",
    "parameter",
    "parameters",
    "param",
    "input",
    "field",
    "fields",
    "value",
    "json",
    "body",
    "payload",
    "format",
];

/// What `texts` (a body's codes and messages) and the gRPC status it names say would
/// fix the failure. An account's words come first (a spent month is told as such even
/// under `RESOURCE_EXHAUSTED`), then a credential's, then gRPC's status, then a passing
/// state's words, then the method's or the request's.
///
/// `forbidden` says the reply's status refused the caller (a 403): there, words that say
/// the request is wrong count only when they say what was asked is refused by the state
/// of what it names or by a business rule ([`refused_by_what_was_asked`]); an input
/// called invalid or a thing not found under a 403 is as often what the caller may not
/// see, and stays with the status.
pub(super) fn decide(
    texts: &[String],
    grpc: Option<Recovery>,
    forbidden: bool,
) -> Option<Recovery> {
    let read: Vec<(Vec<String>, &str)> = texts.iter().map(|t| (words(t), t.as_str())).collect();
    let any = |rule: fn(&Words<'_>) -> bool| read.iter().any(|(w, t)| rule(&Words { w, text: t }));
    // A message in another language is read by its own tables (`recovery/languages.rs`);
    // one in Chinese, Japanese or Korean by its parts, its words unspaced.
    let other: Vec<Option<Recovery>> = read
        .iter()
        .map(|(w, t)| super::languages::read(w, t))
        .collect();
    let in_other_language = |said: Recovery| {
        other.contains(&Some(said)) || texts.iter().any(|t| super::cjk::read(t) == Some(said))
    };
    // A code naming an account's state (`ACCOUNT_FROZEN`) beside words that say whose
    // account it is ("the destination account is frozen") is about that account, the
    // request's, not the caller's.
    let anothers = any(anothers_account);
    let callers_account = read.iter().any(|(w, t)| {
        let w = Words { w, text: t };
        account(&w) && !(anothers && w.near(&HOLDERS, &STATES, 5))
    });
    if callers_account || in_other_language(Recovery::Account) || any(outcome::plan_lacks_it) {
        return Some(Recovery::Account);
    }
    let holds_full = read.iter().any(|(w, t)| {
        let w = Words { w, text: t };
        holdings(&w) && !(anothers && w.near(&HOLDERS, &STATES, 5))
    });
    if holds_full {
        return Some(Recovery::Holdings);
    }
    // A payment instrument the request carries, refused (`PAYMENT_METHOD_ERROR`,
    // "CVV_FAILURE", "rejected by acquirer"): the payer's card, whatever else the reply
    // says of an "Authorization error" and whatever its status (a 402 or a 403 for it).
    if any(payment_refused) {
        return Some(Recovery::Request);
    }
    if any(credentials)
        || in_other_language(Recovery::Credentials)
        || any(outcome::caller_not_signed_in)
    {
        return Some(Recovery::Credentials);
    }
    // A precondition that passes by itself: Google's APIs send an operation still running
    // on the resource as `FAILED_PRECONDITION` ("An operation is already in progress on
    // the cluster. Wait for it to complete and try again."), which gRPC's guidance keeps
    // for a state only the caller can fix. The words say it is waited out.
    if grpc == Some(Recovery::Request) && any(waited_out) {
        return Some(Recovery::Transient);
    }
    if grpc.is_some() {
        return grpc;
    }
    // A write that carried a version the resource has since left ("has a different
    // version than expected") fails the same way when sent again, even when its code
    // calls it a concurrent modification: the request must carry the current version.
    if any(stale_version) {
        return Some(Recovery::Request);
    }
    if any(transient) || in_other_language(Recovery::Transient) {
        return Some(Recovery::Transient);
    }
    if any(unsupported) {
        return Some(Recovery::Unsupported);
    }
    if any(refused_by_what_was_asked) || any(outcome::addressee_or_message_refused) {
        return Some(Recovery::Request);
    }
    if forbidden {
        return None;
    }
    let request_in_other_language = || {
        read.iter()
            .any(|(w, t)| super::languages::says_request(w, t))
            || texts.iter().any(|t| super::cjk::says_request(t))
    };
    if any(request) || request_in_other_language() {
        return Some(Recovery::Request);
    }
    // Last: "Internal Server Error" is as often the status's own name, written beside
    // words that say what the request got wrong.
    any(outcome::servers_own_failure).then_some(Recovery::Transient)
}

/// One text's words, with the text for the rules that read it whole.
struct Words<'a> {
    w: &'a [String],
    text: &'a str,
}

impl Words<'_> {
    fn has(&self, word: &str) -> bool {
        self.w.iter().any(|x| x == word)
    }

    fn any_of(&self, set: &[&str]) -> bool {
        self.w.iter().any(|x| set.contains(&x.as_str()))
    }

    /// A word of `a` and a word of `b` at most `span` words apart, in either order.
    fn near(&self, a: &[&str], b: &[&str], span: usize) -> bool {
        let at = |set: &[&str]| -> Vec<usize> {
            (0..self.w.len())
                .filter(|i| set.contains(&self.w[*i].as_str()))
                .collect()
        };
        let (xs, ys) = (at(a), at(b));
        xs.iter()
            .any(|x| ys.iter().any(|y| x != y && x.abs_diff(*y) <= span))
    }

    /// The words of `phrase`, one after another.
    fn phrase(&self, phrase: &[&str]) -> bool {
        self.w
            .windows(phrase.len())
            .any(|win| win.iter().zip(phrase).all(|(x, p)| x == p))
    }

    /// A rule an input must keep ("limit must be over 0"), not a state.
    fn is_a_rule(&self) -> bool {
        self.any_of(&["must", "should"])
    }

    /// The text tells to wait, or counts in a throttle's window: "please wait", "try
    /// again in 2m59s", "requests per minute".
    fn says_to_wait(&self) -> bool {
        self.any_of(&["wait", "waiting"])
            || self.any_of(&SHORT_WINDOWS)
            // Requests in flight: one finishing frees the slot, whatever plan is sold
            // beside it ("too many concurrent requests … upgrade your plan").
            || self.any_of(&IN_FLIGHT)
            || self.phrase(&["try", "again", "in"])
            || self.phrase(&["retry", "in"])
            || self.phrase(&["retry", "after"])
    }
}

/// The account behind the calls must change, or its allowance renew.
fn account(w: &Words<'_>) -> bool {
    // Registration is never a wait, whatever a link beside it spells ("aka.ms/rps-…"),
    // and terms the owner has not accepted are refused however the reply words it ("You
    // must accept the Terms of Service").
    // Nor is an identity not yet verified, however it says what must be done ("KYC
    // must be completed").
    if unregistered(w) || terms_unaccepted(w) || caller_state::unverified(w) {
        return true;
    }
    if w.is_a_rule() || w.says_to_wait() {
        return false;
    }
    if trial_ended(w) {
        return true;
    }
    // Credits spent: "Insufficient credits", "not have enough credits", "run out of
    // credits", "Your credit is insufficient". A card's credit is the customer's, and
    // "insufficient permissions to read credits" is about permissions.
    // Units a call spends are credits by another name ("Insufficient retrieval resource
    // units available"); units of stock are the goods'.
    let credits = w.near(
        &["credit", "credits", "units"],
        &[
            "insufficient",
            "enough",
            "out",
            "exhausted",
            "depleted",
            "low",
            "no",
            "zero",
        ],
        4,
    ) && !w.any_of(&["card", "permission", "permissions", "stock", "inventory"])
        // "Maximum credits exceeded": the plan's credits used up (a credit limit, a
        // customer's, is singular).
        || w.near(&["credits"], &["exceeded"], 3);
    // A paid budget's own code: OpenAI's `insufficient_quota`, `payment_required`.
    let code = w.phrase(&["insufficient", "quota"]) || w.phrase(&["payment", "required"]);
    // A plan without room: "upgrade your plan", "does not have an active plan", "the
    // account's plan allows at most 3".
    let plan = w.near(&["upgrade"], &["plan", "subscription", "tier"], 4)
        || ((w.phrase(&["active", "plan"]) || w.phrase(&["active", "subscription"]))
            && w.any_of(&["no", "not", "without"]))
        || w.near(
            &["plan"],
            &["allows", "allow", "include", "includes", "included"],
            3,
        );
    // The account's own state: pending, disabled, deleted, a trial ended; a tenant's
    // or a project's standing, suspended or disabled by the upstream (a project that
    // was deleted or closed is as often what the call asked about).
    let state = (w.near(&HOLDERS, &STATES, 5) && !anothers_account(w))
        || w.near(&["tenant", "project"], &STANDING, 5)
        || held_back(w);
    // A cap the owner set, reached: Backblaze's `cap_exceeded`.
    let cap = w.near(&["cap", "caps"], &["exceeded", "exceeds", "reached"], 2);
    // An allowance raised only on request, not by time: Azure's "exceeding approved
    // standardDSv3Family Cores quota … Submit a request for Quota increase". A window's
    // quota that also offers an increase comes back by waiting (ruled out above).
    // S3's `AccountProblem`: "There is a problem with your account that prevents the
    // operation from completing successfully" (a problem *creating* an account is not
    // one with the caller's).
    let problem = w.phrase(&["account", "problem"])
        || (w.phrase(&["problem", "with"])
            && w.near(&["problem"], &HOLDERS, 4)
            && w.has("your")
            && w.any_of(&["prevents", "prevent", "contact"])
            && !anothers_account(w));
    let approved = (w.has("approved") && w.any_of(&["quota", "quotas"]))
        || w.near(&["quota", "quotas"], &["increase"], 2);
    // "Free accounts are for test purposes only. Please upgrade": the free tier the
    // account is on refuses what a paid one allows.
    let free_tier = w.near(&["free"], &["account", "accounts", "plan", "tier"], 1)
        && w.any_of(&["upgrade", "upgrading"]);
    // "Your account cannot currently make live charges": the holder's standing now, not
    // a rule about what was asked.
    let cannot_now =
        w.near(&HOLDERS, &["cannot", "unable"], 2) && w.has("currently") && !anothers_account(w);
    credits
        || code
        || free_tier
        || cannot_now
        || owner_set_limit(w)
        || quota_spent_alone(w)
        || total_limit_passed(w)
        || bandwidth_spent(w)
        || problem
        || plan
        || state
        || cap
        || approved
        || balance(w)
        || period_spent(w)
        || owes(w)
        || budget_spent(w)
        || not_enabled_for_holder(w)
        || subscription_required(w)
        || standing_allowance_spent(w)
        || licence_ended(w)
        || service_not_activated(w)
        || caller_state::held(w)
        || caller_state::place_not_served(w)
}

/// A count of things the account may hold is full, or a limit raised only on request
/// is reached ([`Recovery::Holdings`]): read after [`account`], so a reply that also
/// says the account itself is refused (credits, plan, standing) stays the account's.
fn holdings(w: &Words<'_>) -> bool {
    !w.is_a_rule() && !w.says_to_wait() && (held_count::full(w) || held_count::raised_on_request(w))
}

/// A trial the account runs on ended: "The trial period for the server is over. Please
/// upgrade", "Your trial has expired". Only its owner buying a plan lets calls through.
fn trial_ended(w: &Words<'_>) -> bool {
    // "has exhausted its free trial quota": the trial's allowance spent ends it too.
    w.near(&["trial"], &["over", "ended", "expired", "exhausted"], 8)
}

/// A limit the owner set on the account, reached: "reached the set inference limit for
/// the model, and the model service has been paused". Only the owner raises it, as a
/// spending cap ([`account`]'s `cap`).
fn owner_set_limit(w: &Words<'_>) -> bool {
    (0..w.w.len()).any(|i| {
        w.w[i] == "set"
            && w.w[i + 1..w.w.len().min(i + 3)]
                .iter()
                .any(|x| matches!(x.as_str(), "limit" | "cap" | "quota"))
    }) && w.any_of(&["reached", "exceeded", "hit"])
        && !w.any_of(&["not", "never", "hasn", "haven", "isn", "wasn"])
}

/// Whether the only account's words in `texts` are a budget refused with nothing else
/// said ([`quota_spent_alone`]): a reply whose headers state a throttle's short wait then
/// measured the window the budget comes back in (`crate::Signals::absorb_body`), where a
/// code or words naming credits, a plan or billing keep it the account's.
pub(super) fn budget_said_alone(texts: &[String]) -> bool {
    let read: Vec<(Vec<String>, &str)> = texts.iter().map(|t| (words(t), t.as_str())).collect();
    let alone = read
        .iter()
        .any(|(w, t)| quota_spent_alone(&Words { w, text: t }));
    alone
        && !read.iter().any(|(w, t)| {
            let w = Words { w, text: t };
            account(&w) && !quota_spent_alone(&w)
        })
}

/// A budget refused with nothing else said: "Out of quota", "Out of resource quota." —
/// no period, no wait, no renewal. A throttle says when it passes (a wait, a window, a
/// reset, "Quota will be replenished in …" after it); a budget that states none is the
/// account's to renew or raise.
fn quota_spent_alone(w: &Words<'_>) -> bool {
    let n = w.w.len();
    (3..=5).contains(&n)
        && w.w[0] == "out"
        && w.w[1] == "of"
        && matches!(w.w[n - 1].as_str(), "quota" | "credits" | "units")
}

/// The account's whole allowance passed, with no window: "TOTAL LIMIT EXCEEDED". A
/// total counted per window names it, and is ruled out before as a wait.
fn total_limit_passed(w: &Words<'_>) -> bool {
    // "Total number of messages on IotHub … exceeded the allocated quota": the allowance
    // allotted to the account, not a rate (which names what it counts per window).
    let allotment = w.near(&["allocated", "allotted"], &["quota", "allowance"], 1)
        && w.any_of(&["exceeded", "exceeds", "reached", "spent"])
        && !w.any_of(&["rate", "requests", "calls", "throughput"]);
    w.phrase(&["total", "limit", "exceeded"]) || allotment
}

/// A site's plan passed, as a hosting page tells it: "due to the site owner reaching
/// his/her bandwidth limit" (cPanel's 509 Bandwidth Limit Exceeded). A month's transfer
/// comes back with the billing cycle or a bigger plan, not in seconds.
fn bandwidth_spent(w: &Words<'_>) -> bool {
    w.near(&["bandwidth"], &["limit", "limits"], 1)
        && w.any_of(&["exceeded", "reached", "reaching", "exhausted"])
}

/// What the account holds, spent or full, that no wait refills: its storage ("The storage
/// quota of your account has been exceeded", "the user's iCloud storage quota has been
/// exceeded"), its limits as a whole ("Account has reached its limits"), a prepaid
/// package ("FreeResourcePackExhausted"). A throttle's window or a wait was ruled out
/// before; a rate, a file's or a request's size ("exceeds the maximum object size") is
/// no holding of the account's.
fn standing_allowance_spent(w: &Words<'_>) -> bool {
    const SPENT: [&str; 6] = [
        "exceeded",
        "exceeds",
        "reached",
        "exhausted",
        "full",
        "depleted",
    ];
    const NOT_HELD: [&str; 11] = [
        "rate",
        "size",
        "file",
        "object",
        "request",
        "requests",
        "calls",
        "concurrent",
        "concurrency",
        "payload",
        "body",
    ];
    // A quota on the size of what a bucket or the account stores ("Bucket size quota is
    // reached"), unlike an object's or a request's size, is held.
    if w.any_of(&OTHERS) {
        return false;
    }
    let stored_size = w.phrase(&["size", "quota"])
        && w.any_of(&["bucket", "buckets", "storage", "disk", "mailbox"])
        && w.any_of(&SPENT);
    if stored_size {
        return true;
    }
    if w.any_of(&NOT_HELD) {
        return false;
    }
    let storage = w.near(&["storage", "disk"], &["quota", "quotas", "full"], 2) && w.any_of(&SPENT);
    let holder_limits =
        w.near(&HOLDERS, &["limit", "limits"], 4) && w.any_of(&SPENT) && !anothers_account(w);
    let package = w.any_of(&["pack", "package", "packs", "packages"])
        && w.any_of(&["exhausted", "depleted", "spent"]);
    // "Insufficient space in /files/alice", `insufficient_space`, "Mailbox full": the
    // space the account stores in. The 507 status's own name ("Insufficient Storage")
    // says nothing of whose space it is, so only these words count.
    let space = w.phrase(&["insufficient", "space"]) || w.near(&["mailbox"], &["full"], 2);
    storage || holder_limits || package || space
}

/// The licence the upstream runs under, or sells the account, ended: "The license has
/// expired. Please contact … to renew your license." Only its owner renews it. A
/// driver's licence or an identity document the request carries is the request's.
fn licence_ended(w: &Words<'_>) -> bool {
    w.near(
        &["license", "licence", "licenses", "licences"],
        &[
            "expired",
            "expire",
            "expires",
            "suspended",
            "revoked",
            "ended",
        ],
        3,
    ) && !w.any_of(&[
        "driver", "drivers", "driving", "document", "identity", "passport",
    ]) && !w.is_a_rule()
}

/// A service, API or product the account has not activated: Tencent Cloud's
/// `FailedOperation.ServiceNotActivated`, "The service is not activated for this
/// account". Its owner activates it in a console; a card or a user the request names
/// "not activated" is theirs.
fn service_not_activated(w: &Words<'_>) -> bool {
    (w.phrase(&["not", "activated"]) || w.phrase(&["not", "opened"]))
        && w.any_of(&["service", "api", "product"])
        && !w.any_of(&PAYMENTS)
}

/// Terms the account's owner has not accepted: a `google.rpc.PreconditionFailure` of type
/// `TOS` described "Terms of service not accepted", "You must accept the Terms of Use
/// before calling this API", "The user has not agreed to the latest terms and
/// conditions". Only the owner accepting them lets calls through; the same call sent
/// again fails the same way.
fn terms_unaccepted(w: &Words<'_>) -> bool {
    const ACCEPTED: [&str; 8] = [
        "accept",
        "accepted",
        "agree",
        "agreed",
        "acknowledge",
        "acknowledged",
        "sign",
        "signed",
    ];
    // "A required agreement is missing or has expired": the agreements the owner signs
    // to use the service, not one the request names.
    if w.phrase(&["required", "agreement"]) || w.phrase(&["required", "agreements"]) {
        return w.any_of(&["missing", "expired", "signed", "accept", "accepted"]);
    }
    let terms = w.phrase(&["terms", "of", "service"])
        || w.phrase(&["terms", "of", "use"])
        || w.phrase(&["terms", "and", "conditions"])
        || w.any_of(&["tos", "eula"]);
    terms && w.any_of(&ACCEPTED)
}

/// A service the account has not subscribed to or opted in to: AWS's `OptInRequired`,
/// "The AWS access key ID needs a subscription for the service", "A subscription is
/// required to use this endpoint". Its owner subscribes; a subscription's id the request
/// must carry ("subscription id is required") is the request's, so only these phrases
/// count.
fn subscription_required(w: &Words<'_>) -> bool {
    // "This API is not subscribed": the service the call uses, not one the request names.
    let unsubscribed =
        w.phrase(&["not", "subscribed"]) && w.any_of(&["api", "service", "product", "plan"]);
    // "Your subscription to cloud development resources has expired": the caller's own.
    let lapsed = w.has("your")
        && w.near(
            &["subscription", "licence", "license"],
            &["expired", "ended", "lapsed", "cancelled", "canceled"],
            6,
        );
    unsubscribed
        || lapsed
        || w.phrase(&["opt", "in", "required"])
        || w.phrase(&["needs", "a", "subscription"])
        || w.phrase(&["requires", "a", "subscription"])
        || w.phrase(&["subscription", "required"])
        || w.phrase(&["subscription", "is", "required"])
}

/// The account owes money: "Your account is in arrears, please recharge first", "Your
/// account has overdue payments". Only its owner paying lets calls through again. An
/// invoice the request names ("Cannot refund an unpaid invoice") or a customer's debt is
/// the request's business, so a debt counts only when it is the caller's.
fn owes(w: &Words<'_>) -> bool {
    if w.any_of(&OTHERS) {
        return false;
    }
    let debt = w.near(
        &["overdue", "unpaid", "outstanding"],
        &[
            "payment", "payments", "invoice", "invoices", "bill", "bills",
        ],
        2,
    ) && (w.any_of(&HOLDERS) || w.has("your") || w.has("subscription"));
    // Uploadcare's `AccountUnpaidError`, "blocked for non payment": the holder unpaid.
    let unpaid_holder = w.near(&["unpaid"], &HOLDERS, 2)
        || ((w.phrase(&["non", "payment"]) || w.has("nonpayment")) && w.any_of(&HOLDERS));
    w.has("arrears")
        || debt
        || unpaid_holder
        || w.phrase(&["please", "recharge"])
        || w.phrase(&["recharge", "first"])
}

/// A spending budget passed: LiteLLM's "Budget has been exceeded! Current cost: 10.0042,
/// Max budget: 10.0", "ExceededBudget: … over budget". Money spent does not come back by
/// waiting; a time, memory or token budget is a limit of the request's own.
fn budget_spent(w: &Words<'_>) -> bool {
    w.near(
        &["budget", "budgets"],
        &[
            "exceeded",
            "exceeds",
            "exhausted",
            "reached",
            "over",
            "spent",
        ],
        3,
    ) && !w.any_of(&[
        "time",
        "timeout",
        "memory",
        "token",
        "tokens",
        "thinking",
        "retry",
        "retries",
        "error",
        // A query's complexity or cost points refill by the second (monday.com's
        // "Complexity budget exhausted … reset in 15 seconds").
        "complexity",
        "query",
        "points",
    ])
}

/// A feature the account, organisation or workspace has not been given: "This feature is
/// not enabled for your account. Contact support to enable it." Its owner asks for it; a
/// request for something else passes.
fn not_enabled_for_holder(w: &Words<'_>) -> bool {
    (w.phrase(&["not", "enabled", "for"]) || w.phrase(&["isn", "t", "enabled", "for"]))
        && w.any_of(&HOLDERS)
        && !anothers_account(w)
        && !w.is_a_rule()
}

/// A prepaid balance spent ("Insufficient balance: … Please top up"), or a plan's own
/// limit reached ("you have reached the limit of databases for your plan", a code
/// `plan_limit`). A card's balance is the customer's, and a plan's *rate* limit comes
/// back by waiting (a window it names is ruled out above).
fn balance(w: &Words<'_>) -> bool {
    let spent = w.near(
        &["balance"],
        &[
            "insufficient",
            "exhausted",
            "depleted",
            "enough",
            "zero",
            "negative",
        ],
        4,
    ) && !w.any_of(&["card", "funds"]);
    let plan_limit = w.near(&["plan"], &["limit", "limits", "limited"], 5) && !w.has("rate");
    spent || w.phrase(&["top", "up"]) || plan_limit
}

/// A subscription or account not registered for the service: "The subscription is not
/// registered to use namespace 'Microsoft.ContainerInstance'". Its owner registers it.
fn unregistered(w: &Words<'_>) -> bool {
    w.phrase(&["not", "registered"])
        && w.any_of(&["subscription", "account", "organization", "tenant"])
}

/// An account the request names as someone else's ([`OTHERS`] right before it).
fn anothers_account(w: &Words<'_>) -> bool {
    (1..w.w.len()).any(|i| w.w[i] == "account" && OTHERS.contains(&w.w[i - 1].as_str()))
}

/// The holder refused as a whole, its owner sent to support: "This organization is
/// unable to send emails. Please contact support", "Your account cannot make requests;
/// contact support". A request refused for what it asks names no holder that way.
fn held_back(w: &Words<'_>) -> bool {
    w.near(&HOLDERS, &REFUSED_HOLDER, 3)
        && (w.phrase(&["contact", "support"]) || w.phrase(&["contact", "us"]))
}

/// A day's or a month's allowance passed: "Your searches for the month have run out",
/// "You've reached your read unit limit for the current month", `dailyLimitExceeded`,
/// "Exceeded send limits (50) for today". An hour's or a minute's comes back by waiting.
fn period_spent(w: &Words<'_>) -> bool {
    if !w.any_of(&PERIODS) {
        return false;
    }
    // "Rate Limited Day" (LocationIQ's per-day refusal) names its period the way "Rate
    // Limited Minute" names a throttle's window.
    let passed = says_limit_passed(w.text)
        // A free allocation or a cap spent the same way: "used up your daily free
        // allocation of 10,000 neurons", "monthly consumption cap … reached".
        || (w.any_of(&["limit", "limits", "quota", "allowance", "allocation", "cap"])
            && w.any_of(&["reached", "reach", "exceeded", "exceeds", "exhausted", "used"]))
        || w.phrase(&["rate", "limited"]);
    // "have run out" ends the sentence, or runs out *of* a budget: a job that ran out of
    // memory on a daily run is no allowance.
    let ran_out = (0..w.w.len()).any(|i| {
        matches!(w.w[i].as_str(), "run" | "ran")
            && w.w.get(i + 1).is_some_and(|x| x == "out")
            && w.w.get(i + 2).is_none_or(|x| {
                x != "of"
                    || w.w.get(i + 3).is_some_and(|b| {
                        ["credits", "quota", "searches", "requests", "calls", "units"]
                            .contains(&b.as_str())
                    })
            })
    });
    passed || ran_out
}

/// The credentials were refused.
fn credentials(w: &Words<'_>) -> bool {
    // Before the tokens that are not credentials: a page's own token is the session's.
    if form_session_expired(w) {
        return true;
    }
    // A device's push token is the address a notification is sent to, not the caller's
    // credential ("BadDeviceToken", "Invalid device token").
    if w.any_of(&NOT_CREDENTIALS) || parser_token(w) || w.phrase(&["device", "token"]) {
        return false;
    }
    if OAUTH_REFUSALS.iter().any(|p| w.phrase(p)) {
        return true;
    }
    // A key, or a session named by its id (Salesforce's `INVALID_SESSION_ID`, "Invalid or
    // expired session ID"): a checkout session that expired is a business object.
    let key = (1..w.w.len()).any(|i| {
        let before = w.w[i - 1].as_str();
        (w.w[i] == "key"
            && [
                "api",
                "access",
                "secret",
                "app",
                "client",
                "subscription",
                "integration",
            ]
            .contains(&before))
            || (w.w[i] == "id" && before == "session")
            // Conduit's "Session key is not present".
            || (w.w[i] == "key" && before == "session")
    });
    // "The security token included in the request is invalid": a sentence apart.
    // A message's security header (WS-Security's, or the one a name-value-pair API
    // signs its calls with) carries the caller's credentials.
    let security_header = w.phrase(&["security", "header"]);
    let refused = w.near(&CREDENTIALS, &REFUSED, 6)
        || ((key || security_header)
            && (w.any_of(&REFUSED) || says_missing(w) || w.phrase(&["not", "valid"])))
        || (w.phrase(&["not", "match"]) && w.any_of(&["signature", "credentials"]));
    let scope = w.near(
        &["scope", "scopes"],
        &["insufficient", "invalid", "missing"],
        1,
    );
    refused
        || scope
        || client_misregistered(w)
        // A workspace or team the credentials were not let into: "team access not
        // granted".
        || w.phrase(&["access", "not", "granted"])
        || w.any_of(&["unauthenticated", "unauthorized", "unauthorised"])
        || access_refused(w)
        || not_authenticated(w)
        || login_session_ended(w)
        || w.any_of(&["relogin", "reauthenticate", "reauthorize"])
        || w.phrase(&["re", "login"])
        || w.phrase(&["re", "authenticate"])
        || sign_in_refused(w)
        || w.phrase(&["log", "in", "again"])
        || w.phrase(&["login", "again"])
        || w.phrase(&["sign", "in", "again"])
        || privileges_required(w)
        || privilege_lacking(w)
        || signature_refused(w)
        // A payment gateway's refusal of the merchant's login or address.
        || (w.phrase(&["security", "violation"]) && !w.any_of(&PAYMENTS))
        || session_key_refused(w)
        || authorization_failed(w)
        || one_time_code_refused(w)
}

/// A form's session token expired or refused: "Page Expired" (the page a web framework
/// answers a request whose session, and the CSRF token tied to it, ended), "CSRF token
/// mismatch". Only signing in again gives a session whose token passes.
fn form_session_expired(w: &Words<'_>) -> bool {
    w.phrase(&["page", "expired"])
        || (w.has("csrf") && w.any_of(&["mismatch", "expired", "invalid", "missing"]))
}

/// The OAuth client is not registered for what it was called with: `redirect_uri_mismatch`,
/// "The redirect_uri MUST match the registered callback URL", "The 'redirect_uri'
/// parameter must be a Login redirect URI in the client app settings". The client's
/// registration is the owner's configuration, like its secret: no argument the model
/// could change makes the same call pass.
fn client_misregistered(w: &Words<'_>) -> bool {
    (w.phrase(&["redirect", "uri"])
        || w.phrase(&["callback", "url"])
        || w.phrase(&["reply", "url"]))
        && w.any_of(&[
            "mismatch",
            "match",
            "must",
            "registered",
            "whitelisted",
            "allowed",
            "invalid",
        ])
}

/// A one-time code that stands for a grant refused: an OAuth authorization code or a
/// device's verification code "incorrect or expired" (`bad_verification_code`, "The code
/// passed is incorrect or expired."). Only the user authorizing again yields a new one.
fn one_time_code_refused(w: &Words<'_>) -> bool {
    (w.phrase(&["verification", "code"]) || w.phrase(&["authorization", "code"]))
        && w.any_of(&["bad", "incorrect", "invalid", "expired"])
}

/// An authorisation that failed, in so many words: "Authorization failing!",
/// `TicketGet.AuthFail`, "auth failure". A payment's authorisation is the card issuer's.
fn authorization_failed(w: &Words<'_>) -> bool {
    w.near(
        &["auth", "authorization", "authorisation"],
        &["fail", "failed", "failing", "failure"],
        2,
    ) && !w.any_of(&PAYMENTS)
}

/// A sign-in refused: "Sign-in information is incorrect", "Invalid login", "Logon
/// failure". What a sign-in form's field must hold ("login must be an email", "invalid
/// login format") is an input's rule, not a refusal, and a log written somewhere ("failed
/// to write log in /var/log") is no sign-in.
fn sign_in_refused(w: &Words<'_>) -> bool {
    let sign_in = w.phrase(&["sign", "in"]) || w.any_of(&["login", "logon", "signin"]);
    sign_in
        && w.near(
            &["sign", "login", "logon", "signin"],
            &["incorrect", "invalid", "failed", "failure", "wrong"],
            4,
        )
        && !w.is_a_rule()
        && !w.any_of(&INPUTS)
}

/// Authentication that did not happen or failed, in so many words: "user hasn't
/// authenticate", "Authentication failed", "authentication required", "Failed to
/// authenticate the request". Who failed to authenticate is the caller.
fn not_authenticated(w: &Words<'_>) -> bool {
    w.near(
        &["authenticate", "authenticated", "authentication"],
        &[
            "not", "hasn", "haven", "isn", "wasn", "failed", "fail", "unable", "required",
        ],
        3,
    )
}

/// A login's session refused: "Invalid session.", "Session expired. Try to relogin.",
/// "Odoo Session Expired". A session a business object names (a checkout's, an
/// upload's) that expired is the request's, and a rule about a `session_type` is an
/// input's.
fn login_session_ended(w: &Words<'_>) -> bool {
    if w.is_a_rule() {
        return false;
    }
    (0..w.w.len()).any(|i| {
        if w.w[i] != "session" || i > 0 && BUSINESS_SESSIONS.contains(&w.w[i - 1].as_str()) {
            return false;
        }
        let next = |k: usize| w.w.get(i + k).map(String::as_str);
        let before = i.checked_sub(1).map(|j| w.w[j].as_str());
        matches!(before, Some("invalid" | "expired"))
            || next(1) == Some("expired")
            || (matches!(next(1), Some("has" | "is" | "was")) && next(2) == Some("expired"))
    })
}

/// What names a session that belongs to a business object, not to a login.
const BUSINESS_SESSIONS: [&str; 8] = [
    "checkout",
    "payment",
    "upload",
    "booking",
    "cart",
    "chat",
    "streaming",
    "training",
];

/// A session's key under the name a product gives it — Kaltura's "KS", a CAS or
/// Alfresco "ticket", a "sid" — refused: "Invalid KS", "bad sid", "The ticket has
/// expired", "SID not found". A record's identifier named the same way is data: a
/// "ticket id", a "Call SID", "Ticket 99213 not found" (a helpdesk's ticket).
fn session_key_refused(w: &Words<'_>) -> bool {
    const KEYS: [&str; 4] = ["ks", "sid", "ticket", "sessid"];
    /// What may stand before the key when it is the caller's: a refusal, an article, or
    /// what the session is for.
    const BEFORE: [&str; 7] = ["the", "your", "a", "session", "login", "auth", "service"];
    /// What after the key makes it a record's field.
    const FIELD: [&str; 6] = ["id", "ids", "number", "status", "type", "field"];
    (0..w.w.len()).any(|i| {
        let key = w.w[i].as_str();
        if !KEYS.contains(&key) {
            return false;
        }
        let before = i.checked_sub(1).map(|j| w.w[j].as_str());
        if before.is_some_and(|b| !REFUSED.contains(&b) && !BEFORE.contains(&b)) {
            return false;
        }
        if w.w.get(i + 1).is_some_and(|a| FIELD.contains(&a.as_str())) {
            return false;
        }
        // Refused right beside it ("Invalid KS", "KS expired", "The ticket has expired"),
        // not somewhere in a sentence about a record's fields ("TicketCreate: invalid
        // parameter").
        let after = w.w[i + 1..]
            .iter()
            .map(String::as_str)
            .find(|x| !["is", "has", "was", "been", "are", "have"].contains(x));
        let refused = before.is_some_and(|b| REFUSED.contains(&b))
            || after.is_some_and(|a| REFUSED.contains(&a));
        // A ticket that is "not found" is as often a helpdesk's record; a sid or a KS is
        // only ever a session's.
        // A service ticket issued for another service "does not match supplied service":
        // the owner registered the service under another address.
        refused || w.phrase(&["not", "match"]) || (key != "ticket" && says_missing(w))
    })
}

/// A privilege or permission the caller lacks: "TICKET_VIEW privileges are required to
/// perform this operation", "You don't have the required permissions". A rule a field
/// must keep ("permissions must be an array") is an input's.
fn privileges_required(w: &Words<'_>) -> bool {
    const PRIVILEGES: [&str; 4] = ["privilege", "privileges", "permission", "permissions"];
    !w.is_a_rule() && w.near(&PRIVILEGES, &["required", "requires"], 3)
}

/// A privilege or permission the caller lacks, said by what is wrong with it: "Principal
/// user … is missing prvCreateAccount privilege", "permission deny". A rule a field must
/// keep is an input's.
fn privilege_lacking(w: &Words<'_>) -> bool {
    const PRIVILEGES: [&str; 4] = ["privilege", "privileges", "permission", "permissions"];
    !w.is_a_rule()
        && w.near(
            &PRIVILEGES,
            &["missing", "lacks", "lack", "deny", "denied"],
            4,
        )
}

/// A request's signature refused, written as payment and device clouds shorten it:
/// "sign invalid", "invalid sign", "sign error", "sign check fail". "Sign in", "sign up"
/// and "sign out" are the verb.
fn signature_refused(w: &Words<'_>) -> bool {
    const REFUSED_SIGN: [&str; 5] = ["invalid", "error", "mismatch", "fail", "failed"];
    (0..w.w.len()).any(|i| {
        let verb =
            w.w.get(i + 1)
                .is_some_and(|next| matches!(next.as_str(), "in" | "up" | "out" | "on"));
        w.w[i] == "sign"
            && !verb
            && ((i > 0 && REFUSED_SIGN.contains(&w.w[i - 1].as_str()))
                || w.w
                    .get(i + 1..(i + 3).min(w.w.len()))
                    .is_some_and(|next| next.iter().any(|x| REFUSED_SIGN.contains(&x.as_str()))))
    })
}

/// The text says something named is not there: "not found", "could not be found",
/// "does not exist", "doesn't exist", "not exists", "is not present", "no such".
fn says_missing(w: &Words<'_>) -> bool {
    // A thing the request names, said missing or unknown: "[1]: document missing",
    // `Unknown_Subaccount`, "Unknown channel". An unknown error, reason or method is not
    // ([`NOT_A_THING`]).
    w.near(&["missing"], &THINGS, 1)
        || (w.has("unknown") && w.w.len() <= 4 && !w.any_of(&NOT_A_THING))
        || w.phrase(&["not", "found"])
        || w.phrase(&["not", "be", "found"])
        || w.phrase(&["not", "exist"])
        || w.phrase(&["not", "exists"])
        || w.phrase(&["t", "exist"])
        || w.phrase(&["not", "present"])
        || w.phrase(&["no", "such"])
}

/// What the request may name, said missing.
const THINGS: [&str; 7] = [
    "document", "record", "object", "item", "entity", "resource", "row",
];

/// What an "unknown …" names that is no thing of the request's: the failure itself, or
/// what the upstream lacks ([`unsupported`]).
const NOT_A_THING: [&str; 9] = [
    "error",
    "failure",
    "exception",
    "reason",
    "issue",
    "problem",
    "method",
    "command",
    "host",
];

/// Access refused in so many words: "Access Denied" (an ML-RPC fault for a wrong key),
/// "Sender not Authorized" (a SOAP subcode), "You must log in before using this". A
/// payment that was "not authorized" is the card issuer's refusal, not the caller's, and
/// an object that "does not exist or not authorized" (Snowflake's wording) is as likely
/// the request's.
fn access_refused(w: &Words<'_>) -> bool {
    // "The access to service [reach_reachprofile->list] is forbidden" says the same.
    let said = w.phrase(&["access", "denied"])
        || (w.has("access") && w.phrase(&["is", "forbidden"]))
        || w.phrase(&["not", "authorized"])
        || w.phrase(&["not", "authorised"])
        || (w.phrase(&["log", "in"]) && w.any_of(&["must", "required"]));
    said && !w.any_of(&PAYMENTS) && !w.any_of(&["exist", "exists", "found"])
}

/// A payment instrument the request carries, refused by its issuer or by the checks made
/// on it: a payment method's error or failed verification ("payment method error",
/// "payment method not present"), a card declined, expired or not recognised, a
/// security code or address check failed, a decline named as such ("generic decline"),
/// a rejection by the acquirer. Another card or payer passes; the caller's own billing
/// ("update your payment method") is the account's and is not read here.
fn payment_refused(w: &Words<'_>) -> bool {
    const FAILED: [&str; 9] = [
        "error",
        "failed",
        "failure",
        "declined",
        "decline",
        "invalid",
        "verification",
        "not",
        "rejected",
    ];
    let method = w.phrase(&["payment", "method"])
        && w.any_of(&FAILED)
        && !w.any_of(&["your", "update", "add", "billing"]);
    let card = w.near(
        &["card"],
        &[
            "declined",
            "expired",
            "stolen",
            "lost",
            "restricted",
            "recognised",
            "recognized",
        ],
        3,
    );
    let security_code = w.any_of(&["cvv", "cvc", "cvv2", "cvc2"])
        && w.any_of(&["failure", "failed", "invalid", "mismatch", "incorrect"]);
    let avs = w.phrase(&["address", "verification"]) && w.any_of(&["failure", "failed"]);
    let acquirer = w.has("acquirer") && w.any_of(&["rejected", "declined", "refused"]);
    method || card || security_code || avs || acquirer || w.has("decline")
}

/// What a refusal of a payment speaks of: its authorisation is the issuer's.
const PAYMENTS: [&str; 6] = ["card", "payment", "transaction", "issuer", "charge", "bank"];

/// A parser's token, not a credential: "Unexpected token < in JSON at position 0",
/// "invalid token at position 3", unless the text also names what kind of credential
/// the token is ("JWT", "access token", "JSON Web Token").
fn parser_token(w: &Words<'_>) -> bool {
    w.any_of(&["token", "tokens"])
        && (w.any_of(&SYNTA) || w.phrase(&["unexpected", "token"]))
        && !w.any_of(&CREDENTIAL_KINDS)
}

/// A passing state: the same request may pass in a moment. A model, node or index
/// still loading is one ("Model is not ready for inference", "Client still warming
/// up"), and so is a transaction that lost to a concurrent one ([`lost_a_race`]).
fn transient(w: &Words<'_>) -> bool {
    lost_a_race(w)
        || still_under_way(w)
        || wait_then_again(w)
        || w.near(
            &["temporary"],
            &["error", "failure", "problem", "outage"],
            2,
        )
        || w.phrase(&["in", "progress"])
        || w.phrase(&["not", "ready"])
        || w.phrase(&["warming", "up"])
        || w.any_of(&["transient", "temporarily", "busy", "overloaded"])
        || w.phrase(&["is", "locked"])
        || w.phrase(&["try", "again", "later"])
        || w.phrase(&["retry", "later"])
        // "Service currently unavailable", "service temporarily unavailable".
        || w.near(&["service"], &["unavailable"], 2)
        || w.phrase(&["internal", "error"])
        || w.phrase(&["backend", "error"])
        || w.phrase(&["timed", "out"])
        // A code `time_out`, "Query exceeded the timeout".
        || w.phrase(&["time", "out"])
        || being_changed(w)
        || held_for_now(w)
        || w.near(
            &["locked"],
            &["resource", "record", "file", "document", "row", "object", "entity"],
            2,
        )
}

/// What the request names is being changed by the upstream now: "The specified queue is
/// being deleted", "the blob is being rehydrated". It ends by itself; the same request
/// then passes or is told what is left.
fn being_changed(w: &Words<'_>) -> bool {
    const CHANGES: [&str; 11] = [
        "deleted",
        "removed",
        "rehydrated",
        "restored",
        "migrated",
        "moved",
        "copied",
        "replicated",
        "resized",
        "upgraded",
        "updated",
    ];
    // "… is being deleted" is now; "not found due to the resource being deleted" is a
    // cause in the past.
    !w.is_a_rule()
        && w.w.windows(3).any(|p| {
            matches!(p[0].as_str(), "is" | "are" | "currently" | "still")
                && p[1] == "being"
                && CHANGES.contains(&p[2].as_str())
        })
}

/// What the request names is held by something that lets go of it when done: "The
/// specified resource is in use by an SMB client", "being used by another process".
/// Held by an account, a user, a project or another resource ("The email address is in
/// use by another account", "in use by instance i-0456") it stays held: not a wait.
fn held_for_now(w: &Words<'_>) -> bool {
    const PASSING_HOLDERS: [&str; 18] = [
        "process",
        "processes",
        "program",
        "client",
        "session",
        "operation",
        "request",
        "job",
        "task",
        "transaction",
        "connection",
        "lease",
        "thread",
        "worker",
        "upload",
        "build",
        "backup",
        "migration",
    ];
    const ARTICLES: [&str; 6] = ["a", "an", "another", "the", "other", "some"];
    if w.has("already") {
        return false;
    }
    let held_by = |at: usize| {
        w.w[at..]
            .iter()
            .filter(|x| !ARTICLES.contains(&x.as_str()))
            .take(2)
            .any(|x| PASSING_HOLDERS.contains(&x.as_str()))
    };
    w.w.windows(3).enumerate().any(|(i, p)| {
        let by = (p[0] == "in" && p[1] == "use" && p[2] == "by")
            || (p[0] == "being" && p[1] == "used" && p[2] == "by");
        by && held_by(i + 3)
    })
}

/// A state of the resource that ends by itself: an operation in progress on it, the
/// resource still on its way ([`still_under_way`]), or advice to wait and send the same
/// request again ([`wait_then_again`]).
fn waited_out(w: &Words<'_>) -> bool {
    (w.phrase(&["in", "progress"]) && !w.is_a_rule()) || still_under_way(w) || wait_then_again(w)
}

/// Something the request names, still on its way to a state it reaches by itself: "The
/// resource is still being created", "the volume is still provisioning". A moment later
/// it is there; only a rule ("must still be …") is not a state.
fn still_under_way(w: &Words<'_>) -> bool {
    const UNDER_WAY: [&str; 12] = [
        "created",
        "creating",
        "processed",
        "processing",
        "provisioned",
        "provisioning",
        "initializing",
        "initialising",
        "starting",
        "deploying",
        "indexing",
        "loading",
    ];
    // "The specified account is in the process of being created."
    let in_process = w.w.windows(6).any(|win| {
        win[..5]
            .iter()
            .zip(["in", "the", "process", "of", "being"])
            .all(|(x, p)| x == p)
            && UNDER_WAY.contains(&win[5].as_str())
    });
    let still = (0..w.w.len()).any(|i| {
        w.w[i] == "still"
            && w.w
                .get(i + 1..(i + 3).min(w.w.len()))
                .is_some_and(|next| next.iter().any(|x| UNDER_WAY.contains(&x.as_str())))
    });
    !w.is_a_rule() && (in_process || still)
}

/// A reply that tells to wait and send the request again: "Please wait a moment and try
/// again", "There was a conflict with another request. Please retry." Said as advice,
/// not as a rule, it is a passing state.
fn wait_then_again(w: &Words<'_>) -> bool {
    let waited = w.phrase(&["try", "again"]) && w.any_of(&["wait", "moment", "shortly"]);
    // "Please retry with a valid amount" asks for another request, not the same one.
    // "Please try again" is the same advice ("An error occurred during processing.
    // Please try again."); "Please try again in 2m59s" names a throttle's wait, read
    // elsewhere.
    let retry = (1..w.w.len()).any(|i| {
        let (advice, next, not_before): (bool, usize, &[&str]) =
            match (w.w[i - 1].as_str(), w.w[i].as_str()) {
                ("please", "retry") => (true, i + 1, &["with", "using"]),
                ("please", "try") => (
                    w.w.get(i + 1).is_some_and(|a| a == "again"),
                    i + 2,
                    &["with", "using", "in", "after"],
                ),
                _ => (false, i, &[]),
            };
        advice
            && w.w
                .get(next)
                .is_none_or(|next| !not_before.contains(&next.as_str()))
    }) && !w.any_of(&["valid", "invalid", "correct", "incorrect"]);
    waited || retry
}

/// A transaction aborted because another touched the same data at the same time: "Transaction
/// was aborted due to detection of concurrent modifications", "write-write conflict",
/// "Failed to commit transaction due to a read or write conflict. This transaction can be
/// retried", a deadlock detected, a serialization failure. Sent again, it meets no rival.
/// A conflict alone is not one: "already exists" and "the object has been modified; please
/// apply your changes to the latest version" are the request's to change.
fn lost_a_race(w: &Words<'_>) -> bool {
    w.phrase(&["concurrent", "modification"])
        || w.phrase(&["concurrent", "modifications"])
        || w.phrase(&["write", "conflict"])
        || w.phrase(&["transaction", "conflict"])
        || w.any_of(&["deadlock", "contended", "contention"])
        || w.phrase(&["serialization", "failure"])
        || w.phrase(&["could", "not", "serialize"])
        || (w.phrase(&["can", "be", "retried"]) && w.any_of(&["transaction", "conflict"]))
}

/// A write refused because the version it names is not the resource's: "Object … has a
/// different version than expected. Expected: 3 - Actual: 4", "version mismatch",
/// "RowVersion … does not match". Optimistic concurrency: only a request that carries
/// the current version passes, so the same one never does. A version an API or a
/// client library is at ("API version 2019 is not supported") is not a resource's.
fn stale_version(w: &Words<'_>) -> bool {
    const VERSIONS: [&str; 5] = ["version", "versions", "rowversion", "etag", "revision"];
    const STALE: [&str; 6] = [
        "expected",
        "mismatch",
        "mismatched",
        "stale",
        "outdated",
        "match",
    ];
    w.near(&VERSIONS, &STALE, 5) && !w.any_of(&["api", "sdk", "client", "protocol", "tls"])
}

/// The upstream does not do what was asked: "not implemented", and a method, command or
/// procedure it does not have ("Method not found", "the method debug_traceTransaction
/// does not exist/is not available", "Conduit method … does not exist", RouterOS's "no
/// such command or directory", "unknown command 'user_shw'", "method name not
/// recognized"). What is called is the tool's own choice, not an argument's.
fn unsupported(w: &Words<'_>) -> bool {
    w.phrase(&["not", "implemented"])
        || w.has("unimplemented")
        // An RPC server's own word for a method it does not route (Twirp's `bad_route`,
        // "no handler for path …").
        || w.phrase(&["bad", "route"])
        || w.phrase(&["no", "handler"])
        || (names_an_operation(w)
            && (says_missing(w)
                || w.any_of(&["unknown", "unrecognized", "unrecognised"])
                || w.phrase(&["not", "recognized"])
                || w.phrase(&["not", "recognised"])))
}

/// An operation word ([`OPERATIONS`]) that is not a business object's kind: a payment,
/// shipping or sign-in method the request names ("Unknown payment method") is data. An
/// action named with the service it belongs to is one ("Action \"listAll\" does not
/// exists for service \"media\""); an action alone is as often a record (a droplet's).
fn names_an_operation(w: &Words<'_>) -> bool {
    const KINDS: [&str; 10] = [
        "payment",
        "shipping",
        "delivery",
        "billing",
        "funding",
        "contact",
        "login",
        "authentication",
        "auth",
        "http",
    ];
    let action_of_a_service = w.any_of(&["action", "actions"]) && w.has("service");
    action_of_a_service
        || (0..w.w.len()).any(|i| {
            OPERATIONS.contains(&w.w[i].as_str())
                && !(i > 0 && KINDS.contains(&w.w[i - 1].as_str()))
        })
}

/// What names the operation a call asks for, as RPC protocols and command APIs call it.
const OPERATIONS: [&str; 6] = [
    "method",
    "methods",
    "command",
    "commands",
    "procedure",
    "procedures",
];

/// What was asked, refused by the state of what it names or by a rule of the business:
/// "Cannot delete an invoice that has payments applied", "Booked invoices cannot be
/// deleted", "Order cannot be canceled because it has already been shipped", "Payout is
/// not allowed: the wallet status is CANCELED", "order already shipped". Another request
/// (another record, or the same one once its state allows it) passes; other credentials
/// do not change it. A refusal that speaks of a grant — a permission, a role, a scope, a
/// key or a token — is about what the caller may do, and stays the credentials'.
fn refused_by_what_was_asked(w: &Words<'_>) -> bool {
    if w.any_of(&GRANTS) || w.any_of(&CREDENTIALS) || w.has("key") {
        return false;
    }
    let refused = w.any_of(&["cannot", "unable"])
        || w.phrase(&["can", "t"])
        || w.phrase(&["can", "not"])
        || w.phrase(&["not", "allowed"])
        || w.phrase(&["not", "permitted"])
        || w.phrase(&["not", "possible"])
        || w.phrase(&["no", "longer"]);
    // A state named as one: "not in AUTHORISED state", "the wallet status is CANCELED",
    // "not allowed in the current state". A status alone ("cannot change the status") is
    // what the request would change, not why it is refused.
    let in_a_state = w.any_of(&REACHED_STATES)
        || w.phrase(&["status", "is"])
        || w.phrase(&["current", "state"])
        || w.phrase(&["current", "status"])
        || (w.has("state") && w.has("in"));
    let already = w.has("already");
    // "Cannot delete a virtual machine that is powered on": an action refused for a
    // reason the text gives about the thing acted on, unless the reason is the server's
    // own ("because the database is unavailable").
    let for_a_reason = w.any_of(&ACTIONS)
        && w.any_of(&["that", "which", "because", "since", "while", "once", "as"])
        && !w.any_of(&NOT_THE_REQUEST)
        && !w.any_of(&SERVERS_OWN);
    let the_servers = w.any_of(&SERVERS_OWN);
    (refused && !the_servers && (in_a_state || already || for_a_reason)) || (already && in_a_state)
}

/// What a refusal blames when the server, not the record, is in the way.
const SERVERS_OWN: [&str; 10] = [
    "server",
    "internal",
    "backend",
    "upstream",
    "database",
    "unavailable",
    "timeout",
    "connection",
    "network",
    "error",
];

/// What a refusal names when it is about what the caller may do, not about what it
/// asked: "You do not have permission", "missing role", "insufficient scope", "no
/// entitlement", a consent the user gave and withdrew.
const GRANTS: [&str; 12] = [
    "permission",
    "permissions",
    "privilege",
    "privileges",
    "role",
    "roles",
    "scope",
    "scopes",
    "consent",
    "entitlement",
    "entitlements",
    "access",
];

/// The states a business record reaches and stays in, which close it to some actions:
/// an invoice paid or voided, an order shipped, a journal entry posted, a contract
/// terminated, a job archived.
const REACHED_STATES: [&str; 33] = [
    "shipped",
    // "Cannot modify a locked period": a period or record closed to changes.
    "locked",
    "paid",
    "cancelled",
    "canceled",
    "submitted",
    "fulfilled",
    "completed",
    "closed",
    "voided",
    "posted",
    "booked",
    "finalized",
    "finalised",
    "settled",
    "captured",
    "refunded",
    "delivered",
    "dispatched",
    "transmitted",
    "purchased",
    "announced",
    "archived",
    "approved",
    "published",
    "ordered",
    "terminated",
    "invoiced",
    "reconciled",
    "issued",
    "confirmed",
    "signed",
    "redeemed",
];

/// What is done to a record, refused for a reason.
const ACTIONS: [&str; 24] = [
    "delete",
    "deleted",
    "cancel",
    "cancelled",
    "canceled",
    "modify",
    "modified",
    "edit",
    "edited",
    "update",
    "updated",
    "change",
    "changed",
    "void",
    "refund",
    "capture",
    "remove",
    "removed",
    "amend",
    "amended",
    "add",
    "added",
    "submit",
    "reopen",
];

/// The request itself is wrong: an invalid input, a failed validation, a card declined.
fn request(w: &Words<'_>) -> bool {
    w.near(&["invalid", "malformed"], &INPUTS, 2)
        || invalid_thing(w)
        || offer_too_low(w)
        // A contract call its own code refused ("execution reverted: …").
        || w.has("reverted")
        || duplicate(w)
        || undecodable(w)
        // OAuth's and RFC 6750's `invalid_request`.
        || w.phrase(&["invalid", "request"])
        || w.phrase(&["validation", "error"])
        || w.phrase(&["validation", "failed"])
        // A code naming a rule of the business the request broke (`BUSINESS_ERROR`).
        || w.phrase(&["business", "error"])
        || w.phrase(&["business", "rule"])
        || w.phrase(&["is", "required"])
        || w.phrase(&["field", "required"])
        // "Required parameter is missing."
        || (w.near(&["missing"], &INPUTS, 2) && !w.any_of(&CREDENTIALS))
        || blank_input(w)
        || w.has("declined")
        || missing_thing(w)
        || short_of_funds(w)
        || anothers_space_full(w)
}

/// The space of someone the request names is full: "Mailbox full: the recipient's
/// storage quota is exceeded". Another recipient passes; the caller's own account is
/// not refused.
fn anothers_space_full(w: &Words<'_>) -> bool {
    w.any_of(&OTHERS)
        && (w.near(&["mailbox"], &["full"], 2)
            || (w.near(&["storage", "mailbox"], &["quota"], 2)
                && w.any_of(&["exceeded", "exceeds", "full", "reached"])))
}

/// An input left empty where a value is needed: "'Customer' cannot be empty.", Rails'
/// "can't be blank", "This field may not be null.". The request must fill it.
fn blank_input(w: &Words<'_>) -> bool {
    (2..w.w.len()).any(|i| {
        let blank = matches!(w.w[i].as_str(), "empty" | "blank" | "null");
        blank
            && ((w.w[i - 1] == "be" && matches!(w.w[i - 2].as_str(), "cannot" | "not" | "t"))
                // "param is empty": an input said to be left empty.
                || (w.w[i - 1] == "is" && INPUTS.contains(&w.w[i - 2].as_str())))
    })
}

/// Funds short that are not the caller's account's: "The payer does not have enough
/// funds.", "Insufficient funds" (a card or a wallet the request charges). Another
/// payer or amount passes. Funds a holder names ("your account has insufficient funds")
/// are left to the status.
fn short_of_funds(w: &Words<'_>) -> bool {
    w.near(&["funds"], &["insufficient", "enough"], 4) && (w.any_of(&OTHERS) || !w.any_of(&HOLDERS))
}

/// What the request names, said not to be there: "Contract not found", "Ticket 99999
/// does not exist.", "Product not exists.", "Object with specified Key was not found in
/// database". A host, a route or an upstream a proxy could not find is not the
/// request's, nor is a block or header a node has not synced yet ("header not found":
/// another node or a moment later has it), nor a method ([`unsupported`]).
fn missing_thing(w: &Words<'_>) -> bool {
    says_missing(w) && !w.any_of(&NOT_THE_REQUEST) && !w.any_of(&NOT_YET_OR_ELSEWHERE)
}

/// What a proxy or a node may lack where the request is right: a host, a route, a
/// block or header not synced yet.
const NOT_YET_OR_ELSEWHERE: [&str; 8] = [
    "host",
    "dns",
    "route",
    "block",
    "header",
    "method",
    "command",
    "procedure",
];

/// What the request names, said to be invalid: "Invalid Bitcoin address", "Invalid
/// amount", "A chave … é inválida". An invalid answer from further upstream, or a
/// state, is not the request's.
fn invalid_thing(w: &Words<'_>) -> bool {
    w.any_of(&[
        "invalid",
        "inválida",
        "inválido",
        "ungültig",
        "ungültige",
        "неверные",
        "неверный",
    ]) && !w.any_of(&NOT_THE_REQUEST)
}

/// What is not the request, beside "invalid" or "could not parse".
const NOT_THE_REQUEST: [&str; 10] = [
    "response",
    "reply",
    "upstream",
    "backend",
    "server",
    "gateway",
    "internal",
    "state",
    "configuration",
    "config",
];

/// What a transaction offers, below what is needed: "nonce too low", "replacement
/// transaction underpriced", "intrinsic gas too low", "insufficient funds for gas *
/// price + value", "max fee per gas less than block base fee". Another fee or nonce
/// passes; the same one never does.
fn offer_too_low(w: &Words<'_>) -> bool {
    w.has("underpriced")
        || w.near(
            &["gas", "fee", "fees", "nonce", "price", "tip", "priority"],
            &["low", "high", "higher", "lower", "insufficient", "less"],
            3,
        )
}

/// What was already done: "already known", "Transaction already in block chain", "already
/// exists". Sending it again adds nothing. (An operation *in progress* is a passing state,
/// read before this.)
fn duplicate(w: &Words<'_>) -> bool {
    // A code or message naming the duplicate itself: `DUPLICATE_VALUE`, "duplicate value
    // found", "Duplicate entry 'x' for key 'email'".
    w.any_of(&["duplicate", "duplicated"]) && !w.any_of(&NOT_THE_REQUEST)
        || w.has("already")
            && w.any_of(&[
                "exists",
                "exist",
                "known",
                "processed",
                "used",
                "submitted",
                "chain",
                "registered",
                "imported",
            ])
}

/// An input that could not be decoded: "T decode failed", "failed to parse request
/// body". A reply from further upstream that could not be parsed is not the request's.
fn undecodable(w: &Words<'_>) -> bool {
    w.near(
        &["decode", "decoding", "deserialize", "parse", "parsing"],
        &["failed", "fail", "error", "unable", "cannot"],
        2,
    ) && !w.any_of(&NOT_THE_REQUEST)
}

/// A gRPC status name in any spelling (`FAILED_PRECONDITION`, Connect's
/// `failed_precondition`, `FailedPrecondition`), by gRPC's retry guidance; `None` for
/// any other code and for the statuses whose fix the status does not say
/// (`RESOURCE_EXHAUSTED` is a throttle, read as one elsewhere; `INTERNAL`, `UNKNOWN`).
pub(super) fn grpc_name(code: &str) -> Option<Recovery> {
    if code.len() > 24 {
        return None;
    }
    match crate::walk::normalise(code).as_str() {
        "unavailable" | "aborted" | "deadlineexceeded" => Some(Recovery::Transient),
        "invalidargument" | "failedprecondition" | "outofrange" | "alreadyexists" | "notfound" => {
            Some(Recovery::Request)
        }
        "unauthenticated" | "permissiondenied" => Some(Recovery::Credentials),
        "unimplemented" => Some(Recovery::Unsupported),
        _ => None,
    }
}

/// A gRPC status named in the error string a gRPC client writes, passed on as a reply's
/// message: grpc-go's "rpc error: code = Unavailable desc = …", grpc-java's
/// "FAILED_PRECONDITION: …" at the start, grpc-python's "status = StatusCode.NOT_FOUND",
/// grpc-dotnet's `Status(StatusCode="Aborted", …)`. Read as [`grpc_name`] reads a code.
pub(super) fn grpc_in_error_string(text: &str) -> Option<Recovery> {
    let name_after = |marker: &str| -> Option<&str> {
        let at = text.find(marker)? + marker.len();
        let rest = text[at..].trim_start_matches('"');
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        Some(&rest[..end])
    };
    let go = name_after("code = ").filter(|_| text.contains(" desc = "));
    let python = name_after("StatusCode.");
    let dotnet = name_after("StatusCode=");
    // grpc-java: the status name in capitals, then a colon, opening the text.
    let java = text
        .trim_start()
        .split_once(": ")
        .map(|(head, _)| head)
        .filter(|head| {
            head.len() >= 5 && head.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        });
    [go, python, dotnet, java]
        .into_iter()
        .flatten()
        .find_map(grpc_name)
}

/// A gRPC status number (`google.rpc.Code`) the same way.
pub(crate) fn grpc_number(code: u64) -> Option<Recovery> {
    match code {
        4 | 10 | 14 => Some(Recovery::Transient),
        3 | 5 | 6 | 9 | 11 => Some(Recovery::Request),
        7 | 16 => Some(Recovery::Credentials),
        12 => Some(Recovery::Unsupported),
        _ => None,
    }
}

/// A reason `google.api.ErrorReason` defines (googleapis' `google/api/error_reason.proto`,
/// the reasons of domain `googleapis.com` every Google API sends in its `ErrorInfo`), by
/// what would fix it: a project without the API or billing enabled, or suspended, is the
/// account's to mend; a key or token refused or short of a scope, the credentials'; a
/// project or parameter the request names that does not exist, the request's. A call an
/// organisation's administrators refuse by policy — VPC Service Controls'
/// `SECURITY_POLICY_VIOLATED`, the organization restrictions' `ORG_RESTRICTION_*` (a
/// resource outside the allowed organisations, or the header the organisation's proxy
/// adds found invalid) — is the credentials': only the owner's access can change it,
/// whatever status it comes under (a `FAILED_PRECONDITION` or `INVALID_ARGUMENT` is not
/// the arguments' fault) and whatever its message's words say of the organisation. A
/// resource created where the billing account's tax location forbids
/// (`LOCATION_TA_POLICY_VIOLATED`) is the request's: another location passes. A quota's
/// reasons (`RATE_LIMIT_EXCEEDED`, `RESOURCE_QUOTA_EXCEEDED`) are left to the throttle
/// readers, and any other reason to the words of the reply.
pub(super) fn error_reason(reason: &str) -> Option<Recovery> {
    if reason.starts_with("ORG_RESTRICTION_") {
        return Some(Recovery::Credentials);
    }
    Some(match reason {
        "SERVICE_DISABLED"
        | "BILLING_DISABLED"
        | "CONSUMER_SUSPENDED"
        | "GCP_SUSPENDED"
        | "ACCOUNT_STATE_INVALID" => Recovery::Account,
        "API_KEY_INVALID"
        | "API_KEY_SERVICE_BLOCKED"
        | "API_KEY_HTTP_REFERRER_BLOCKED"
        | "API_KEY_IP_ADDRESS_BLOCKED"
        | "API_KEY_ANDROID_APP_BLOCKED"
        | "API_KEY_IOS_APP_BLOCKED"
        | "ACCESS_TOKEN_EXPIRED"
        | "ACCESS_TOKEN_SCOPE_INSUFFICIENT"
        | "ACCESS_TOKEN_TYPE_UNSUPPORTED"
        | "CREDENTIALS_MISSING"
        | "SESSION_COOKIE_INVALID"
        | "USER_PROJECT_DENIED"
        | "USER_BLOCKED_BY_ADMIN"
        | "SERVICE_NOT_VISIBLE"
        | "SECURITY_POLICY_VIOLATED" => Recovery::Credentials,
        "CONSUMER_INVALID"
        | "RESOURCE_PROJECT_INVALID"
        | "SYSTEM_PARAMETER_UNSUPPORTED"
        | "LOCATION_TA_POLICY_VIOLATED" => Recovery::Request,
        _ => return None,
    })
}

/// Whether `text` speaks of a quota or a limit: what a 507 names when the space that is
/// full is an account's ("quotaLimitReached", "your storage quota is exceeded").
pub(super) fn names_a_quota(text: &str) -> bool {
    words(text)
        .iter()
        .any(|x| matches!(x.as_str(), "quota" | "quotas" | "limit" | "limits"))
}
