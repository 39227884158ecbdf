use super::*;

/// `uses` aliases of one anchor of `props` properties, each with an 80-byte description.
fn fan_out(props: usize, uses: usize) -> String {
    let big: Vec<String> = (0..props)
        .map(|i| format!("p{i}: {{type: string, description: '{}'}}", "x".repeat(80)))
        .collect();
    format!(
        "big: &big {{{}}}\nuses: [{}]\n",
        big.join(", "),
        vec!["*big"; uses].join(", ")
    )
}

#[test]
fn what_aliases_expand_to_is_counted_and_the_first_node_past_the_limit_named() {
    // 100 properties of ~100 bytes each: about 10 KB per copy.
    let text = fan_out(100, 50);
    assert!(expansion::measure(&text, 1 << 20).is_ok());
    let over = expansion::measure(&text, 200 << 10).unwrap_err();
    // 200 KB is passed inside the 19th or 20th copy, never at the anchor itself.
    assert!(over.path.starts_with("uses[1"), "{over:?}");
    assert!(
        over.path.contains(".description") || over.path.contains(".p"),
        "{over:?}"
    );
}

#[test]
fn text_without_anchors_is_not_walked_and_within_the_limit_reads_as_before() {
    // No `&`: nothing can be repeated, whatever the size (a limit of 0 would refuse any
    // walked document).
    assert!(expansion::measure("a: [1, 2, '*']\n", 0).is_ok());
    let value: yaml_serde::Value = from_str(&fan_out(3, 4)).unwrap();
    assert_eq!(value["uses"].as_sequence().map(Vec::len), Some(4));
    assert_eq!(value["uses"][3], value["big"]);
}

#[test]
fn the_parser_alias_guard_and_the_size_limit_are_one_refusal() {
    // Nine levels of nine aliases: the parser's guard on jumps trips first.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for l in 1..=9 {
        text.push_str(&format!(
            "a{l}: &a{l} [{}]\n",
            vec![format!("*a{}", l - 1); 9].join(", ")
        ));
    }
    let e = from_str::<yaml_serde::Value>(&text).unwrap_err();
    assert!(matches!(e, YamlError::Expanded(_)), "{e}");
    assert!(e.to_string().contains("64 MiB"), "{e}");
    assert!(e.help().is_some_and(|h| h.contains("schemas:")));
}

#[test]
fn merge_keys_are_aliases_too() {
    // `<<` is read as an ordinary key holding aliases: a chain of them is counted alike.
    let mut text = String::from("m0: &m0 {k: v}\n");
    for l in 1..=9 {
        text.push_str(&format!(
            "m{l}: &m{l} {{<<: [{}], k{l}: v}}\n",
            vec![format!("*m{}", l - 1); 9].join(", ")
        ));
    }
    assert!(matches!(
        from_str::<yaml_serde::Value>(&text),
        Err(YamlError::Expanded(_))
    ));
}

#[test]
fn deep_flow_nesting_in_a_description_is_refused_before_the_parser_runs() {
    let text = format!("a: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let e = check_bounds(&text).unwrap_err();
    assert!(matches!(e, YamlError::Nested(_)), "{e}");
    assert_eq!(e.location(), Some((1, 104)));
    // A config is left to the parser's own limit (see `from_str`).
    let e = from_str::<yaml_serde::Value>(&text).unwrap_err();
    assert!(matches!(e, YamlError::Syntax(_)), "{e}");
    assert!(e.to_string().contains("recursion limit"), "{e}");
}

#[test]
fn wide_encodings_are_named_and_a_byte_order_mark_is_left_out() {
    let utf16: Vec<u8> = "\u{FEFF}a: 1\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert!(text_of(utf16).unwrap_err().contains("UTF-16"));
    let no_mark: Vec<u8> = "a: 1\n".encode_utf16().flat_map(u16::to_be_bytes).collect();
    assert!(text_of(no_mark).unwrap_err().contains("UTF-16"));
    let utf32: Vec<u8> = "a".chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
    assert!(text_of(utf32).unwrap_err().contains("UTF-32"));
    assert_eq!(text_of(b"\xEF\xBB\xBFa: 1\n".to_vec()).unwrap(), "a: 1\n");
    assert!(text_of(vec![b'a', 0xFF]).unwrap_err().contains("byte 1"));
}
