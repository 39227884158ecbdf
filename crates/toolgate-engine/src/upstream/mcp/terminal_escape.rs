//! Terminal control sequences in a tool's result text: which only style what a terminal
//! shows, and which change what it shows.
//!
//! A result's text reaches clients that draw it in a terminal (command-line agents, log
//! views), and the model reads it as written. A sequence that colours text hides nothing
//! (a shell's coloured output is data a tool may return), but the rest of ECMA-48 lets
//! a server show a person one thing while the model reads another:
//!
//! - cursor moves and erasures (`ESC[1A`, `ESC[2K`, `ESC[2J`, `ESC[H`): a later line
//!   is drawn over an instruction, which the model still reads;
//! - the conceal attribute (SGR 8): text drawn as blanks;
//! - operating system commands (`ESC]…`): an OSC 8 hyperlink whose target is not the
//!   text shown, a window title, a clipboard write (OSC 52);
//! - device control, privacy and application strings (`ESC P`, `ESC ^`, `ESC _`,
//!   `ESC X`): payloads a terminal consumes and never draws;
//! - the one-character forms of these introducers (C1 controls such as U+009B CSI).
//!
//! [`sequence`] reads a sequence from its introducer, so the whole of a dropped one goes
//! (its parameters would otherwise show as stray text) and a styling one is kept whole.

use std::str::Chars;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// STRING TERMINATOR as one character; `ESC \` is its two-character form.
const ST: char = '\u{9c}';
/// SGR parameter that draws text as blanks.
const CONCEAL: &str = "8";

/// A control sequence starting at an introducer: the characters after the introducer
/// that belong to it, and whether it only styles text (kept).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Sequence {
    pub(crate) after: usize,
    pub(crate) styles_only: bool,
}

/// The sequence `c` introduces, read from `after` (what follows it); `None` when `c`
/// introduces none. An unterminated sequence runs as far as a terminal would read it:
/// a string command to the end of the text, as the terminal would swallow it.
pub(crate) fn sequence(c: char, after: Chars<'_>) -> Option<Sequence> {
    let dropped = |after: usize| Sequence {
        after,
        styles_only: false,
    };
    match c {
        ESC => {
            let mut rest = after;
            Some(match rest.next() {
                Some('[') => {
                    let csi = control(rest);
                    Sequence {
                        after: csi.after + 1,
                        ..csi
                    }
                }
                Some(']' | 'P' | 'X' | '^' | '_') => dropped(1 + command_string(rest)),
                // An escape sequence: intermediates, then a final character.
                Some(' '..='/') => {
                    let more = rest.clone().take_while(|n| (' '..='/').contains(n)).count();
                    let finished = rest.nth(more).is_some_and(|f| ('0'..='~').contains(&f));
                    dropped(1 + more + usize::from(finished))
                }
                Some('0'..='~') => dropped(1),
                _ => dropped(0),
            })
        }
        '\u{9b}' => Some(control(after)),
        '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => {
            Some(dropped(command_string(after)))
        }
        _ => None,
    }
}

/// A control sequence's parameters, intermediates and final character (the part after
/// `CSI`); only a complete `SGR` without the conceal attribute styles only.
fn control(rest: Chars<'_>) -> Sequence {
    let text = rest.as_str();
    let parameters = text
        .find(|p: char| !('0'..='?').contains(&p))
        .unwrap_or(text.len());
    let intermediates = text[parameters..]
        .find(|i: char| !(' '..='/').contains(&i))
        .map_or(text.len(), |n| parameters + n);
    let last = text[intermediates..].chars().next();
    let finished = last.is_some_and(|f| ('@'..='~').contains(&f));
    let styles_only = finished
        && last == Some('m')
        && intermediates == parameters
        && shows_text(&text[..parameters]);
    // Every character before the final one is ASCII, so bytes count characters.
    Sequence {
        after: intermediates + usize::from(finished),
        styles_only,
    }
}

/// Whether an SGR's parameters leave text visible: digits and separators only, and no
/// conceal attribute (a colour's index or component `8` is no attribute: `38;5;8` is
/// grey).
fn shows_text(parameters: &str) -> bool {
    if !parameters
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b';' || b == b':')
    {
        return false;
    }
    let mut fields = parameters.split(';');
    while let Some(field) = fields.next() {
        match field {
            CONCEAL => return false,
            // Extended colour: `5;index` or `2;r;g;b` follow (colon forms are one field).
            "38" | "48" | "58" => match fields.next() {
                Some("5") => {
                    fields.next();
                }
                Some("2") => {
                    fields.nth(2);
                }
                _ => {}
            },
            _ => {}
        }
    }
    true
}

/// The characters of a command string (OSC, DCS, SOS, PM, APC) up to and including its
/// terminator: BEL, `ST` or `ESC \`.
fn command_string(rest: Chars<'_>) -> usize {
    let mut count = 0;
    let mut rest = rest.peekable();
    while let Some(c) = rest.next() {
        count += 1;
        match c {
            BEL | ST => return count,
            ESC if rest.peek() == Some(&'\\') => return count + 1,
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Sequence> {
        let mut chars = text.chars();
        let c = chars.next()?;
        sequence(c, chars)
    }

    fn kept(after: usize) -> Option<Sequence> {
        Some(Sequence {
            after,
            styles_only: true,
        })
    }

    fn dropped(after: usize) -> Option<Sequence> {
        Some(Sequence {
            after,
            styles_only: false,
        })
    }

    #[test]
    fn colours_and_emphasis_style_only() {
        assert_eq!(read("\u{1b}[0m"), kept(3));
        assert_eq!(read("\u{1b}[m rest"), kept(2));
        assert_eq!(read("\u{1b}[1;31mred"), kept(6));
        assert_eq!(read("\u{1b}[38;5;8mgrey"), kept(8));
        assert_eq!(read("\u{1b}[38;2;8;8;8m"), kept(12));
        assert_eq!(read("\u{1b}[38:5:8m"), kept(8));
        assert_eq!(read("\u{9b}32m"), kept(3));
    }

    #[test]
    fn moves_erasures_and_concealment_are_dropped_whole() {
        assert_eq!(read("\u{1b}[8msecret"), dropped(3));
        assert_eq!(read("\u{1b}[1;8m"), dropped(5));
        assert_eq!(read("\u{1b}[2K\u{1b}[1A"), dropped(3));
        assert_eq!(read("\u{1b}[?25l"), dropped(5));
        assert_eq!(read("\u{1b}[2J"), dropped(3));
        assert_eq!(read("\u{9b}1A"), dropped(2));
        // Unfinished: as far as it reads as a sequence.
        assert_eq!(read("\u{1b}[12"), dropped(3));
        assert_eq!(read("\u{1b}[12\u{e9}"), dropped(3));
    }

    #[test]
    fn command_strings_end_at_their_terminator() {
        let link = "\u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\";
        assert_eq!(read(link), dropped(27));
        assert_eq!(read("\u{1b}]0;title\u{7}after"), dropped(9));
        assert_eq!(read("\u{1b}]52;c;aGk=\u{9c}x"), dropped(11));
        assert_eq!(read("\u{1b}Pq#0\u{1b}\\"), dropped(6));
        assert_eq!(read("\u{1b}_never ends"), dropped(11));
        assert_eq!(read("\u{9d}0;t\u{7}"), dropped(4));
    }

    #[test]
    fn other_escapes_and_plain_characters() {
        assert_eq!(read("\u{1b}(0lqk"), dropped(2));
        assert_eq!(read("\u{1b}7"), dropped(1));
        assert_eq!(read("\u{1b}"), dropped(0));
        assert_eq!(read("\u{1b}\u{e9}"), dropped(0));
        assert_eq!(read("a"), None);
        assert_eq!(read("\u{85}"), None);
    }
}
