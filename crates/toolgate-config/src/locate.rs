//! Finds the line and column of a field path (`tools.web_search.owner`) in YAML text.
//!
//! The parsed value tree has no positions, so errors found after parsing (a missing
//! owner, an unknown dependency) are located by scanning the text once: block-style
//! keys and sequence items by indentation, keys inside one-line flow mappings by
//! position. A path that is not written (a missing field) resolves to its nearest
//! written ancestor, which is where the fix goes.

use std::collections::HashMap;

/// Positions of the keys written in a YAML document, 1-based.
#[derive(Debug, Default)]
pub struct Locator {
    positions: HashMap<String, (usize, usize)>,
}

impl Locator {
    /// Indexes `text`.
    pub fn new(text: &str) -> Locator {
        let mut positions = HashMap::new();
        // (indent, path) of the enclosing block keys.
        let mut stack: Vec<(usize, String)> = Vec::new();
        let mut seq_counts: HashMap<String, usize> = HashMap::new();
        for (i, raw_line) in text.lines().enumerate() {
            let line_no = i + 1;
            let content = raw_line.trim_start();
            if content.is_empty() || content.starts_with('#') || content.starts_with("---") {
                continue;
            }
            let mut indent = raw_line.len() - content.len();
            let mut rest = content;
            while let Some(after) =
                rest.strip_prefix("- ")
                    .or(if rest == "-" { Some("") } else { None })
            {
                while stack.last().is_some_and(|(ind, _)| *ind >= indent) {
                    stack.pop();
                }
                let parent = stack.last().map(|(_, p)| p.clone()).unwrap_or_default();
                let n = seq_counts.entry(parent.clone()).or_insert(0);
                let path = join(&parent, &n.to_string());
                *n += 1;
                positions
                    .entry(path.clone())
                    .or_insert((line_no, indent + 1));
                stack.push((indent, path));
                indent += 2;
                rest = after.trim_start();
            }
            let Some((key, value_start)) = block_key(rest) else {
                continue;
            };
            while stack.last().is_some_and(|(ind, _)| *ind >= indent) {
                stack.pop();
            }
            let parent = stack.last().map(|(_, p)| p.clone()).unwrap_or_default();
            let path = join(&parent, &key);
            positions
                .entry(path.clone())
                .or_insert((line_no, indent + 1));
            let value = &rest[value_start..];
            let value_col = indent + 1 + value_start + (value.len() - value.trim_start().len());
            if value.trim_start().starts_with('{') {
                index_flow(
                    value.trim_start(),
                    &path,
                    line_no,
                    value_col,
                    &mut positions,
                );
            }
            stack.push((indent, path));
        }
        Locator { positions }
    }

    /// The position of `path`, or of its nearest written ancestor.
    pub fn find(&self, path: &str) -> Option<(usize, usize)> {
        let mut p = path;
        loop {
            if let Some(pos) = self.positions.get(p) {
                return Some(*pos);
            }
            p = &p[..p.rfind('.')?];
        }
    }
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// `key: value` at the start of `s` → (key, byte offset of the value).
fn block_key(s: &str) -> Option<(String, usize)> {
    if let Some(q) = s.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let end = s[1..].find(q)? + 1;
        let after = s[end + 1..].strip_prefix(':')?;
        if !(after.is_empty() || after.starts_with(' ')) {
            return None;
        }
        return Some((s[1..end].to_string(), end + 2));
    }
    let colon = s
        .find(": ")
        .or_else(|| s.strip_suffix(':').map(|k| k.len()))?;
    let key = &s[..colon];
    if key.is_empty() || key.contains(['{', '[', '#', '"', '\'']) {
        return None;
    }
    Some((key.trim_end().to_string(), colon + 1))
}

/// Records keys of a one-line flow mapping such as `{ q: "{query}", limit: { a: 1 } }`.
fn index_flow(
    s: &str,
    base: &str,
    line: usize,
    col0: usize,
    out: &mut HashMap<String, (usize, usize)>,
) {
    let mut paths = vec![base.to_string()];
    let mut token_start: Option<usize> = None;
    let mut last_key: Option<String> = None;
    let mut in_quote: Option<char> = None;
    let bytes: Vec<(usize, char)> = s.char_indices().collect();
    for (idx, &(pos, c)) in bytes.iter().enumerate() {
        if let Some(q) = in_quote {
            if c == q {
                in_quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                in_quote = Some(c);
                token_start.get_or_insert(pos);
            }
            '{' => {
                if idx > 0 {
                    let parent = paths.last().cloned().unwrap_or_default();
                    paths.push(
                        last_key
                            .as_ref()
                            .map(|k| join(&parent, k))
                            .unwrap_or(parent),
                    );
                }
                token_start = None;
            }
            '}' => {
                if paths.len() > 1 {
                    paths.pop();
                }
                token_start = None;
            }
            ',' | '[' | ']' => token_start = None,
            ':' => {
                if let Some(start) = token_start.take() {
                    let key = s[start..pos].trim().trim_matches(['"', '\'']).to_string();
                    let parent = paths.last().cloned().unwrap_or_default();
                    out.entry(join(&parent, &key))
                        .or_insert((line, col0 + start));
                    last_key = Some(key);
                }
            }
            c if c.is_whitespace() => {}
            _ => {
                token_start.get_or_insert(pos);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "\
gateway:
  listen: 127.0.0.1:8765
alerts:
  webhooks:
    - url: http://a
    - url: http://b
tools:
  web_search:
    dependency: search_api
    request: { method: GET, path: /v3/search, query: { q: \"{query}\", limit: 3 } }
";

    #[test]
    fn finds_block_keys_sequence_items_and_flow_keys() {
        let l = Locator::new(DOC);
        assert_eq!(l.find("gateway.listen"), Some((2, 3)));
        assert_eq!(l.find("alerts.webhooks.1.url"), Some((6, 7)));
        assert_eq!(l.find("tools.web_search.dependency"), Some((9, 5)));
        assert_eq!(l.find("tools.web_search.request.path"), Some((10, 29)));
        assert_eq!(
            l.find("tools.web_search.request.query.limit"),
            Some((10, 70))
        );
    }

    #[test]
    fn missing_fields_resolve_to_the_nearest_ancestor() {
        let l = Locator::new(DOC);
        assert_eq!(l.find("tools.web_search.owner"), Some((8, 3)));
        assert_eq!(l.find("nothing.here"), None);
    }
}
