//! `gateway.audit`: the record of every tool call, as written.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The audit trail: one record per tool call (agent, tool, time, outcome, attempts,
/// latency, a hash of the arguments — never their values), kept in the state store.
#[derive(Debug, Default, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAudit {
    /// Record calls at all (default true).
    pub enabled: Option<bool>,
    /// How long records are kept, e.g. `30d` (default), `12h`; from 1h to 365d. Older
    /// records are deleted in the background.
    pub retention: Option<String>,
}
