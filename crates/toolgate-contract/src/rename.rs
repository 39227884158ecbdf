//! Rename detection: decides which "missing" and "new" fields at one object level are the
//! same field under a new name. Pure over names, type sets and an optional equal-values
//! oracle; it must prefer reporting two unpaired fields over claiming a wrong rename, so
//! it never pairs different types and never picks among near-equal candidates.

use crate::types::Types;

/// A field that disappeared or appeared at one object level.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<'a> {
    pub(crate) key: &'a str,
    pub(crate) types: Types,
}

/// A detected rename: indices into the missing and added lists, and the evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pair {
    pub(crate) missing: usize,
    pub(crate) added: usize,
    pub(crate) why: &'static str,
}

pub(crate) const WHY_VALUES: &str = "same type, same values";
pub(crate) const WHY_CASE: &str = "same type, same name in another case style";
pub(crate) const WHY_SIMILAR: &str = "same type, similar name";
pub(crate) const WHY_ONLY: &str = "same type, only candidate at this level";

/// Names scoring at least this are "similar". Jaro-Winkler rewards shared prefixes
/// (`published` → `published_at` ≈ 0.96) while `snippet`/`excerpt` score ≈ 0.5.
const SIMILAR: f64 = 0.85;
/// Two candidates closer than this are a tie: no clear winner, so no rename is claimed.
const TIE: f64 = 0.03;

/// Lower-cased with separators removed, so `snake_case`, `camelCase`, `kebab-case` and
/// `PascalCase` spellings of one name compare equal.
fn canonical(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Similarity in 0..=1; 1.0 means the same name up to case style.
fn similarity(a: &str, b: &str) -> f64 {
    let (ca, cb) = (canonical(a), canonical(b));
    if ca == cb {
        return 1.0;
    }
    strsim::jaro_winkler(&ca, &cb).max(strsim::normalized_levenshtein(&ca, &cb))
}

/// Pairs missing with added fields. Passes, strongest evidence first: equal values (only
/// when the caller can see both values), similar names, then "the only compatible pair
/// left at this level". Each pass refuses ties.
pub(crate) fn pair(
    missing: &[Candidate<'_>],
    added: &[Candidate<'_>],
    same_values: &dyn Fn(usize, usize) -> bool,
) -> Vec<Pair> {
    let mut used_m = vec![false; missing.len()];
    let mut used_a = vec![false; added.len()];
    let mut pairs = Vec::new();
    let compatible = |m: usize, a: usize| Types::compatible(missing[m].types, added[a].types);

    // Pass 1 and 2: scored evidence. A score of 2.0 marks equal values; names give 0..=1.
    let score_values = |m: usize, a: usize| if same_values(m, a) { Some(2.0) } else { None };
    let score_names = |m: usize, a: usize| {
        let s = similarity(missing[m].key, added[a].key);
        (s >= SIMILAR).then_some(s)
    };
    for pass in [
        &score_values as &dyn Fn(usize, usize) -> Option<f64>,
        &score_names,
    ] {
        let mut scored = Vec::new();
        for m in (0..missing.len()).filter(|&m| !used_m[m]) {
            for a in (0..added.len()).filter(|&a| !used_a[a]) {
                if let Some(s) = pass(m, a).filter(|_| compatible(m, a)) {
                    scored.push((s, m, a));
                }
            }
        }
        scored.sort_by(|x, y| y.0.total_cmp(&x.0));
        let mut blocked_m = vec![false; missing.len()];
        let mut blocked_a = vec![false; added.len()];
        for &(s, m, a) in &scored {
            if used_m[m] || used_a[a] || blocked_m[m] || blocked_a[a] {
                continue;
            }
            let rival = scored.iter().any(|&(s2, m2, a2)| {
                (m2 == m) != (a2 == a)
                    && (m2 == m || a2 == a)
                    && !used_m[m2]
                    && !used_a[a2]
                    && s - s2 < TIE
            });
            if rival {
                // No clear winner: leave both sides unpaired rather than guess.
                blocked_m[m] = true;
                blocked_a[a] = true;
                continue;
            }
            used_m[m] = true;
            used_a[a] = true;
            let why = if s > 1.5 {
                WHY_VALUES
            } else if s >= 1.0 {
                WHY_CASE
            } else {
                WHY_SIMILAR
            };
            pairs.push(Pair {
                missing: m,
                added: a,
                why,
            });
        }
    }

    // Pass 3: a lone compatible pair at this level. Counting runs over every unpaired
    // field, so two missing and two added strings stay unpaired.
    for m in 0..missing.len() {
        if used_m[m] {
            continue;
        }
        let partners: Vec<usize> = (0..added.len())
            .filter(|&a| !used_a[a] && compatible(m, a))
            .collect();
        if let [a] = partners[..] {
            let rivals = (0..missing.len())
                .filter(|&m2| !used_m[m2] && compatible(m2, a))
                .count();
            if rivals == 1 {
                used_m[m] = true;
                used_a[a] = true;
                pairs.push(Pair {
                    missing: m,
                    added: a,
                    why: WHY_ONLY,
                });
            }
        }
    }
    pairs.sort_by_key(|p| p.missing);
    pairs
}

#[cfg(test)]
mod tests;
