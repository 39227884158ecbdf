//! Version gating: a dependency may say where the upstream announces the contract
//! version it serves (a header such as `API-Version`, or a JSON pointer into the body).
//! When that is newer than the tool's contract, the owner is told ("wrapper older
//! than upstream") and, with `gate: refuse`, agent calls are refused until it is not.

use serde_json::{Value, json};

use super::{Failure, Origin};
use crate::explain;
use crate::sync::lock;
use crate::tool_state::ToolState;
use crate::upstream::{SendError, UpstreamResponse};
use crate::watch::incidents::Incidents;
use toolgate_config::{ToolSpec, VersionSource};
use toolgate_resilience::ErrorClass;
use toolgate_store::{IncidentKind, NewIncident};

/// The version announced in a response header, if the dependency names one.
pub fn from_headers(tool: &ToolSpec, sent: &Result<UpstreamResponse, SendError>) -> Option<String> {
    let check = tool.dependency.version.as_ref()?;
    let VersionSource::Header(name) = &check.source else {
        return None;
    };
    let response = sent.as_ref().ok()?;
    response
        .headers
        .get(name)?
        .to_str()
        .ok()
        .map(|v| v.trim().to_string())
}

/// The version announced in the body, if the dependency names a JSON pointer.
pub fn from_body(tool: &ToolSpec, body: &[u8]) -> Option<String> {
    let check = tool.dependency.version.as_ref()?;
    let VersionSource::Pointer(pointer) = &check.source else {
        return None;
    };
    // Parsed only for dependencies that read their version from the body.
    let body: Value = serde_json::from_slice(body).ok()?;
    match body.pointer(pointer)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `major.minor` of `3.1`, `v3.1.4`, `3`; `None` when it is not a version.
pub fn major_minor(v: &str) -> Option<(u64, u64)> {
    let v = v.trim().trim_start_matches(['v', 'V']);
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = match parts.next() {
        Some(m) => m
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?,
        None => 0,
    };
    Some((major, minor))
}

/// What toolgate makes of an announced upstream version.
#[derive(Debug)]
pub enum VersionVerdict {
    /// Not newer than the contract (or not a version): call as usual.
    Current,
    /// Newer than the contract; the owner has an incident. Agent calls go on.
    Outdated,
    /// Newer, and the dependency's gate refuses agent calls: answer this instead.
    Refuse(Failure),
}

/// Judges the version `announced` in a response of `tool`, keeps it in the tool's state
/// and raises or clears the "wrapper older than upstream" incident.
pub fn judge(
    tool: &ToolSpec,
    state: &ToolState,
    incidents: &Incidents,
    announced: &str,
    origin: Origin,
) -> VersionVerdict {
    let (Some(upstream), Some(ours)) =
        (major_minor(announced), major_minor(&tool.contract.version))
    else {
        return VersionVerdict::Current;
    };
    if upstream <= ours {
        if lock(&state.upstream_version).take().is_some() {
            incidents.clear(
                IncidentKind::WrapperOutdated,
                &tool.name,
                None,
                "the upstream no longer announces a newer version",
            );
        }
        return VersionVerdict::Current;
    }
    let first = lock(&state.upstream_version)
        .replace(announced.to_string())
        .as_deref()
        != Some(announced);
    if first {
        incidents.raise(NewIncident {
            kind: IncidentKind::WrapperOutdated,
            tool: tool.name.clone(),
            dependency: tool.dependency.name.clone(),
            owner: tool.owner.clone(),
            fingerprint: announced.to_string(),
            title: format!(
                "{}: wrapper older than upstream — contract v{} but the upstream serves v{announced}; update the contract",
                tool.name, tool.contract.version
            ),
            detail: json!({ "contract_version": tool.contract.version, "upstream_version": announced }),
            contract_version: Some(tool.contract.version.clone()),
        });
    }
    let refuse = tool.dependency.version.as_ref().is_some_and(|v| v.refuse);
    if refuse && origin == Origin::Agent {
        VersionVerdict::Refuse(refusal(tool, announced))
    } else {
        VersionVerdict::Outdated
    }
}

/// A refusal for a tool whose upstream is already known to be newer, when the gate
/// refuses: such calls are not sent at all.
pub fn known_refusal(tool: &ToolSpec, state: &ToolState) -> Option<Failure> {
    if !tool.dependency.version.as_ref().is_some_and(|v| v.refuse) {
        return None;
    }
    let announced = lock(&state.upstream_version).clone()?;
    Some(refusal(tool, &announced))
}

fn refusal(tool: &ToolSpec, announced: &str) -> Failure {
    Failure::new(
        ErrorClass::ContractDrift,
        explain::wrapper_outdated(tool, announced),
    )
}

#[cfg(test)]
mod tests {
    use super::major_minor;

    #[test]
    fn versions_compare_by_major_and_minor() {
        assert_eq!(major_minor("3.1"), Some((3, 1)));
        assert_eq!(major_minor("v3.2.7"), Some((3, 2)));
        assert_eq!(major_minor("4"), Some((4, 0)));
        assert_eq!(major_minor("3.10-beta"), Some((3, 10)));
        assert!(major_minor("3.10") > major_minor("3.9"));
        assert_eq!(major_minor("2024-06-01"), None);
        assert_eq!(major_minor("latest"), None);
    }
}
