//! Learned contracts against a corpus of responses shaped like real APIs' documented
//! responses (`tests/learned_corpus/<tool>.jsonl`, one response per line: web search,
//! current weather, an hourly forecast, GitHub issues with empty last pages, Stripe and
//! Square customer lists, Hacker News search, exchange rates keyed by currency, daily
//! stock prices keyed by date, Slack channels, CoinGecko markets, npm search, and a
//! Firebase list keyed by push ids).
//!
//! Each tool's contract is learned from its first [`LEARN`] responses (the default
//! enforcement threshold); the rest are held out. Held-out valid responses must never
//! drift, and every rename, removal and type change of a learned required field in a
//! held-out response must be reported at its path, with the right kind of change.

use serde_json::{Map, Value, json};
use toolgate_contract::{
    Change, DEFAULT_ENFORCE_AFTER, DEFAULT_MAX_PATHS, Learner, ResponseContract,
};

const LEARN: usize = DEFAULT_ENFORCE_AFTER as usize;

fn corpus() -> Vec<(String, Vec<Value>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/learned_corpus");
    let mut tools = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the corpus directory") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a name")
            .to_owned();
        let text = std::fs::read_to_string(&path).expect("a corpus file");
        let samples: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON response per line"))
            .collect();
        tools.push((name, samples));
    }
    tools.sort_by(|a, b| a.0.cmp(&b.0));
    tools
}

fn learn(samples: &[Value]) -> (Learner, ResponseContract) {
    let mut learner = Learner::new(DEFAULT_MAX_PATHS);
    for s in samples {
        learner.observe(s);
    }
    let contract = ResponseContract::compile(&learner.schema(), None).expect("compiles");
    (learner, contract)
}

#[test]
fn the_corpus_is_large_enough() {
    let tools = corpus();
    let total: usize = tools.iter().map(|(_, s)| s.len()).sum();
    assert!(tools.len() >= 10, "{} tools", tools.len());
    assert!(total >= 200, "{total} responses");
    for (name, samples) in &tools {
        assert!(samples.len() > LEARN, "{name} has nothing to hold out");
    }
}

#[test]
fn held_out_valid_responses_never_drift() {
    let mut checked = 0;
    for (name, samples) in corpus() {
        let (learner, contract) = learn(&samples[..LEARN]);
        assert!(!learner.capped(), "{name} hit the path cap");
        for (i, s) in samples[LEARN..].iter().enumerate() {
            if let Err(d) = contract.check(s) {
                panic!(
                    "{name}: held-out response {} drifted: {}\nlearned: {}",
                    LEARN + i,
                    d.summary(),
                    learner.schema()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "{checked}");
}

#[test]
fn maps_are_learned_as_maps() {
    let tools = corpus();
    let schema = |tool: &str| {
        let (_, samples) = tools.iter().find(|(n, _)| n == tool).expect("tool");
        learn(&samples[..LEARN]).0.schema()
    };
    for (tool, map) in [
        ("fx_rates", "conversion_rates"),
        ("stock_daily", "Time Series (Daily)"),
        ("firebase_todos", "todos"),
    ] {
        let s = schema(tool);
        assert!(
            s["properties"][map]["additionalProperties"].is_object()
                && s["properties"][map].get("properties").is_none(),
            "{tool}.{map}: {}",
            s["properties"][map]
        );
    }
    // Names stay names, even short ones with digits.
    let w = schema("weather_current");
    assert_eq!(
        w["properties"]["rain"]["properties"]["1h"]["type"],
        "number"
    );
}

/// One required field found in a held-out response: where it is in the instance and
/// its path in the report's notation.
#[derive(Debug, Clone)]
struct Site {
    /// Steps to the field's parent object (keys, or array indices).
    parent: Vec<Step>,
    key: String,
    /// `results[].snippet`.
    path: String,
    /// The learned schema of the field.
    schema: Value,
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// Every required field of the learned schema present in `value` (the first element of
/// each array, the first entry of each map).
fn sites(schema: &Value, value: &Value, steps: &mut Vec<Step>, path: &str, out: &mut Vec<Site>) {
    match value {
        Value::Object(members) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = schema["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (key, child) in members {
                    let Some(child_schema) = props.get(key) else {
                        continue;
                    };
                    let child_path = join(path, key);
                    if required.contains(&key.as_str()) {
                        out.push(Site {
                            parent: steps.clone(),
                            key: key.clone(),
                            path: child_path.clone(),
                            schema: child_schema.clone(),
                        });
                    }
                    steps.push(Step::Key(key.clone()));
                    sites(child_schema, child, steps, &child_path, out);
                    steps.pop();
                }
            } else if let Some(values) = schema.get("additionalProperties")
                && let Some((key, child)) = members.iter().next()
            {
                steps.push(Step::Key(key.clone()));
                sites(values, child, steps, &join(path, key), out);
                steps.pop();
            }
        }
        Value::Array(items) => {
            if let (Some(items_schema), Some(first)) = (schema.get("items"), items.first()) {
                steps.push(Step::Index(0));
                sites(items_schema, first, steps, &format!("{path}[]"), out);
                steps.pop();
            }
        }
        _ => {}
    }
}

fn parent_mut<'a>(root: &'a mut Value, steps: &[Step]) -> &'a mut Map<String, Value> {
    let mut at = root;
    for s in steps {
        at = match s {
            Step::Key(k) => &mut at[k.as_str()],
            Step::Index(i) => &mut at[*i],
        };
    }
    at.as_object_mut().expect("the parent is an object")
}

/// A value of a type the learned schema does not allow, if there is one.
fn other_type(schema: &Value) -> Option<(Value, &'static str)> {
    let allowed: Vec<&str> = match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => return None, // unconstrained: nothing is another type
    };
    let accepts = |t: &str| allowed.contains(&t) || (t == "integer" && allowed.contains(&"number"));
    [
        (json!("changed"), "string"),
        (json!(7), "integer"),
        (json!(true), "boolean"),
        (json!({"x": 1}), "object"),
        (json!(["x"]), "array"),
    ]
    .into_iter()
    .find(|(_, t)| !accepts(t))
}

fn breaking(changes: &[Change]) -> Vec<&Change> {
    changes.iter().filter(|c| c.is_breaking()).collect()
}

#[test]
fn every_rename_removal_and_type_change_is_reported_with_the_right_diff() {
    let (mut renames, mut removals, mut type_changes) = (0, 0, 0);
    for (name, samples) in corpus() {
        let (learner, contract) = learn(&samples[..LEARN]);
        let schema = learner.schema();
        for (i, held_out) in samples[LEARN..].iter().enumerate() {
            let mut found = Vec::new();
            sites(&schema, held_out, &mut Vec::new(), "", &mut found);
            for site in found {
                let at = format!("{name} #{} {}", LEARN + i, site.path);
                // Removal.
                let mut removed = held_out.clone();
                parent_mut(&mut removed, &site.parent).remove(&site.key);
                let d = contract.check(&removed).expect_err(&at);
                match breaking(&d.changes)[..] {
                    [Change::Missing { path, .. }] if *path == site.path => removals += 1,
                    _ => panic!("{at}: removal reported as {}", d.summary()),
                }
                // Rename.
                let mut renamed = held_out.clone();
                let parent = parent_mut(&mut renamed, &site.parent);
                let value = parent.remove(&site.key).expect("present");
                let new_key = format!("{}_v2", site.key);
                parent.insert(new_key.clone(), value);
                let d = contract.check(&renamed).expect_err(&at);
                let to = format!(
                    "{}{new_key}",
                    site.path
                        .strip_suffix(site.key.as_str())
                        .expect("path ends with key")
                );
                match breaking(&d.changes)[..] {
                    [Change::Renamed { from, to: t, .. }] if *from == site.path && *t == to => {
                        renames += 1;
                    }
                    _ => panic!("{at}: rename reported as {}", d.summary()),
                }
                // Type change.
                if let Some((other, type_name)) = other_type(&site.schema) {
                    let mut changed = held_out.clone();
                    parent_mut(&mut changed, &site.parent).insert(site.key.clone(), other);
                    let d = contract.check(&changed).expect_err(&at);
                    match breaking(&d.changes)[..] {
                        [Change::TypeChanged { path, found, .. }]
                            if *path == site.path && found == type_name =>
                        {
                            type_changes += 1;
                        }
                        _ => panic!("{at}: type change reported as {}", d.summary()),
                    }
                }
            }
        }
    }
    eprintln!("{renames} renames, {removals} removals, {type_changes} type changes reported");
    assert!(renames >= 500 && removals >= 500 && type_changes >= 500);
}
