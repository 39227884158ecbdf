//! Relearning a tool's learned contract without a restart (`toolgate relearn`,
//! `POST /admin/tools/{tool}/relearn`): the owner looked at a learned-drift incident and
//! accepts the new shape.
//!
//! - the tool's pin is removed from the lockfile's `learned` section first (a restart
//!   must not bring the old shape back), and from the pins in memory; when the lockfile
//!   cannot be written, nothing else changes;
//! - then what was learned is dropped: the tool is `learning` again, and its next
//!   `enforce_after` responses make the new contract;
//! - its open `contract_drift` incidents are resolved, with the reason: they stay in the
//!   history with their diff. Left open, the first response after the reset would
//!   resolve them anyway, as "matching the contract again", which it does not.

use std::sync::atomic::Ordering;

use serde::Serialize;
use toolgate_store::IncidentKind;

use super::Gateway;

/// What a relearn did.
#[derive(Debug, Clone, Serialize)]
pub struct Relearned {
    /// The tool.
    pub tool: String,
    /// Responses the dropped contract had been learned from.
    pub dropped_samples: u64,
    /// Whether the dropped contract was being enforced.
    pub was_enforced: bool,
    /// Whether its pin was removed from the lockfile (`None`: there was none).
    pub unpinned: Option<String>,
    /// Responses needed before the new contract is enforced.
    pub enforce_after: u64,
}

/// Why a tool cannot be relearned.
#[derive(Debug, thiserror::Error)]
pub enum RelearnError {
    /// No such tool.
    #[error("no tool named `{0}`")]
    UnknownTool(String),
    /// Its contract is not learned (declared, imported, pinned, or learning is off).
    #[error(
        "`{tool}` has a {origin} contract, not a learned one: edit its response_schema (or, for an upstream MCP tool's outputSchema, run `toolgate lock`) instead"
    )]
    NotLearned {
        /// The tool.
        tool: String,
        /// Its contract's origin.
        origin: &'static str,
    },
    /// The lockfile could not be read or written; nothing was reset.
    #[error("the learned contract was not reset: {0}")]
    Lockfile(String),
}

impl Gateway {
    /// Makes `tool`'s learned contract start over (see the module's documentation).
    pub fn relearn(&self, tool: &str) -> Result<Relearned, RelearnError> {
        let route = self
            .route(tool)
            .ok_or_else(|| RelearnError::UnknownTool(tool.to_string()))?;
        let learning = &self.services.learning;
        let Some(state) = learning.state(&route.spec, &route.state.learned) else {
            return Err(RelearnError::NotLearned {
                tool: tool.to_string(),
                origin: crate::learned::origin(&route.spec, &route.state.learned),
            });
        };
        let unpinned = self.unpin_learned(tool)?;
        learning.forget_pin(tool);
        let was_enforced = state.enforced().is_some();
        let dropped_samples = learning.reset(state);
        route.state.drift_open.store(false, Ordering::Relaxed);
        self.services.incidents.clear(
            IncidentKind::ContractDrift,
            tool,
            None,
            "the owner accepted the new shape: the learned contract starts over (relearn)",
        );
        tracing::info!(
            %tool,
            dropped_samples,
            was_enforced,
            "the learned contract was dropped; the tool learns its contract again"
        );
        Ok(Relearned {
            tool: tool.to_string(),
            dropped_samples,
            was_enforced,
            unpinned,
            enforce_after: state.enforce_after(),
        })
    }

    /// Removes `tool` from the lockfile's `learned` section, when it is there; returns
    /// the lockfile's path if it was.
    fn unpin_learned(&self, tool: &str) -> Result<Option<String>, RelearnError> {
        let path = &self.config.gateway.lockfile;
        let mut file = match toolgate_contract::Lockfile::read(path) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(None),
            Err(e) => return Err(RelearnError::Lockfile(e.to_string())),
        };
        if file.learned.remove(tool).is_none() {
            return Ok(None);
        }
        file.write(path)
            .map_err(|e| RelearnError::Lockfile(e.to_string()))?;
        Ok(Some(path.display().to_string()))
    }
}
