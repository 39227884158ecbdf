//! Finds a JSON-RPC message's top-level `id` in a stream of bytes without
//! keeping them: an over-long stdio line is skipped, yet the request it
//! answers must still learn that its answer was too large.

#[derive(Debug, Default)]
pub(crate) struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    in_key: bool,
    key_done: bool,
    key: Vec<u8>,
    in_id: bool,
    id_text: Vec<u8>,
    id: Option<i64>,
    /// A top-level `method`: a request or notification from the server,
    /// whose id (if any) is the server's, not one of ours.
    has_method: bool,
}

impl IdScanner {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    /// The top-level integer `id` of an answer, once its value has ended.
    pub(crate) fn id(&self) -> Option<i64> {
        self.id.filter(|_| !self.has_method)
    }

    fn finish_id(&mut self) {
        if self.in_id {
            self.in_id = false;
            if self.id.is_none() {
                self.id = std::str::from_utf8(&self.id_text)
                    .ok()
                    .and_then(|s| s.parse().ok());
            }
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    self.key_done = true;
                }
                return;
            }
            if self.in_key && self.key.len() < 8 {
                self.key.push(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.in_key = true;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth = self.depth.saturating_add(1);
                self.expect_key = self.depth == 1 && b == b'{';
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.finish_id();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == 1 => {
                self.finish_id();
                self.expect_key = true;
            }
            b':' if self.depth == 1 && self.key_done => {
                self.key_done = false;
                if self.key == b"method" {
                    self.has_method = true;
                }
                if self.key == b"id" {
                    self.in_id = true;
                    self.id_text.clear();
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => {
                if self.depth == 1 && self.in_id && self.id_text.len() < 24 {
                    self.id_text.push(b);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Option<i64> {
        let mut s = IdScanner::default();
        for chunk in text.as_bytes().chunks(3) {
            s.feed(chunk);
        }
        s.id()
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..1024)) {
            let mut s = IdScanner::default();
            s.feed(&bytes);
            let _ = s.id();
        }

        /// Whatever the result holds, the scanner finds the answer's id.
        #[test]
        fn finds_the_id_of_any_answer(id in proptest::prelude::any::<i64>(), text in ".*", first in proptest::prelude::any::<bool>()) {
            let result = serde_json::json!({"text": text, "id": "x", "nested": [{"id": 1}]});
            let line = if first {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
            } else {
                serde_json::json!({"result": result, "jsonrpc": "2.0", "id": id})
            };
            let mut s = IdScanner::default();
            s.feed(line.to_string().as_bytes());
            proptest::prop_assert_eq!(s.id(), Some(id));
        }
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":42,"result":{"id":7}}"#),
            Some(42)
        );
        assert_eq!(
            scan(r#"{"result":{"id":7,"text":"\"id\":9,"},"jsonrpc":"2.0","id": 13 }"#),
            Some(13)
        );
        assert_eq!(scan(r#"{"result":[{"id":1}],"id":"abc"}"#), None);
        assert_eq!(scan(r#"{"method":"x","params":{"id":3}}"#), None);
        // A server request's id is the server's, not an answer's.
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage"}"#),
            None
        );
        assert_eq!(scan(r#"{"id":5,"params":{"method":"x"}}"#), Some(5));
        assert_eq!(scan("not json at all \u{0} {{{{ ]]]"), None);
    }
}
