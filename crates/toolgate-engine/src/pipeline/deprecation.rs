//! A dependency's deprecation notice as the tool remembers it: announced by a reply,
//! kept in the store for the fleet, and forgotten when successful replies stop
//! announcing it.

use std::sync::atomic::Ordering;

use serde_json::json;
use toolgate_signals::Deprecation;
use toolgate_store::IncidentKind;

use super::{Route, Services};
use crate::sync::lock;
use crate::tool_state::NOTICE_GONE_AFTER;
use crate::upstream::Upstream;

/// Keeps the latest deprecation notice of the tool; a new or changed notice is
/// remembered in the store and opens an incident for the owner (both off the call path).
/// A notice the upstream stopped sending is forgotten after [`NOTICE_GONE_AFTER`]
/// successful replies without it, and its incident resolved.
pub(super) fn remember_deprecation<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    notice: Option<&Deprecation>,
    succeeded: bool,
) {
    let Some(notice) = notice else {
        if succeeded {
            forget_withdrawn_deprecation(route, services);
        }
        return;
    };
    route
        .state
        .replies_without_notice
        .store(0, Ordering::Relaxed);
    let spec = &route.spec;
    let changed = {
        let mut slot = lock(&route.state.deprecation);
        let changed = slot.as_ref() != Some(notice);
        if changed {
            *slot = Some(notice.clone());
        }
        changed
    };
    if let Some(sunset) = notice.sunset {
        services
            .metrics
            .record_sunset(&spec.name, sunset.timestamp());
    }
    if changed {
        services
            .incidents
            .save_deprecation(&spec.name, json!(notice));
        services
            .incidents
            .raise(crate::watch::deprecation::incident(spec, notice));
    }
}

/// One more successful reply without a deprecation notice; at the threshold the
/// remembered notice is dropped (state, store, sunset series) and its incident resolved.
fn forget_withdrawn_deprecation<U: Upstream>(route: &Route<U>, services: &Services) {
    let state = &route.state;
    if lock(&state.deprecation).is_none() {
        return;
    }
    let without = state.replies_without_notice.fetch_add(1, Ordering::Relaxed) + 1;
    if without < NOTICE_GONE_AFTER {
        return;
    }
    if lock(&state.deprecation).take().is_none() {
        return; // another call forgot it first
    }
    state.replies_without_notice.store(0, Ordering::Relaxed);
    let tool = &route.spec.name;
    services.metrics.forget_sunset(tool);
    // A null notice is what `restore` skips: the next start does not bring it back.
    services
        .incidents
        .save_deprecation(tool, serde_json::Value::Null);
    services.incidents.clear(
        IncidentKind::Deprecation,
        tool,
        None,
        &format!("the upstream sent no deprecation notice in its last {NOTICE_GONE_AFTER} successful replies"),
    );
}
