//! The alerting artefacts (`toolgate alerts prometheus|grafana`) against the metrics
//! toolgate actually exports: a renamed metric, label or label value breaks these tests,
//! not the alerts in production.

// Helpers that cannot parse what they read should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;
use toolgate::alerts::{grafana, prometheus};
use toolgate_engine::metrics::{
    CallLabels, Class, DependencyLabel, Metrics, OwnerLabels, QuotaLabels, ResultLabel,
    RetryLabels, SequenceLabels, SequenceOutcome, ServerLabel, StatusLabel, ToolLabel,
    UpstreamLabels,
};
use toolgate_resilience::ErrorClass;

const ALERTS: [&str; 8] = [
    "ToolgateContractDrift",
    "ToolgateRetryRecoveryZero",
    "ToolgateSunsetSoon",
    "ToolgateProbeFailing",
    "ToolgateCircuitOpenLong",
    "ToolgateAuthFailures",
    "ToolgateAccountRefused",
    "ToolgateSuccessRateCollapse",
];

// ------------------------------------------------------------------ the exposition

/// `# TYPE` lines of an exposition: family name → type.
fn families(exposition: &str) -> BTreeMap<String, String> {
    exposition
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|rest| {
            let (name, kind) = rest.split_once(' ').unwrap();
            (name.to_string(), kind.trim().to_string())
        })
        .collect()
}

/// The series names a query can use for each family, as the exposition names them.
fn series_names(families: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (family, kind) in families {
        match kind.as_str() {
            "counter" => {
                // OpenMetrics: the family is named without `_total`, samples with it.
                let base = family.strip_suffix("_total").unwrap_or(family);
                names.insert(format!("{base}_total"));
            }
            "gauge" => {
                names.insert(family.clone());
            }
            "histogram" => {
                for suffix in ["_bucket", "_sum", "_count"] {
                    names.insert(format!("{family}{suffix}"));
                }
            }
            other => panic!("family {family} has type {other}, which this test does not map"),
        }
    }
    names
}

/// A fresh `Metrics::new()` with one sample in every family, and every value of the
/// enumerated labels (outcome, error_class). prometheus-client does not render a family
/// without samples — a fresh `Metrics::new().render()` is only `# EOF` — so the names and
/// labels are read from this one.
fn populated() -> Metrics {
    let m = Metrics::with_shared_state();
    let tool: Arc<str> = Arc::from("a_tool");
    let dependency: Arc<str> = Arc::from("a_dependency");
    for outcome in std::iter::once(None).chain(ErrorClass::ALL.map(Some)) {
        m.tool_calls
            .get_or_create(&CallLabels {
                tool: tool.clone(),
                outcome: ResultLabel(outcome),
            })
            .inc();
    }
    for class in ErrorClass::ALL {
        m.retries
            .get_or_create(&RetryLabels {
                tool: tool.clone(),
                error_class: Class(class),
            })
            .inc();
        for outcome in [
            SequenceOutcome::recovered,
            SequenceOutcome::exhausted,
            SequenceOutcome::budget_denied,
            SequenceOutcome::deadline,
        ] {
            m.retry_sequences
                .get_or_create(&SequenceLabels {
                    tool: tool.clone(),
                    error_class: Class(class),
                    outcome,
                })
                .inc();
        }
    }
    for status in [
        StatusLabel::Code(200),
        StatusLabel::Timeout,
        StatusLabel::Connect,
    ] {
        m.upstream_requests
            .get_or_create(&UpstreamLabels {
                dependency: dependency.clone(),
                tool: tool.clone(),
                status,
            })
            .inc();
    }
    m.contract_drift
        .get_or_create(&ToolLabel { tool: tool.clone() })
        .inc();
    let dep = DependencyLabel {
        dependency: dependency.clone(),
    };
    m.upstream_latency.get_or_create(&dep).observe(0.1);
    m.circuit_state.get_or_create(&dep).set(0);
    m.brownout.get_or_create(&dep).set(0);
    let quota = QuotaLabels {
        dependency: dependency.clone(),
        policy: "default".to_string(),
    };
    m.quota_remaining.get_or_create(&quota).set(1);
    m.quota_limit.get_or_create(&quota).set(1);
    m.record_sunset("a_tool", 1_800_000_000);
    m.probe_success
        .get_or_create(&ToolLabel { tool: tool.clone() })
        .set(1);
    let server = ServerLabel {
        server: "a_server".to_string(),
    };
    m.mcp_server_up.get_or_create(&server).set(1);
    m.mcp_definition_changes_pending
        .get_or_create(&server)
        .set(0);
    m.tool_owner_info
        .get_or_create(&OwnerLabels {
            tool: tool.clone(),
            owner: "someone@example.com".to_string(),
            dependency: dependency.to_string(),
        })
        .set(1);
    m
}

/// Samples of an exposition: series name → label name → values seen.
fn samples(exposition: &str) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for line in exposition.lines().filter(|l| !l.starts_with('#')) {
        let end = line.find(['{', ' ']).unwrap_or(line.len());
        let labels = out.entry(line[..end].to_string()).or_default();
        if line[end..].starts_with('{') {
            let close = line.rfind('}').unwrap();
            for (name, _, value) in matchers(&line[end + 1..close]) {
                labels.entry(name).or_default().insert(value);
            }
        }
    }
    out
}

// --------------------------------------------------------------- reading PromQL text

/// `name="v", other=~"w"` → (label, operator, value).
fn matchers(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let op_at = rest.find(['=', '!']).unwrap();
        let name = rest[..op_at].trim().to_string();
        let quote = rest[op_at..].find('"').unwrap() + op_at;
        let op = rest[op_at..quote].trim().to_string();
        let mut value = String::new();
        let mut chars = rest[quote + 1..].char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => {
                    end = Some(quote + 1 + i);
                    break;
                }
                c => value.push(c),
            }
        }
        out.push((name, op, value));
        rest = rest[end.unwrap() + 1..]
            .trim_start()
            .trim_start_matches(',')
            .trim();
    }
    out
}

/// What one PromQL expression refers to.
#[derive(Debug, Default)]
struct Refs {
    /// Metric names (`toolgate_…`).
    metrics: BTreeSet<String>,
    /// (metric, label, operator, value) of each selector matcher.
    matchers: Vec<(String, String, String, String)>,
    /// Label names in `by`, `without`, `on`, `ignoring`, `group_left`, `group_right` and
    /// `label_values(…, label)`.
    grouping: BTreeSet<String>,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

fn refs(expr: &str) -> Refs {
    let mut out = Refs::default();
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    let mut last_metric: Option<String> = None;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            // Skip a string outside selectors.
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '{' {
            let close = (i..chars.len()).find(|&j| chars[j] == '}').unwrap();
            let inner: String = chars[i + 1..close].iter().collect();
            let metric = last_metric.clone().unwrap_or_default();
            for (label, op, value) in matchers(&inner) {
                out.matchers.push((metric.clone(), label, op, value));
            }
            i = close + 1;
        } else if is_ident(c) && !c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let mut j = i;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            let call = j < chars.len() && chars[j] == '(';
            if word.starts_with("toolgate_") {
                out.metrics.insert(word.clone());
                last_metric = Some(word);
            } else if call
                && [
                    "by",
                    "without",
                    "on",
                    "ignoring",
                    "group_left",
                    "group_right",
                ]
                .contains(&word.as_str())
            {
                let close = (j..chars.len()).find(|&k| chars[k] == ')').unwrap();
                let list: String = chars[j + 1..close].iter().collect();
                out.grouping.extend(
                    list.split(',')
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(String::from),
                );
                i = close + 1;
            } else if call && word == "label_values" {
                let close = (j..chars.len()).rev().find(|&k| chars[k] == ')').unwrap();
                let args: String = chars[j + 1..close].iter().collect();
                let (selector, label) = args.rsplit_once(',').unwrap();
                out.grouping.insert(label.trim().to_string());
                let inner = refs(selector);
                out.metrics.extend(inner.metrics);
                out.matchers.extend(inner.matchers);
                i = close + 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every `toolgate_…` identifier anywhere in the text (comments and annotations too).
fn metric_words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("toolgate_") {
        let before = rest[..at].chars().next_back();
        let word: String = rest[at..].chars().take_while(|&c| is_ident(c)).collect();
        if !before.is_some_and(is_ident) {
            out.insert(word.clone());
        }
        rest = &rest[at + word.len()..];
    }
    out
}

// ------------------------------------------------------------------- the artefacts

/// The groups of the rules file: the tools' rules (which name a tool and its owner),
/// the replicas', and the upstream MCP servers'.
fn groups() -> Vec<yaml_serde::Value> {
    let doc: yaml_serde::Value = yaml_serde::from_str(&prometheus::rules_yaml()).unwrap();
    let groups = doc["groups"].as_sequence().unwrap().clone();
    let names: Vec<&str> = groups.iter().filter_map(|g| g["name"].as_str()).collect();
    assert_eq!(
        names,
        ["toolgate", "toolgate-fleet", "toolgate-mcp-servers"]
    );
    groups
}

/// The rules about a tool.
fn rules() -> Vec<yaml_serde::Value> {
    groups()[0]["rules"].as_sequence().unwrap().clone()
}

/// Every rule's expression, whatever its group: each must use only exported names.
fn rule_exprs() -> Vec<(String, String)> {
    groups()
        .iter()
        .flat_map(|g| g["rules"].as_sequence().cloned().unwrap_or_default())
        .collect::<Vec<_>>()
        .iter()
        .map(|r| {
            (
                r["alert"].as_str().unwrap().to_string(),
                r["expr"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// (where, expression) of every panel target and every query variable.
fn dashboard_exprs() -> Vec<(String, String)> {
    let d = grafana::dashboard();
    let mut out = Vec::new();
    for p in d["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().into_iter().flatten() {
            out.push((
                format!("panel {}", p["title"]),
                t["expr"].as_str().unwrap().to_string(),
            ));
        }
    }
    for v in d["templating"]["list"].as_array().unwrap() {
        if v["type"] == "query" {
            out.push((
                format!("variable {}", v["name"]),
                v["query"]["query"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

/// Every string in a JSON value.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

// ----------------------------------------------------------------------- the tests

#[test]
fn every_metric_referenced_is_exported() {
    let exposition = populated().render();
    let exported = series_names(&families(&exposition));
    let mut referenced = metric_words(&prometheus::rules_yaml());
    let mut dashboard_strings = Vec::new();
    strings(&grafana::dashboard(), &mut dashboard_strings);
    for s in &dashboard_strings {
        referenced.extend(metric_words(s));
    }
    for (_, expr) in rule_exprs().iter().chain(&dashboard_exprs()) {
        assert!(
            !refs(expr).metrics.is_empty(),
            "no toolgate metric found in `{expr}`"
        );
    }
    let missing: Vec<&String> = referenced.difference(&exported).collect();
    assert!(
        missing.is_empty(),
        "referenced by the alerts or the dashboard but not in the exposition of \
         Metrics::new(): {missing:?}\nexported: {exported:?}"
    );
}

#[test]
fn every_label_and_label_value_referenced_is_exported() {
    let exposition = populated().render();
    let samples = samples(&exposition);
    let exported = series_names(&families(&exposition));
    let labels_of = |metric: &str| -> Option<BTreeSet<String>> {
        samples
            .get(metric)
            .map(|labels| labels.keys().cloned().collect())
    };
    for (place, expr) in rule_exprs().into_iter().chain(dashboard_exprs()) {
        let refs = refs(&expr);
        // Prometheus adds the target's labels to every series it scrapes.
        let mut available: BTreeSet<String> =
            ["instance", "job"].into_iter().map(String::from).collect();
        for metric in &refs.metrics {
            assert!(
                exported.contains(metric),
                "{place}: {metric} is not exported"
            );
            let labels = labels_of(metric).unwrap_or_else(|| {
                panic!("{place}: no samples and no documented labels for {metric}")
            });
            available.extend(labels);
        }
        for label in &refs.grouping {
            assert!(
                available.contains(label),
                "{place}: label `{label}` is on none of {:?} (labels: {available:?})\n{expr}",
                refs.metrics
            );
        }
        for (metric, label, op, value) in &refs.matchers {
            let labels = labels_of(metric).unwrap_or_default();
            assert!(
                labels.contains(label),
                "{place}: {metric} has no label `{label}` (has {labels:?})"
            );
            if op == "=" {
                let values = samples.get(metric).and_then(|l| l.get(label));
                assert!(
                    values.is_some_and(|v| v.contains(value)),
                    "{place}: {metric}{{{label}=\"{value}\"}} matches no value toolgate \
                     exports (exported: {values:?})"
                );
            }
        }
    }
}

#[test]
fn committed_dashboard_is_up_to_date() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/grafana-dashboard.json"
    );
    let committed = std::fs::read_to_string(path).unwrap();
    let generated = format!(
        "{}\n",
        serde_json::to_string_pretty(&grafana::dashboard()).unwrap()
    );
    assert!(
        committed == generated,
        "docs/grafana-dashboard.json is stale: run \
         `./target/debug/toolgate alerts grafana > docs/grafana-dashboard.json`"
    );
}

#[test]
fn rules_parse_and_name_the_eight_alerts() {
    let rules = rules();
    let names: Vec<&str> = rules.iter().map(|r| r["alert"].as_str().unwrap()).collect();
    assert_eq!(names, ALERTS);
    for r in &rules {
        let name = r["alert"].as_str().unwrap();
        assert!(
            r["expr"].as_str().is_some_and(|e| !e.trim().is_empty()),
            "{name}: no expr"
        );
        assert!(r["for"].as_str().is_some(), "{name}: no `for`");
        assert!(
            matches!(
                r["labels"]["severity"].as_str(),
                Some("critical" | "warning")
            ),
            "{name}: severity"
        );
        for annotation in ["summary", "description"] {
            let text = r["annotations"][annotation].as_str().unwrap_or_default();
            assert!(
                text.contains("$labels.tool"),
                "{name}: {annotation} does not name the tool"
            );
            assert!(
                text.contains("$labels.owner"),
                "{name}: {annotation} does not name the owner"
            );
        }
        let expr = r["expr"].as_str().unwrap();
        assert!(
            expr.contains("toolgate_tool_owner_info"),
            "{name}: no owner join"
        );
    }
}

#[test]
fn shared_state_up_is_exported_only_where_shared_state_is_configured() {
    let without = Metrics::new().render();
    assert!(
        !without.contains("toolgate_shared_state_up"),
        "a replica without gateway.shared must export nothing an alert on 'down' reads: {without}"
    );
    let with = Metrics::with_shared_state().render();
    assert!(with.contains("toolgate_shared_state_up 0"), "{with}");
    let yaml = prometheus::rules_yaml();
    assert!(yaml.contains("alert: ToolgateSharedStateDown"), "{yaml}");
}

#[test]
fn a_rejected_reload_is_exported_and_alerted() {
    let metrics = Metrics::new();
    assert!(
        metrics
            .render()
            .contains("toolgate_config_last_reload_successful 1"),
        "a replica that never reloaded reads as successful"
    );
    metrics.config_last_reload_successful.set(0);
    assert!(
        metrics
            .render()
            .contains("toolgate_config_last_reload_successful 0")
    );
    let yaml = prometheus::rules_yaml();
    assert!(
        yaml.contains("alert: ToolgateConfigReloadRejected"),
        "{yaml}"
    );
    assert!(
        yaml.contains("toolgate_config_last_reload_successful"),
        "{yaml}"
    );
}
