use super::*;

#[test]
fn whitespace_collapses_and_long_text_is_cut_at_a_word() {
    assert_eq!(trim_text("a  b\n c", 10), "a b c");
    let t = trim_text(&"word ".repeat(100), 30);
    assert!(t.ends_with('…') && t.chars().count() <= 31, "{t}");
}

#[test]
fn html_markup_is_read_as_the_text_it_stands_for() {
    // Shapes from published descriptions: AWS's paragraphs and code, a link, breaks.
    assert_eq!(
        trim_text(
            "<p>Returns the <code>ARN</code> of the role.</p><p>See <a href=\"https://docs.example.com/x?a=1&amp;b=2\" target=\"_blank\">the guide</a>.</p>",
            300
        ),
        "Returns the `ARN` of the role. See the guide."
    );
    assert_eq!(
        trim_text("one<br/>two<BR>three<br />four", 300),
        "one two three four"
    );
    assert_eq!(
        trim_text("<ul><li>first</li><li>second</li></ul>", 300),
        "first second"
    );
    assert_eq!(
        trim_text(
            "<note><p>Only <replaceable>bucket</replaceable> owners.</p></note>",
            300
        ),
        "Only bucket owners."
    );
    assert_eq!(trim_text("a<!-- hidden -->b", 300), "a b");
    // Entities, decoded once: an encoded tag stays text.
    assert_eq!(
        trim_text(
            "AT&amp;T &lt;p&gt; &quot;q&quot; it&#39;s &#x27;x&#x27; a&nbsp;b",
            300
        ),
        "AT&T <p> \"q\" it's 'x' a b"
    );
}

#[test]
fn text_that_only_looks_like_markup_is_kept() {
    for text in [
        "Send `Authorization: Bearer <token>` with <your-key>.",
        "Returns a List<String> when a < b and b > c.",
        "See <https://example.com/docs> for **more** _details_ and [a link](https://x.y).",
        "Fish & chips &unknown; &#xZZ; &#; & ;",
        "A lone < and an unclosed <p",
        "<!-- never closed",
    ] {
        assert_eq!(plain(text), text, "{text}");
    }
    // A control character written as an entity is not decoded into the text.
    assert_eq!(plain("a&#0;b&#x7;c"), "a&#0;b&#x7;c");
}

#[test]
fn hostile_markup_is_read_in_bounded_time() {
    let started = tokio::time::Instant::now();
    for text in [
        "<a ".repeat(200_000),
        "<!--".repeat(200_000),
        "&#".repeat(200_000),
        format!("{}>", "<p".repeat(100_000)),
    ] {
        let out = plain(&text);
        assert!(out.len() <= MAX_READ + 8, "{}", out.len());
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
