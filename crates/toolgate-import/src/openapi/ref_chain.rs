//! How deep the named schemas' `$ref`s chain: `A` refers to `B`, which refers to `C`,
//! and so on. A contract is checked, and compiled, by following these references one
//! inside the other, so a chain thousands of definitions long (generated descriptions
//! that wrap each type in the next) would exhaust the stack where `check` and the
//! gateway compile it. The same holds for a tool's input schema, which arguments are
//! checked against. No real description comes near [`MAX_LINKS`]: such a one is
//! refused with the definition the chain starts at.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

/// Longest chain of `$ref`s between named schemas an import writes.
pub const MAX_LINKS: usize = 1_000;

#[cfg(test)]
thread_local! {
    /// Definitions walked on this thread, for tests holding the work to one walk of
    /// each definition.
    pub(crate) static WALKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The definition the longest chain of `$ref`s among `defs` starts at, and its number
/// of links, when it is longer than [`MAX_LINKS`]. A reference back into the chain
/// being followed (a recursive schema) ends it: recursion is checked lazily, not
/// followed. Each definition is looked at once (its depth is remembered), and the walk
/// keeps its own stack, so a chain of any length costs neither time nor stack.
pub fn too_long(defs: &BTreeMap<String, Value>) -> Option<(String, usize)> {
    let names: HashMap<&str, usize> = defs
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let refers: Vec<Vec<usize>> = defs
        .values()
        .map(|def| {
            let mut to = Vec::new();
            refs_in(def, &names, &mut to);
            to
        })
        .collect();
    // Links from each definition to the end of its longest chain; `None` while it is
    // being walked.
    let mut depth: Vec<Option<Option<usize>>> = vec![None; defs.len()];
    let mut longest = (0, 0);
    for start in 0..defs.len() {
        if depth[start].is_some() {
            continue;
        }
        // (definition, next reference of it to look at)
        let mut stack = vec![(start, 0)];
        depth[start] = Some(None);
        #[cfg(test)]
        WALKED.with(|w| w.set(w.get() + 1));
        while let Some(&mut (at, ref mut next)) = stack.last_mut() {
            if let Some(&to) = refers[at].get(*next) {
                *next += 1;
                if depth[to].is_none() {
                    depth[to] = Some(None);
                    stack.push((to, 0));
                    #[cfg(test)]
                    WALKED.with(|w| w.set(w.get() + 1));
                }
                continue;
            }
            let links = refers[at]
                .iter()
                .filter_map(|&to| depth[to].flatten())
                .map(|d| d + 1)
                .max()
                .unwrap_or(0);
            depth[at] = Some(Some(links));
            if links > longest.1 {
                longest = (at, links);
            }
            stack.pop();
        }
    }
    (longest.1 > MAX_LINKS).then(|| {
        let name = defs.keys().nth(longest.0).cloned().unwrap_or_default();
        (name, longest.1)
    })
}

/// Why a description whose schema `start` starts a chain of `links` `$ref`s is not
/// imported.
pub fn refusal(start: &str, links: usize) -> String {
    format!(
        "the schema `{start}` starts a chain of {links} `$ref`s, each definition referring to the next; a schema is checked by following them, and more than {MAX_LINKS} would exhaust the stack, so the description is not imported — no real API's schemas chain that deep"
    )
}

/// The definitions `v` refers to by `$ref` (`#/$defs/<name>`), by index.
fn refs_in(v: &Value, names: &HashMap<&str, usize>, to: &mut Vec<usize>) {
    match v {
        Value::Object(m) => {
            if let Some(i) = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|n| names.get(n))
            {
                to.push(*i);
            }
            for x in m.values() {
                refs_in(x, names, to);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, names, to)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn chain(n: usize, wrap: bool) -> BTreeMap<String, Value> {
        (0..n)
            .map(|i| {
                let next = if i + 1 < n {
                    json!({ "$ref": format!("#/$defs/S{}", i + 1) })
                } else {
                    json!({ "type": "string" })
                };
                let def = if wrap {
                    json!({ "type": "object", "properties": { "next": next } })
                } else {
                    next
                };
                (format!("S{i}"), def)
            })
            .collect()
    }

    #[test]
    fn a_chain_past_the_bound_is_found_from_where_it_starts() {
        for wrap in [false, true] {
            let found = too_long(&chain(10_000, wrap));
            assert_eq!(found, Some(("S0".to_string(), 9_999)), "wrapped: {wrap}");
        }
    }

    #[test]
    fn recursion_and_chains_within_the_bound_pass() {
        assert_eq!(too_long(&chain(MAX_LINKS + 1, true)), None);
        // A long loop: each definition refers to the next, the last to the first.
        let mut looped = chain(5_000, true);
        looped.insert(
            "S4999".into(),
            json!({ "type": "object", "properties": { "next": { "$ref": "#/$defs/S0" } } }),
        );
        // Followed once around, the loop is as long as the chain would be.
        assert!(too_long(&looped).is_some());
        let tree = BTreeMap::from([
            (
                "A".to_string(),
                json!({ "properties": { "b": { "$ref": "#/$defs/B" }, "a": { "$ref": "#/$defs/A" } } }),
            ),
            ("B".to_string(), json!({ "items": { "$ref": "#/$defs/A" } })),
        ]);
        assert_eq!(too_long(&tree), None);
    }
}
