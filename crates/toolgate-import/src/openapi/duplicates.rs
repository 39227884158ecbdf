//! Keys written twice in one mapping of a description. YAML forbids them and JSON
//! leaves them to the reader; every common reader (serde, PyYAML, `JSON.parse`) keeps
//! the last and says nothing, so a second `/users` path, a second schema of one name
//! or a second `type` silently replaces the first. A duplicate whose values differ
//! changes what the description means: it is reported with the key, where it sits and
//! the lines it is written on. One written twice the same is harmless and not reported.

use std::cell::RefCell;

use serde_json::Value;

/// Most duplicates reported for one file: past this, a count.
const MAX_REPORTED: usize = 20;

/// One key written twice, with different values, in one mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The keys leading to the mapping, innermost first (pushed on the way back up
    /// from the parse, so a description without duplicates pays nothing for them).
    pub parents: Vec<String>,
    /// The key written twice.
    pub key: String,
}

impl Duplicate {
    /// Where the mapping holding the key sits, as a JSON pointer.
    pub fn pointer(&self) -> String {
        self.parents
            .iter()
            .rev()
            .chain(std::iter::once(&self.key))
            .map(|k| format!("/{}", k.replace('~', "~0").replace('/', "~1")))
            .collect()
    }
}

/// Duplicates met while one file is parsed.
#[derive(Debug, Default)]
pub struct Found(RefCell<Vec<Duplicate>>);

impl Found {
    /// How many have been met so far.
    pub fn count(&self) -> usize {
        self.0.borrow().len()
    }

    /// Records `key`, written again in the mapping being read with a different value.
    pub fn record(&self, key: &str) {
        self.0.borrow_mut().push(Duplicate {
            parents: Vec::new(),
            key: key.to_string(),
        });
    }

    /// Names `parent` as the key above the duplicates met since the first `since`.
    pub fn inside(&self, since: usize, parent: &str) {
        for d in self.0.borrow_mut().iter_mut().skip(since) {
            d.parents.push(parent.to_string());
        }
    }

    /// The duplicates met.
    pub fn into_vec(self) -> Vec<Duplicate> {
        self.0.into_inner()
    }
}

/// One line per duplicate of the file `file` (its `text`), for the import's warnings.
pub fn report(file: &str, text: &str, found: &[Duplicate]) -> Vec<String> {
    let mut lines: Vec<String> = found
        .iter()
        .take(MAX_REPORTED)
        .map(|d| {
            let at = match lines_declaring(text, &d.key).as_slice() {
                [first, second] => format!(" (lines {first} and {second})"),
                _ => String::new(),
            };
            format!(
                "{file}: the key `{}` is written twice in `{}`{at}, with different values; the second replaces the first, as every YAML and JSON reader takes it — remove the one that is wrong",
                d.key,
                pointer_or_top(&d.parents)
            )
        })
        .collect();
    if found.len() > MAX_REPORTED {
        lines.push(format!(
            "{file}: {} more keys written twice with different values",
            found.len() - MAX_REPORTED
        ));
    }
    lines
}

fn pointer_or_top(parents: &[String]) -> String {
    if parents.is_empty() {
        return "the top level".into();
    }
    let d = Duplicate {
        parents: parents[1..].to_vec(),
        key: parents[0].clone(),
    };
    d.pointer()
}

/// The 1-based numbers of the lines that start (after indentation) with `key` as a
/// mapping key, plain or quoted. Only when the key is written on exactly two lines
/// does this say which two; a common key (`description`) is left unnamed by line.
/// Run only for a file with duplicates, at most [`MAX_REPORTED`] times.
fn lines_declaring(text: &str, key: &str) -> Vec<usize> {
    let forms = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
        format!("\"{key}\" :"),
    ];
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start().trim_start_matches("- ");
            forms.iter().any(|f| l.starts_with(f.as_str()))
        })
        .map(|(i, _)| i + 1)
        .take(3)
        .collect()
}

/// Whether two values of one key differ in what they say.
pub fn differ(first: &Value, second: &Value) -> bool {
    first != second
}
