//! An incremental `text/event-stream` parser (the WHATWG event-stream rules
//! MCP's streamable HTTP transport uses), with a cap on one line and one
//! event's data so a server cannot make us buffer without bound.
//!
//! A stream answering a list request ([`SseParser::for_list`]) reads an event's
//! data past the cap through the list filter (`list_filter.rs`) instead: its
//! entries past the cap are left out, and the rest still fits it.

use std::time::Duration;

use crate::echoed::{MAX_ECHOED, echoable};
use crate::list_filter::{ListFilter, Skipped};

/// One dispatched event: its type (`message` when the server named none) and
/// its data lines joined with `\n`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: String,
    pub data: Vec<u8>,
    /// List entries left out of `data`.
    pub skipped: Skipped,
    /// The id this event's own `id:` field set (`None`: it set none, or one
    /// that was refused), by which a repeat of it is known.
    pub id: Option<String>,
}

/// A line or an event's data grew past the limit.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Oversized;

#[derive(Debug)]
pub(crate) struct SseParser {
    max: usize,
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    event: String,
    /// Data past the cap goes through a list filter.
    list: bool,
    /// The filter this event's data goes through, once it outgrew the cap.
    filter: Option<ListFilter>,
    /// The rest of the current `data:` line goes to `filter`.
    streaming: bool,
    /// A `\r` ended the last line; a `\n` right after it is the same line end.
    after_cr: bool,
    /// The last `id:` the stream set, kept across events and reconnections
    /// (it is what `Last-Event-ID` carries when the stream is resumed).
    pub last_event_id: Option<String>,
    /// The last `retry:` the server asked for.
    pub retry: Option<Duration>,
    /// An `id:` was dropped (too long, or not a header value): the stream has
    /// no id to resume from until the server sets one that is kept.
    pub id_refused: bool,
    /// The event being read set its own id.
    own_id: bool,
}

impl SseParser {
    pub(crate) fn new(max: usize) -> Self {
        SseParser {
            max,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: String::new(),
            list: false,
            filter: None,
            streaming: false,
            after_cr: false,
            last_event_id: None,
            retry: None,
            id_refused: false,
            own_id: false,
        }
    }

    /// A parser for the answer to a list request.
    pub(crate) fn for_list(max: usize) -> Self {
        let mut parser = SseParser::new(max);
        parser.list = true;
        parser
    }

    /// A parser for a resumed stream: same limits, same last id and retry.
    pub(crate) fn resumed(&self) -> Self {
        let mut next = SseParser::new(self.max);
        next.list = self.list;
        next.last_event_id = self.last_event_id.clone();
        next.retry = self.retry;
        next.id_refused = self.id_refused;
        next
    }

    /// Feeds bytes; returns the events they completed.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, Oversized> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    i += 1;
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(&mut out)?,
                b'\r' => {
                    self.end_line(&mut out)?;
                    self.after_cr = true;
                }
                _ if self.streaming => {
                    // The rest of the line at once, up to its end.
                    let rest = &chunk[i..];
                    let n = rest
                        .iter()
                        .position(|&c| c == b'\n' || c == b'\r')
                        .unwrap_or(rest.len());
                    self.through_filter(&[&rest[..n]])?;
                    i += n;
                    continue;
                }
                _ => {
                    if self.line.len() >= self.max {
                        if !(self.list && self.line.starts_with(b"data:")) {
                            return Err(Oversized);
                        }
                        let line = std::mem::take(&mut self.line);
                        self.through_filter(&[data_value(&line)])?;
                        self.streaming = true;
                        self.has_data = true;
                        continue;
                    }
                    self.line.push(b);
                }
            }
            i += 1;
        }
        Ok(out)
    }

    /// Feeds `parts` to the event's list filter, starting it (with the data
    /// read before) if it has not started.
    fn through_filter(&mut self, parts: &[&[u8]]) -> Result<(), Oversized> {
        let filter = match &mut self.filter {
            Some(f) => f,
            None => {
                let mut f = ListFilter::new(self.max);
                f.feed(&std::mem::take(&mut self.data))
                    .map_err(|_| Oversized)?;
                self.filter.insert(f)
            }
        };
        for part in parts {
            filter.feed(part).map_err(|_| Oversized)?;
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), Oversized> {
        if self.streaming {
            // A data line read through the filter ends: its line break is the
            // data's, as any data line's is.
            self.streaming = false;
            return self.through_filter(&[b"\n"]);
        }
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            let filtered = self.filter.take().map(ListFilter::finish);
            if self.has_data {
                let (mut data, skipped) = match filtered {
                    Some(kept) => kept,
                    None => (std::mem::take(&mut self.data), Skipped::default()),
                };
                if data.last() == Some(&b'\n') {
                    data.pop();
                }
                let event = std::mem::take(&mut self.event);
                out.push(SseEvent {
                    event: if event.is_empty() {
                        "message".to_owned()
                    } else {
                        event
                    },
                    data,
                    skipped,
                    id: if self.own_id {
                        self.last_event_id.clone()
                    } else {
                        None
                    },
                });
            }
            self.data.clear();
            self.has_data = false;
            self.own_id = false;
            self.event.clear();
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // a comment (keep-alive)
        }
        let (field, value) = match line.iter().position(|&c| c == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (&line[..], &[][..]),
        };
        match field {
            b"data" => {
                self.has_data = true;
                if self.filter.is_some()
                    || (self.list && self.data.len() + value.len() + 1 > self.max)
                {
                    return self.through_filter(&[value, b"\n"]);
                }
                if self.data.len() + value.len() + 1 > self.max {
                    return Err(Oversized);
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => {
                self.own_id = !value.is_empty();
                // An empty `id:` resets the last event id.
                self.last_event_id = if value.is_empty() {
                    None
                } else if !echoable(value, true) {
                    // Dropped, not kept from before: resuming at an older id would
                    // have the server send again what was read already.
                    if !self.id_refused {
                        tracing::warn!(
                            bytes = value.len(),
                            max = MAX_ECHOED,
                            "an MCP server's event stream set an event id longer than toolgate keeps, or one no header may carry; it is dropped, so this stream is not resumed"
                        );
                    }
                    self.id_refused = true;
                    None
                } else {
                    self.id_refused = false;
                    Some(String::from_utf8_lossy(value).into_owned())
                };
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Some(ms) = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The value of a `data:` line (one space after the colon is not part of it).
fn data_value(line: &[u8]) -> &[u8] {
    let v = line.strip_prefix(b"data:").unwrap_or_default();
    v.strip_prefix(b" ").unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(p: &mut SseParser, chunks: &[&[u8]]) -> Vec<SseEvent> {
        chunks.iter().flat_map(|c| p.feed(c).unwrap()).collect()
    }

    #[test]
    fn events_split_anywhere_and_any_line_ending_parse_the_same() {
        let text =
            b"id: 1\nretry: 250\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: ping\n\nevent: x\rdata:z\r\r";
        for split in 0..text.len() {
            let mut p = SseParser::new(1024);
            let events = all(&mut p, &[&text[..split], &text[split..]]);
            assert_eq!(
                events,
                vec![
                    SseEvent {
                        event: "message".into(),
                        data: b"{\"a\":\n1}".to_vec(),
                        skipped: Skipped::default(),
                        id: Some("1".into()),
                    },
                    SseEvent {
                        event: "x".into(),
                        data: b"z".to_vec(),
                        skipped: Skipped::default(),
                        // It inherits the last id but set none of its own.
                        id: None,
                    },
                ],
                "split at {split}"
            );
            assert_eq!(p.last_event_id.as_deref(), Some("1"));
            assert_eq!(p.retry, Some(Duration::from_millis(250)));
        }
    }

    #[test]
    fn an_event_with_only_an_id_sets_the_id_without_dispatching() {
        let mut p = SseParser::new(1024);
        assert!(p.feed(b"id: prime\ndata:\n\n").unwrap().len() == 1);
        let mut p = SseParser::new(1024);
        assert!(p.feed(b"id: prime\n\n").unwrap().is_empty());
        assert_eq!(p.last_event_id.as_deref(), Some("prime"));
        assert!(p.feed(b"id\n\n").unwrap().is_empty());
        assert_eq!(p.last_event_id, None);
    }

    #[test]
    fn an_id_too_long_or_no_header_may_carry_is_dropped_not_kept() {
        let long = format!("id: {}\n\n", "i".repeat(MAX_ECHOED + 1));
        let at_limit = format!("id: {}\n\n", "i".repeat(MAX_ECHOED));
        for bad in [
            long.as_bytes(),
            b"id: a\x01b\n\n",
            "id: caf\u{e9}\n\n".as_bytes(),
        ] {
            let mut p = SseParser::new(16 << 20);
            p.feed(b"id: 7\n\n").unwrap();
            p.feed(bad).unwrap();
            // Not the earlier id either: resuming there would replay events.
            assert_eq!(p.last_event_id, None, "{:?}", String::from_utf8_lossy(bad));
            assert!(p.id_refused);
            assert!(p.resumed().id_refused);
            p.feed(b"id: 8\n\n").unwrap();
            assert_eq!(p.last_event_id.as_deref(), Some("8"));
            assert!(!p.id_refused);
        }
        let mut p = SseParser::new(16 << 20);
        p.feed(at_limit.as_bytes()).unwrap();
        assert_eq!(p.last_event_id.map(|i| i.len()), Some(MAX_ECHOED));
    }

    proptest::proptest! {
        /// Any bytes, cut anywhere: no panic, and the same events as in one piece.
        #[test]
        fn arbitrary_bytes_never_panic_and_chunking_does_not_matter(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512),
            cut in 0usize..512,
        ) {
            let cut = cut.min(bytes.len());
            let mut whole = SseParser::new(64);
            let one = whole.feed(&bytes);
            let mut parts = SseParser::new(64);
            let two = parts.feed(&bytes[..cut]).and_then(|mut a| {
                a.extend(parts.feed(&bytes[cut..])?);
                Ok(a)
            });
            if let (Ok(one), Ok(two)) = (&one, &two) {
                proptest::prop_assert_eq!(one, two);
            }
        }
    }

    #[test]
    fn a_line_or_event_past_the_limit_is_refused() {
        let mut p = SseParser::new(8);
        assert_eq!(p.feed(b"data: 0123456789\n"), Err(Oversized));
        let mut p = SseParser::new(8);
        assert_eq!(p.feed(b"data:0123\ndata:4567\n"), Err(Oversized));
    }
}
