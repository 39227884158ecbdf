//! The sentences for a call toolgate did not send ("… was not called: …"): the
//! arguments, the version gate, a brownout, the reply memory, the agent's policy and
//! quota, the pacer, the breaker, a withheld definition. Each names its error class and
//! whether to retry, as a failure does.

use std::time::Duration;

use toolgate_config::ToolSpec;

use super::words::{about_bytes, bytes, human};

/// The arguments did not fit the input schema or could not form a request.
pub fn invalid_arguments(tool: &str, problem: &str) -> String {
    format!(
        "{tool} was not called: the arguments are invalid ({problem}). Error class: client_error. \
         Fix the arguments and call {tool} again; retrying the same arguments will not help."
    )
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

/// The replies of the calling agent's calls in flight fill its share of what toolgate
/// may hold at once (`gateway.reply_share`), so the call was not sent.
pub fn no_room_for_agent_replies(tool: &str, agent: &str, held: usize, limit: usize) -> String {
    format!(
        "{tool} was not called: toolgate is holding {} of upstream replies for agent {agent}'s other calls, \
         this agent's share of what toolgate holds at once ({}, gateway.reply_share), so that one agent cannot \
         take it all. Error class: overloaded. Wait for your other calls to finish before calling {tool} again, \
         and make fewer calls at once.",
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
/// calls queued before this one, and it returns later than this call may wait. Only the
/// quota of a dependency's one set of credentials paces calls (a caller's own, with
/// `token_exchange`, never does), so it is every agent's budget, and says so.
pub fn quota_exhausted(tool: &str, dependency: &str, resets_in: Duration) -> String {
    format!(
        "{tool} was not called: the quota {dependency} advertised, one budget shared by every agent calling it, is \
         used up or promised to calls queued before this one, and it resets in {}, later than this call may wait. Error class: rate_limited. toolgate sent \
         nothing, so the upstream was not hit. Do not call {tool} again before then; continue with other tools or \
         tell the user when it will be available.",
        human(resets_in)
    )
}

/// The account behind toolgate's calls was refused, and calls to the dependency are held
/// back: the same words as the refusal itself, and when a call may pass.
pub fn account_held(tool: &str, dependency: &str, owner: &str, retry_in: Duration) -> String {
    format!(
        "{tool} was not called: {dependency} refused the account toolgate calls it with (its credits, plan or \
         standing), whatever the arguments, so toolgate holds back calls to it. Error class: account. toolgate sent \
         nothing. Retrying will not help before {} from now, unless the tool owner ({owner}) acts sooner (billing, \
         plan or account). Continue without {tool}.",
        human(retry_in)
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
