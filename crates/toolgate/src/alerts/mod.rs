//! Alerting: the Prometheus rules and Grafana dashboard generated from the metrics
//! toolgate exports.

pub mod grafana;
pub mod prometheus;
