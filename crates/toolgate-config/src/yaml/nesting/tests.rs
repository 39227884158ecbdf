use super::*;

fn depth_ok(text: &str, limit: usize) -> bool {
    check(text, limit).is_ok()
}

#[test]
fn flow_depth_is_counted_and_the_first_excess_is_located() {
    assert!(depth_ok("a: [[1, 2], {b: [3]}]\n", 3));
    assert!(!depth_ok("a: [[1, 2], {b: [3]}]\n", 2));
    assert_eq!(check("x:\n  [[[", 2), Err(Position { line: 2, column: 5 }));
    // Closing brackets bring the depth back down: many shallow collections pass.
    assert!(depth_ok(&"- [[a]]\n".repeat(10_000), 2));
}

#[test]
fn what_real_descriptions_hold_stays_shallow() {
    // Comments, balanced patterns, Markdown links, apostrophes, quoted brackets in flow
    // collections: repeated a thousand times, none of it adds up. (The real depth is 3;
    // a reading that takes the pattern's quotes for text sees 5 inside it.)
    let doc = r#"# see [the docs
paths:
  /a/{id}:
    get:
      description: |
        Don't use `[x]` here; see [the guide](https://example.com/{id}) and 'quotes'.
        A "double quoted" phrase [with brackets], it's fine.
      parameters: [{name: id, in: path, schema: {type: string, pattern: '^[a-z{}]+$'}}]
      x-enum: ["a]", 'b}', "c\"]", 'd'']']
"#
    .repeat(1000);
    assert!(depth_ok(&doc, 5), "{:?}", check(&doc, 5));
}

#[test]
fn closing_brackets_in_tags_do_not_hide_nesting() {
    let text = "a: ".to_string() + &"[ !<x]> v, ".repeat(60);
    assert!(!depth_ok(&text, 40));
}

#[test]
fn closing_brackets_hidden_in_quotes_still_count_the_real_depth() {
    // Each `"]"` is a string; the `[` before it really nests.
    let hidden = "a: ".to_string() + &"[ \"]\", ".repeat(50);
    assert!(!depth_ok(&hidden, 40));
    let single = "a: ".to_string() + &"[ ']', ".repeat(50);
    assert!(!depth_ok(&single, 40));
}

#[test]
fn a_quote_inside_plain_text_cannot_hide_what_follows() {
    // `x 'y` is plain text to a YAML parser; reading it as the start of a quoted
    // scalar would hide the nesting after it.
    let text = "d: x 'y\nb: ".to_string() + &"[ ']' ".repeat(60);
    assert!(!depth_ok(&text, 40));
    let text = "d: |\n  'abc\na: ".to_string() + &"[".repeat(60);
    assert!(!depth_ok(&text, 40));
    let text = "d: a\"b\na: ".to_string() + &"[".repeat(60);
    assert!(!depth_ok(&text, 40));
}

#[test]
fn deep_nesting_is_refused_in_linear_time() {
    // 200 KB of nested flow sequences; the YAML parser would spend about a minute on it.
    let text = "a: ".to_string() + &"[\n".repeat(100_000);
    assert_eq!(
        check(&text, 100),
        Err(Position {
            line: 101,
            column: 1
        })
    );
    let maps = "{a: ".repeat(50_000);
    assert!(check(&maps, 100).is_err());
}

#[test]
fn code_in_block_scalars_is_text_however_many_brackets_its_strings_leave_open_but_what_follows_is_read()
 {
    // A description's code samples: every line leaves a bracket open for a reading that
    // takes the quotes for text, 200 times over.
    let doc = "paths:\n  /a:\n    get:\n      x-code-samples:\n        - lang: python\n          code: |-\n            body = {\"data\": \"{\"}\n            opts = {\n\n            call(opts)\n"
        .repeat(200);
    assert!(depth_ok(&doc, 100), "{:?}", check(&doc, 100));
    // Nesting after such a block, or behind a comment, a quote or a bracket on the
    // line that looks like one, is still counted.
    let deep = "[".repeat(60);
    assert!(!depth_ok(&format!("a: |\n  text {{\nb: {deep}\n"), 40));
    assert!(!depth_ok(&format!("a: # |\n  b: {deep}\n"), 40));
    assert!(!depth_ok(&format!("a: 'x |'\n  {deep}\n"), 40));
    assert!(!depth_ok(&format!("a: [b, |\n  {deep}\n"), 40));
    // An indentation digit is not read: the block's extent is left to the parser.
    assert!(!depth_ok(&format!("a: |2\n  {deep}\n"), 40));
}
