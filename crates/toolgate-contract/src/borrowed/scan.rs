//! A direct reader of JSON text into a [`Doc`], for the call path.
//!
//! Why not only `serde_json`: every successful call's body is read into a [`Doc`] to be
//! checked, and going through serde's visitor machinery was the largest part of toolgate's
//! own CPU per call (a profile under `bench/run` put a seventh of it there). This reader
//! does the same job in one recursive descent: the text is checked as UTF-8 once, strings
//! are searched sixteen bytes at a time, and each array or object is allocated once, at its
//! exact length.
//!
//! It is exact by construction where it answers, and answers only where that is easy to
//! be: a number with a fraction or an exponent, a negative number, or an integer too
//! large for `u64` is read by `serde_json` itself (`Number`'s `FromStr`), so numbers
//! read exactly as they always did; and on anything it does not accept it answers
//! `None`, and [`Doc::parse`] asks `serde_json` for the verdict and its error message.
//! So it can only ever accept JSON `serde_json` accepts, with the same tree — which the
//! tests check on generated documents and on mutations of them.

use std::borrow::Cow;

use serde_json::Number;

use super::{Doc, merge_repeated_names};

/// Below `serde_json`'s own nesting limit (128), so this reader never accepts a document
/// `serde_json` would refuse as too deep; deeper ones go to the fallback.
const MAX_DEPTH: u32 = 100;

/// Reads `bytes` as one JSON document (surrounding whitespace allowed), or `None` when
/// it is not one this reader accepts.
/// Also says whether some object repeated a member name (see [`Doc::parse_noting_repeats`]).
pub(super) fn read(bytes: &[u8]) -> Option<(Doc<'_>, bool)> {
    let mut reader = Reader::new(bytes)?;
    let doc = reader.value()?;
    reader.at_end().then_some((doc, reader.repeated))
}

/// What a [`Reader`] does with the offset of each byte a JSON string must escape: a
/// type, so the reader that does not note them compiles with no trace of it.
pub(super) trait EscapeNotes {
    fn note(&mut self, at: usize);
}

/// Not noted.
impl EscapeNotes for () {
    #[inline]
    fn note(&mut self, _: usize) {}
}

/// Noted, in order (offsets fit: see [`Reader::noting_escapes`]).
impl EscapeNotes for Vec<u32> {
    #[inline]
    fn note(&mut self, at: usize) {
        self.push(at as u32);
    }
}

/// The reader's position in one document; its lexical parts (strings, numbers, space)
/// are shared with the contract's reading check (`read_check.rs`).
pub(super) struct Reader<'a, E: EscapeNotes = ()> {
    /// The whole input, already checked as UTF-8: strings are slices of it.
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    depth: u32,
    /// Items of the arrays being read, innermost last; each array takes its own off
    /// the end when it closes, so it is allocated once at its length.
    items: Vec<Doc<'a>>,
    /// The same for object members.
    members: Vec<(Cow<'a, str>, Doc<'a>)>,
    /// Whether an object repeated a member name.
    pub(super) repeated: bool,
    /// The member names of the objects the read check is in, innermost last (see
    /// [`Reader::note_name`]).
    names: Vec<Cow<'a, str>>,
    /// Where the bytes a JSON string must escape are, when asked for (see
    /// [`Reader::noting_escapes`]).
    escapes: E,
    /// Whether any byte of the input is below 0x20 (see [`Reader::next_special`]).
    has_controls: bool,
    /// Member names read in full (see [`Reader::member_name_is`]), for the tests.
    #[cfg(test)]
    pub(super) names_read: usize,
    /// Numbers read to their value (see [`NumberToken`]), for the tests.
    #[cfg(test)]
    pub(super) numbers_read: usize,
    /// Searches for a string's next special byte (see [`Reader::next_special`]), for
    /// the tests.
    #[cfg(test)]
    pub(super) searches: usize,
    /// Values the read check took through its general step, for the tests.
    #[cfg(test)]
    pub(super) values_stepped: usize,
}

/// The bytes after the backslash of an escaped surrogate pair (`uD83D\uDE00`).
const SURROGATE_PAIR: usize = 11;

/// Objects of more names than this are checked for a repeat by sorting their names when
/// they close rather than by comparing each new name with those before it, so an object
/// of many thousands of names costs `n log n`, not `n²`.
const COMPARED_ONE_BY_ONE: usize = 32;

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`; `None` when they are not UTF-8.
    pub(super) fn new(bytes: &'a [u8]) -> Option<Reader<'a>> {
        Reader::with_notes(bytes, ())
    }
}

impl<'a> Reader<'a, Vec<u32>> {
    /// A reader that also notes, as it goes, the offset of every byte that writing the
    /// input inside a JSON string must escape: `None` when the input is not UTF-8 or too
    /// long for `u32` offsets.
    ///
    /// Why: the answer carries the checked body a second time escaped into a text block,
    /// and finding those bytes again there was a quarter of a call's instructions. In a
    /// document this reader accepts they can only be the quotes around strings, the
    /// backslashes of escapes and the quote or backslash each escapes, and whitespace
    /// control bytes between tokens (a raw control byte inside a string is refused), so
    /// each is noted where the reader already stops at it.
    pub(super) fn noting_escapes(bytes: &'a [u8]) -> Option<Reader<'a, Vec<u32>>> {
        u32::try_from(bytes.len()).ok()?;
        // A JSON body has a quote every dozen bytes or so.
        Reader::with_notes(bytes, Vec::with_capacity(bytes.len() / 12 + 4))
    }

    /// The escape offsets noted, in order (see [`Reader::noting_escapes`]).
    pub(super) fn into_escapes(self) -> Vec<u32> {
        self.escapes
    }
}

impl<'a, E: EscapeNotes> Reader<'a, E> {
    fn with_notes(bytes: &'a [u8], escapes: E) -> Option<Reader<'a, E>> {
        Some(Reader {
            text: std::str::from_utf8(bytes).ok()?,
            bytes,
            at: 0,
            depth: 0,
            items: Vec::new(),
            members: Vec::new(),
            repeated: false,
            names: Vec::new(),
            escapes,
            // One pass the compiler vectorises (no early exit), about a sixteenth of an
            // instruction per byte.
            has_controls: bytes.iter().fold(0x20u8, |least, &b| least.min(b)) < 0x20,
            #[cfg(test)]
            names_read: 0,
            #[cfg(test)]
            numbers_read: 0,
            #[cfg(test)]
            searches: 0,
            #[cfg(test)]
            values_stepped: 0,
        })
    }

    /// Whether only whitespace is left.
    pub(super) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.at == self.bytes.len()
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn note_escape(&mut self, at: usize) {
        self.escapes.note(at);
    }

    /// Steps over whitespace. Most calls meet a token's first byte at once (compact
    /// JSON has no whitespace at all), so that test is inlined and the rest is not.
    #[inline]
    pub(super) fn skip_space(&mut self) {
        if let Some(&b) = self.bytes.get(self.at)
            && b > b' '
        {
            return;
        }
        self.skip_space_run();
    }

    /// [`Reader::skip_space`] past its first test: one space before a token (Python's
    /// `json.dumps` writes `", "` and `": "`) is stepped over first, and a longer run of
    /// spaces (an indented body's indentation) eight bytes at a time.
    #[inline(never)]
    fn skip_space_run(&mut self) {
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        if self.peek() == Some(b' ') && self.bytes.get(self.at + 1).is_some_and(|&b| b > b' ') {
            self.at += 1;
            return;
        }
        loop {
            while let Some(block) = self.bytes.get(self.at..self.at + 8) {
                let word = u64::from_le_bytes(block.try_into().unwrap_or([0; 8]));
                let other = word ^ SPACES;
                if other != 0 {
                    // Little-endian: the lowest byte that is not a space is the first.
                    self.at += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                self.at += 8;
            }
            match self.peek() {
                Some(b' ') => self.at += 1,
                Some(b'\t' | b'\n' | b'\r') => {
                    self.note_escape(self.at);
                    self.at += 1;
                }
                _ => return,
            }
        }
    }

    pub(super) fn literal(&mut self, word: &[u8], doc: Doc<'a>) -> Option<Doc<'a>> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Some(doc)
        } else {
            None
        }
    }

    pub(super) fn value(&mut self) -> Option<Doc<'a>> {
        self.skip_space();
        match self.peek()? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string().map(Doc::String),
            b't' => self.literal(b"true", Doc::Bool(true)),
            b'f' => self.literal(b"false", Doc::Bool(false)),
            b'n' => self.literal(b"null", Doc::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// Steps into an array or object (at its opening byte); `None` past the depth bound.
    pub(super) fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        self.at += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn array(&mut self) -> Option<Doc<'a>> {
        self.enter()?;
        let start = self.items.len();
        self.list_until(b']', |r| {
            let item = r.value()?;
            r.items.push(item);
            Some(())
        })?;
        self.leave();
        Some(Doc::Array(self.items.drain(start..).collect()))
    }

    fn object(&mut self) -> Option<Doc<'a>> {
        self.enter()?;
        let start = self.members.len();
        self.list_until(b'}', |r| {
            let name = r.member_name()?;
            let value = r.value()?;
            r.members.push((name, value));
            Some(())
        })?;
        self.leave();
        let mut members: Vec<_> = self.members.drain(start..).collect();
        self.repeated |= merge_repeated_names(&mut members);
        Some(Doc::Object(members))
    }

    /// Where the names of an object that has just opened start, for
    /// [`Reader::note_name`] and [`Reader::close_names`].
    pub(super) fn names_from(&self) -> usize {
        self.names.len()
    }

    /// Notes a member name of the object whose names start at `from`; `None` when that
    /// object has already named it (found here for small objects, when it closes for
    /// large ones).
    pub(super) fn note_name(&mut self, from: usize, name: Cow<'a, str>) -> Option<()> {
        let own = &self.names[from..];
        if own.len() < COMPARED_ONE_BY_ONE && own.contains(&name) {
            return None;
        }
        self.names.push(name);
        Some(())
    }

    /// Forgets the names of an object that has closed; `None` when it named a member
    /// twice.
    pub(super) fn close_names(&mut self, from: usize) -> Option<()> {
        let own = &mut self.names[from..];
        // Up to the bound, every name was compared with those before it as it came.
        let unique = own.len() <= COMPARED_ONE_BY_ONE || {
            own.sort_unstable();
            own.windows(2).all(|pair| pair[0] != pair[1])
        };
        self.names.truncate(from);
        unique.then_some(())
    }

    /// Steps out of an array or object that [`Reader::enter`] stepped into.
    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The rest of an array or object that has just opened, through `close`: `item`
    /// reads one element, and the commas between elements are read here. An empty list
    /// is allowed, a trailing comma is not.
    pub(super) fn list_until(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.skip_space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Some(());
        }
        loop {
            item(self)?;
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                b if b == close => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An object member's name and the `:` after it.
    pub(super) fn member_name(&mut self) -> Option<Cow<'a, str>> {
        #[cfg(test)]
        {
            self.names_read += 1;
        }
        self.skip_space();
        if self.peek()? != b'"' {
            return None;
        }
        let name = self.string()?;
        self.skip_space();
        if self.peek()? != b':' {
            return None;
        }
        self.at += 1;
        Some(name)
    }

    /// Whether the object member's name at the reader is written exactly as `name`, a
    /// name with no byte JSON escapes (so its text is its bytes): then the reader steps
    /// past it and the `:` after it (`None` when no `:` follows). `Some(false)` leaves the
    /// reader where it was, for [`Reader::member_name`].
    ///
    /// Why: a member's name is read and then looked up among the schema's names, a
    /// search for its closing quote and a comparison per name tried; a name the schema
    /// expects is one comparison of its bytes and a look at the byte after them.
    ///
    /// `quoted` is the same name in words (see [`QuotedName`]), for names short enough.
    pub(super) fn member_name_is(
        &mut self,
        name: &str,
        quoted: Option<&QuotedName>,
    ) -> Option<bool> {
        self.skip_space();
        let open = self.at;
        let close = open + 1 + name.len();
        let written = match (quoted, self.bytes.get(open..open + 16)) {
            (Some(quoted), Some(window)) => quoted.is_at_start_of(window),
            _ => {
                self.bytes.get(open) == Some(&b'"')
                    && self.bytes.get(open + 1..close) == Some(name.as_bytes())
                    && self.bytes.get(close) == Some(&b'"')
            }
        };
        if !written {
            return Some(false);
        }
        self.note_escape(open);
        self.note_escape(close);
        self.at = close + 1;
        self.skip_space();
        if self.peek()? != b':' {
            return None;
        }
        self.at += 1;
        Some(true)
    }

    /// A string at `"`: a slice of the input when it has no escapes.
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        self.note_escape(self.at);
        self.at += 1;
        let start = self.at;
        let end = self.next_special(start);
        match self.bytes.get(end)? {
            b'"' => {
                self.note_escape(end);
                self.at = end + 1;
                // Both ends are at ASCII quotes, so the slice is on char boundaries.
                self.text.get(start..end).map(Cow::Borrowed)
            }
            b'\\' => {
                let mut out = String::with_capacity(end - start + 16);
                self.escaped(start, end, &mut out)?;
                Some(Cow::Owned(out))
            }
            // A raw control character inside a string.
            _ => None,
        }
    }

    /// Reads a string at `"` as [`Reader::string`] does, accepting and refusing the
    /// same, without decoding it: a value no rule reads needs no copy of its text (a
    /// body that spells its non-ASCII text with `\u` escapes, as Python's `json` does by
    /// default, has one in most of its strings).
    ///
    /// Inlined where it is called: most of a body's values are strings, and a call
    /// saving and restoring the walk's registers cost a sixth of reading a short one.
    #[inline(always)]
    pub(super) fn skip_string(&mut self) -> Option<()> {
        self.note_escape(self.at);
        self.at += 1;
        let start = self.at;
        let end = self.next_special(start);
        match self.bytes.get(end)? {
            b'"' => {
                self.note_escape(end);
                self.at = end + 1;
                Some(())
            }
            b'\\' => self.escaped(start, end, &mut ()),
            _ => None,
        }
    }

    /// The first `"`, `\` or control byte at or after `from` (or the input's length).
    ///
    /// The search is for the two bytes a string ends or escapes at (see
    /// [`quote_or_backslash`]). Most bodies have no control byte anywhere (compact JSON
    /// has no newlines); in one that has some (an indented body's line breaks), the run
    /// before the byte found is tested for one in a single pass with no early exit,
    /// which the compiler vectorises, and searched byte by byte only when it holds one
    /// (a raw control character in a string, which is refused).
    #[inline]
    fn next_special(&mut self, from: usize) -> usize {
        #[cfg(test)]
        {
            self.searches += 1;
        }
        let rest = self.bytes.get(from..).unwrap_or_default();
        let end = quote_or_backslash(rest).unwrap_or(rest.len());
        if self.has_controls {
            let run = &rest[..end];
            if run.iter().fold(0x20u8, |least, &b| least.min(b)) < 0x20 {
                return from + run.iter().position(|&b| b < 0x20).unwrap_or(end);
            }
        }
        from + end
    }

    /// The rest of a string whose first escape is at `escape`, decoded into `out`. Kept
    /// out of line so that [`Reader::skip_string`], inlined, stays small.
    #[inline(never)]
    fn escaped<D: Decoded>(&mut self, start: usize, mut escape: usize, out: &mut D) -> Option<()> {
        let mut run = start;
        loop {
            out.push_str(self.text.get(run..escape)?);
            match self.bytes.get(escape)? {
                b'"' => {
                    self.note_escape(escape);
                    self.at = escape + 1;
                    return Some(());
                }
                b'\\' => {
                    self.note_escape(escape);
                    // `\"` and `\\` escape a byte that needs escaping again.
                    if let Some(b'"' | b'\\') = self.bytes.get(escape + 1) {
                        self.note_escape(escape + 1);
                    }
                }
                _ => return None,
            }
            let (decoded, used) = self.unescape(escape + 1)?;
            if used == SURROGATE_PAIR {
                // The low half's own backslash.
                self.note_escape(escape + 6);
            }
            out.push(decoded);
            run = escape + 1 + used;
            // Escapes often follow one another (`\u4e2d\u6587`): the next one is then
            // where this one ends, with no search.
            escape = match self.bytes.get(run) {
                Some(b'\\' | b'"') => run,
                _ => self.next_special(run),
            };
        }
    }

    /// The character an escape stands for (`at` is just after the `\`), and the bytes
    /// it took after the backslash.
    fn unescape(&self, at: usize) -> Option<(char, usize)> {
        let simple = match self.bytes.get(at)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4(at + 1)?;
                if !(0xD800..0xDC00).contains(&high) {
                    // A lone low surrogate is not a char: refused (serde_json decides).
                    return char::from_u32(high).map(|c| (c, 5));
                }
                // A high surrogate must be followed by an escaped low one.
                if self.bytes.get(at + 5..at + 7)? != b"\\u" {
                    return None;
                }
                let low = self.hex4(at + 7)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return None;
                }
                let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return char::from_u32(c).map(|c| (c, SURROGATE_PAIR));
            }
            _ => return None,
        };
        Some((simple, 1))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.bytes.get(at..at + 4)?;
        digits.iter().try_fold(0u32, |acc, &b| {
            let d = char::from(b).to_digit(16)?;
            Some(acc * 16 + d)
        })
    }

    /// A number in JSON's grammar. A plain non-negative integer that fits `u64` is read
    /// here; anything else is read by `serde_json`, so it reads exactly as before.
    pub(super) fn number(&mut self) -> Option<Doc<'a>> {
        let token = self.number_token()?;
        self.read_number(token).map(Doc::Number)
    }

    /// The value of a number's token, read exactly as `serde_json` reads it (`None` when
    /// it refuses it, such as a number beyond the largest float).
    pub(super) fn read_number(&mut self, token: NumberToken<'_>) -> Option<Number> {
        #[cfg(test)]
        {
            self.numbers_read += 1;
        }
        token.value()
    }

    /// A number's token, checked against JSON's grammar and not yet read (see
    /// [`NumberToken`]).
    pub(super) fn number_token(&mut self) -> Option<NumberToken<'a>> {
        let start = self.at;
        let digits = |r: &mut Reader<'a, E>| {
            let from = r.at;
            while let Some(b'0'..=b'9') = r.peek() {
                r.at += 1;
            }
            r.at - from
        };
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let int_start = self.at;
        let int_len = digits(self);
        if int_len == 0 || (int_len > 1 && self.bytes[int_start] == b'0') {
            return None;
        }
        let fraction = self.peek() == Some(b'.');
        if fraction {
            self.at += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        let exponent = matches!(self.peek(), Some(b'e' | b'E'));
        if exponent {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        let plain = !negative && !fraction && !exponent;
        let text = self.text.get(start..self.at)?;
        let shape = match (plain, fraction, exponent) {
            (true, _, _) => Shape::Digits,
            (false, true, false) if int_len <= FRACTION_WHOLE_DIGITS => {
                let whole = self
                    .text
                    .get(int_start..int_start + int_len)?
                    .parse()
                    .ok()?;
                Shape::Fraction { negative, whole }
            }
            _ => Shape::Other,
        };
        Some(NumberToken { text, shape })
    }
}

/// The most digits of a fraction's whole part that [`Shape::Fraction`] notes: below
/// 2^53, so the whole part and the next integer are exact as `f64`s.
const FRACTION_WHOLE_DIGITS: usize = 15;

/// A number's token, its grammar checked, with what that grammar already says about
/// its value.
///
/// Why: most numbers a contract judges are only checked for their kind (`integer` or
/// `number`), or against bounds their whole part already settles (a score of `0.87`
/// between 0 and 1), and `serde_json`'s exact reading of a float was most of the cost
/// of a number. A token with a fraction and no exponent is a float to `serde_json`,
/// whatever its digits (see [`Shape::Fraction`]), so it is read only when a bound needs
/// more than that.
#[derive(Debug, Clone, Copy)]
pub(super) struct NumberToken<'a> {
    text: &'a str,
    pub(super) shape: Shape,
}

/// What a number's token says about its value before it is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Shape {
    /// Digits only, no sign: an integer when it fits `u64` (a float beyond).
    Digits,
    /// A fraction with no exponent and a whole part of at most
    /// [`FRACTION_WHOLE_DIGITS`] digits: `serde_json` reads it as a float (it reads every
    /// number with a fraction or an exponent so), a finite one, that lies between
    /// `whole` and `whole + 1` (their negatives when `negative`), both included: the
    /// decimal value lies strictly between them, both are exact `f64`s, and rounding to
    /// the nearest `f64` cannot step past an `f64` on the way.
    Fraction { negative: bool, whole: u64 },
    /// Anything else (a negative integer, an exponent, a long whole part).
    Other,
}

impl NumberToken<'_> {
    /// See [`Reader::read_number`].
    fn value(&self) -> Option<Number> {
        if self.shape == Shape::Digits
            && let Ok(n) = self.text.parse::<u64>()
        {
            return Some(n.into());
        }
        self.text.parse::<Number>().ok()
    }

    /// For a [`Shape::Fraction`], the least and greatest values `serde_json` may read it
    /// as.
    pub(super) fn fraction_range(&self) -> Option<(f64, f64)> {
        let Shape::Fraction { negative, whole } = self.shape else {
            return None;
        };
        // Exact: `whole` has at most 15 digits.
        let (low, high) = (whole as f64, whole as f64 + 1.0);
        Some(if negative { (-high, -low) } else { (low, high) })
    }
}

/// Where a string's decoded text goes: a `String`, or nowhere when only whether the
/// string is valid matters.
trait Decoded {
    fn push_str(&mut self, text: &str);
    fn push(&mut self, c: char);
}

impl Decoded for String {
    #[inline]
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
    #[inline]
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

impl Decoded for () {
    #[inline]
    fn push_str(&mut self, _: &str) {}
    #[inline]
    fn push(&mut self, _: char) {}
}

/// A member name JSON writes as its own bytes, with its quotes, as two little-endian
/// words and the mask of the bytes it fills: `"title"` is compared with the body's next
/// sixteen bytes in two word comparisons, where comparing the slices was a call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct QuotedName {
    words: [u64; 2],
    masks: [u64; 2],
}

impl QuotedName {
    /// `name` in words, when it has nothing to escape and fits sixteen bytes with its
    /// quotes.
    pub(super) fn of(name: &str) -> Option<QuotedName> {
        let len = name.len() + 2;
        let plain = !name.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
        if len > 16 || !plain {
            return None;
        }
        let mut text = [0u8; 16];
        let mut filled = [0u8; 16];
        text[0] = b'"';
        text[1..len - 1].copy_from_slice(name.as_bytes());
        text[len - 1] = b'"';
        filled[..len].fill(0xff);
        let word = |bytes: &[u8; 16], half: usize| {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(&bytes[half * 8..half * 8 + 8]);
            u64::from_le_bytes(eight)
        };
        Some(QuotedName {
            words: [word(&text, 0), word(&text, 1)],
            masks: [word(&filled, 0), word(&filled, 1)],
        })
    }

    /// Whether `window` (sixteen bytes) starts with the quoted name.
    #[inline]
    fn is_at_start_of(&self, window: &[u8]) -> bool {
        let word = |half: usize| {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(&window[half * 8..half * 8 + 8]);
            u64::from_le_bytes(eight)
        };
        ((word(0) ^ self.words[0]) & self.masks[0]) | ((word(1) ^ self.words[1]) & self.masks[1])
            == 0
    }
}

/// The offset in `rest` of its first `"` or `\`.
///
/// Why not `memchr::memchr2`: it picks its vector code at run time (AVX2 where there is
/// some) through a function pointer, a call of some sixty instructions for each string,
/// where a body's strings average a few dozen bytes. SSE2 is part of every x86_64 and
/// NEON of every aarch64 processor, so their searchers always exist and inline here: the
/// first sixteen bytes of a short string are one vector comparison.
#[inline]
fn quote_or_backslash(rest: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(search) = memchr::arch::x86_64::sse2::memchr::Two::new(b'"', b'\\') {
        return search.find(rest);
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(search) = memchr::arch::aarch64::neon::memchr::Two::new(b'"', b'\\') {
        return search.find(rest);
    }
    memchr::memchr2(b'"', b'\\', rest)
}

/// The high bit of every byte of `word` that is `"`, `\` or below 0x20, and no other
/// bit. Exact per byte: each test adds within a byte's low seven bits, so no carry
/// crosses into the next byte.
#[inline]
pub fn special_mask(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let is_zero = |v: u64| !(((v & LOW7) + LOW7) | v) & HIGHS;
    let below_space = !(((word & LOW7) + ONES * 0x60) | word) & HIGHS;
    is_zero(word ^ (ONES * u64::from(b'"')))
        | is_zero(word ^ (ONES * u64::from(b'\\')))
        | below_space
}

#[cfg(test)]
#[path = "scan_tests.rs"]
pub(super) mod tests;
