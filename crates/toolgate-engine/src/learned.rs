//! Learned contracts on the call path. A tool that declares no contract (an HTTP tool
//! without a `response_schema`, an upstream MCP tool without an `outputSchema`) learns
//! one from its successful responses ([`toolgate_contract::Learner`]):
//!
//! - while learning, a call only offers its body to a bounded queue (a reference-counted
//!   `Bytes`, no parse); one background task learns from it. A full queue drops the
//!   sample, counted in `toolgate_learned_samples_dropped_total` — the call never waits;
//! - after `enforce_after` responses the learned schema is compiled once and frozen;
//!   from then on each body is checked against it like a declared contract, except that
//!   a learned member gone from a response (left out, or `null`) is drift only once gone
//!   from [`toolgate_contract::ABSENT_RESPONSES`] responses in a row that reach its place
//!   ([`Absences`]: twenty responses cannot tell a member always sent from one sent
//!   nearly always; an empty list says nothing about its items' members; a member seen
//!   coming back waits longer, by its own gaps, and once a member came back after its
//!   absence was reported, every member must be missing longer than that, and the drift
//!   incident's resolution says so ([`why_it_holds`])). While an absence is open each body is
//!   read into a tree once, for the check and the absences alike. The
//!   streaks are this replica's own, kept beside the enforced contract, so a reset or a
//!   reload from a pin starts them from zero;
//! - the responses checked after enforcement are offered to the learner too, for the
//!   places the contract left open (a list empty in every response learned from, a
//!   member first sent later): every [`toolgate_contract::LATE_ROUND`] of them, the places
//!   they reached well enough are constrained and the contract is compiled again, the
//!   absences carried over ([`LateLearning`]; nothing enforced is loosened). It stops
//!   after [`toolgate_contract::LATE_ROUNDS`] rounds;
//! - a pinned learned contract (the lockfile's `learned` section, written by
//!   `toolgate lock`) is where a restart resumes, so nothing is relearned from zero;
//! - [`LearnedState::reset`] starts over (`toolgate relearn`, when the owner accepts a
//!   changed shape): samples still queued from before are not learned from.
//! - in a fleet (`gateway.shared`), the contract is the fleet's: one per tool in Redis,
//!   taken by every replica, each replica's late rounds added to it (`fleet.rs`).
//!
//! For an MCP tool the learned document is the result's `structuredContent`, or else
//! the JSON held by its first text block.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use bytes::Bytes;
use prometheus_client::metrics::counter::Counter;
use serde_json::Value;
use tokio::sync::mpsc;
use toolgate_config::{Learn, ToolKind, ToolSpec};
use toolgate_contract::{
    Absences, BodyError, Drift, LateLearning, LearnedPin, Learner, ResponseContract, Returned,
    upgrade_pinned_schema,
};

use crate::sync::{lock, read};
use crate::upstream::number_range;

mod fleet;

/// Samples waiting for the learner at most; beyond, new ones are dropped.
pub const QUEUE: usize = 1_024;

/// The learning of every tool of one gateway.
#[derive(Debug)]
pub struct Learning {
    queue: OnceLock<mpsc::Sender<Sample>>,
    dropped: Counter,
    pins: RwLock<BTreeMap<String, LearnedPin>>,
    /// The gateway's reply memory: a queued sample keeps its body's share of it.
    replies: Arc<toolgate_resilience::ReplyMemory>,
    /// The fleet's shared state: replicas hold one learned contract per tool there.
    fleet: Option<crate::fleet::Shared>,
}

impl Default for Learning {
    fn default() -> Learning {
        Learning::new(Counter::default(), BTreeMap::new())
    }
}

#[derive(Debug)]
struct Sample {
    state: Arc<LearnedState>,
    body: Bytes,
    mcp: bool,
    /// The learning this sample was offered to: a reset since makes it stale.
    epoch: u64,
}

/// What one tool learned, and its contract once enforced.
#[derive(Debug)]
pub struct LearnedState {
    settings: Learn,
    /// The learner, and the epoch it learns for (bumped by each reset, under this lock,
    /// so a sample offered before a reset is never learned after it).
    learner: Mutex<(Learner, u64)>,
    epoch: AtomicU64,
    samples: AtomicU64,
    enforced: RwLock<Option<Arc<Enforced>>>,
    /// What goes on being learned once the contract is enforced, while it is.
    late: Mutex<Option<LateLearning>>,
    /// Whether `late` still learns: checked responses are then offered to the learner.
    late_open: AtomicBool,
    /// Where the fleet holds this tool's contract, in a fleet.
    fleet: Option<fleet::Link>,
}

/// What learning one sample did, for the fleet to share.
#[derive(Debug)]
enum Learned {
    /// Nothing the fleet needs at once.
    Nothing,
    /// The contract was enforced from this replica's responses.
    Enforced,
    /// A round of late learning ended, having learned this.
    Round(Learner),
}

/// A learned contract being enforced.
#[derive(Debug)]
pub struct Enforced {
    /// The compiled contract.
    pub contract: ResponseContract,
    /// Responses it was learned from.
    pub samples: u64,
    /// When it was enforced (or pinned), RFC 3339.
    pub learned_at: String,
    /// Some fields were left unlearned at the path cap.
    pub capped: bool,
    /// Learned members missing from the latest responses, and for how many in a row.
    absences: Mutex<Absences>,
    /// Whether `absences` holds a streak: a matching response then has some to end. Read
    /// first, so that the common matching response takes no lock.
    absent_lately: AtomicBool,
}

impl Enforced {
    fn new(contract: ResponseContract, samples: u64, learned_at: String, capped: bool) -> Self {
        Enforced {
            contract,
            samples,
            learned_at,
            capped,
            absences: Mutex::new(Absences::default()),
            absent_lately: AtomicBool::new(false),
        }
    }

    /// The same contract with more places constrained: the absences followed so far go
    /// on. A response judged by the contract it replaces while this is made may end or
    /// grow one streak there, not here: at worst one response more or less is counted.
    fn with_contract(&self, contract: ResponseContract, capped: bool) -> Enforced {
        let absences = lock(&self.absences).clone();
        let absent_lately = !absences.is_empty();
        Enforced {
            contract,
            samples: self.samples,
            learned_at: self.learned_at.clone(),
            capped,
            absences: Mutex::new(absences),
            absent_lately: AtomicBool::new(absent_lately),
        }
    }

    /// Another replica's contract, shared through the fleet: the absences followed so far
    /// go on, as for [`Enforced::with_contract`].
    fn adopted(
        &self,
        contract: ResponseContract,
        samples: u64,
        learned_at: String,
        capped: bool,
    ) -> Enforced {
        let next = self.with_contract(contract, capped);
        Enforced {
            samples,
            learned_at,
            ..next
        }
    }

    /// Whether some learned member is missing from the latest responses: a response is
    /// then read into a tree once, for the check and for the members it carries.
    fn absent_lately(&self) -> bool {
        self.absent_lately.load(Ordering::Acquire)
    }

    /// A response matched: the absences of the members it carries end, those of members
    /// it did not reach (an empty list) go on.
    fn matched(&self, doc: &Value) {
        if self.absent_lately() {
            let mut absences = lock(&self.absences);
            absences.matched(doc);
            self.absent_lately
                .store(!absences.is_empty(), Ordering::Release);
        }
    }

    /// Learned members that came back after their absence was reported as drift, since
    /// the last call.
    pub fn take_returned(&self) -> Vec<Returned> {
        lock(&self.absences).take_returned()
    }

    /// A response's drift, with the absences not yet confirmed held back; `None` when
    /// nothing else is left.
    fn confirmed(&self, drift: Drift, doc: &Value) -> Option<Drift> {
        let mut absences = lock(&self.absences);
        let drift = absences.judge(drift, doc);
        self.absent_lately
            .store(!absences.is_empty(), Ordering::Release);
        drift
    }
}

/// A tool's learned contract as `toolgate status` and `toolgate lock` show it.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Responses learned from.
    pub samples: u64,
    /// Responses needed before it is enforced.
    pub enforce_after: u64,
    /// Whether it is enforced.
    pub enforced: bool,
    /// The pin `toolgate lock` writes: the schema as learned so far.
    pub pin: LearnedPin,
}

impl Learning {
    /// Learning that counts dropped samples in `dropped` and resumes from `pins`.
    pub fn new(dropped: Counter, pins: BTreeMap<String, LearnedPin>) -> Learning {
        Learning {
            queue: OnceLock::new(),
            dropped,
            pins: RwLock::new(pins),
            replies: toolgate_resilience::ReplyMemory::unlimited(),
            fleet: None,
        }
    }

    /// The same learning, holding each tool's learned contract with the other replicas
    /// of `fleet` (the shared state's Redis): one contract per tool for the fleet, first
    /// learned by whichever replica saw enough responses, then constrained by every
    /// replica's later rounds. While Redis is down each replica learns on its own.
    #[must_use]
    pub fn with_fleet(mut self, fleet: Option<crate::fleet::Shared>) -> Self {
        self.fleet = fleet;
        self
    }

    /// The same learning, offered samples only while the gateway's reply memory is
    /// less than half full: queued samples hold their bodies, and learning is
    /// best-effort where calls are not (a queue of large bodies must not leave calls
    /// without room for their replies).
    #[must_use]
    pub fn with_reply_memory(mut self, replies: Arc<toolgate_resilience::ReplyMemory>) -> Self {
        self.replies = replies;
        self
    }

    /// The learned state of `spec`'s tool, created on first use (from its pin, if any);
    /// `None` for a tool whose contract is not learned.
    pub fn state<'a>(
        &self,
        spec: &ToolSpec,
        slot: &'a OnceLock<Arc<LearnedState>>,
    ) -> Option<&'a Arc<LearnedState>> {
        let settings = spec.contract.learn?;
        Some(slot.get_or_init(|| {
            let pin = read(&self.pins).get(&spec.name).cloned();
            let mut state = LearnedState::new(settings, pin);
            state.fleet = self
                .fleet
                .as_ref()
                .map(|f| fleet::Link::new(f.prefix(), spec));
            Arc::new(state)
        }))
    }

    /// Forgets `tool`'s pin, so that a state created anew for it (after a reload that
    /// changed the tool) learns from zero too.
    pub fn forget_pin(&self, tool: &str) {
        crate::sync::write(&self.pins).remove(tool);
    }

    /// Offers one successful body to the learner; never waits.
    fn offer(&self, state: &Arc<LearnedState>, body: Bytes, mcp: bool) {
        if self.replies.held() > self.replies.limit() / 2 {
            self.dropped.inc();
            return;
        }
        // No runtime, no background learner to take it (a check run outside the server).
        if self.queue.get().is_none() && tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            // It outlives the call that starts it: on the main runtime.
            crate::serving::spawn_background(learn(rx, self.fleet.clone()));
            tx
        });
        let sample = Sample {
            state: state.clone(),
            body,
            mcp,
            epoch: state.epoch.load(Ordering::Acquire),
        };
        if queue.try_send(sample).is_err() {
            self.dropped.inc();
        }
    }
}

/// The background learner: one sample at a time, off the call path; in a fleet, what
/// it learned is shared (and what the others learned taken) after each.
async fn learn(mut rx: mpsc::Receiver<Sample>, shared: Option<crate::fleet::Shared>) {
    while let Some(sample) = rx.recv().await {
        let learned = sample.state.learn(&sample.body, sample.mcp, sample.epoch);
        if let Some(shared) = &shared {
            fleet::share(shared, &sample.state, learned).await;
        }
    }
}

impl Learning {
    /// Makes `state` start over ([`LearnedState::reset`]); in a fleet, for every replica:
    /// the fleet's contract starts over too, and the others drop theirs when they next
    /// ask. Returns the responses the dropped contract was learned from.
    pub fn reset(&self, state: &Arc<LearnedState>) -> u64 {
        let had = state.reset();
        if let (Some(shared), Some(link)) = (&self.fleet, &state.fleet) {
            link.start_over();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                let (shared, state) = (shared.clone(), state.clone());
                rt.spawn(async move { fleet::share(&shared, &state, Learned::Nothing).await });
            }
        }
        had
    }
}

impl LearnedState {
    fn new(settings: Learn, mut pin: Option<LearnedPin>) -> LearnedState {
        // A pin written by an earlier build is enforced as this build would have learned
        // it (and `toolgate lock` writes it so): no relearning needed to drop what that
        // build got wrong.
        if let Some(p) = pin.as_mut()
            && upgrade_pinned_schema(&mut p.schema)
        {
            tracing::info!(
                "a pinned learned contract was brought up to date: members seen only as null are no longer required"
            );
        }
        let learner = match &pin {
            Some(p) => Learner::from_schema(&p.schema, p.samples, settings.max_paths),
            None => Learner::new(settings.max_paths),
        };
        let state = LearnedState {
            settings,
            learner: Mutex::new((learner, 0)),
            epoch: AtomicU64::new(0),
            samples: AtomicU64::new(pin.as_ref().map_or(0, |p| p.samples)),
            enforced: RwLock::new(None),
            late: Mutex::new(None),
            late_open: AtomicBool::new(false),
            fleet: None,
        };
        if let Some(p) = pin.filter(|p| p.samples >= settings.enforce_after) {
            let learner = lock(&state.learner).0.clone();
            state.enforce(&p.schema, p.samples, p.capped, p.learned_at, learner);
        }
        state
    }

    /// Learns from one body offered in `epoch`; enforces the contract once enough was
    /// seen.
    fn learn(&self, body: &[u8], mcp: bool, epoch: u64) -> Learned {
        if let Some(enforced) = self.enforced() {
            return self.learn_late(&enforced, body, mcp, epoch);
        }
        let Some(doc) = document(body, mcp) else {
            return Learned::Nothing;
        };
        let mut guard = lock(&self.learner);
        let (learner, current) = &mut *guard;
        if *current != epoch || self.enforced().is_some() {
            return Learned::Nothing;
        }
        learner.observe(&doc);
        let n = learner.samples();
        self.samples.store(n, Ordering::Relaxed);
        if n >= self.settings.enforce_after {
            let schema = learner.schema();
            let capped = learner.capped();
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            // Still under the learner's lock: a reset cannot slip in between.
            self.enforce(&schema, n, capped, now, learner.clone());
            return Learned::Enforced;
        }
        Learned::Nothing
    }

    /// Learns from one body checked against `enforced`, offered in `epoch`; enforces the
    /// contract with more places constrained when a round ends with some.
    fn learn_late(&self, enforced: &Enforced, body: &[u8], mcp: bool, epoch: u64) -> Learned {
        let Some(doc) = document(body, mcp) else {
            return Learned::Nothing;
        };
        // Under the learner's lock, as a reset takes it: a sample from before a reset is
        // never learned after it.
        let guard = lock(&self.learner);
        if guard.1 != epoch {
            return Learned::Nothing;
        }
        let mut late = lock(&self.late);
        let Some(learning) = late.as_mut() else {
            return Learned::Nothing;
        };
        let Some(round) = learning.observe_round(&doc) else {
            return Learned::Nothing;
        };
        let open = learning.learning();
        let capped = learning.enforced().capped();
        drop(late);
        self.late_open.store(open, Ordering::Release);
        let Some(schema) = round.schema else {
            return Learned::Round(round.later);
        };
        match ResponseContract::compile(&schema, None) {
            Ok(contract) => {
                let next = enforced.with_contract(contract, capped);
                *crate::sync::write(&self.enforced) = Some(Arc::new(next));
            }
            Err(e) => {
                tracing::error!(error = %e, "a learned contract does not compile; it is not enforced")
            }
        }
        Learned::Round(round.later)
    }

    fn enforce(
        &self,
        schema: &Value,
        samples: u64,
        capped: bool,
        learned_at: String,
        learner: Learner,
    ) {
        match ResponseContract::compile(schema, None) {
            Ok(contract) => {
                *crate::sync::write(&self.enforced) = Some(Arc::new(Enforced::new(
                    contract, samples, learned_at, capped,
                )));
                *lock(&self.late) = Some(LateLearning::new(learner));
                self.late_open.store(true, Ordering::Release);
            }
            // A schema this build wrote always compiles; a hand-edited pin may not.
            Err(e) => {
                tracing::error!(error = %e, "a learned contract does not compile; it is not enforced")
            }
        }
    }

    /// Starts over: what was learned and the enforced contract are dropped, and the
    /// tool learns again from its next responses. Samples offered before are dropped
    /// by the learner. Returns the responses the dropped contract was learned from.
    pub fn reset(&self) -> u64 {
        let mut guard = lock(&self.learner);
        let (learner, epoch) = &mut *guard;
        let had = self.samples.load(Ordering::Relaxed);
        *learner = Learner::new(self.settings.max_paths);
        *epoch += 1;
        self.epoch.store(*epoch, Ordering::Release);
        self.samples.store(0, Ordering::Relaxed);
        *crate::sync::write(&self.enforced) = None;
        *lock(&self.late) = None;
        self.late_open.store(false, Ordering::Release);
        had
    }

    /// Responses learned from before the contract is enforced.
    pub fn enforce_after(&self) -> u64 {
        self.settings.enforce_after
    }

    /// The enforced contract, once there is one.
    pub fn enforced(&self) -> Option<Arc<Enforced>> {
        read(&self.enforced).clone()
    }

    /// What was learned so far, as status and lock show it.
    pub fn snapshot(&self) -> Snapshot {
        let enforced = self.enforced();
        let pin = match &enforced {
            Some(e) => {
                let learner = lock(&self.learner);
                LearnedPin {
                    learned_at: e.learned_at.clone(),
                    samples: e.samples,
                    capped: e.capped,
                    schema: learner_schema_or(&learner.0, &e.contract),
                }
            }
            None => {
                let guard = lock(&self.learner);
                let learner = &guard.0;
                LearnedPin {
                    learned_at: chrono::Utc::now()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    samples: learner.samples(),
                    capped: learner.capped(),
                    schema: learner.schema(),
                }
            }
        };
        Snapshot {
            samples: self.samples.load(Ordering::Relaxed),
            enforce_after: self.settings.enforce_after,
            enforced: enforced.is_some(),
            pin,
        }
    }
}

/// The enforced schema: the contract's own (the learner is frozen at enforcement, and
/// a pinned contract's learner was rebuilt from the same schema).
fn learner_schema_or(_learner: &Learner, contract: &ResponseContract) -> Value {
    contract.schema().clone()
}

/// The origins `toolgate_tool_contracts` counts, in the order reports show them.
pub const ORIGINS: [&str; 6] = [
    "declared",
    "imported",
    "pinned",
    "learned_enforced",
    "learning",
    "none",
];

/// Where a tool's contract comes from now: `declared`, `imported`, `pinned`,
/// `learned_enforced`, `learning` or `none`.
pub fn origin(spec: &ToolSpec, slot: &OnceLock<Arc<LearnedState>>) -> &'static str {
    match spec.contract.origin {
        toolgate_config::ContractOrigin::Declared => "declared",
        toolgate_config::ContractOrigin::Imported => "imported",
        toolgate_config::ContractOrigin::Pinned => "pinned",
        toolgate_config::ContractOrigin::None => "none",
        toolgate_config::ContractOrigin::Learned => {
            if slot.get().is_some_and(|s| s.enforced().is_some()) {
                "learned_enforced"
            } else {
                "learning"
            }
        }
    }
}

/// Why a tool's drift incident is resolved by a response that matches its contract. When
/// learned members reported missing came back, the owner is told so: the report was
/// about a member the upstream leaves out at times, not one it removed, and an absence of
/// that contract's members now waits longer before it is reported.
pub fn why_it_holds(slot: &OnceLock<Arc<LearnedState>>) -> String {
    const HOLDS: &str = "responses match the contract again";
    let returned = slot
        .get()
        .and_then(|s| s.enforced())
        .map(|e| e.take_returned())
        .unwrap_or_default();
    if returned.is_empty() {
        return HOLDS.to_owned();
    }
    // Paths were learned from every caller's responses: one that reads as data used as
    // a key (an e-mail, a file name) is described without it, as in drift notes.
    let members: Vec<String> = returned
        .iter()
        .map(|r| {
            let name = if crate::explain::names_a_field(&r.path) {
                let clean: String = r
                    .path
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(120)
                    .collect();
                format!("`{clean}`")
            } else {
                "a learned field".to_owned()
            };
            format!("{name} after {} responses without it", r.missing)
        })
        .collect();
    format!(
        "{HOLDS}: sent again, {} — left out at times by the upstream, not removed; \
         from now on a learned field of this tool is reported missing only once it is \
         missing for longer than that",
        members.join(", ")
    )
}

/// What a successful reply means for a learned contract.
#[derive(Debug)]
pub enum Judged {
    /// Nothing to say: still learning, or the body matches.
    Fine,
    /// The body does not match the learned contract of `samples` responses.
    Drift {
        /// The diff.
        drift: Drift,
        /// Responses the learned contract was learned from; `None` for a declared
        /// contract whose drift warns (`on_drift: warn`).
        samples: Option<u64>,
    },
}

/// Checks a successful body of a tool whose contract is learned: against the enforced
/// contract, or else offered to the learner. Costs a tool with a declared contract one
/// branch.
pub fn judge(
    learning: &Learning,
    spec: &ToolSpec,
    slot: &OnceLock<Arc<LearnedState>>,
    body: &Bytes,
) -> Judged {
    let mcp = matches!(spec.kind, ToolKind::Mcp { .. });
    if warns_on_declared(spec) {
        // `interpret` left the check to this step so that the body is kept.
        let result = if mcp {
            match number_range::parse(body)
                .ok()
                .and_then(|v| v.get("structuredContent").cloned())
            {
                Some(doc) => spec.contract.response.check(&doc).map_err(BodyError::Drift),
                None => Ok(()),
            }
        } else {
            number_range::check(&spec.contract.response, body)
        };
        return match result {
            Err(BodyError::Drift(drift)) => Judged::Drift {
                drift,
                samples: None,
            },
            _ => Judged::Fine,
        };
    }
    let Some(state) = learning.state(spec, slot) else {
        return Judged::Fine;
    };
    let Some(enforced) = state.enforced() else {
        learning.offer(state, body.clone(), mcp);
        return Judged::Fine;
    };
    if state.late_open.load(Ordering::Acquire) {
        learning.offer(state, body.clone(), mcp);
    }
    let samples = Some(enforced.samples);
    if mcp || enforced.absent_lately() {
        // The tree is needed (an MCP result's document is inside it; an open absence is
        // looked for in it): read once, for the check and the absences alike.
        let Some(doc) = document(body, mcp) else {
            // A body that is not JSON was never learned from either: nothing to compare.
            return Judged::Fine;
        };
        return match enforced.contract.check(&doc) {
            Ok(()) => {
                enforced.matched(&doc);
                Judged::Fine
            }
            Err(drift) => match enforced.confirmed(drift, &doc) {
                Some(drift) => Judged::Drift { drift, samples },
                None => Judged::Fine,
            },
        };
    }
    // No absence open: the common matching body is checked as it is read, with no tree.
    match number_range::check(&enforced.contract, body) {
        Ok(()) => Judged::Fine,
        Err(BodyError::Drift(drift)) => {
            // Drift means the body was read as JSON: read it into a tree, only now, to
            // see which learned members it carries.
            let Some(doc) = document(body, mcp) else {
                return Judged::Drift { drift, samples };
            };
            match enforced.confirmed(drift, &doc) {
                Some(drift) => Judged::Drift { drift, samples },
                None => Judged::Fine,
            }
        }
        // A body that is not JSON was never learned from either: nothing to compare.
        Err(BodyError::NotJson(_)) => Judged::Fine,
    }
}

/// A declared (imported, or pinned) contract whose drift returns the data with a note: its
/// reply is checked by [`judge`], after `interpret`, so the body is not lost.
pub fn warns_on_declared(spec: &ToolSpec) -> bool {
    spec.contract.on_drift == toolgate_config::OnDrift::Warn
        && matches!(
            spec.contract.origin,
            toolgate_config::ContractOrigin::Declared
                | toolgate_config::ContractOrigin::Imported
                | toolgate_config::ContractOrigin::Pinned
        )
}

/// The JSON document a reply carries: the body of an HTTP tool; for an MCP tool's
/// result, its `structuredContent`, else the JSON in its first text block.
fn document(body: &[u8], mcp: bool) -> Option<Value> {
    // Numbers past the largest float are JSON too: read as `interpret` reads them.
    let value: Value = number_range::parse(body).ok()?;
    if !mcp {
        return Some(value);
    }
    if let Some(structured) = value.get("structuredContent") {
        return Some(structured.clone());
    }
    let text = value
        .get("content")?
        .as_array()?
        .iter()
        .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))?
        .get("text")?
        .as_str()?;
    number_range::parse(text.as_bytes())
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_result_is_learned_from_its_structured_content_or_its_json_text() {
        let structured =
            br#"{"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}}"#;
        assert_eq!(
            document(structured, true),
            Some(serde_json::json!({"a": 1}))
        );
        let text = br#"{"content": [{"type": "text", "text": "{\"results\": []}"}]}"#;
        assert_eq!(
            document(text, true),
            Some(serde_json::json!({"results": []}))
        );
        let prose = br#"{"content": [{"type": "text", "text": "hello"}]}"#;
        assert_eq!(document(prose, true), None);
        assert_eq!(document(b"[1]", false), Some(serde_json::json!([1])));
    }

    /// A number past the largest float is JSON: the document is read (the number as the
    /// largest finite one), so a learned or warn-only contract still judges it.
    #[test]
    fn a_document_with_a_number_past_the_largest_float_is_read() {
        let largest = serde_json::json!({"n": f64::MAX, "s": "a"});
        assert_eq!(
            document(br#"{"n": 1e400, "s": "a"}"#, false),
            Some(largest.clone())
        );
        let structured = br#"{"content": [], "structuredContent": {"n": 1e400, "s": "a"}}"#;
        assert_eq!(document(structured, true), Some(largest.clone()));
        let text = br#"{"content": [{"type": "text", "text": "{\"n\": 1e400, \"s\": \"a\"}"}]}"#;
        assert_eq!(document(text, true), Some(largest));
    }

    #[test]
    fn a_reset_starts_over_and_a_sample_offered_before_it_is_not_learned() {
        let state = LearnedState::new(
            Learn {
                enforce_after: 2,
                max_paths: 100,
            },
            None,
        );
        let old = br#"{"results": [{"snippet": "a"}]}"#;
        state.learn(old, false, 0);
        state.learn(old, false, 0);
        assert!(state.enforced().is_some());
        assert_eq!(state.reset(), 2);
        assert!(state.enforced().is_none());
        assert_eq!(state.snapshot().samples, 0);
        // Still queued from before the reset: dropped, twice over would enforce.
        state.learn(old, false, 0);
        state.learn(old, false, 0);
        assert!(state.enforced().is_none());
        assert_eq!(state.snapshot().samples, 0);
        let new = br#"{"results": [{"excerpt": "a"}]}"#;
        state.learn(new, false, 1);
        state.learn(new, false, 1);
        let enforced = state.enforced().expect("the new shape is enforced");
        assert_eq!(enforced.samples, 2);
        let check = |v: Value| enforced.contract.check(&v).is_ok();
        assert!(check(serde_json::json!({"results": [{"excerpt": "b"}]})));
        assert!(!check(serde_json::json!({"results": [{"snippet": "b"}]})));
    }

    #[test]
    fn a_pin_that_requires_a_member_seen_only_as_null_is_enforced_without_requiring_it() {
        // What an earlier build pinned for responses that always carried `"deleted_at": null`.
        let pin = LearnedPin {
            learned_at: "2026-12-01T00:00:00Z".to_owned(),
            samples: 20,
            capped: false,
            schema: serde_json::json!({
                "type": "object",
                "properties": {"id": {"type": "string"}, "deleted_at": {}},
                "required": ["deleted_at", "id"]
            }),
        };
        let settings = Learn {
            enforce_after: 20,
            max_paths: 100,
        };
        let state = LearnedState::new(settings, Some(pin));
        let enforced = state.enforced().expect("a pin of 20 responses is enforced");
        assert!(
            enforced
                .contract
                .check(&serde_json::json!({"id": "a"}))
                .is_ok()
        );
        assert!(enforced.contract.check(&serde_json::json!({})).is_err());
        // `toolgate lock` pins it as this build enforces it.
        assert_eq!(
            state.snapshot().pin.schema["required"],
            serde_json::json!(["id"])
        );
    }

    /// An HTTP tool whose contract is learned from `enforce_after` responses.
    fn learned_spec(enforce_after: u64) -> Arc<ToolSpec> {
        let yaml = format!(
            r#"
dependencies:
  search_api: {{ base_url: "https://api.example.com" }}
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    request: {{ method: GET, path: /search }}
    contract: {{ version: "1.0", learn: {{ enforce_after: {enforce_after} }} }}
"#
        );
        let config = crate::fixtures::config(&yaml);
        config.tools["web_search"].clone()
    }

    /// Whether each body was reported as drift, judged in order.
    fn reported(
        learning: &Learning,
        spec: &ToolSpec,
        slot: &OnceLock<Arc<LearnedState>>,
        bodies: &[&'static [u8]],
    ) -> Vec<bool> {
        bodies
            .iter()
            .map(|b| {
                let judged = judge(learning, spec, slot, &Bytes::from_static(b));
                matches!(judged, Judged::Drift { .. })
            })
            .collect()
    }

    const WITH: &[u8] = br#"{"results": [{"title": "a", "snippet": "s", "note": "n"}]}"#;
    const WITHOUT: &[u8] = br#"{"results": [{"title": "a", "snippet": "s"}]}"#;
    const RENAMED: &[u8] = br#"{"results": [{"title": "a", "excerpt": "s", "note": "n"}]}"#;
    const EMPTY: &[u8] = br#"{"results": []}"#;

    /// A tool whose contract is learned from twenty copies of `body`, and so enforced.
    fn enforced_from_twenty(
        body: &'static [u8],
    ) -> (
        Arc<ToolSpec>,
        Learning,
        OnceLock<Arc<LearnedState>>,
        Arc<LearnedState>,
    ) {
        let spec = learned_spec(20);
        let learning = Learning::default();
        let slot = OnceLock::new();
        let state = learning.state(&spec, &slot).expect("learned").clone();
        for _ in 0..20 {
            state.learn(body, false, 0);
        }
        (spec, learning, slot, state)
    }

    #[test]
    fn a_list_empty_in_every_learned_response_is_constrained_once_later_responses_fill_it() {
        let (spec, learning, slot, state) = enforced_from_twenty(EMPTY);
        // Nothing is known of the results yet: a rename there goes unseen.
        assert_eq!(reported(&learning, &spec, &slot, &[RENAMED; 4]), [false; 4]);
        // The background learner's part: the checked responses of one round.
        for _ in 0..toolgate_contract::LATE_ROUND {
            state.learn(WITH, false, 0);
        }
        assert_eq!(
            reported(&learning, &spec, &slot, &[RENAMED; 3]),
            [false, false, true]
        );
        // What `toolgate lock` pins holds the results' shape too.
        let pin = state.snapshot().pin;
        assert_eq!(
            pin.schema["properties"]["results"]["items"]["required"],
            serde_json::json!(["note", "snippet", "title"])
        );
        assert_eq!(pin.samples, 20);
    }

    #[test]
    fn a_learned_member_gone_now_and_then_is_fine_and_a_lasting_rename_is_drift_from_the_third() {
        let (spec, learning, slot, state) = enforced_from_twenty(WITH);
        assert!(state.enforced().is_some());
        let bodies = [WITHOUT, WITH, WITHOUT, WITHOUT, WITH, WITHOUT];
        assert_eq!(reported(&learning, &spec, &slot, &bodies), [false; 6]);
        let bodies = [RENAMED, RENAMED, RENAMED, RENAMED];
        assert_eq!(
            reported(&learning, &spec, &slot, &bodies),
            [false, false, true, true]
        );
        let Judged::Drift { drift, samples } =
            judge(&learning, &spec, &slot, &Bytes::from_static(RENAMED))
        else {
            panic!("a lasting rename is drift")
        };
        assert_eq!(samples, Some(20));
        assert!(
            drift.summary().contains("probably a rename"),
            "{}",
            drift.summary()
        );
        // Back to the learned shape: fine at once, and a later absence starts from zero.
        let bodies = [WITH, WITHOUT, WITHOUT];
        assert_eq!(reported(&learning, &spec, &slot, &bodies), [false; 3]);
        // Anything but an absence is drift at once.
        let typed = br#"{"results": [{"title": 7, "snippet": "s", "note": "n"}]}"#;
        assert_eq!(reported(&learning, &spec, &slot, &[typed]), [true]);
    }

    #[test]
    fn a_member_back_after_its_reported_absence_resolves_the_incident_saying_it_is_left_out_at_times()
     {
        let (spec, learning, slot, _state) = enforced_from_twenty(WITH);
        assert_eq!(why_it_holds(&slot), "responses match the contract again");
        let bodies = [WITHOUT; 4];
        assert_eq!(
            reported(&learning, &spec, &slot, &bodies),
            [false, false, true, true]
        );
        assert_eq!(reported(&learning, &spec, &slot, &[WITH]), [false]);
        let why = why_it_holds(&slot);
        assert!(
            why.starts_with("responses match the contract again: sent again, `results[].note` after 4 responses without it — left out at times by the upstream, not removed"),
            "{why}"
        );
        // Told once; and the same absence again is no longer reported.
        assert_eq!(why_it_holds(&slot), "responses match the contract again");
        assert_eq!(reported(&learning, &spec, &slot, &bodies), [false; 4]);
    }

    #[test]
    fn a_response_with_an_empty_list_neither_confirms_nor_restarts_a_renamed_members_count() {
        let (spec, learning, slot, _state) = enforced_from_twenty(WITH);
        let bodies = [RENAMED, EMPTY, RENAMED, EMPTY, EMPTY, RENAMED, RENAMED];
        assert_eq!(
            reported(&learning, &spec, &slot, &bodies),
            [false, false, false, false, false, true, true]
        );
        // Back to the learned shape: that ends the count.
        let bodies = [WITH, RENAMED, EMPTY, WITH, RENAMED, RENAMED];
        assert_eq!(reported(&learning, &spec, &slot, &bodies), [false; 6]);
    }

    #[test]
    fn a_contract_resumed_from_its_pin_holds_absences_back_the_same() {
        let (spec, learning, slot, state) = enforced_from_twenty(WITH);
        let pin = state.snapshot().pin;
        let pinned = Learning::new(
            Counter::default(),
            BTreeMap::from([("web_search".to_owned(), pin)]),
        );
        let pinned_slot = OnceLock::new();
        let bodies = [WITHOUT, WITHOUT, WITH, RENAMED, RENAMED, RENAMED];
        let expected = [false, false, false, false, false, true];
        assert_eq!(reported(&learning, &spec, &slot, &bodies), expected);
        assert_eq!(reported(&pinned, &spec, &pinned_slot, &bodies), expected);
    }

    #[tokio::test]
    async fn samples_are_dropped_while_replies_hold_half_the_reply_memory() {
        let replies = toolgate_resilience::ReplyMemory::new(100);
        let dropped = Counter::default();
        let learning =
            Learning::new(dropped.clone(), BTreeMap::new()).with_reply_memory(replies.clone());
        let state = Arc::new(LearnedState::new(
            Learn {
                enforce_after: 1_000,
                max_paths: 100,
            },
            None,
        ));
        let mut held = replies.hold();
        held.grow(50).unwrap();
        learning.offer(&state, Bytes::from_static(b"{}"), false);
        assert_eq!(dropped.get(), 0, "half full still learns");
        held.grow(1).unwrap();
        learning.offer(&state, Bytes::from_static(b"{}"), false);
        assert_eq!(dropped.get(), 1, "more than half full drops the sample");
    }
}
