//! Components and checks of a status or health document: a list of entries, a map of
//! name → entry, a map of name → boolean or a map of name → check-result series, each
//! entry read for how it says it is (a status word, its flags, its own checks or its
//! newest result).

use serde_json::{Map, Value};

use super::{
    COMPONENT_MAP_KEYS, Health, MAX_COMPONENTS, MAX_ENTRIES, Reading, flag_health, flag_name,
    folded, scale, series, status_key, word_health, worse,
};

/// Fields that name a component, check or monitor, in order of preference.
const LABEL_KEYS: [&str; 12] = [
    "name",
    "Name",
    "friendly_name",
    "pronounceable_name",
    "public_name",
    "WebsiteName",
    "service",
    "system",
    "CheckID",
    "id",
    "component",
    // py-healthcheck's results: `{"checker": "redis_available", "passed": false}`.
    "checker",
];

/// Components or checks: an array of objects with a status (or with a series of check
/// results), a map of name → object with a status, or a map of name → series. Returns
/// whether the value was read as such a list.
///
/// An entry's fields are its own and, for a JSON:API resource, those under its
/// `attributes`. A numeric `status` is read only on the scale of a format that the
/// document (`scale`) or the entry names (`status_page/scale.rs`). An entry flagged
/// `paused` is not being checked, so its last status is no evidence of health now.
pub(super) fn collect_components(
    key: &str,
    v: &Value,
    document_scale: Option<scale::Scale>,
    reading: &mut Reading,
) -> bool {
    collect_components_within(key, v, document_scale, reading, true)
}

/// [`collect_components`]; `instances` says whether an entry may itself hold a list of
/// checks (one level only, so a deep document costs no deeper walk).
fn collect_components_within(
    key: &str,
    v: &Value,
    document_scale: Option<scale::Scale>,
    reading: &mut Reading,
    instances: bool,
) -> bool {
    let entries = Entries {
        document_scale,
        instances,
    };
    match v {
        Value::Array(items) => entries.read_list(key, items, reading),
        // A map of parts to booleans, each part's health itself (Quay's
        // `/health/instance`: `"services": {"auth": true, "database": false, …}`).
        Value::Object(map)
            if COMPONENT_MAP_KEYS.contains(&key)
                && !map.is_empty()
                && map.values().all(Value::is_boolean) =>
        {
            read_boolean_map(map, reading);
            true
        }
        Value::Object(map) if COMPONENT_MAP_KEYS.contains(&key) => entries.read_named(map, reading),
        // Uptime Kuma: `"heartbeatList": {"1": [{"status": 1, "time": ...}, ...]}`.
        Value::Object(map) => read_series_map(map, reading),
        _ => false,
    }
}

/// A map of name → boolean, each part up or down as its value says.
fn read_boolean_map(map: &Map<String, Value>, reading: &mut Reading) {
    for (name, up) in map.iter().take(MAX_COMPONENTS) {
        let up = up.as_bool() == Some(true);
        let h = if up { Health::Healthy } else { Health::Down };
        reading.component(name.clone(), up.to_string(), h);
    }
}

/// A map of name → check-result series, read only when every value is one; returns
/// whether it was.
fn read_series_map(map: &Map<String, Value>, reading: &mut Reading) -> bool {
    let newest: Vec<(&String, Option<(Health, String)>)> = map
        .iter()
        .take(MAX_COMPONENTS)
        .map(|(name, s)| (name, s.as_array().and_then(|a| series::newest(a))))
        .collect();
    if newest.is_empty() || !newest.iter().all(|(_, r)| r.is_some()) {
        return false;
    }
    for (name, r) in newest {
        if let Some((h, raw)) = r {
            reading.component(name.clone(), raw, h);
        }
    }
    true
}

/// How the entries of one list or map are read: the scale the document names for
/// numeric statuses, and whether an entry may hold checks of its own.
#[derive(Clone, Copy)]
struct Entries {
    document_scale: Option<scale::Scale>,
    instances: bool,
}

impl Entries {
    /// An array of entries, each named by its label or after the list's key; returns
    /// whether any entry said how it is.
    ///
    /// A list that is itself the status (Open Finance Brasil's `"status": [{"code":
    /// "PARTIAL_FAILURE", …}]`) says it by each entry's `code`, when the entry has no
    /// status field of its own.
    fn read_list(self, key: &str, items: &[Value], reading: &mut Reading) -> bool {
        let mut found = false;
        let codes_are_statuses = status_key(key);
        for entry in items.iter().take(MAX_COMPONENTS) {
            found |= self.read_entry(label(entry, key), entry, reading)
                || (codes_are_statuses && code_as_status(label(entry, key), entry, reading));
        }
        found
    }

    /// A map of name → entry; returns whether any entry said how it is.
    fn read_named(self, map: &Map<String, Value>, reading: &mut Reading) -> bool {
        let mut found = false;
        for (name, entry) in map.iter().take(MAX_COMPONENTS) {
            found |= self.read_entry(name.clone(), entry, reading);
        }
        found
    }

    /// One entry: how it says it is, by the first of its status field, its flags, its
    /// own checks and its newest result that says anything, recorded as a component;
    /// returns whether one did.
    fn read_entry(self, name: String, entry: &Value, reading: &mut Reading) -> bool {
        let Some(obj) = entry.as_object() else {
            return false;
        };
        let fields = Fields {
            own: obj,
            attributes: obj.get("attributes").and_then(Value::as_object),
        };
        let numbers = self.document_scale.or_else(|| scale::of_entry(obj));
        let paused = fields.paused();
        let said = status_field(fields, numbers)
            .map(|said| if paused { paused_reading() } else { said })
            .or_else(|| {
                // The flag as sent (`sealed: true`), not whether it reads healthy.
                worst_flag(fields).map(|(k, v, h)| {
                    if paused {
                        paused_reading()
                    } else {
                        (h, format!("{k}: {v}"))
                    }
                })
            })
            .or_else(|| {
                if self.instances {
                    worst_check(fields, numbers)
                } else {
                    None
                }
            })
            .or_else(|| newest_result(obj))
            .or_else(|| super::raised::reported_problem(obj));
        let Some((h, raw)) = said else {
            return false;
        };
        reading.component(name, raw, h);
        true
    }
}

/// An entry of a list that is the status, read by its `code` word; returns whether the
/// word says how it is.
fn code_as_status(name: String, entry: &Value, reading: &mut Reading) -> bool {
    let Some(code) = entry.get("code").and_then(Value::as_str) else {
        return false;
    };
    let h = word_health(code);
    if h == Health::Unknown {
        return false;
    }
    reading.component(name, code.to_owned(), h);
    true
}

/// An entry's fields: its own, then those under a JSON:API resource's `attributes`.
#[derive(Clone, Copy)]
struct Fields<'a> {
    own: &'a Map<String, Value>,
    attributes: Option<&'a Map<String, Value>>,
}

impl<'a> Fields<'a> {
    /// The fields in order, at most [`MAX_ENTRIES`] of them.
    fn iter(self) -> impl Iterator<Item = (&'a String, &'a Value)> {
        self.own
            .iter()
            .chain(self.attributes.into_iter().flat_map(|a| a.iter()))
            .take(MAX_ENTRIES)
    }

    /// Whether the entry is flagged paused (`paused` or `isPaused` true).
    fn paused(self) -> bool {
        self.iter().any(|(k, v)| {
            matches!(folded(k).as_str(), "paused" | "ispaused") && v.as_bool() == Some(true)
        })
    }
}

/// What a paused entry reads as: unknown, since nothing is checking it.
fn paused_reading() -> (Health, String) {
    (Health::Unknown, "paused".to_owned())
}

/// The first status field that says how the entry is: a word, a Nagios code under
/// `state`, or a number under `status` on the scale `numbers` names.
fn status_field(fields: Fields<'_>, numbers: Option<scale::Scale>) -> Option<(Health, String)> {
    fields.iter().find_map(|(k, s)| {
        if !status_key(k) {
            return None;
        }
        match s {
            Value::String(w) => Some((word_health(w), w.clone())),
            // Nagios plugin return codes.
            Value::Number(n) if k.eq_ignore_ascii_case("state") => Some(match n.as_u64() {
                Some(0) => (Health::Healthy, "OK".to_owned()),
                Some(1) => (Health::Degraded, "WARNING".to_owned()),
                Some(2) => (Health::Down, "CRITICAL".to_owned()),
                _ => (Health::Unknown, n.to_string()),
            }),
            Value::Number(n) if k.eq_ignore_ascii_case("status") => {
                numbers.map(|on| scale::read(on, n))
            }
            _ => None,
        }
    })
}

/// An entry that says how it is by its flags (Statping's `"online": false`; Checkly's
/// `hasErrors`, `hasFailures` and `isDegraded` side by side): the worst of them, as
/// `(key, value, health)`.
fn worst_flag(fields: Fields<'_>) -> Option<(&String, &Value, Health)> {
    fields
        .iter()
        .filter_map(|(k, v)| {
            let h = flag_health(k, v);
            (h != Health::Unknown && flag_name(k) != "success").then_some((k, v, h))
        })
        .reduce(|a, b| if worse(a.2, b.2) == a.2 { a } else { b })
}

/// An instance with checks of its own (Consul's `/v1/health/service/<name>`: a node, its
/// service and its `Checks`): the checks are of one thing, so the worst of them is how
/// the instance is.
fn worst_check(fields: Fields<'_>, numbers: Option<scale::Scale>) -> Option<(Health, String)> {
    fields.iter().find_map(|(k, v)| {
        if !matches!(folded(k).as_str(), "checks" | "components") {
            return None;
        }
        let mut inner = Reading::default();
        collect_components_within("checks", v, numbers, &mut inner, false);
        inner.worst_component
    })
}

/// Gatus: an endpoint with `results[]`, the newest of which says how it is now.
fn newest_result(obj: &Map<String, Value>) -> Option<(Health, String)> {
    obj.values()
        .take(MAX_ENTRIES)
        .find_map(|inner| inner.as_array().and_then(|a| series::newest(a)))
}

/// An entry's name: its first label field (its own, then under `attributes`), else
/// `fallback` with its numeric `id`, else `fallback`.
fn label(entry: &Value, fallback: &str) -> String {
    named(entry)
        .or_else(|| entry.get("attributes").and_then(named))
        // A numbered entry (Kafka Connect's task `"id": 1`) is told apart by its
        // number: `tasks 1`.
        .or_else(|| {
            let id = entry.get("id").and_then(Value::as_u64)?;
            Some(format!("{fallback} {id}"))
        })
        .unwrap_or_else(|| fallback.to_owned())
}

/// The first of [`LABEL_KEYS`] an object has as a string.
fn named(e: &Value) -> Option<String> {
    LABEL_KEYS
        .iter()
        .find_map(|k| e.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}
