//! Deprecation notices: the owner's incident for one, and its stored form (notices are
//! remembered across restarts, so a sunset date seen once is never forgotten).

use serde_json::json;
use toolgate_signals::Deprecation;

use crate::config::ToolSpec;
use crate::store::{IncidentKind, NewIncident};

/// The owner's incident for a deprecation notice; its fingerprint is the sunset date,
/// so a changed date is a new incident and a repeat of the same one is not.
pub fn incident(tool: &ToolSpec, notice: &Deprecation) -> NewIncident {
    let sunset = notice.sunset.map(|s| s.format("%Y-%m-%d").to_string());
    let title = match (&sunset, &tool.successor) {
        (Some(date), Some(next)) => {
            format!(
                "{} is deprecated upstream; sunset {date}; successor tool {next} is configured",
                tool.name
            )
        }
        (Some(date), None) => format!(
            "{} is deprecated upstream; sunset {date}; no newer contract configured",
            tool.name
        ),
        (None, _) => format!(
            "{} is deprecated upstream (no sunset date announced)",
            tool.name
        ),
    };
    NewIncident {
        kind: IncidentKind::Deprecation,
        tool: tool.name.clone(),
        dependency: tool.dependency.name.clone(),
        owner: tool.owner.clone(),
        fingerprint: sunset.unwrap_or_default(),
        title,
        detail: json!({ "deprecation": notice, "successor_tool": tool.successor }),
        contract_version: Some(tool.contract.version.clone()),
    }
}

/// The stored form of a deprecation notice (dates as RFC 3339 strings).
#[derive(Debug, serde::Deserialize)]
pub struct StoredDeprecation {
    deprecated: bool,
    since: Option<String>,
    sunset: Option<String>,
    successor: Option<String>,
    info: Option<String>,
}

impl StoredDeprecation {
    /// The notice it stores.
    pub fn into_deprecation(self) -> Deprecation {
        let date = |s: Option<String>| {
            s.and_then(|s| chrono::DateTime::parse_from_rfc3339(&s).ok())
                .map(|d| d.to_utc())
        };
        Deprecation {
            deprecated: self.deprecated,
            since: date(self.since),
            sunset: date(self.sunset),
            successor: self.successor,
            info: self.info,
        }
    }
}
