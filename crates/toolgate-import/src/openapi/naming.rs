//! Tool names: from `operationId`, else method and path; made valid for MCP
//! (`[A-Za-z0-9_.-]`, at most 64 characters) and unique, predictably.
//!
//! Generated operationIds run long (`dialogflow.projects.locations.agents.environments.
//! experiments.start`, FastAPI's name-path-method ids) and what tells two apart is
//! often only their end (`…experiments.start` and `…experiments.stop`). A long name
//! therefore keeps its head and its tail, and between them a short hash of the whole
//! name: two operations never share a shortened name, and an operation keeps its name
//! however the others of the spec change.

use std::collections::HashSet;

/// Longest tool name MCP clients accept.
pub const MAX_LEN: usize = 64;

/// The name for an operation before collisions are resolved.
pub fn base_name(operation_id: Option<&str>, method: &str, path: &str) -> String {
    let raw = match operation_id.map(str::trim) {
        Some(id) if !id.is_empty() && !opaque(id) && has_ascii_letter(id) => id.to_string(),
        _ => {
            let mut s = method.to_ascii_lowercase();
            for seg in path.split('/').filter(|s| !s.is_empty()) {
                s.push('_');
                // `{id}` reads as `by_id`, so `GET /users/{id}` and `GET /users` differ.
                match seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
                    Some(p) => {
                        s.push_str("by_");
                        s.push_str(p);
                    }
                    None => s.push_str(seg),
                }
            }
            s
        }
    };
    clean(&raw)
}

/// Whether an operationId is an opaque identifier rather than a name: a hexadecimal
/// string (Azure API Management's `5476364f031f5909e4fe3314`) or a UUID. It tells the
/// model nothing, so the method and path name the tool instead.
fn opaque(id: &str) -> bool {
    let hex: Vec<char> = id.chars().filter(|c| *c != '-').collect();
    hex.len() >= 16 && hex.iter().all(char::is_ascii_hexdigit)
}

/// Whether an operationId keeps a word once made valid for MCP. One written wholly in
/// another script (`获取用户`, `получитьПользователя`) or in punctuation would become `_`
/// throughout, and every such operation `operation`, `operation_2`, …: the method and
/// path name the tool instead (`get_users_by_id`).
fn has_ascii_letter(id: &str) -> bool {
    id.chars().any(|c| c.is_ascii_alphabetic())
}

/// Replaces every character MCP does not allow by `_`, collapses runs of `_`, trims
/// them from the ends and shortens to [`MAX_LEN`] ([`fit`]).
pub fn sanitize(raw: &str) -> String {
    fit(&clean(raw))
}

/// Replaces every character MCP does not allow by `_`, collapses runs of `_` and trims
/// them from the ends; any length.
pub fn clean(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') {
            c
        } else {
            '_'
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_matches('_');
    if trimmed.is_empty() {
        "operation".to_string()
    } else {
        trimmed.to_string()
    }
}

/// Length of the hash that stands for what a shortened name leaves out.
const HASH_LEN: usize = 6;

/// `name` if it is at most [`MAX_LEN`] long; else its head, a hash of the whole name
/// and its tail (`dialogflow.projects.locations_k3x9q2_environments.experiments.start`),
/// each part cut where a word ends when one ends near the cut.
pub fn fit(name: &str) -> String {
    if name.len() <= MAX_LEN {
        return name.to_string();
    }
    let room = MAX_LEN - HASH_LEN - 2;
    let head = head(name, room - room / 2);
    let tail = tail(name, room / 2);
    format!("{head}_{}_{tail}", hash(name))
}

/// Where a word starts: after `_`, `.` or `-` (a separator), or at a capital after a
/// small letter (camel case, when `camel`).
fn word_start(name: &str, at: usize, camel: bool) -> bool {
    let b = name.as_bytes();
    at > 0
        && at < b.len()
        && (matches!(b[at - 1], b'_' | b'.' | b'-')
            || camel && b[at].is_ascii_uppercase() && b[at - 1].is_ascii_lowercase())
}

/// At most `room` bytes from the start, ending where a word ends if one ends in the
/// second half of them: at a separator if there is one, as the spec's author split the
/// name (`…companyId-apiCredentials`), else in camel case.
fn head(name: &str, room: usize) -> &str {
    let mut end = room.min(name.len());
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let at = |camel: bool| (room / 2..=end).rev().find(|&i| word_start(name, i, camel));
    if let Some(at) = at(false).or_else(|| at(true)) {
        end = at;
    }
    name[..end].trim_end_matches(['_', '.', '-'])
}

/// At most `room` bytes from the end, starting where a word starts if one starts in the
/// first half of them (at a separator if there is one, else in camel case).
fn tail(name: &str, room: usize) -> &str {
    let mut start = name.len().saturating_sub(room);
    while !name.is_char_boundary(start) {
        start += 1;
    }
    let at = |camel: bool| (start..=start + room / 2).find(|&i| word_start(name, i, camel));
    if let Some(at) = at(false).or_else(|| at(true)) {
        start = at;
    }
    name[start..].trim_start_matches(['_', '.', '-'])
}

/// A short, stable digest of `name` (FNV-1a, 64 bits, in base 36): the same on every
/// import and every platform.
fn hash(name: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    (0..HASH_LEN)
        .map(|_| {
            let d = digits[(h % 36) as usize] as char;
            h /= 36;
            d
        })
        .collect()
}

/// Hands out unique names: the first holder of a name keeps it (operations are visited
/// in the spec's order), later ones get `_2`, `_3`, … within the length limit.
#[derive(Debug, Default)]
pub struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// Names that are already in use (hand-written tools of an existing config).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    /// A unique name based on `base` (of any length: it is shortened by [`fit`], and
    /// so is a numbered one, which keeps its number at the end).
    pub fn claim(&mut self, base: &str) -> String {
        let first = fit(base);
        if first != "dependency_health" && self.taken.insert(first.clone()) {
            return first;
        }
        for n in 2.. {
            let candidate = fit(&format!("{base}_{n}"));
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }
}

#[cfg(test)]
mod tests;
