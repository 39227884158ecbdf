//! A Grafana dashboard for toolgate's metrics.

/// The dashboard printed by `toolgate alerts grafana`.
pub fn dashboard() -> serde_json::Value {
    serde_json::json!({ "title": "toolgate", "panels": [] })
}
