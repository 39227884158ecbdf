//! Deprecation notices: the owner's incident for one, and its stored form (notices are
//! remembered across restarts, so a sunset date seen once is never forgotten).

use serde_json::json;
use toolgate_signals::Deprecation;

use toolgate_config::ToolSpec;
use toolgate_store::{IncidentKind, NewIncident};

/// Whether a notice is worth an incident: it declares a deprecation (now or to come) or a
/// sunset. `Deprecation: false`, or a documentation link alone, declares nothing.
pub fn declares_something(notice: &Deprecation, now: chrono::DateTime<chrono::Utc>) -> bool {
    !matches!(notice.stage(now), toolgate_signals::Stage::Informational)
}

/// The owner's incident for a deprecation notice; its fingerprint is the sunset date,
/// so a changed date is a new incident and a repeat of the same one is not.
pub fn incident(tool: &ToolSpec, notice: &Deprecation) -> NewIncident {
    use toolgate_signals::Stage;
    let day = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d").to_string();
    let sunset = notice.sunset.map(day);
    let next = match &tool.successor {
        Some(next) => format!("successor tool {next} is configured"),
        None => "no newer contract configured".to_owned(),
    };
    // The title follows the notice's meaning: only a declared deprecation whose date has
    // come is "is deprecated"; a future date or a Sunset alone is not (RFC 9745, 8594).
    let title = match (notice.stage(chrono::Utc::now()), &sunset) {
        (Stage::Deprecated { .. }, Some(date)) => {
            format!(
                "{} is deprecated upstream; sunset {date}; {next}",
                tool.name
            )
        }
        (Stage::Deprecated { .. }, None) => format!(
            "{} is deprecated upstream (no sunset date announced); {next}",
            tool.name
        ),
        (Stage::Scheduled { on }, Some(date)) => format!(
            "{} will be deprecated upstream on {}; sunset {date}; {next}",
            tool.name,
            day(on)
        ),
        (Stage::Scheduled { on }, None) => format!(
            "{} will be deprecated upstream on {}; {next}",
            tool.name,
            day(on)
        ),
        (Stage::SunsetOnly { .. }, Some(date)) => format!(
            "{} will stop working upstream on {date} (sunset announced, not marked deprecated); {next}",
            tool.name
        ),
        // `declares_something` keeps notices that declare nothing away from here, and an
        // explicit "not deprecated" is no notice at all; a link alone is what is left.
        _ => format!(
            "{}: the upstream links deprecation information ({}) but declares nothing deprecated",
            tool.name,
            notice
                .info
                .as_deref()
                .map_or_else(|| "no link".to_owned(), crate::explain::quoted)
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
