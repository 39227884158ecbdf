//! What toolgate remembers about one tool between calls.

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use toolgate_signals::Deprecation;

use crate::sync::lock;
use crate::watch::stats::ToolStats;

/// Successful replies in a row without the deprecation notice after which toolgate
/// forgets it: an upstream that withdrew a deprecation (or sends it from only some of its
/// servers) must not leave the model warned forever, and one reply from a server that
/// lacks the header must not drop a notice that is still meant.
pub const NOTICE_GONE_AFTER: u32 = 20;

/// Live state of a tool, shared by its calls, probes and reports.
#[derive(Debug)]
pub struct ToolState {
    /// The upstream's last deprecation notice for this tool.
    pub deprecation: Mutex<Option<Deprecation>>,
    /// Successful replies in a row that carried no deprecation notice while one is
    /// remembered: at [`NOTICE_GONE_AFTER`] the upstream has withdrawn it.
    pub replies_without_notice: std::sync::atomic::AtomicU32,
    /// Sliding windows of agent calls, retries and recoveries.
    pub stats: Mutex<ToolStats>,
    /// Whether a drift incident is open, so a matching response can resolve it without
    /// asking the incident index on every successful call.
    pub drift_open: AtomicBool,
    /// The newer contract version the upstream announced, while it is newer than ours.
    pub upstream_version: Mutex<Option<String>>,
    /// The contract learned from its responses, for a tool that declares none.
    pub learned: std::sync::OnceLock<std::sync::Arc<crate::learned::LearnedState>>,
}

impl ToolState {
    /// Fresh state: no notice, empty windows.
    pub fn new() -> ToolState {
        ToolState {
            deprecation: Mutex::new(None),
            replies_without_notice: std::sync::atomic::AtomicU32::new(0),
            stats: Mutex::new(ToolStats::new(tokio::time::Instant::now())),
            drift_open: AtomicBool::new(false),
            upstream_version: Mutex::new(None),
            learned: std::sync::OnceLock::new(),
        }
    }

    /// Whether the upstream's announced sunset has passed.
    pub fn past_sunset(&self, now: chrono::DateTime<chrono::Utc>) -> bool {
        lock(&self.deprecation)
            .as_ref()
            .and_then(|d| d.sunset)
            .is_some_and(|s| s <= now)
    }

    /// The last deprecation notice, if any.
    pub fn deprecation(&self) -> Option<Deprecation> {
        lock(&self.deprecation).clone()
    }
}

impl Default for ToolState {
    fn default() -> Self {
        Self::new()
    }
}
