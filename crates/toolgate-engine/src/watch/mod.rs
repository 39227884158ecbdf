//! Watching without user traffic: incident notification, alert rules, probes.

pub mod deprecation;
pub mod incidents;
pub mod notify;
pub mod probe;
pub mod rules;
pub mod stats;
pub mod status_page;
