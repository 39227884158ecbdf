//! The sentence for a failed call: what failed, the error class, whether retrying can
//! help and when, and what to do instead. Some classes decide the advice whatever made
//! toolgate stop; otherwise the reason it stopped does; what is left was retried and
//! may pass later.

use std::time::Duration;

use toolgate_resilience::{ErrorClass, GiveUpReason};

use toolgate_config::ToolSpec;

use super::answer::Detail;
use super::words::{at, contract_name, human};

/// What the sentence for a failed call is about.
#[derive(Debug)]
pub struct Failed<'a> {
    /// The tool.
    pub tool: &'a ToolSpec,
    /// The class of the last attempt.
    pub class: ErrorClass,
    /// What the last attempt got.
    pub detail: &'a Detail,
    /// Why toolgate stopped.
    pub why: GiveUpReason,
    /// Attempts made.
    pub attempts: u32,
    /// Time the call took.
    pub elapsed: Duration,
    /// Whether the owner has a notification route (only then "has been alerted").
    pub owner_alerted: bool,
    /// The wait the upstream asked for, if any.
    pub retry_after: Option<Duration>,
    /// The wall clock, for "at 07:14 UTC".
    pub now: chrono::DateTime<chrono::Utc>,
    /// The last reply said a retry is safe and may succeed (`x-should-retry: true`).
    pub retry_vouched: bool,
    /// The scope the credentials lack, as the reply's `insufficient_scope` challenge
    /// named it.
    pub missing_scope: Option<&'a str>,
    /// The tool's successor, as the caller may learn it.
    pub successor: crate::successor::Successor<'a>,
    /// The last reply said the account holds as many things as it may (projects,
    /// instances, storage): only calls that add to them are refused.
    pub full_count: bool,
}

/// "retry after 2 min (at 07:14 UTC)".
fn retry_after_phrase(wait: Duration, now: chrono::DateTime<chrono::Utc>) -> String {
    let when = at(now, wait);
    let clock = if wait < Duration::from_secs(20 * 3600) {
        when.format("%H:%M:%S UTC").to_string()
    } else {
        when.format("%Y-%m-%d %H:%M UTC").to_string()
    };
    format!("retry after {} (at {clock})", human(wait))
}

/// What the model should do after the upstream refused a call. Most refusals are about
/// the arguments; of a fronted MCP server's, those that say the server could not read
/// toolgate's request, no longer has the tool, or is not at its address any more are
/// not, and other arguments would only be refused again.
fn client_error_advice(tool: &ToolSpec, detail: &Detail) -> String {
    use toolgate_mcp_client::codes;
    let name = &tool.name;
    let owner = &tool.owner;
    let fix = format!(
        "Retrying the same arguments will not help; fix the arguments and call {name} again."
    );
    let not_the_arguments = |what: &str| {
        format!(
            "{what} This is not about the arguments: retrying, with these or other arguments, will not \
             help. Continue without {name}; the tool owner ({owner}) must fix it."
        )
    };
    let mcp = matches!(tool.kind, toolgate_config::ToolKind::Mcp { .. });
    match detail {
        Detail::Rpc { code, message } => match *code {
            // A server that no longer has a tool answers a call of it as an unknown
            // method or as bad params ("Unknown tool: x"): no change of arguments mends it.
            code if crate::upstream::mcp::unknown_tool::error_names_unknown_tool(code, message) => {
                not_the_arguments(&format!(
                    "The server no longer has {name} (it does not know the tool)."
                ))
            }
            codes::INVALID_PARAMS => format!("The server refused the arguments. {fix}"),
            codes::RESOURCE_NOT_FOUND => format!(
                "What the arguments name does not exist on the server. Retrying will not help; call \
                 {name} again only with names or identifiers that exist."
            ),
            codes::PARSE_ERROR | codes::INVALID_REQUEST => {
                not_the_arguments("The server could not read the request toolgate sent it.")
            }
            // The calling client lacks what the server asks of it mid-call (sampling,
            // elicitation, roots): neither the arguments nor the tool's owner can mend it.
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY => format!(
                "{name} needs to ask this client something it does not offer (the server's words \
                 name the capability: sampling, elicitation or roots). Retrying will not help; \
                 continue without {name}, or call it from a client that offers that capability."
            ),
            codes::URL_ELICITATION_REQUIRED => format!(
                "The server needs the user to complete a step outside this conversation first. Tell the \
                 user, and call {name} again once they have."
            ),
            _ => fix,
        },
        // The arguments travel inside the JSON-RPC message: an HTTP refusal of the
        // server's endpoint is about the endpoint, except one of a request too large.
        Detail::Status { status: 404, .. } if mcp => not_the_arguments(
            "The MCP server is not at its configured address any more (HTTP 404 from its endpoint).",
        ),
        Detail::Status { status: 413, .. } if mcp => format!(
            "The request was too large for the server. Retrying the same arguments will not help; call \
             {name} again with smaller arguments."
        ),
        Detail::Status { status, .. } if mcp => not_the_arguments(&format!(
            "The MCP server's endpoint refused the request toolgate sent (HTTP {status})."
        )),
        _ => fix,
    }
}

/// The model-facing text for a failed call. It starts with "X failed:" so that a
/// client that drops `isError` still hands the model an unmistakable failure.
pub fn failure(f: &Failed<'_>) -> String {
    let said = Sentence::of(f);
    said.by_class()
        .or_else(|| said.by_reason())
        .unwrap_or_else(|| said.after_retries())
}

/// The parts every sentence about a failed call is made of.
struct Sentence<'a> {
    f: &'a Failed<'a>,
    name: &'a str,
    /// What the last attempt got.
    what: String,
    /// How often and for how long toolgate tried, when more than once.
    tried: String,
    /// Whether the owner was alerted or only an incident recorded.
    alerted: String,
    /// A known wait is always told, with the clock time.
    wait: Option<String>,
}

impl<'a> Sentence<'a> {
    fn of(f: &'a Failed<'a>) -> Sentence<'a> {
        let tried = if f.attempts > 1 {
            format!(
                " toolgate tried {} times over {}.",
                f.attempts,
                human(f.elapsed)
            )
        } else {
            String::new()
        };
        let alerted = if f.owner_alerted {
            format!("The tool owner ({}) has been alerted.", f.tool.owner)
        } else {
            format!(
                "An incident was recorded for the tool owner ({}).",
                f.tool.owner
            )
        };
        Sentence {
            f,
            name: &f.tool.name,
            what: f.detail.describe(),
            tried,
            alerted,
            wait: f.retry_after.map(|w| retry_after_phrase(w, f.now)),
        }
    }

    /// The classes whose advice holds whatever made toolgate stop: the same call cannot
    /// pass (drift, refusals, credentials, an account that must change, a retired
    /// endpoint), or the upstream vouched that it may.
    fn by_class(&self) -> Option<String> {
        let Sentence {
            f,
            name,
            what,
            tried,
            ..
        } = self;
        let tool = f.tool;
        Some(match f.class {
            ErrorClass::ContractDrift => self.contract_drift(),
            ErrorClass::ToolError => format!(
                "{name} failed: {what}. Error class: tool_error — the tool itself answered that it failed. Retrying \
                 the same arguments will not help; read its message, then change the arguments or continue without {name}."
            ),
            ErrorClass::Forbidden => format!(
                "{name} failed: {what}. Error class: forbidden — this agent may not call {name}. Do not retry; \
                 continue without {name}."
            ),
            // The server, which alone can tell a lock timeout from a request that will never
            // pass, said this one may: the same arguments are worth another try later.
            ErrorClass::ClientError if f.retry_vouched => format!(
                "{name} failed: {what}. Error class: client_error — the upstream's reply says the same request may \
                 succeed if repeated.{tried} {}, or continue without {name}.",
                self.wait
                    .clone()
                    .map_or_else(|| "Try again in a minute".to_string(), |w| capitalised(&w)),
            ),
            ErrorClass::ClientError => format!(
                "{name} failed: {what}. Error class: client_error. {}",
                client_error_advice(tool, f.detail)
            ),
            ErrorClass::Auth => match f.missing_scope {
                // The owner grants the scope; naming it saves a round of guessing.
                Some(scope) => format!(
                    "{name} failed: {what}. Error class: auth — toolgate's credentials lack the scope the upstream \
                     requires ({}). Retrying will not help; the tool owner ({}) must grant it. Continue without {name}.",
                    crate::explain::quoted(scope),
                    tool.owner
                ),
                None => format!(
                    "{name} failed: {what}. Error class: auth — the upstream refused toolgate's credentials. \
                     Retrying will not help; the tool owner ({}) must fix the credentials. Continue without {name}.",
                    tool.owner
                ),
            },
            // Nothing the model or a retry does mends it: the owner pays, changes the plan
            // or restores the account, or the allowance renews, when the reply said when.
            // A full count refuses only what adds to it: the model may still read or
            // remove, and neither waiting nor other arguments of the same kind mend it.
            ErrorClass::Account if f.full_count => format!(
                "{name} failed: {what}. Error class: account — the account toolgate calls the upstream with already \
                 holds as many of these as its limit allows. Retrying will not help until some are removed or the tool \
                 owner ({}) raises the limit; calls that read or remove still work. Do not call {name} again to add \
                 more until then.",
                tool.owner
            ),
            ErrorClass::Account => match &self.wait {
                Some(w) => format!(
                    "{name} failed: {what}. Error class: account — the upstream refuses the account toolgate calls it \
                     with (its credits, plan or standing), whatever the arguments. Retrying will not help until the \
                     allowance renews: {w}. Continue without {name} until then, unless the tool owner ({}) acts sooner.",
                    tool.owner
                ),
                None => format!(
                    "{name} failed: {what}. Error class: account — the upstream refuses the account toolgate calls it \
                     with (its credits, plan or standing), whatever the arguments. Retrying will not help; the tool \
                     owner ({}) must act (billing, plan or account). Continue without {name}.",
                    tool.owner
                ),
            },
            ErrorClass::Gone => match f.successor {
                crate::successor::Successor::Named(s) => format!(
                    "{name} failed: {what}. Error class: gone — this endpoint has been retired. Use {s} instead."
                ),
                crate::successor::Successor::Withheld => format!(
                    "{name} failed: {what}. Error class: gone — this endpoint has been retired. Retrying will not help; \
                     its successor is a tool you may not call yet: ask the operator to grant it to you, and continue without {name} until then."
                ),
                crate::successor::Successor::None => format!(
                    "{name} failed: {what}. Error class: gone — this endpoint has been retired. Retrying will not help; \
                     continue without {name}."
                ),
            },
            _ => return None,
        })
    }

    /// The response broke the contract, or was no answer the tool was configured for.
    fn contract_drift(&self) -> String {
        let Sentence {
            f,
            name,
            what,
            alerted,
            ..
        } = self;
        match f.detail {
            Detail::Drift(d) => format!(
                "{name} failed: the upstream response no longer matches {} ({}). Error class: contract_drift. \
                 Retrying will not help. {alerted} Do not call {name} again until it is fixed.",
                contract_name(f.tool),
                d.summary(),
            ),
            // No body to hold against a contract: the endpoint no longer answers as
            // the tool was configured (moved, or switched protocols).
            Detail::Redirect { .. } | Detail::Status { .. } => format!(
                "{name} failed: {what}. That is not an answer the tool was configured for; its endpoint may \
                 have moved. Error class: contract_drift. \
                 Retrying will not help. {alerted} Do not call {name} again until it is fixed."
            ),
            _ => format!(
                "{name} failed: {what}, which breaks {}. Error class: contract_drift. Retrying will not help. \
                 {alerted} Do not call {name} again until it is fixed.",
                contract_name(f.tool)
            ),
        }
    }

    /// toolgate stopped for a reason of its own or the upstream's, whatever the class:
    /// the reply advised against a retry, the wait asked for outlasts the deadline, the
    /// retry budget is spent, or the circuit opened.
    fn by_reason(&self) -> Option<String> {
        let Sentence {
            f,
            name,
            what,
            tried,
            ..
        } = self;
        let class = f.class;
        let now = f.now;
        let tool = f.tool;
        Some(match f.why {
            GiveUpReason::AdvisedAgainst => format!(
                "{name} failed: {what}. Error class: {} — the upstream's reply says a retry will not help, so toolgate \
                 did not retry.{tried} Do not call {name} again with the same arguments; change them or continue \
                 without {name}.",
                class.as_str()
            ),
            GiveUpReason::DeadlineTooShort { wait } => format!(
                "{name} failed: {what}. Error class: {}. The upstream asks to wait {}, longer than this call's deadline, \
                 so toolgate did not wait.{tried} Call {name} again after that ({}), or continue without it.",
                class.as_str(),
                human(wait),
                retry_after_phrase(wait, now)
            ),
            GiveUpReason::BudgetDenied => format!(
                "{name} failed: {what}. Error class: {} (not retried: the retry budget for {} is spent, which protects a \
                 struggling dependency).{tried} {}, or continue without {name}.",
                class.as_str(),
                tool.dependency.name,
                self.wait
                    .clone()
                    .map_or_else(|| "Try again in a minute".to_string(), |w| capitalised(&w)),
            ),
            GiveUpReason::CircuitOpen => format!(
                "{name} failed: {what}. Error class: {}.{tried} toolgate then stopped sending {} requests (circuit open); \
                 {}, or continue without {name}.",
                class.as_str(),
                tool.dependency.name,
                self.wait
                    .clone()
                    .unwrap_or_else(|| "try again in a minute".to_string()),
            ),
            _ => return None,
        })
    }

    /// What is left may pass later: a quota, load shed, or a transient failure; a tool
    /// that may have side effects, or a dependency in a brownout, was not retried.
    fn after_retries(&self) -> String {
        let Sentence {
            f,
            name,
            what,
            tried,
            wait,
            ..
        } = self;
        let class = f.class;
        let tool = f.tool;
        let wait = wait.clone();
        match (class, f.why) {
            (ErrorClass::RateLimited, _) => match wait {
                Some(w) => format!(
                    "{name} failed: {what}. Error class: rate_limited — the quota is exhausted.{tried} Do not call {name} \
                     before then: {w}; reduce how often you call it."
                ),
                None => format!(
                    "{name} failed: {what}. Error class: rate_limited — the quota is exhausted.{tried} The upstream gave no \
                     time; wait at least a minute before calling {name} again, and call it less often."
                ),
            },
            (ErrorClass::Overloaded, _) => format!(
                "{name} failed: {what}. Error class: overloaded — the upstream is shedding load.{tried} {} before calling \
                 {name} again, and reduce volume.",
                wait.map_or_else(|| "Wait".to_string(), |w| capitalised(&w)),
            ),
            (ErrorClass::Timeout, GiveUpReason::NotRetryable) if tool.retry_safe() => format!(
                "{name} failed: {what}. Error class: timeout. toolgate did not retry because {} is slow right now (a \
                 brownout) and more calls would slow it further; call {name} less often, or continue without it.",
                tool.dependency.name
            ),
            (
                ErrorClass::ServerError | ErrorClass::Timeout | ErrorClass::Connect,
                GiveUpReason::NotRetryable,
            ) => format!(
                "{name} failed: {what}. Error class: {}. toolgate did not retry because {name} may have side effects; \
                 check whether the action happened before calling it again.",
                class.as_str()
            ),
            _ => {
                let retried = if f.attempts > 1 {
                    "toolgate already retried; do not retry at once —"
                } else {
                    "This tool allows one attempt, so toolgate did not retry;"
                };
                format!(
                    "{name} failed: {what}. Error class: {} (usually transient).{tried} {retried} {}, or continue without {name}.",
                    class.as_str(),
                    wait.unwrap_or_else(|| "try again in a minute".to_string()),
                )
            }
        }
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}
