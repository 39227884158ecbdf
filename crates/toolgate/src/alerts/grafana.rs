//! A Grafana dashboard for toolgate's metrics.
//!
//! `docs/grafana-dashboard.json` is this dashboard as printed by `toolgate alerts grafana`;
//! `tests/alerts.rs` fails when the two differ, and when a panel queries a metric toolgate
//! does not export.

use serde_json::{Value, json};

use super::prometheus::{
    CIRCUIT_OPEN_FOR, RETRY_RECOVERY_WINDOW, SUCCESS_BASELINE_WINDOW, SUCCESS_COLLAPSE_FACTOR,
    SUCCESS_WINDOW, SUNSET_WARNING_DAYS,
};

/// Prometheus datasource of every panel: the `datasource` variable.
fn datasource() -> Value {
    json!({ "type": "prometheus", "uid": "${datasource}" })
}

/// A query; `legend` is a Grafana legend format (`{{label}}`).
fn target(ref_id: &str, expr: &str, legend: &str) -> Value {
    json!({
        "datasource": datasource(),
        "refId": ref_id,
        "expr": expr,
        "legendFormat": legend,
        "range": true,
    })
}

/// A panel without its id and position (added by [`layout`]).
fn panel(kind: &str, title: &str, description: &str, targets: Vec<Value>, unit: &str) -> Value {
    json!({
        "type": kind,
        "title": title,
        "description": description,
        "datasource": datasource(),
        "targets": targets,
        "fieldConfig": { "defaults": { "unit": unit }, "overrides": [] },
        "options": {},
    })
}

fn timeseries(title: &str, description: &str, targets: Vec<Value>, unit: &str) -> Value {
    let mut p = panel("timeseries", title, description, targets, unit);
    p["options"] = json!({
        "legend": { "displayMode": "table", "placement": "right", "calcs": ["lastNotNull"] },
        "tooltip": { "mode": "multi", "sort": "desc" },
    });
    p
}

/// A state timeline whose values are mapped to names and colours.
fn states(title: &str, description: &str, target: Value, mapping: &[(i64, &str, &str)]) -> Value {
    let mut p = panel("state-timeline", title, description, vec![target], "none");
    let options: serde_json::Map<String, Value> = mapping
        .iter()
        .map(|(value, text, color)| {
            (
                value.to_string(),
                json!({ "text": text, "color": color, "index": value }),
            )
        })
        .collect();
    p["fieldConfig"]["defaults"]["mappings"] = json!([{ "type": "value", "options": options }]);
    p["fieldConfig"]["defaults"]["color"] = json!({ "mode": "thresholds" });
    p["options"] = json!({
        "showValue": "auto",
        "mergeValues": true,
        "alignValue": "left",
        "rowHeight": 0.9,
        "legend": { "showLegend": true, "displayMode": "list", "placement": "bottom" },
    });
    p
}

fn row(title: &str) -> Value {
    json!({ "type": "row", "title": title, "collapsed": false, "panels": [] })
}

/// Gives every panel an id and a grid position: rows span the width, other panels are
/// laid out two per line.
fn layout(panels: Vec<Value>) -> Vec<Value> {
    const HEIGHT: u64 = 8;
    const HALF: u64 = 12;
    let mut y = 0;
    let mut x = 0;
    let mut out = Vec::with_capacity(panels.len());
    for (id, mut p) in (1u64..).zip(panels) {
        if p["type"] == "row" {
            if x > 0 {
                y += HEIGHT;
                x = 0;
            }
            p["gridPos"] = json!({ "h": 1, "w": 24, "x": 0, "y": y });
            y += 1;
        } else {
            p["gridPos"] = json!({ "h": HEIGHT, "w": HALF, "x": x, "y": y });
            x += HALF;
            if x >= 24 {
                x = 0;
                y += HEIGHT;
            }
        }
        p["id"] = json!(id);
        out.push(p);
    }
    out
}

/// A query variable fed by `label_values(...)`.
fn label_variable(name: &str, label: &str, query: &str) -> Value {
    json!({
        "type": "query",
        "name": name,
        "label": label,
        "datasource": datasource(),
        "definition": query,
        "query": { "qryType": 1, "query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery" },
        "refresh": 2,
        "sort": 1,
        "multi": true,
        "includeAll": true,
        "allValue": ".*",
        "current": { "selected": true, "text": ["All"], "value": ["$__all"] },
        "options": [],
    })
}

fn panels() -> Vec<Value> {
    [
        call_panels(),
        retry_and_contract_panels(),
        dependency_panels(),
        lifecycle_panels(),
    ]
    .concat()
}

/// A panel of shares, from 0 to 1 whatever its series.
fn share(mut p: Value) -> Value {
    p["fieldConfig"]["defaults"]["min"] = json!(0);
    p["fieldConfig"]["defaults"]["max"] = json!(1);
    p
}

/// The per-second rate of `selector` over Grafana's rate interval.
fn rate(selector: &str) -> String {
    format!("rate({selector}[$__rate_interval])")
}

/// Calls by outcome, success rate per tool, upstream requests by status.
fn call_panels() -> Vec<Value> {
    let calls = r#"toolgate_tool_calls_total{tool=~"$tool"}"#;
    let ok_calls = r#"toolgate_tool_calls_total{tool=~"$tool", outcome="ok"}"#;
    vec![
        row("Calls"),
        timeseries(
            "Calls by outcome",
            "Tool calls per second, by outcome: ok or the error class.",
            vec![target(
                "A",
                &format!("sum by (outcome) ({})", rate(calls)),
                "{{outcome}}",
            )],
            "reqps",
        ),
        share(timeseries(
            "Success rate per tool",
            &format!(
                "Share of calls with outcome ok. ToolgateSuccessRateCollapse fires when the \
                 {SUCCESS_WINDOW} ratio falls below {SUCCESS_COLLAPSE_FACTOR} times the \
                 ratio of the {SUCCESS_BASELINE_WINDOW} before."
            ),
            vec![target(
                "A",
                // No `ok` series yet (nothing succeeded since start) reads as 0%.
                &format!(
                    "(sum by (tool) ({ok}) or 0 * sum by (tool) ({all})) / sum by (tool) ({all})",
                    ok = rate(ok_calls),
                    all = rate(calls)
                ),
                "{{tool}}",
            )],
            "percentunit",
        )),
        timeseries(
            "Upstream requests by status",
            "Requests sent upstream per second, by dependency and HTTP status (or timeout / \
             connect).",
            vec![target(
                "A",
                &format!(
                    "sum by (dependency, status) ({})",
                    rate(
                        r#"toolgate_upstream_requests_total{tool=~"$tool", dependency=~"$dependency"}"#
                    )
                ),
                "{{dependency}} {{status}}",
            )],
            "reqps",
        ),
    ]
}

/// Retry recovery, retries by class, contract drift, contract probes.
fn retry_and_contract_panels() -> Vec<Value> {
    let sequences =
        format!(r#"toolgate_retry_sequences_total{{tool=~"$tool"}}[{RETRY_RECOVERY_WINDOW}]"#);
    let recovered = format!(
        r#"toolgate_retry_sequences_total{{tool=~"$tool", outcome="recovered"}}[{RETRY_RECOVERY_WINDOW}]"#
    );
    vec![
        row("Retries and contracts"),
        share(timeseries(
            &format!("Retry recovery rate ({RETRY_RECOVERY_WINDOW})"),
            "Of the calls that needed a retry, the share a retry rescued, per tool and the \
             class that triggered the first retry. 0% with retries happening is the silent \
             failure ToolgateRetryRecoveryZero alerts on.",
            vec![target(
                "A",
                &format!(
                    "(sum by (tool, error_class) (increase({recovered})) \
                     or 0 * sum by (tool, error_class) (increase({sequences}))) \
                     / sum by (tool, error_class) (increase({sequences}))"
                ),
                "{{tool}} {{error_class}}",
            )],
            "percentunit",
        )),
        timeseries(
            "Retries by class",
            "Retries made per second, by tool and the class of the failure retried.",
            vec![target(
                "A",
                &format!(
                    "sum by (tool, error_class) ({})",
                    rate(r#"toolgate_retries_total{tool=~"$tool"}"#)
                ),
                "{{tool}} {{error_class}}",
            )],
            "reqps",
        ),
        {
            let mut p = timeseries(
                "Contract drift",
                "Responses that broke their tool's contract, per interval. Any is an incident \
                 for the tool's owner (`toolgate incidents`).",
                vec![target(
                    "A",
                    r#"sum by (tool) (increase(toolgate_contract_drift_total{tool=~"$tool"}[$__rate_interval]))"#,
                    "{{tool}}",
                )],
                "short",
            );
            p["fieldConfig"]["defaults"]["custom"] =
                json!({ "drawStyle": "bars", "fillOpacity": 80 });
            p
        },
        states(
            "Contract probe",
            "Result of the last scheduled contract probe per tool.",
            target(
                "A",
                r#"max by (tool) (toolgate_probe_success{tool=~"$tool"})"#,
                "{{tool}}",
            ),
            &[(0, "failing", "red"), (1, "passing", "green")],
        ),
    ]
}

/// Upstream latency, quotas, circuit state, brownout.
fn dependency_panels() -> Vec<Value> {
    let latency = |q: &str| {
        format!(
            "histogram_quantile({q}, sum by (dependency, le) ({}))",
            rate(r#"toolgate_upstream_latency_seconds_bucket{dependency=~"$dependency"}"#)
        )
    };
    vec![
        row("Dependencies"),
        timeseries(
            "Upstream latency p50 / p95",
            "Latency of upstream attempts by dependency, from the histogram.",
            vec![
                target("A", &latency("0.5"), "{{dependency}} p50"),
                target("B", &latency("0.95"), "{{dependency}} p95"),
            ],
            "s",
        ),
        timeseries(
            "Quota remaining vs limit",
            "Requests left in the current quota window and the window's limit, as last \
             advertised by the dependency, per policy.",
            vec![
                target(
                    "A",
                    r#"toolgate_quota_remaining{dependency=~"$dependency"}"#,
                    "{{dependency}} {{policy}} remaining",
                ),
                target(
                    "B",
                    r#"toolgate_quota_limit{dependency=~"$dependency"}"#,
                    "{{dependency}} {{policy}} limit",
                ),
            ],
            "short",
        ),
        states(
            "Circuit state",
            &format!(
                "Breaker state per dependency. ToolgateCircuitOpenLong fires when it has not \
                 been closed for {CIRCUIT_OPEN_FOR}."
            ),
            target(
                "A",
                r#"max by (dependency) (toolgate_circuit_state{dependency=~"$dependency"})"#,
                "{{dependency}}",
            ),
            &[
                (0, "closed", "green"),
                (1, "open", "red"),
                (2, "half-open", "orange"),
            ],
        ),
        states(
            "Brownout",
            "1 while the dependency's latency is well above its baseline.",
            target(
                "A",
                r#"max by (dependency) (toolgate_brownout{dependency=~"$dependency"})"#,
                "{{dependency}}",
            ),
            &[(0, "normal", "green"), (1, "brownout", "orange")],
        ),
    ]
}

/// The sunset countdown.
fn lifecycle_panels() -> Vec<Value> {
    vec![row("Lifecycle"), {
        let mut p = panel(
            "stat",
            "Sunset countdown",
            &format!(
                "Time left until the announced sunset of each tool's upstream endpoint. \
                     ToolgateSunsetSoon fires under {SUNSET_WARNING_DAYS} days."
            ),
            vec![target(
                "A",
                r#"min by (tool) (toolgate_sunset_timestamp_seconds{tool=~"$tool"}) - time()"#,
                "{{tool}}",
            )],
            "dtdurations",
        );
        p["fieldConfig"]["defaults"]["thresholds"] = json!({
            "mode": "absolute",
            "steps": [
                { "color": "red", "value": null },
                { "color": "orange", "value": 7 * 86_400 },
                { "color": "green", "value": u64::from(SUNSET_WARNING_DAYS) * 86_400 },
            ],
        });
        p["options"] = json!({
            "reduceOptions": { "calcs": ["lastNotNull"], "fields": "", "values": false },
            "colorMode": "background",
            "graphMode": "none",
            "textMode": "value_and_name",
            "orientation": "horizontal",
        });
        p
    }]
}

/// The dashboard printed by `toolgate alerts grafana`.
pub fn dashboard() -> Value {
    json!({
        "title": "toolgate",
        "uid": "toolgate",
        "description": "toolgate: tool calls, retries, contract drift and dependency signals. \
                        Generated by `toolgate alerts grafana`.",
        "tags": ["toolgate", "mcp"],
        "editable": true,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "1m",
        "time": { "from": "now-6h", "to": "now" },
        "timepicker": {},
        "timezone": "browser",
        "annotations": { "list": [] },
        "links": [],
        "templating": {
            "list": [
                {
                    "type": "datasource",
                    "name": "datasource",
                    "label": "Prometheus",
                    "query": "prometheus",
                    "refresh": 1,
                    "current": {},
                    "options": [],
                    "hide": 0,
                },
                label_variable("tool", "Tool", "label_values(toolgate_tool_calls_total, tool)"),
                label_variable(
                    "dependency",
                    "Dependency",
                    r#"label_values(toolgate_upstream_requests_total{tool=~"$tool"}, dependency)"#,
                ),
            ],
        },
        "panels": layout(panels()),
    })
}
