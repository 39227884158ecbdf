//! Questions a fronted server asks during a 2026-07-28 tool call (input-required
//! results, SEP-2322).
//!
//! That revision has no sessions and so no way for a server to send the client a
//! request of its own: a call that needs the client (`sampling/createMessage`,
//! `elicitation/create`, `roots/list`) answers with `resultType: "input_required"`,
//! the questions in `inputRequests` (keyed) and an opaque `requestState`, and the client
//! sends the call again with `inputResponses` under the same keys and the
//! `requestState` it was given.
//!
//! The servers toolgate fronts mostly speak the handshake revisions and ask in the
//! middle of a call, which stays open upstream. So when such a question comes from the
//! call of a 2026-07-28 client, toolgate answers that client's POST with an
//! input-required result and *parks* the call — its future, not polled, and the queue
//! of what it sends — under a random `requestState`. The retry finds it, hands the
//! answers to the questions waiting upstream, and goes on with the same call: its
//! notifications, maybe another question, and its answer, re-addressed to the retry's
//! id. A parked call belongs to the caller that started it (a `requestState` presented
//! by anyone else is unknown), is kept at most [`PARKED_FOR`], and at most
//! [`MAX_PARKED`] wait at once. The parked call lives on the replica that answered:
//! behind a balancer, a retry that reaches another replica is passed on to it when the
//! fleet names its replicas' addresses (`replicas.rs`); otherwise it needs affinity, or
//! it is told the state is unknown and calls again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;
use toolgate_engine::sync::lock;

use super::owner::Owner;
use super::stream::{Asked, Parker, Work};
use crate::mcp::jsonrpc::{self, Id};
use crate::mcp::outbound::SessionLink;

/// Calls parked at once; past it, a question is answered as the handshake revisions'
/// stateless requests are ("cannot ask"), and the call goes on.
pub(super) const MAX_PARKED: usize = 1024;

/// How long a parked call waits for its retry (a person may be answering an
/// elicitation); then it is dropped, which cancels it upstream.
pub(super) const PARKED_FOR: Duration = Duration::from_secs(600);

/// How often calls whose retry never came are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(30);

/// One call waiting for its client's answers.
pub(super) struct ParkedCall {
    /// Who started it: only they may go on with it.
    owner: Owner,
    /// The tool it calls: a retry must name the same.
    tool: Option<String>,
    /// The id its answer is written with (the request that started it, or the retry
    /// that last went on with it).
    pub answers_as: Id,
    /// The call itself, not polled while parked.
    pub work: Work,
    /// What it sends before its answer.
    pub queue: mpsc::Receiver<Vec<u8>>,
    /// Where the client's answers go: the questions waiting in the call.
    link: Arc<SessionLink>,
    /// The questions asked and not yet answered: their keys and requests.
    asked: Vec<(String, Value)>,
    since: Instant,
}

/// Calls waiting for their retries, by `requestState`.
#[derive(Default)]
pub(super) struct Parked {
    calls: Mutex<HashMap<String, ParkedCall>>,
    /// What every state starts with: in a fleet, this replica's sealed address
    /// (`replicas.rs`), so a retry reaching another replica is passed on here.
    prefix: String,
}

impl std::fmt::Debug for Parked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parked")
            .field("calls", &self.len())
            .finish()
    }
}

/// Parks the 2026-07-28 call answering request `post_id` at its questions.
pub(super) struct ParkAt {
    pub parked: Arc<Parked>,
    /// The POST the call's question answers.
    pub post_id: Id,
    pub parking: Parking,
}

impl Parker for ParkAt {
    fn asks(&self, message: &[u8]) -> bool {
        question(message).is_some()
    }

    /// Parks the call at the question it sent (`message`) and writes the
    /// input-required answer to the POST; when no more calls may wait, the question is
    /// refused in toolgate's name and the call goes on.
    fn park(&mut self, message: Vec<u8>, work: Work, queue: mpsc::Receiver<Vec<u8>>) -> Asked {
        let Some(question) = question(&message) else {
            return Asked::GoesOn(work, queue);
        };
        let asked = vec![question];
        match self.parked.park(&self.parking, work, queue, asked.clone()) {
            Ok(state) => Asked::Parked(input_required(&self.post_id, &asked, &state)),
            Err((work, queue)) => {
                let key = Value::String(asked[0].0.clone()).to_string();
                self.parking.link.refuse(
                    &key,
                    "toolgate cannot hold another call waiting for its client's input (too many wait); the client was not asked",
                );
                tracing::warn!(
                    max = MAX_PARKED,
                    "a call's question to its client was refused: too many calls wait for input"
                );
                Asked::GoesOn(work, queue)
            }
        }
    }
}

/// A question toolgate put to the client on a call's behalf: its key and the request
/// (`method`, `params`), from the bytes the call sent.
pub(super) fn question(message: &[u8]) -> Option<(String, Value)> {
    if !crate::mcp::outbound::is_request(message) {
        return None;
    }
    let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(message) else {
        return None;
    };
    let key = m.get("id")?.as_str()?.to_owned();
    let method = m.remove("method")?;
    let mut request = Map::new();
    request.insert("method".into(), method);
    if let Some(params) = m.remove("params") {
        request.insert("params".into(), params);
    }
    Some((key, Value::Object(request)))
}

/// The input-required answer to request `id`: `questions` and the state to send back.
pub(super) fn input_required(id: &Id, questions: &[(String, Value)], state: &str) -> Vec<u8> {
    let requests: Map<String, Value> = questions.iter().cloned().collect();
    jsonrpc::result(
        id,
        &json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
        }),
    )
}

/// A retry's `requestState` and `inputResponses`, from its params' other members.
pub(super) fn retry_of(rest: &Map<String, Value>) -> Option<(&str, Option<&Map<String, Value>>)> {
    let state = rest.get("requestState")?.as_str()?;
    Some((state, rest.get("inputResponses").and_then(Value::as_object)))
}

/// `body`, an answer written for request `from`, as the answer to request `to`.
pub(super) fn readdressed(body: Vec<u8>, from: &Id, to: &Id) -> Vec<u8> {
    if from.json() == to.json() {
        return body;
    }
    let prefix = format!(r#"{{"jsonrpc":"2.0","id":{},"#, from.json());
    if let Some(rest) = body.strip_prefix(prefix.as_bytes()) {
        let mut out = Vec::with_capacity(body.len() + to.json().len());
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(to.json().as_bytes());
        out.push(b',');
        out.extend_from_slice(rest);
        return out;
    }
    // Every answer toolgate writes starts so; anything else is rewritten whole.
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(mut m)) => {
            m.insert(
                "id".into(),
                serde_json::from_str(to.json()).unwrap_or(Value::Null),
            );
            serde_json::to_vec(&m).unwrap_or(body)
        }
        _ => body,
    }
}

/// Why a retry cannot go on with a parked call.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NotResumed {
    /// No call is parked under that state for this caller (expired, another replica's,
    /// another caller's, or never issued).
    Unknown,
    /// The retry names another tool than the call.
    OtherTool,
}

impl Parked {
    /// Parked calls whose states start with `prefix`.
    pub(super) fn with_prefix(prefix: String) -> Parked {
        Parked {
            prefix,
            ..Parked::default()
        }
    }

    /// Parks a call (`work`, `queue`) that asked `asked` (keys and requests), as
    /// `parking` describes it; its `requestState`, or the call back when [`MAX_PARKED`]
    /// calls already wait.
    pub(super) fn park(
        &self,
        parking: &Parking,
        work: Work,
        queue: mpsc::Receiver<Vec<u8>>,
        asked: Vec<(String, Value)>,
    ) -> Result<String, (Work, mpsc::Receiver<Vec<u8>>)> {
        self.sweep();
        let mut calls = lock(&self.calls);
        if calls.len() >= MAX_PARKED {
            return Err((work, queue));
        }
        let state = format!("{}{:032x}", self.prefix, rand::random::<u128>());
        calls.insert(
            state.clone(),
            ParkedCall {
                owner: parking.owner.clone(),
                tool: parking.tool.clone(),
                answers_as: parking.answers_as.clone(),
                work,
                queue,
                link: parking.link.clone(),
                asked,
                since: Instant::now(),
            },
        );
        Ok(state)
    }

    /// The call parked under `state` for `owner` and `tool`, with `responses` handed to
    /// the questions waiting in it; the questions still unanswered stay in its `asked`.
    pub(super) fn resume(
        &self,
        state: &str,
        owner: &Owner,
        tool: Option<&str>,
        responses: Option<&Map<String, Value>>,
    ) -> Result<ParkedCall, NotResumed> {
        let mut call = {
            self.sweep();
            let mut calls = lock(&self.calls);
            // Someone else's state is unknown to this caller, and stays parked for its
            // owner.
            match calls.get(state) {
                Some(c) if c.owner != *owner => return Err(NotResumed::Unknown),
                Some(c) if c.tool.as_deref() != tool => return Err(NotResumed::OtherTool),
                Some(_) => {}
                None => return Err(NotResumed::Unknown),
            }
            calls.remove(state).ok_or(NotResumed::Unknown)?
        };
        if let Some(responses) = responses {
            call.asked.retain(|(key, _)| {
                let Some(answer) = responses.get(key) else {
                    return true;
                };
                let Ok(raw) = serde_json::value::to_raw_value(answer) else {
                    return true;
                };
                let json_key = Value::String(key.clone()).to_string();
                // A question the call stopped waiting for takes nothing.
                call.link.resolve_answer(&json_key, &raw);
                false
            });
        }
        Ok(call)
    }

    /// Drops the calls whose retry did not come within [`PARKED_FOR`], which cancels
    /// them upstream; every park and retry does it too, and this sweeper (until
    /// `shutdown`) does it when neither comes.
    pub(super) fn spawn_sweeper(self: &Arc<Self>, shutdown: tokio_util::sync::CancellationToken) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(SWEEP_EVERY) => {}
                }
                match weak.upgrade() {
                    Some(parked) => parked.sweep(),
                    None => return,
                }
            }
        });
    }

    fn sweep(&self) {
        // Dropped after the lock is let go: dropping a call runs its cancellation.
        let expired: Vec<ParkedCall> = {
            let mut calls = lock(&self.calls);
            let old: Vec<String> = calls
                .iter()
                .filter(|(_, c)| c.since.elapsed() >= PARKED_FOR)
                .map(|(state, _)| state.clone())
                .collect();
            old.iter().filter_map(|state| calls.remove(state)).collect()
        };
        drop(expired);
    }

    /// Calls parked now.
    pub(super) fn len(&self) -> usize {
        lock(&self.calls).len()
    }
}

impl ParkedCall {
    /// The questions it still waits for (keys and requests), to be asked again.
    pub(super) fn unanswered(&self) -> &[(String, Value)] {
        &self.asked
    }

    /// The link its questions wait on, the tool it calls and the id its answer is
    /// written with: what parking it again needs.
    pub(super) fn into_parts(self) -> (Work, mpsc::Receiver<Vec<u8>>, Parking) {
        let parking = Parking {
            link: self.link,
            owner: self.owner,
            tool: self.tool,
            answers_as: self.answers_as,
        };
        (self.work, self.queue, parking)
    }
}

/// What a 2026-07-28 call needs to be parked when it asks its client something.
#[derive(Clone)]
pub(super) struct Parking {
    /// Its own link: the questions it asks wait there for the retry's answers.
    pub link: Arc<SessionLink>,
    pub owner: Owner,
    pub tool: Option<String>,
    /// The id its answer is written with.
    pub answers_as: Id,
}

#[cfg(test)]
mod tests;
