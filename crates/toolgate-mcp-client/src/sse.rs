//! An incremental `text/event-stream` parser (the WHATWG event-stream rules
//! MCP's streamable HTTP transport uses), with a cap on one line and one
//! event's data so a server cannot make us buffer without bound.

use std::time::Duration;

/// One dispatched event: its type (`message` when the server named none) and
/// its data lines joined with `\n`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: String,
    pub data: Vec<u8>,
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
    /// A `\r` ended the last line; a `\n` right after it is the same line end.
    after_cr: bool,
    /// The last `id:` the stream set, kept across events and reconnections
    /// (it is what `Last-Event-ID` carries when the stream is resumed).
    pub last_event_id: Option<String>,
    /// The last `retry:` the server asked for.
    pub retry: Option<Duration>,
}

impl SseParser {
    pub(crate) fn new(max: usize) -> Self {
        SseParser {
            max,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: String::new(),
            after_cr: false,
            last_event_id: None,
            retry: None,
        }
    }

    /// A parser for a resumed stream: same limits, same last id and retry.
    pub(crate) fn resumed(&self) -> Self {
        let mut next = SseParser::new(self.max);
        next.last_event_id = self.last_event_id.clone();
        next.retry = self.retry;
        next
    }

    /// Feeds bytes; returns the events they completed.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, Oversized> {
        let mut out = Vec::new();
        for &b in chunk {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(&mut out)?,
                b'\r' => {
                    self.end_line(&mut out)?;
                    self.after_cr = true;
                }
                _ => {
                    if self.line.len() >= self.max {
                        return Err(Oversized);
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(out)
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), Oversized> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if self.has_data {
                let mut data = std::mem::take(&mut self.data);
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
                });
            }
            self.data.clear();
            self.has_data = false;
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
                if self.data.len() + value.len() + 1 > self.max {
                    return Err(Oversized);
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => {
                // An empty `id:` resets the last event id.
                self.last_event_id = if value.is_empty() {
                    None
                } else {
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
                        data: b"{\"a\":\n1}".to_vec()
                    },
                    SseEvent {
                        event: "x".into(),
                        data: b"z".to_vec()
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
