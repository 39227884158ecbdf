//! Which incident a call opened or counted into, for its audit record: the drift
//! incident its reply raised (a failed call's, or one returned anyway under
//! `on_drift: warn`), or the open `wrapper_outdated` incident of a call the version
//! gate refused. Read after stage 5 raised it, with the same identity.

use toolgate_contract::Drift;
use toolgate_resilience::ErrorClass;
use toolgate_store::IncidentKind;

use super::{Call, Failure, Route, Services, Structured};
use crate::upstream::Upstream;
use crate::watch::incidents::IncidentRef;

/// The incident identity of a drift whose cause was not recorded (not reached today:
/// every reply-made drift carries a diff or a cause).
pub(super) const NO_DIFF: &str = "the response does not match the contract";

/// The incident `result` touched, if any.
pub(super) fn touched<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    result: &Result<Structured, Failure>,
    warned: Option<&(Drift, Option<u64>)>,
    call: &Call,
) -> Option<IncidentRef> {
    let tool = &route.spec.name;
    let at = |kind, fingerprint: &str| IncidentRef {
        kind,
        tool: tool.clone(),
        fingerprint: fingerprint.to_string(),
    };
    match result {
        Ok(_) => warned.map(|(d, _)| at(IncidentKind::ContractDrift, &d.fingerprint)),
        Err(f) if f.class != ErrorClass::ContractDrift => None,
        Err(Failure { drift: Some(d), .. }) => {
            Some(at(IncidentKind::ContractDrift, &d.fingerprint))
        }
        Err(Failure {
            drift_cause: Some(cause),
            ..
        }) => Some(at(IncidentKind::ContractDrift, cause)),
        // Neither a diff nor a cause: the version gate refused the call, for the open
        // `wrapper_outdated` incident of the tool (or, after an attempt, the drift
        // incident stage 5 raised without a diff).
        Err(_) => match services
            .incidents
            .open_of(IncidentKind::WrapperOutdated, tool)
            .into_iter()
            .next()
        {
            Some((fingerprint, _)) => Some(at(IncidentKind::WrapperOutdated, &fingerprint)),
            None => (call.retry.attempts() > 0).then(|| at(IncidentKind::ContractDrift, NO_DIFF)),
        },
    }
}
