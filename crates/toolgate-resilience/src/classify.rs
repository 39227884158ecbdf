//! The one place that turns an upstream attempt into an [`ErrorClass`]
//! (kept apart from the mechanism that makes the attempt and the policy that
//! reacts to it, so each is tested alone and the rules are in one place).
//!
//! Status semantics follow RFC 9110 §15 and the retry conventions of Envoy's
//! `retry_on` (5xx, `reset`, `connect-failure`, `retriable-status-codes`) and
//! gRPC's HTTP→status mapping (429/502/503/504 → UNAVAILABLE-ish). What an
//! attempt *means* beyond its status (is it a throttle? did a Sunset pass? did
//! the body match the contract?) is decided upstream by the signals parser and
//! the contract validator and arrives here as plain values.
//!
//! This module must not parse headers or bodies, read a clock, or decide what
//! to do about a class: retry, breaker, metrics and notes consume its answer.

use std::time::Duration;

use crate::class::ErrorClass;

/// One finished upstream attempt, reduced to what classification needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// An HTTP response arrived.
    Response {
        /// The final status code.
        status: u16,
        /// The signals parser says the response itself is a throttle (429,
        /// GitHub-style 403 with remaining 0, vendor throttle bodies). Merely
        /// "remaining = 0" on a success is *not* a throttle.
        rate_limited: bool,
        /// The server's hint of when to come back (Retry-After and kin).
        retry_after: Option<Duration>,
        /// A Sunset date known for this tool has passed.
        past_sunset: bool,
        /// What the contract validator said about the body.
        body_ok: BodyCheck,
        /// What the reply's body says would fix the failure, beyond its status.
        said: Said,
    },
    /// The attempt hit its deadline (connect or read).
    Timeout,
    /// Connection refused/reset before the request was sent, or DNS failure.
    Connect,
}

/// What a failed reply says would fix it, beyond its status (read by the signals
/// parser from its codes and messages, and gRPC status names and numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Said {
    /// Nothing beyond the status.
    #[default]
    Nothing,
    /// The account behind the calls must change, or its allowance renew: credits or a
    /// day's or month's allowance spent, a plan without room, an account pending,
    /// disabled or deleted.
    Account,
    /// The credentials were refused: expired, invalid, short of a scope.
    Credentials,
    /// A passing state: an operation in progress, a lock, gRPC `UNAVAILABLE`/`ABORTED`.
    Transient,
    /// The request itself is wrong (gRPC `INVALID_ARGUMENT`, "invalid parameter").
    Request,
    /// The upstream does not do what was asked: gRPC `UNIMPLEMENTED`, "not implemented", a
    /// method or command it does not have ("Method not found", "no such command").
    Unsupported,
    /// The upstream no longer does what was asked: the endpoint, API version or model its
    /// 4xx says reached its end ("This endpoint has been sunset").
    Retired,
}

/// The contract validator's verdict on a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyCheck {
    /// The body is JSON and matches the response schema.
    Valid,
    /// The body is not JSON at all.
    NotJson,
    /// The body is JSON but breaks the response schema.
    SchemaMismatch,
    /// The body exceeded the size limit before it could be checked.
    TooLarge,
}

/// Classify one attempt. `None` means success.
///
/// Decisions beyond the status-code table, in order of precedence:
///
/// 1. A 2xx with a [`BodyCheck::Valid`] body is success, whatever else is
///    flagged: a body that satisfies the contract is data.
/// 2. `rate_limited` wins over the status for everything else, including a
///    2xx whose body failed the schema (some vendors throttle with 200 and an
///    error body; calling that drift would page an owner for a quota).
/// 3. A 2xx with a bad body is [`ErrorClass::ContractDrift`], unless it is an error
///    envelope whose words say who must act ([`Said`]): refused credentials are
///    [`ErrorClass::Auth`], a wrong request [`ErrorClass::ClientError`], a passing
///    state [`ErrorClass::ServerError`] (only an error envelope's words are read, so
///    data never says anything here).
/// 4. A 4xx other than 401, 404 and 410 that names a wait (`Retry-After`, or a
///    `retryDelay`/`retry_after` in its body) is [`ErrorClass::RateLimited`]: the
///    upstream refused the work and said when to come back (Google's `ABORTED` with
///    `RetryInfo`, AWS throttles on 400, GraphQL gateways' 400 with `retryAfter`).
/// 5. 503/529 **without** a hint is [`ErrorClass::ServerError`], not
///    `Overloaded`: `overloaded` promises "retry after the hint", and a bare
///    503 gives none; treating it as any other 5xx keeps non-idempotent calls
///    from being repeated on an ambiguous failure.
/// 6. 1xx and 3xx as a *final* answer are [`ErrorClass::ContractDrift`]: the
///    HTTP client handles informational responses, and toolgate does not
///    follow redirects to hosts the config did not name, so a redirect means
///    the endpoint moved — retrying cannot help and the owner must look.
/// 7. A status outside 100..=599 is [`ErrorClass::ServerError`]: the upstream
///    is not speaking HTTP properly, an ambiguous failure.
///
/// What the reply says would fix it ([`Said`]) decides beyond the status:
///
/// 8. An account that must change is [`ErrorClass::Account`] whatever the status, a
///    429 or a throttle's words included: a month's allowance or a spent balance does
///    not come back in the seconds a retry waits. So is a 402 that says nothing else
///    (Payment Required; a card's refusal says so and stays a client error).
/// 9. A 403 that says the request is wrong ([`Said::Request`]: what was asked is refused by
///    the state of what it names or by a business rule) is [`ErrorClass::ClientError`];
///    a 403 that says nothing, or names a permission, role or scope the credentials
///    lack, stays [`ErrorClass::Auth`].
/// 10. Credentials refused in any other 4xx (S3's 400 `ExpiredToken`) are
///     [`ErrorClass::Auth`], and so is 407 Proxy Authentication Required by its status:
///     a proxy in front of the upstream wants credentials of its own.
/// 11. A passing state in a 4xx other than 401, 403, 404, 407 and 410 (an operation in
///     progress, a lock, gRPC `ABORTED`), and 423 Locked and 425 Too Early by their
///     status, are [`ErrorClass::ServerError`]: retried with backoff when the tool is
///     idempotent, as a 503 is.
/// 12. A 4xx other than 401 and 407 whose body says the upstream no longer does what
///     was called (an endpoint sunset, an API version retired) is [`ErrorClass::Gone`],
///     as a 410 is, unless it names a wait; one whose body says the upstream does not
///     have the method or command called ("Method not found", a JSON-RPC -32601 sent
///     with a 404, "no such command", "not implemented") is
///     [`ErrorClass::ContractDrift`], as a 501 is: no successor replaces what was never
///     there, and only the tool's owner can change what it calls.
/// 13. A 5xx whose body says the request is wrong (gRPC `INVALID_ARGUMENT`, a SOAP
///     `Client` fault) is [`ErrorClass::ClientError`]; one whose body says the
///     credentials were refused (a SOAP fault sent as a 500 for a failed login), with
///     no wait named, is [`ErrorClass::Auth`]; 501 Not Implemented, 505 and a body saying the
///     method is not implemented are [`ErrorClass::ContractDrift`]: the tool asks for
///     what the upstream does not do, and only its owner can change that.
pub fn classify(attempt: &Attempt) -> Option<ErrorClass> {
    let (status, rate_limited, retry_after, past_sunset, body_ok, said) = match attempt {
        Attempt::Timeout => return Some(ErrorClass::Timeout),
        Attempt::Connect => return Some(ErrorClass::Connect),
        Attempt::Response {
            status,
            rate_limited,
            retry_after,
            past_sunset,
            body_ok,
            said,
        } => (
            *status,
            *rate_limited,
            *retry_after,
            *past_sunset,
            *body_ok,
            *said,
        ),
    };
    let success = (200..=299).contains(&status);
    if success && body_ok == BodyCheck::Valid {
        return None;
    }
    if said == Said::Account {
        return Some(ErrorClass::Account);
    }
    if rate_limited || status == 429 {
        return Some(ErrorClass::RateLimited);
    }
    let not_the_caller = !matches!(status, 401 | 403 | 407 | 404 | 410);
    Some(match status {
        // A 2xx error envelope (`{"ok": false, "error": "invalid_auth"}`, an XML-RPC
        // fault) is refused by the contract because it is a failure, not because the
        // API changed: its words say who must act, as a 4xx's would.
        200..=299 if said == Said::Credentials => ErrorClass::Auth,
        200..=299 if said == Said::Request => ErrorClass::ClientError,
        200..=299 if said == Said::Transient => ErrorClass::ServerError,
        200..=299 => ErrorClass::ContractDrift,
        100..=199 | 300..=399 => ErrorClass::ContractDrift,
        408 => ErrorClass::Timeout,
        // A refusal that names a wait is a throttle, whatever its 4xx: retrying after
        // the wait helps, so it must never be told as "will not help".
        400..=499 if retry_after.is_some() && !matches!(status, 401 | 404 | 410) => {
            ErrorClass::RateLimited
        }
        400..=499 if said == Said::Credentials && !matches!(status, 404 | 410) => ErrorClass::Auth,
        // A 403 whose words say the request is wrong (the signals reader says so under a
        // 403 only when the state of what it names or a business rule refuses it: "Cannot
        // delete a paid invoice", "Order already shipped") is the request's: other
        // credentials would be refused the same, another request passes.
        403 if said == Said::Request => ErrorClass::ClientError,
        // A 4xx whose words say the called endpoint or API version reached its end
        // ("This endpoint has been sunset") is a retirement told without a 410: no
        // change to the call's arguments helps, only a move to what replaced it.
        400..=499 if said == Said::Retired && !matches!(status, 401 | 407) => ErrorClass::Gone,
        // A method the upstream does not have, told by a 4xx (bitcoind's 404 for -32601,
        // "no such command"): the tool calls what is not there, as a 501 says.
        400..=499 if said == Said::Unsupported && !matches!(status, 401 | 407) => {
            ErrorClass::ContractDrift
        }
        // 407: a proxy between toolgate and the upstream wants credentials of its own
        // (RFC 9110 §15.5.8); whoever runs the network must supply them.
        401 | 403 | 407 => ErrorClass::Auth,
        410 => ErrorClass::Gone,
        404 if past_sunset => ErrorClass::Gone,
        402 if said != Said::Request => ErrorClass::Account,
        423 | 425 => ErrorClass::ServerError,
        400..=499 if said == Said::Transient && not_the_caller => ErrorClass::ServerError,
        400..=499 => ErrorClass::ClientError,
        500..=599 if said == Said::Request => ErrorClass::ClientError,
        // SOAP 1.1 sends every fault as a 500, a refused login included: credentials
        // refused in a 5xx are the owner's to fix, unless the reply names a wait.
        500..=599 if said == Said::Credentials && retry_after.is_none() => ErrorClass::Auth,
        501 | 505 => ErrorClass::ContractDrift,
        500..=599 if matches!(said, Said::Unsupported | Said::Retired) => ErrorClass::ContractDrift,
        503 | 529 if retry_after.is_some() => ErrorClass::Overloaded,
        _ => ErrorClass::ServerError,
    })
}

#[cfg(test)]
mod tests;
