//! A list answer (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`) read element by element, so that one entry
//! larger than a message may be does not make the server's other entries
//! unreadable.
//!
//! The answer's bytes pass through as they come, except the elements of
//! `result.tools` (`prompts`, `resources`, `resourceTemplates`): each is held
//! until it ends and kept only if it fits the per-message limit and what is
//! kept so far still does. An element past the limit is dropped as it grows —
//! its bytes are counted, never kept — and reported by its name when that
//! comes early and short, by its index otherwise. What is kept stays within
//! one message's limit, and the bytes read within [`LIST_READ_FACTOR`] times
//! that: a list of a gigabyte is still cut off.
//!
//! The scanner only follows JSON's structure (strings, escapes, brackets); it
//! does not check the JSON, which is parsed whole afterwards, as every message is.

/// What one list answer may be read to, as a multiple of the per-message limit:
/// entries past the limit are skipped, but reading them is not free.
pub(crate) const LIST_READ_FACTOR: usize = 8;

/// Refused entries named in [`Skipped::examples`], at most.
const EXAMPLES: usize = 10;
/// Refused entries named in [`Skipped::names`], at most: past them, only counted
/// (`too_large` and `over_total`), so a list of a million refused entries costs no more.
pub(crate) const NAMES: usize = 1024;
/// An entry's name longer than this (as written) is not read: the index names it.
const NAME_BYTES: usize = 256;
/// The longest key the scanner needs to tell apart (`resourceTemplates`).
const KEY_BYTES: usize = 24;
/// Frames followed: the message, its `result`, the list, one entry.
const TRACKED_DEPTH: usize = 4;

/// The list methods whose answers are read this way.
pub(crate) fn is_list_method(method: &str) -> bool {
    matches!(
        method,
        "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list"
    )
}

/// The entries a list answer held that were left out of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Entries larger than the per-message limit.
    pub too_large: usize,
    /// Entries that fit the limit alone, but not after those kept before them.
    pub over_total: usize,
    /// The first few of them: the entry's name (a resource template's URI
    /// template) as written, JSON escapes and all, or `#<index>` when it could not
    /// be read cheaply. For people; never shown to a model.
    pub examples: Vec<String>,
    /// The names of the first [`NAMES`] of them whose name could be read, as
    /// strings: what a reader compares with the names it expects, so that one
    /// left out is not taken for one gone. Those it does not name (their name
    /// could not be read cheaply, or came past the first [`NAMES`]) are only
    /// counted: any name expected and not listed may be one of them.
    pub names: Vec<String>,
}

impl Skipped {
    /// Nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.too_large + self.over_total == 0
    }

    fn note(&mut self, name: Option<String>, index: usize) {
        if self.examples.len() < EXAMPLES {
            self.examples
                .push(name.clone().unwrap_or_else(|| format!("#{index}")));
        }
        if let Some(name) = name
            && self.names.len() < NAMES
        {
            self.names.push(name);
        }
    }
}

/// The answer grew past what one list answer may be read to, or what it keeps
/// outside its entries grew past one message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unbounded;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Message,
    Result,
    List,
    Other,
}

struct Frame {
    object: bool,
    role: Role,
    /// The next string in this object is a key.
    expect_key: bool,
    /// The last key read in this object (cut at [`KEY_BYTES`]).
    key: Vec<u8>,
}

/// One entry being read.
struct Entry {
    bytes: Vec<u8>,
    len: usize,
    /// Past the limit: its bytes are only counted.
    dropped: bool,
    /// The entry's name key's value is being read (`None` until it is met).
    name: Option<Vec<u8>>,
    reading_name: bool,
    name_done: bool,
}

impl std::fmt::Debug for ListFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListFilter")
            .field("read", &self.read)
            .field("kept", &self.out.len())
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

pub(crate) struct ListFilter {
    max: usize,
    max_read: usize,
    read: usize,
    out: Vec<u8>,
    skipped: Skipped,
    stack: Vec<Frame>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// A key of a tracked object is being read.
    in_key: bool,
    /// Inside the list: whether an entry was kept (a comma goes before the next).
    kept_any: bool,
    /// Inside the list: the next entry's index.
    index: usize,
    /// The key that names an entry of the list being read.
    name_key: &'static [u8],
    entry: Option<Entry>,
}

impl ListFilter {
    /// Entries and what is kept at most `max` bytes; at most
    /// [`LIST_READ_FACTOR`] × `max` bytes read.
    pub(crate) fn new(max: usize) -> Self {
        ListFilter {
            max,
            max_read: max.saturating_mul(LIST_READ_FACTOR),
            read: 0,
            out: Vec::new(),
            skipped: Skipped::default(),
            stack: Vec::new(),
            depth: 0,
            in_string: false,
            escaped: false,
            in_key: false,
            kept_any: false,
            index: 0,
            name_key: b"name",
            entry: None,
        }
    }

    /// Feeds the next bytes of the answer.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<(), Unbounded> {
        self.read = self.read.saturating_add(bytes.len());
        if self.read > self.max_read {
            return Err(Unbounded);
        }
        for &b in bytes {
            self.byte(b)?;
        }
        Ok(())
    }

    /// The answer as kept, and what was left out.
    pub(crate) fn finish(mut self) -> (Vec<u8>, Skipped) {
        if self.entry.is_some() {
            // The answer ended inside an entry: it is not JSON, and the parse
            // that follows says so; the entry's bytes are kept for it to read.
            self.end_entry();
        }
        (self.out, self.skipped)
    }

    fn in_list(&self) -> bool {
        self.depth > 0
            && self.depth <= TRACKED_DEPTH
            && self.stack.last().is_some_and(|f| f.role == Role::List)
    }

    fn byte(&mut self, b: u8) -> Result<(), Unbounded> {
        if self.entry.is_some() {
            let list_level = !self.in_string && self.in_list();
            if list_level && matches!(b, b',' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                self.end_entry();
            } else {
                self.entry_byte(b);
                self.lex(b);
                return Ok(());
            }
        }
        if !self.in_string && self.in_list() {
            match b {
                b',' | b' ' | b'\t' | b'\r' | b'\n' => return Ok(()),
                b']' => {}
                _ => {
                    self.entry = Some(Entry {
                        bytes: Vec::new(),
                        len: 0,
                        dropped: false,
                        name: None,
                        reading_name: false,
                        name_done: false,
                    });
                    self.entry_byte(b);
                    self.lex(b);
                    return Ok(());
                }
            }
        }
        if self.out.len() >= self.max {
            return Err(Unbounded);
        }
        self.out.push(b);
        self.lex(b);
        Ok(())
    }

    fn entry_byte(&mut self, b: u8) {
        let max = self.max;
        let Some(entry) = self.entry.as_mut() else {
            return;
        };
        entry.len = entry.len.saturating_add(1);
        if !entry.dropped {
            if entry.len > max {
                entry.dropped = true;
                entry.bytes = Vec::new();
            } else {
                entry.bytes.push(b);
            }
        }
    }

    fn end_entry(&mut self) {
        let Some(entry) = self.entry.take() else {
            return;
        };
        let index = self.index;
        self.index += 1;
        let name = entry
            .name
            .filter(|_| entry.name_done)
            .and_then(|n| serde_json::from_slice::<String>(&n).ok());
        if entry.dropped {
            self.skipped.too_large += 1;
            self.skipped.note(name, index);
            return;
        }
        let comma = usize::from(self.kept_any);
        if self.out.len() + comma + entry.bytes.len() > self.max {
            self.skipped.over_total += 1;
            self.skipped.note(name, index);
            return;
        }
        if self.kept_any {
            self.out.push(b',');
        }
        self.out.extend_from_slice(&entry.bytes);
        self.kept_any = true;
    }

    /// Follows JSON's structure: strings, keys of the tracked objects, brackets.
    fn lex(&mut self, b: u8) {
        if self.in_string {
            let closing = !self.escaped && b == b'"';
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            }
            if closing {
                self.in_string = false;
            }
            if self.in_key {
                if closing {
                    self.in_key = false;
                } else if let Some(frame) = self.tracked_top().and_then(|i| self.stack.get_mut(i))
                    && frame.key.len() <= KEY_BYTES
                {
                    frame.key.push(b);
                }
                return;
            }
            self.name_byte(b, closing);
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if let Some(frame) = self.tracked_top().and_then(|i| self.stack.get_mut(i))
                    && frame.object
                    && frame.expect_key
                {
                    frame.expect_key = false;
                    frame.key.clear();
                    self.in_key = true;
                } else {
                    self.value_started(true);
                    self.name_byte(b, false);
                }
            }
            b'{' | b'[' => {
                self.value_started(false);
                let role = self.role_of(b);
                self.depth += 1;
                if self.depth <= TRACKED_DEPTH {
                    if role == Role::List {
                        self.kept_any = false;
                        self.index = 0;
                    }
                    self.stack.push(Frame {
                        object: b == b'{',
                        role,
                        expect_key: b == b'{',
                        key: Vec::new(),
                    });
                }
            }
            b'}' | b']' => {
                if self.depth > 0 && self.depth <= TRACKED_DEPTH {
                    self.stack.pop();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' => {
                if let Some(frame) = self.tracked_top().and_then(|i| self.stack.get_mut(i))
                    && frame.object
                {
                    frame.expect_key = true;
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' | b':' => {}
            _ => self.value_started(false),
        }
    }

    /// The index of the innermost frame, if the scanner follows it.
    fn tracked_top(&self) -> Option<usize> {
        (self.depth > 0 && self.depth <= TRACKED_DEPTH).then(|| self.depth - 1)
    }

    /// The role of the container `open` starts at the current position.
    fn role_of(&self, open: u8) -> Role {
        let Some(parent) = self.tracked_top().and_then(|i| self.stack.get(i)) else {
            return if self.depth == 0 && open == b'{' {
                Role::Message
            } else {
                Role::Other
            };
        };
        match (parent.role, open) {
            (Role::Message, b'{') if parent.key == b"result" => Role::Result,
            (Role::Result, b'[') if list_key(&parent.key).is_some() => Role::List,
            _ => Role::Other,
        }
    }

    /// A value starts in the current container: in an entry's own object, the
    /// value of its name key is read if it is a string.
    fn value_started(&mut self, string: bool) {
        if self.depth == 2
            && let Some(frame) = self.stack.get(1)
            && frame.role == Role::Result
            && let Some(key) = list_key(&frame.key)
        {
            self.name_key = key;
        }
        let entry_object = self.depth == TRACKED_DEPTH
            && self
                .stack
                .get(TRACKED_DEPTH - 2)
                .is_some_and(|f| f.role == Role::List)
            && self
                .stack
                .last()
                .is_some_and(|f| f.object && f.key == self.name_key);
        if let Some(entry) = self.entry.as_mut()
            && entry_object
            && entry.name.is_none()
        {
            // Only the first value of the name key counts; one that is not a
            // string names nothing.
            entry.name = Some(Vec::new());
            entry.reading_name = string;
        }
    }

    /// One byte of a string value (its quotes included): kept when it is the
    /// name being read.
    fn name_byte(&mut self, b: u8, closing: bool) {
        let Some(entry) = self.entry.as_mut() else {
            return;
        };
        if !entry.reading_name {
            return;
        }
        let Some(name) = entry.name.as_mut() else {
            return;
        };
        if name.len() >= NAME_BYTES {
            entry.reading_name = false;
            return;
        }
        name.push(b);
        if closing {
            entry.reading_name = false;
            entry.name_done = true;
        }
    }
}

/// The key naming a list entry, when `key` is one of the lists read this way.
fn list_key(key: &[u8]) -> Option<&'static [u8]> {
    match key {
        b"tools" | b"prompts" | b"resources" => Some(b"name"),
        b"resourceTemplates" => Some(b"uriTemplate"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn filter(text: &[u8], max: usize, chunk: usize) -> Result<(Value, Skipped), Unbounded> {
        let mut f = ListFilter::new(max);
        for part in text.chunks(chunk.max(1)) {
            f.feed(part)?;
        }
        let (out, skipped) = f.finish();
        let value = serde_json::from_slice(&out).expect("the kept answer is JSON");
        Ok((value, skipped))
    }

    fn tool(name: &str, description_bytes: usize) -> Value {
        json!({"name": name, "description": "d".repeat(description_bytes), "inputSchema": {"type": "object"}})
    }

    fn names(v: &Value, key: &str) -> Vec<String> {
        v["result"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn an_entry_past_the_limit_is_left_out_by_name_and_the_others_kept() {
        let answer = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "tools": [tool("a", 10), tool("big", 5000), tool("c", 10)],
            "nextCursor": "n"
        }});
        let text = serde_json::to_vec(&answer).unwrap();
        for chunk in [1, 7, 4096] {
            let (kept, skipped) = filter(&text, 1024, chunk).unwrap();
            assert_eq!(names(&kept, "tools"), ["a", "c"], "chunks of {chunk}");
            assert_eq!(kept["result"]["nextCursor"], "n");
            assert_eq!(kept["id"], 3);
            assert_eq!(skipped.too_large, 1);
            assert_eq!(skipped.examples, ["big"]);
        }
    }

    #[test]
    fn an_answer_within_the_limit_passes_unchanged() {
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("a", 10), tool("b", 10)], "x": [1, [2]]}});
        let text = serde_json::to_vec_pretty(&answer).unwrap();
        let (kept, skipped) = filter(&text, 1 << 20, 5).unwrap();
        assert_eq!(kept, answer);
        assert!(skipped.is_empty());
    }

    #[test]
    fn a_name_that_is_long_or_not_a_string_is_told_by_index() {
        // A short name is read wherever it comes (the skipped bytes are scanned anyway).
        let late = json!({"description": "d".repeat(3000), "name": "late"});
        let long = json!({"name": "n".repeat(1000), "description": "d".repeat(3000)});
        let odd = json!({"name": {"name": "inner"}, "description": "d".repeat(3000)});
        let answer = json!({"id": 1, "result": {"prompts": [{"name": "ok"}, late, long, odd]}});
        let (kept, skipped) = filter(&serde_json::to_vec(&answer).unwrap(), 2048, 64).unwrap();
        assert_eq!(names(&kept, "prompts"), ["ok"]);
        assert_eq!(skipped.examples, ["late", "#2", "#3"]);
    }

    #[test]
    fn a_resource_template_is_named_by_its_uri_template() {
        let big = json!({"uriTemplate": "file:///{path}", "name": "files", "description": "d".repeat(3000)});
        let answer = json!({"id": 1, "result": {"resourceTemplates": [big, {"uriTemplate": "x://{y}", "name": "x"}]}});
        let (kept, skipped) = filter(&serde_json::to_vec(&answer).unwrap(), 2048, 100).unwrap();
        assert_eq!(
            kept["result"]["resourceTemplates"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(skipped.examples, ["file:///{path}"]);
    }

    #[test]
    fn entries_left_out_are_named_past_the_examples() {
        // Past the first few examples, every entry left out is named (up to NAMES),
        // so a reader can tell "not listed" from "left out".
        for (count, max, chunk) in [(25, 2048, 333), (3000, 32 << 10, 4096)] {
            let mut tools: Vec<Value> = (0..count)
                .map(|i| tool(&format!("t{i}"), 300 * usize::from(count < 100)))
                .collect();
            tools.push(json!({"name": "n".repeat(1000), "description": "d".repeat(max + 10)}));
            let answer = json!({"id": 1, "result": {"tools": tools}});
            let (kept, skipped) =
                filter(&serde_json::to_vec(&answer).unwrap(), max, chunk).unwrap();
            let left_out = skipped.too_large + skipped.over_total;
            assert_eq!(left_out, count + 1 - names(&kept, "tools").len());
            assert_eq!(skipped.examples.len(), EXAMPLES);
            let last_named = skipped.names.last().unwrap();
            if left_out > NAMES {
                assert_eq!(skipped.names.len(), NAMES);
            } else {
                // The one whose name is too long to read is the only one unnamed.
                assert_eq!(skipped.names.len(), left_out - 1, "{count}");
                assert_eq!(last_named, &format!("t{}", count - 1));
            }
        }
    }

    #[test]
    fn entries_that_fit_alone_but_not_together_are_over_the_total() {
        let tools: Vec<Value> = (0..10).map(|i| tool(&format!("t{i}"), 300)).collect();
        let answer = json!({"id": 1, "result": {"tools": tools}});
        let (kept, skipped) = filter(&serde_json::to_vec(&answer).unwrap(), 2048, 333).unwrap();
        let n = names(&kept, "tools").len();
        assert!((4..10).contains(&n), "{n}");
        assert_eq!(skipped.over_total, 10 - n);
        assert_eq!(skipped.too_large, 0);
    }

    #[test]
    fn what_is_read_and_kept_outside_the_entries_is_bounded() {
        // One entry of 50 times the limit: skipped, read within the bound.
        let huge = format!(
            r#"{{"id":1,"result":{{"tools":[{{"name":"h","d":"{}"}}]}}}}"#,
            "x".repeat(1000)
        );
        let mut f = ListFilter::new(100);
        assert_eq!(
            f.feed(huge.as_bytes()),
            Err(Unbounded),
            "1000 bytes past a read bound of 800"
        );
        let mut f = ListFilter::new(200);
        f.feed(huge.as_bytes()).unwrap();
        let (out, skipped) = f.finish();
        assert_eq!(skipped.too_large, 1);
        assert!(out.len() < 200);
        // Not a list: kept outside any entry, so bounded by the limit.
        let mut f = ListFilter::new(100);
        let other = format!(r#"{{"id":1,"result":{{"content":"{}"}}}}"#, "x".repeat(300));
        assert_eq!(f.feed(other.as_bytes()), Err(Unbounded));
    }

    #[test]
    fn lists_elsewhere_in_the_message_are_not_entries() {
        for text in [
            json!({"id": 1, "result": {"structuredContent": {"tools": [tool("a", 3000)]}}}),
            json!({"id": 1, "params": {"tools": [tool("a", 3000)]}}),
            json!({"id": 1, "result": [{"tools": [tool("a", 3000)]}]}),
        ] {
            let mut f = ListFilter::new(2048);
            assert_eq!(
                f.feed(&serde_json::to_vec(&text).unwrap()),
                Err(Unbounded),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_and_stay_bounded(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048),
            max in 1usize..256,
        ) {
            let mut f = ListFilter::new(max);
            let fed = f.feed(&bytes);
            let (out, skipped) = f.finish();
            if fed.is_ok() {
                proptest::prop_assert!(out.len() <= max);
            }
            proptest::prop_assert!(skipped.examples.len() <= EXAMPLES);
            proptest::prop_assert!(skipped.names.len() <= NAMES);
        }

        /// Under the limit, any JSON passes byte for byte.
        #[test]
        fn small_json_passes_unchanged(names in proptest::collection::vec("[a-z\"\\\\ ]{0,12}", 0..8)) {
            let tools: Vec<Value> = names.iter().map(|n| json!({"name": n})).collect();
            let answer = json!({"id": 1, "result": {"tools": tools, "other": names}});
            let text = serde_json::to_vec(&answer).unwrap();
            let mut f = ListFilter::new(1 << 16);
            f.feed(&text).unwrap();
            let (out, skipped) = f.finish();
            proptest::prop_assert_eq!(out, text);
            proptest::prop_assert!(skipped.is_empty());
        }
    }
}
