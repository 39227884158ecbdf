//! Watching without user traffic: incident notification, alert rules, probes.

pub mod notify;
