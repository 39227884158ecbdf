//! A cheap bound on how deeply a YAML (or JSON) text nests its flow collections
//! (`[…]`, `{…}`), checked before the parser runs: the YAML parser's work grows with
//! the square of the flow depth, so 200 KB of `[[[[…` would cost a minute of CPU
//! before failing.
//!
//! Brackets inside quoted scalars, comments and verbatim tags do not nest, so the scan
//! has to know where those are; but where a quoted scalar starts depends on YAML
//! structure a cheap scan does not have (`it 's` is plain text, `- 's'` is a quoted
//! scalar). Instead of guessing, the scan follows every reading at once: at each quote
//! character that could open a quoted scalar (after whitespace, a line start, or one of
//! `[{,:`), one reading opens it and another treats it as text. The readings are kept
//! as a set of possible (state, depth) pairs — a bit per depth for each state — so the
//! scan is linear in the text. The parser's reading is always one of them, so the
//! deepest depth any reading reaches is at least the real one: text the parser would
//! nest too deeply can never slip past. What a wrong reading adds is the odd unmatched
//! bracket inside a string, far below the limit in real documents.

/// The first line (1-based) and column (1-based, in characters) where the depth limit
/// is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

/// What a reading is inside of.
#[derive(Clone, Copy)]
enum State {
    /// Structure or plain text.
    Plain,
    /// A single-quoted scalar.
    Single,
    /// Just after a `'` inside a single-quoted scalar: `''` is an escaped quote,
    /// anything else means the scalar ended.
    SingleQuote,
    /// A double-quoted scalar.
    Double,
    /// Just after a `\` inside a double-quoted scalar.
    DoubleEscape,
    /// A comment, to the end of the line.
    Comment,
    /// A verbatim tag `!<…>`.
    Tag,
}

const STATES: usize = 7;

/// Depths 0..=126 fit one `u128` per state; deeper limits are not useful.
const MAX_LIMIT: usize = 126;

/// `Ok` when no reading of `text` nests flow collections deeper than `limit`;
/// otherwise where the first reading does.
pub fn check(text: &str, limit: usize) -> Result<(), Position> {
    let limit = limit.min(MAX_LIMIT);
    let over: u128 = 1 << (limit + 1);
    // sets[state] has bit d set when some reading is in `state` at depth d.
    let mut sets = [0u128; STATES];
    sets[State::Plain as usize] = 1;
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    let (mut line, mut column) = (1, 0);
    // The block scalar the structural reading is inside, which it sits out.
    let mut block: Option<Block> = None;
    while let Some((at, c)) = chars.next() {
        if prev.is_none_or(|p| p == '\n') {
            let this = text[at..].split('\n').next().unwrap_or("");
            if let Some(b) = &mut block
                && !b.holds(this)
            {
                block = None;
                sets[State::Plain as usize] |= 1;
            }
        }
        if c == '\n' {
            let this = text[..at].rsplit('\n').next().unwrap_or("");
            if block.is_none()
                && sets[State::Plain as usize] & 1 != 0
                && let Some(opened) = Block::opened_by(this)
            {
                block = Some(opened);
                sets[State::Plain as usize] &= !1;
            }
        }
        if c == '\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
        let next = chars.peek().map(|&(_, n)| n);
        let after_space = prev.is_none_or(char::is_whitespace);
        let may_start = after_space || matches!(prev, Some('[' | '{' | ',' | ':'));
        let mut out = [0u128; STATES];
        let plain = |bits: u128, out: &mut [u128; STATES]| {
            if bits == 0 {
                return;
            }
            match c {
                '[' | '{' => out[State::Plain as usize] |= bits << 1,
                ']' | '}' => out[State::Plain as usize] |= (bits >> 1) | (bits & 1),
                '#' if after_space => out[State::Comment as usize] |= bits,
                '\'' if may_start => {
                    out[State::Single as usize] |= bits;
                    out[State::Plain as usize] |= bits;
                }
                '"' if may_start => {
                    out[State::Double as usize] |= bits;
                    out[State::Plain as usize] |= bits;
                }
                '!' if may_start && next == Some('<') => {
                    out[State::Tag as usize] |= bits;
                    out[State::Plain as usize] |= bits;
                }
                _ => out[State::Plain as usize] |= bits,
            }
        };
        plain(sets[State::Plain as usize], &mut out);
        let single = sets[State::Single as usize];
        match c {
            '\'' => out[State::SingleQuote as usize] |= single,
            _ => out[State::Single as usize] |= single,
        }
        let quote = sets[State::SingleQuote as usize];
        match c {
            '\'' => out[State::Single as usize] |= quote,
            _ => plain(quote, &mut out),
        }
        let double = sets[State::Double as usize];
        match c {
            '\\' => out[State::DoubleEscape as usize] |= double,
            '"' => out[State::Plain as usize] |= double,
            _ => out[State::Double as usize] |= double,
        }
        out[State::Double as usize] |= sets[State::DoubleEscape as usize];
        let comment = sets[State::Comment as usize];
        match c {
            '\n' => out[State::Plain as usize] |= comment,
            _ => out[State::Comment as usize] |= comment,
        }
        let tag = sets[State::Tag as usize];
        if c == '>' || c.is_whitespace() {
            out[State::Plain as usize] |= tag;
        } else {
            out[State::Tag as usize] |= tag;
        }
        if out.iter().any(|bits| bits & over != 0) {
            return Err(Position { line, column });
        }
        sets = out;
        prev = Some(c);
    }
    Ok(())
}

/// A block scalar (`key: |`) the structural reading has entered: its lines are text,
/// so that reading leaves the scan at the indicator's line end and comes back at the
/// first line indented no deeper than the key's. Code samples in descriptions fill such
/// blocks with quotes and brackets that never balance; read as structure by the other
/// readings, 30,000 lines of them add up past any limit. The other readings still scan
/// the block, so a reading the indicator does not open a block for loses nothing.
struct Block {
    /// The indentation of the line with the indicator.
    parent: usize,
    /// The indentation of the block's first line with text, once met.
    content: Option<usize>,
}

impl Block {
    /// The block a line opens for the structural reading at depth 0: a line of plain
    /// words ending in `|` or `>` with at most a chomping indicator (`key: |-`,
    /// `- |`, `- key: >`). A line holding a quote, a comment, a bracket, a tag, an
    /// anchor or an indentation digit opens none, so every reading of it agrees.
    fn opened_by(line: &str) -> Option<Block> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let body = line.trim_end();
        let body = body.strip_suffix(['+', '-']).unwrap_or(body);
        let rest = body.strip_suffix(['|', '>'])?;
        if !(rest.is_empty() || rest.ends_with(' ')) {
            return None;
        }
        let plain = rest.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, ' ' | ':' | '-' | '_' | '.' | '/' | '$' | '@')
        });
        let parent = indentation(line);
        plain.then_some(Block {
            parent,
            content: None,
        })
    }

    /// Whether the line is still the block's text: blank, or indented at least as far
    /// as the block's first line with text, which is indented deeper than the key.
    fn holds(&mut self, line: &str) -> bool {
        if line.trim().is_empty() {
            return true;
        }
        let indent = indentation(line);
        match self.content {
            Some(content) => indent >= content,
            None if indent > self.parent => {
                self.content = Some(indent);
                true
            }
            None => false,
        }
    }
}

/// The spaces a line starts with.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests;
