//! The error classes: the recoverability-aware vocabulary every other part of
//! toolgate speaks: each class says whether a retry can help and whether the
//! failure counts against the dependency's health.
//!
//! The split follows what the retrying layers of Envoy (`retry_on: 5xx,
//! reset, connect-failure, retriable-4xx`), gRPC (retryable status codes,
//! pushback) and the AWS SDKs (throttling vs transient vs non-retryable errors)
//! learned the hard way: the question is never "did it fail?" but "can doing
//! it again help, and would doing it again hurt the dependency?".
//!
//! This module only *names* classes and answers two static questions about
//! them. It must not look at responses (that is `classify`), nor decide when
//! to retry (that is `retry`), nor hold any state.

use serde::{Deserialize, Serialize};

/// Why an upstream attempt (or the whole call) failed, by what can be done
/// about it.
///
/// Serialised in snake_case; these strings are metric label values and part
/// of toolgate's interface (`toolgate_tool_calls_total{outcome}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// The attempt ran out of time (connect/read deadline, or HTTP 408).
    Timeout,
    /// The connection was refused or reset before a request went out, or DNS failed.
    Connect,
    /// A 5xx without any hint of when to come back.
    ServerError,
    /// The dependency said it is overloaded and when to return (503/529 with Retry-After).
    Overloaded,
    /// Quota or throttle: 429, GitHub-style 403 with remaining 0, vendor throttle bodies,
    /// or any other 4xx (but 401, 404, 410) that names a wait.
    RateLimited,
    /// A successful status whose body broke the contract (not JSON, wrong shape, too large),
    /// or a status the contract cannot describe (1xx/3xx as a final answer).
    ContractDrift,
    /// The request itself was refused (400/404/422 …): the arguments need fixing.
    ClientError,
    /// 401, or 403 without rate-limit signals: credentials are wrong or revoked, or short
    /// of a permission, role or scope. A 403 whose words say what was asked is refused by
    /// the state of what it names or by a business rule is a [`ErrorClass::ClientError`].
    Auth,
    /// 410, or 404 after a known Sunset: the operation no longer exists.
    Gone,
    /// The circuit breaker for the dependency is open; no request was sent.
    CircuitOpen,
    /// A retry was possible but the retry budget denied it, to protect the dependency.
    BudgetExhausted,
    /// The tool itself reported a failure (an MCP result with `isError: true`): the
    /// upstream works and answered; what it said goes to the model unchanged.
    ToolError,
    /// The calling agent may not call this tool (its `tools`/`deny` patterns); no request
    /// was sent.
    Forbidden,
    /// The account behind toolgate's calls cannot make them: credits or a day's or
    /// month's allowance spent, a plan without room for the call, an account pending,
    /// disabled or deleted, payment required. Its owner must act, or the allowance
    /// renew; waiting seconds does not help.
    Account,
}

impl ErrorClass {
    /// Every class, in declaration order (for metric pre-registration and tests).
    pub const ALL: [ErrorClass; 14] = [
        ErrorClass::Timeout,
        ErrorClass::Connect,
        ErrorClass::ServerError,
        ErrorClass::Overloaded,
        ErrorClass::RateLimited,
        ErrorClass::ContractDrift,
        ErrorClass::ClientError,
        ErrorClass::Auth,
        ErrorClass::Gone,
        ErrorClass::CircuitOpen,
        ErrorClass::BudgetExhausted,
        ErrorClass::ToolError,
        ErrorClass::Forbidden,
        ErrorClass::Account,
    ];

    /// The snake_case name, identical to the serde form (a metric label value).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Timeout => "timeout",
            ErrorClass::Connect => "connect",
            ErrorClass::ServerError => "server_error",
            ErrorClass::Overloaded => "overloaded",
            ErrorClass::RateLimited => "rate_limited",
            ErrorClass::ContractDrift => "contract_drift",
            ErrorClass::ClientError => "client_error",
            ErrorClass::Auth => "auth",
            ErrorClass::Gone => "gone",
            ErrorClass::CircuitOpen => "circuit_open",
            ErrorClass::BudgetExhausted => "budget_exhausted",
            ErrorClass::ToolError => "tool_error",
            ErrorClass::Forbidden => "forbidden",
            ErrorClass::Account => "account",
        }
    }

    /// Can a retry by the gateway help, given the tool's idempotency?
    ///
    /// - `connect`: always — the request never reached the upstream, so even a
    ///   non-idempotent operation cannot have happened.
    /// - `timeout`, `server_error`: only if idempotent — the upstream may have
    ///   acted before failing, and doing a payment twice is worse than failing.
    /// - `overloaded`, `rate_limited`: yes whatever the idempotency — the server
    ///   refused the work and said so; but only after its hint and within the
    ///   deadline (that part is [`crate::decide_retry`]'s job).
    /// - `contract_drift`, `client_error`, `auth`, `gone`: never — the same
    ///   request gets the same answer (retrying a renamed field at every layer
    ///   multiplies one doomed call into hundreds).
    /// - `circuit_open`, `budget_exhausted`: never — they are the gateway's own
    ///   refusals; retrying them would defeat their purpose.
    /// - `tool_error`: never — the tool answered that it failed; whether to try again
    ///   (perhaps with other arguments) is the model's call, and it reads the tool's words.
    /// - `forbidden`: never — the agent may not call the tool; nothing was sent.
    /// - `account`: never — a spent balance or a month's allowance does not come back
    ///   in the seconds a retry waits, and each retry is one more refused call.
    pub fn retryable(self, idempotent: bool) -> bool {
        match self {
            ErrorClass::Connect | ErrorClass::Overloaded | ErrorClass::RateLimited => true,
            ErrorClass::Timeout | ErrorClass::ServerError => idempotent,
            ErrorClass::ContractDrift
            | ErrorClass::ClientError
            | ErrorClass::Auth
            | ErrorClass::Gone
            | ErrorClass::CircuitOpen
            | ErrorClass::BudgetExhausted
            | ErrorClass::ToolError
            | ErrorClass::Forbidden
            | ErrorClass::Account => false,
        }
    }

    /// Whether a retry can help when the reply itself says one can (`x-should-retry:
    /// true`): every class a retry helps for an idempotent tool, and a client error —
    /// Stripe vouches for a retry of a `409` lock timeout, which only the server can
    /// tell apart from a request that will never pass. Answers that say who may call
    /// (auth, forbidden), that the resource is gone, or that broke the contract are not
    /// retried whatever the reply says.
    pub fn retryable_when_vouched(self) -> bool {
        self.retryable(true) || self == ErrorClass::ClientError
    }

    /// Does this outcome count as a failure for the circuit breaker?
    ///
    /// Only outcomes that say "the dependency is down or drowning" count:
    /// `timeout`, `connect`, `server_error`, `overloaded`. A 429 means the
    /// dependency is up and protecting itself (pacing handles it); drift, client
    /// errors, auth, gone and account are answers from a working server. Opening the
    /// breaker on them would turn one bad tool into an outage of every tool on
    /// the dependency. The gateway's own refusals never count.
    pub fn counts_for_breaker(self) -> bool {
        match self {
            ErrorClass::Timeout
            | ErrorClass::Connect
            | ErrorClass::ServerError
            | ErrorClass::Overloaded => true,
            ErrorClass::RateLimited
            | ErrorClass::ContractDrift
            | ErrorClass::ClientError
            | ErrorClass::Auth
            | ErrorClass::Gone
            | ErrorClass::CircuitOpen
            | ErrorClass::BudgetExhausted
            | ErrorClass::ToolError
            | ErrorClass::Forbidden
            | ErrorClass::Account => false,
        }
    }
}

impl std::fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole class table in one place: (class, retry idempotent,
    /// retry non-idempotent, counts for breaker).
    const TABLE: [(ErrorClass, bool, bool, bool); 14] = [
        (ErrorClass::Timeout, true, false, true),
        (ErrorClass::Connect, true, true, true),
        (ErrorClass::ServerError, true, false, true),
        (ErrorClass::Overloaded, true, true, true),
        (ErrorClass::RateLimited, true, true, false),
        (ErrorClass::ContractDrift, false, false, false),
        (ErrorClass::ClientError, false, false, false),
        (ErrorClass::Auth, false, false, false),
        (ErrorClass::Gone, false, false, false),
        (ErrorClass::CircuitOpen, false, false, false),
        (ErrorClass::BudgetExhausted, false, false, false),
        (ErrorClass::ToolError, false, false, false),
        (ErrorClass::Forbidden, false, false, false),
        (ErrorClass::Account, false, false, false),
    ];

    #[test]
    fn table_matches_design() {
        for (class, idem, non_idem, breaker) in TABLE {
            assert_eq!(class.retryable(true), idem, "{class} idempotent");
            assert_eq!(class.retryable(false), non_idem, "{class} non-idempotent");
            assert_eq!(class.counts_for_breaker(), breaker, "{class} breaker");
        }
        let listed: Vec<_> = TABLE.iter().map(|row| row.0).collect();
        assert_eq!(listed, ErrorClass::ALL.to_vec());
    }

    #[test]
    fn as_str_is_the_serde_name() {
        for class in ErrorClass::ALL {
            // serde_json is not a dependency; the unit-variant form of the
            // serde data model is the variant name, checked via Deserialize.
            let back: ErrorClass =
                serde::de::Deserialize::deserialize(serde::de::value::StrDeserializer::<
                    serde::de::value::Error,
                >::new(class.as_str()))
                .expect("as_str must round-trip through serde");
            assert_eq!(back, class);
        }
    }

    #[test]
    fn drift_is_never_retried_nor_trips_the_breaker() {
        // Drift is the same answer every time: retrying it only multiplies
        // load, and it says nothing about the dependency's health.
        assert!(!ErrorClass::ContractDrift.retryable(true));
        assert!(!ErrorClass::ContractDrift.counts_for_breaker());
    }
}
