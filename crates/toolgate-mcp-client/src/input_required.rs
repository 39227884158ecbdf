//! Questions a server of the stateless revision asks during a request
//! (input-required results, SEP-2322 "multi round-trip requests").
//!
//! A 2026-07-28 server cannot send a request of its own: a `tools/call`,
//! `prompts/get` or `resources/read` that needs the client answers with
//! `resultType: "input_required"`, the questions in `inputRequests` (keyed by
//! the server) and optionally an opaque `requestState`. The client asks each
//! question, then sends the request again — a new JSON-RPC request — with the
//! answers in `inputResponses` under the same keys and the `requestState`
//! echoed unchanged. A result with a state and no questions means "not yet":
//! the client retries after a pause.
//!
//! The gateway hands each question to the caller's [`Relay`] exactly as it
//! hands on a request a handshake-era server sends mid-call, so the clients
//! above see one kind of question whichever revision the server speaks. The
//! rounds are bounded ([`MAX_ROUNDS`], [`MAX_QUESTIONS`]), and the caller's
//! deadline bounds them all.

use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::echoed::{MAX_ECHOED, MAX_ECHOED_STATE};
use crate::{Failure, Offered, Relay, RpcError, answer_server_request, codes};

/// Rounds of questions one request may take before it is given up as a loop.
pub(crate) const MAX_ROUNDS: usize = 8;

/// Questions one round may ask.
pub(crate) const MAX_QUESTIONS: usize = 16;

/// The first pause before a retry that carries no answers ("not yet"), doubled
/// each such round up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(250);
const LONGEST_PAUSE: Duration = Duration::from_secs(4);

/// The methods whose results may ask for input.
pub(crate) fn may_ask(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

/// One input-required result: the questions (key, method, params) and the state
/// to echo.
#[derive(Debug, PartialEq)]
pub(crate) struct Asked {
    pub questions: Vec<(String, String, Option<Value>)>,
    pub state: Option<Value>,
}

/// Reads `result` as an input-required result: `Ok(None)` for any other result
/// (the usual case: a result whose bytes never name `input_required` is not
/// parsed), an error for one that asks in a way that cannot be answered.
pub(crate) fn read(result: &RawValue) -> Result<Option<Asked>, Failure> {
    let text = result.get();
    if !text.contains("input_required") {
        return Ok(None);
    }
    let Ok(Value::Object(mut result)) = serde_json::from_str::<Value>(text) else {
        return Ok(None);
    };
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Ok(None);
    }
    let state = result.remove("requestState");
    // Both are sent back with every retry: bounded, so a server cannot make the
    // client carry megabytes round after round.
    if let Some(state) = &state {
        let size = serde_json::to_string(state).map_or(usize::MAX, |s| s.len());
        if size > MAX_ECHOED_STATE {
            return Err(Failure::protocol(format!(
                "the server's requestState is {size} bytes as JSON (at most {MAX_ECHOED_STATE} are sent back)"
            )));
        }
    }
    let questions = match result.remove("inputRequests") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(requests)) => {
            if requests.len() > MAX_QUESTIONS {
                return Err(Failure::protocol(format!(
                    "the server asked {} questions at once for one request (at most {MAX_QUESTIONS} are answered)",
                    requests.len()
                )));
            }
            let mut questions = Vec::with_capacity(requests.len());
            for (key, request) in requests {
                if key.len() > MAX_ECHOED {
                    return Err(Failure::protocol(format!(
                        "the server keyed a question with {} bytes (at most {MAX_ECHOED} are sent back)",
                        key.len()
                    )));
                }
                let Value::Object(mut request) = request else {
                    return Err(Failure::protocol(
                        "an input request of the server is not an object",
                    ));
                };
                let Some(Value::String(method)) = request.remove("method") else {
                    return Err(Failure::protocol(
                        "an input request of the server names no method",
                    ));
                };
                questions.push((key, method, request.remove("params")));
            }
            questions
        }
        Some(_) => {
            return Err(Failure::protocol(
                "the server's inputRequests is not an object of requests",
            ));
        }
    };
    if questions.is_empty() && state.is_none() {
        return Err(Failure::protocol(
            "the server asked for input but named neither a question nor a requestState",
        ));
    }
    Ok(Some(Asked { questions, state }))
}

/// What the client said to one round's questions.
pub(crate) enum Answered {
    /// Every question answered: the request's params for the retry.
    Retry(Value),
    /// A question the client could not answer (no such capability, or it went
    /// away): the request ends with this error.
    Refused(RpcError),
}

/// Asks the round's questions through `relay`, one after another (the order the
/// server listed them in), and builds the retry's params from the request's own
/// `params`.
pub(crate) async fn answer(
    asked: Asked,
    params: Option<&Value>,
    relay: Option<&Relay>,
    offered: &Offered,
) -> Answered {
    let mut responses = Map::new();
    for (key, method, question) in asked.questions {
        match answer_server_request(method.clone(), question, relay.cloned(), offered).await {
            Ok(result) => {
                responses.insert(key, result);
            }
            Err(e) => return Answered::Refused(refusal(&method, e, offered)),
        }
    }
    let mut retry = match params {
        Some(Value::Object(params)) => params.clone(),
        _ => Map::new(),
    };
    if !responses.is_empty() {
        retry.insert("inputResponses".into(), Value::Object(responses));
    } else {
        retry.remove("inputResponses");
    }
    match asked.state {
        Some(state) => retry.insert("requestState".into(), state),
        None => retry.remove("requestState"),
    };
    Answered::Retry(Value::Object(retry))
}

/// The error that ends a request whose question `method` the client refused with
/// `e`. The refusal's own code was meant for the server; read as the request's
/// outcome, "method not found" would say the server does not know the tool. A
/// question that needs a capability the client lacks (not offered, or the caller
/// never declared it) ends the request the way a 2026-07-28 server ends one it
/// cannot serve without that capability: `-32021` naming it.
fn refusal(method: &str, e: RpcError, offered: &Offered) -> RpcError {
    let message = format!(
        "the server needs the client to answer {method}, and it could not: {}",
        e.message
    );
    match offered.allows(method) {
        Some((capability, _)) if e.code == codes::METHOD_NOT_FOUND => RpcError {
            code: codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            message,
            data: Some(json!({"requiredCapabilities": {capability: {}}})),
        },
        _ => RpcError {
            code: e.code,
            message,
            data: e.data,
        },
    }
}

/// The pause before a retry that carries no answers, after `waits` such retries.
pub(crate) fn pause(waits: u32) -> Duration {
    FIRST_PAUSE
        .saturating_mul(1 << waits.min(8))
        .min(LONGEST_PAUSE)
}

/// The failure of a request whose server keeps asking.
pub(crate) fn too_many_rounds() -> Failure {
    Failure::protocol(format!(
        "the server asked for input more than {MAX_ROUNDS} times for one request"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(method: &str) -> Asked {
        Asked {
            questions: vec![("q".to_owned(), method.to_owned(), Some(json!({})))],
            state: Some(json!("s")),
        }
    }

    fn refused(answered: Answered) -> RpcError {
        match answered {
            Answered::Refused(e) => e,
            Answered::Retry(params) => panic!("expected a refusal; got a retry with {params}"),
        }
    }

    /// A question the client cannot answer for want of a capability (not offered, or
    /// no caller to ask) ends the request as missing that capability, never as
    /// "method not found", which reads as the server not knowing the tool.
    #[tokio::test]
    async fn a_question_needing_a_missing_capability_ends_as_missing_it() {
        let none = Offered {
            sampling: false,
            elicitation: false,
            roots: false,
        };
        for (method, capability) in [
            ("sampling/createMessage", "sampling"),
            ("elicitation/create", "elicitation"),
            ("roots/list", "roots"),
        ] {
            for offered in [&none, &Offered::default()] {
                let e = refused(answer(asked(method), None, None, offered).await);
                assert_eq!(
                    e.code,
                    codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
                    "{method}: {e:?}"
                );
                assert_eq!(
                    e.data,
                    Some(json!({"requiredCapabilities": {capability: {}}})),
                    "{method}"
                );
                assert!(e.message.contains(method), "{}", e.message);
            }
        }
    }

    /// A question no capability governs keeps the client's own refusal.
    #[tokio::test]
    async fn a_question_of_an_unknown_method_keeps_its_refusal() {
        let e = refused(answer(asked("x/unknown"), None, None, &Offered::default()).await);
        assert_eq!(e.code, codes::METHOD_NOT_FOUND);
        assert!(e.data.is_none());
    }
}
