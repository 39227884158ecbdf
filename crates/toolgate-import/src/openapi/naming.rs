//! Tool names: from `operationId`, else method and path; made valid for MCP
//! (`[A-Za-z0-9_.-]`, at most 64 characters) and unique, predictably.

use std::collections::HashSet;

/// Longest tool name MCP clients accept.
pub const MAX_LEN: usize = 64;

/// The name for an operation before collisions are resolved.
pub fn base_name(operation_id: Option<&str>, method: &str, path: &str) -> String {
    let raw = match operation_id.map(str::trim) {
        Some(id) if !id.is_empty() => id.to_string(),
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
    sanitize(&raw)
}

/// Replaces every character MCP does not allow by `_`, collapses runs of `_`, trims
/// them from the ends and cuts to [`MAX_LEN`].
pub fn sanitize(raw: &str) -> String {
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
    let mut name: String = if trimmed.is_empty() {
        "operation".to_string()
    } else {
        trimmed.to_string()
    };
    name.truncate(MAX_LEN);
    name
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

    /// A unique name based on `base`.
    pub fn claim(&mut self, base: &str) -> String {
        if base != "dependency_health" && self.taken.insert(base.to_string()) {
            return base.to_string();
        }
        for n in 2.. {
            let suffix = format!("_{n}");
            let mut stem = base.to_string();
            stem.truncate(MAX_LEN - suffix.len());
            let candidate = format!("{stem}{suffix}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_are_sanitised() {
        assert_eq!(
            base_name(Some("chat.postMessage"), "post", "/x"),
            "chat.postMessage"
        );
        assert_eq!(
            base_name(Some("get user/{id} (v2)"), "get", "/x"),
            "get_user_id_v2"
        );
        assert_eq!(
            base_name(Some("  "), "GET", "/users/{id}/keys"),
            "get_users_by_id_keys"
        );
        assert_eq!(base_name(None, "get", "/"), "get");
        assert_eq!(sanitize("ünïcode"), "n_code");
        assert_eq!(sanitize("___"), "operation");
        let long = "a".repeat(100);
        assert_eq!(sanitize(&long).len(), MAX_LEN);
    }

    #[test]
    fn collisions_get_numbered_suffixes_within_the_limit() {
        let mut names = Names::default();
        names.reserve("hand_written");
        assert_eq!(names.claim("list"), "list");
        assert_eq!(names.claim("list"), "list_2");
        assert_eq!(names.claim("list"), "list_3");
        assert_eq!(names.claim("hand_written"), "hand_written_2");
        assert_eq!(names.claim("dependency_health"), "dependency_health_2");
        let long = "b".repeat(MAX_LEN);
        assert_eq!(names.claim(&long), long);
        let second = names.claim(&long);
        assert_eq!(second.len(), MAX_LEN);
        assert!(second.ends_with("_2"));
    }
}
