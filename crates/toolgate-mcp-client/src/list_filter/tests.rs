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
    let big =
        json!({"uriTemplate": "file:///{path}", "name": "files", "description": "d".repeat(3000)});
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
        let (kept, skipped) = filter(&serde_json::to_vec(&answer).unwrap(), max, chunk).unwrap();
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
