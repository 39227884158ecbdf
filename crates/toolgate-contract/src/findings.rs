//! The collector both diffs write into. Findings are keyed by path and kind, so the same
//! problem in 1,000 array elements is one entry, and type sets seen at one
//! path are merged. `into_changes` runs rename pairing per object level and produces the
//! public, path-sorted [`Change`] list.

use crate::drift::Change;
use crate::path::Path;
use crate::rename::{self, Candidate};
use crate::types::Types;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Missing,
    TypeChanged,
    Invalid(String),
    Added,
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    expected: Types,
    found: Types,
}

/// Missing and added keys (with their types) of one object level.
type Level = (Vec<(String, Types)>, Vec<(String, Types)>);

/// Structural findings, deduplicated across array elements.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    map: BTreeMap<(Path, Kind), Entry>,
}

impl Findings {
    fn record(&mut self, path: &Path, kind: Kind, expected: Types, found: Types) {
        let e = self.map.entry((path.clone(), kind)).or_default();
        e.expected = e.expected.union(expected);
        e.found = e.found.union(found);
    }

    /// A required field is absent.
    pub(crate) fn missing(&mut self, path: &Path, expected: Types) {
        self.record(path, Kind::Missing, expected, Types::NONE);
    }

    /// A field the expected shape does not list.
    pub(crate) fn added(&mut self, path: &Path, found: Types) {
        self.record(path, Kind::Added, Types::NONE, found);
    }

    /// The value has a type the expected shape does not allow.
    pub(crate) fn type_changed(&mut self, path: &Path, expected: Types, found: Types) {
        self.record(path, Kind::TypeChanged, expected, found);
    }

    /// Anything else worth reporting at a path (validator keyword failures, caps hit).
    pub(crate) fn invalid(&mut self, path: &Path, message: impl Into<String>) {
        self.record(
            path,
            Kind::Invalid(message.into()),
            Types::NONE,
            Types::NONE,
        );
    }

    /// Number of distinct findings that make a response invalid (everything but `Added`);
    /// used to pick the closest `anyOf`/`oneOf` alternative.
    pub(crate) fn failing(&self) -> usize {
        self.map.keys().filter(|(_, k)| *k != Kind::Added).count()
    }

    /// Is there a type change exactly at `path`? An alternative whose very type is wrong
    /// explains nothing, so the walk ranks it last.
    pub(crate) fn type_changed_at(&self, path: &Path) -> bool {
        self.map.contains_key(&(path.clone(), Kind::TypeChanged))
    }

    /// Does the walk already explain a validator error of keyword `keyword` at `path`
    /// (about `key`, for `required`/`additionalProperties`)? Unexplained errors are
    /// reported as they are.
    pub(crate) fn explains(&self, path: &Path, keyword: &str, keys: &[&str]) -> bool {
        let child = |k: &str| {
            let mut c = path.clone();
            c.push(crate::path::Seg::Key(k.to_owned()));
            c
        };
        match keyword {
            "required" => keys
                .iter()
                .all(|k| self.map.contains_key(&(child(k), Kind::Missing))),
            "additionalProperties" => keys
                .iter()
                .all(|k| self.map.contains_key(&(child(k), Kind::Added))),
            "type" => self.type_changed_at(path),
            _ => self.map.keys().any(|(p, _)| p.0.starts_with(&path.0)),
        }
    }

    /// Number of distinct findings.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Pairs renames per object level and renders the sorted change list.
    /// `same_values(parent, from_key, to_key)` supplies value evidence when available.
    pub(crate) fn into_changes(
        self,
        same_values: &dyn Fn(&Path, &str, &str) -> bool,
    ) -> Vec<Change> {
        // Group missing/added keys by parent object.
        let mut levels: BTreeMap<Path, Level> = BTreeMap::new();
        for ((path, kind), e) in &self.map {
            if let Some((parent, key)) = path.parent_and_key() {
                match kind {
                    Kind::Missing => levels
                        .entry(parent)
                        .or_default()
                        .0
                        .push((key.to_owned(), e.expected)),
                    Kind::Added => levels
                        .entry(parent)
                        .or_default()
                        .1
                        .push((key.to_owned(), e.found)),
                    _ => {}
                }
            }
        }
        let mut renamed: BTreeMap<Path, (Path, &'static str)> = BTreeMap::new();
        let mut consumed: Vec<Path> = Vec::new();
        for (parent, (missing, added)) in &levels {
            if missing.is_empty() || added.is_empty() {
                continue;
            }
            let m: Vec<Candidate<'_>> = missing
                .iter()
                .map(|(k, t)| Candidate { key: k, types: *t })
                .collect();
            let a: Vec<Candidate<'_>> = added
                .iter()
                .map(|(k, t)| Candidate { key: k, types: *t })
                .collect();
            let evidence = |mi: usize, ai: usize| same_values(parent, &missing[mi].0, &added[ai].0);
            for p in rename::pair(&m, &a, &evidence) {
                let child = |k: &str| {
                    let mut c = parent.clone();
                    c.push(crate::path::Seg::Key(k.to_owned()));
                    c
                };
                let to = child(&added[p.added].0);
                consumed.push(to.clone());
                renamed.insert(child(&missing[p.missing].0), (to, p.why));
            }
        }

        let mut out = Vec::with_capacity(self.map.len());
        for ((path, kind), e) in self.map {
            let change = match kind {
                Kind::Missing => match renamed.remove(&path) {
                    Some((to, why)) => Change::Renamed {
                        from: path.to_string(),
                        to: to.to_string(),
                        type_name: e.expected.name(),
                        why: why.to_owned(),
                    },
                    None => Change::Missing {
                        path: path.to_string(),
                        expected: e.expected.name(),
                    },
                },
                Kind::Added if consumed.contains(&path) => continue,
                Kind::Added => Change::Added {
                    path: path.to_string(),
                    found: e.found.name(),
                },
                Kind::TypeChanged => Change::TypeChanged {
                    path: path.to_string(),
                    expected: e.expected.name(),
                    found: e.found.name(),
                },
                Kind::Invalid(message) => Change::Invalid {
                    path: path.to_string(),
                    message,
                },
            };
            out.push(change);
        }
        out
    }
}
