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
mod tests;
