use super::*;

/// The offsets of the bytes a JSON string must escape, found the slow way.
fn sites_of(bytes: &[u8]) -> Vec<u32> {
    (0u32..)
        .zip(bytes)
        .filter(|&(_, &b)| needs_escape(b))
        .map(|(i, _)| i)
        .collect()
}

/// Strings heavy in the bytes that matter, at every length and alignment, and runs
/// longer than a word between escapes.
fn samples() -> Vec<String> {
    let alphabet: Vec<char> = "\"\\\n\r\t\u{1}\u{1f} aZ{}:,é🦀".chars().collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut out: Vec<String> = (0..120)
        .map(|len| {
            (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect()
        })
        .collect();
    out.push(format!("{}\"{}\\", "a".repeat(15), "b".repeat(17)));
    out.push(format!("\"{}\"", "long run ".repeat(40)));
    out.push("\u{1}\u{1f}\"".repeat(300));
    out.push(String::new());
    out
}

#[test]
fn writing_at_known_sites_matches_searching_for_them() {
    for s in samples() {
        let sites = sites_of(s.as_bytes());
        let mut searched = b"[1,".to_vec();
        write_utf8_str(&mut searched, s.as_bytes());
        let mut at_sites = b"[1,".to_vec();
        write_at_sites(&mut at_sites, s.as_bytes(), &sites);
        assert_eq!(
            String::from_utf8_lossy(&at_sites),
            String::from_utf8_lossy(&searched),
            "{s:?}"
        );
        at_sites.push(b']');
        assert_eq!(at_sites, serde_json::to_vec(&(1, &s)).expect("serialises"));
    }
}

/// Sites that cannot be right are not trusted: the body is searched instead, and the
/// string is still escaped exactly.
#[test]
fn sites_that_point_elsewhere_fall_back_to_the_search() {
    let text = br#"{"a":"x\"y","b":[1,2]}"#;
    let right = sites_of(text);
    let mut wrong_byte = right.clone();
    wrong_byte[1] += 1;
    let mut out_of_order = right.clone();
    out_of_order.swap(0, 1);
    let mut past_the_end = right.clone();
    past_the_end.push(u32::MAX);
    for sites in [wrong_byte, out_of_order, past_the_end] {
        let mut out = Vec::new();
        write_at_sites(&mut out, text, &sites);
        let back: String = serde_json::from_slice(&out).expect("one JSON string");
        assert_eq!(back.as_bytes(), text, "{sites:?}");
    }
}

/// A wrong site found only after many right ones: what was written of the string from
/// the sites is dropped, what the output held before it is kept, and the string is
/// written again, exactly as the search writes it.
#[test]
fn a_late_wrong_site_leaves_no_partial_string_behind() {
    let text = format!("{}\n\u{1}é{}", "\"ab\\c\"".repeat(200), "z".repeat(40));
    let bytes = text.as_bytes();
    let right = sites_of(bytes);
    let mut searched = b"[1,".to_vec();
    write_utf8_str(&mut searched, bytes);
    let last = right.len() - 1;
    let mut no_escape_there = right.clone();
    no_escape_there[last] = u32::try_from(bytes.len() - 1).expect("short");
    let mut repeated = right.clone();
    repeated[last] = right[last - 1];
    let mut beyond = right.clone();
    beyond.push(u32::try_from(bytes.len()).expect("short"));
    for sites in [no_escape_there, repeated, beyond] {
        let mut out = b"[1,".to_vec();
        write_at_sites(&mut out, bytes, &sites);
        assert_eq!(out, searched);
    }
}

/// Every byte below 0x20, each alone between long runs and back to back, the quote and
/// the backslash: the table of sites gives each its own escape.
#[test]
fn every_byte_that_needs_an_escape_is_written_as_serde_json_writes_it() {
    let mut text = String::new();
    for b in (0u8..0x20).chain([b'"', b'\\']) {
        text.push(char::from(b));
        text.push_str(&"x".repeat(usize::from(b) % 23));
        text.push(char::from(b));
    }
    let mut out = Vec::new();
    write_at_sites(&mut out, text.as_bytes(), &sites_of(text.as_bytes()));
    assert_eq!(out, serde_json::to_vec(&text).expect("serialises"));
}

/// Hostile text at every distance from the stack buffer's edge: each byte below 0x20,
/// quotes and backslashes back to back, a lone surrogate's escape written out as text,
/// multi-byte characters cut by a word's edge, and runs shorter and longer than a word,
/// placed so that escapes fall on, before and after each kilobyte the writer appends.
#[test]
fn text_around_the_buffers_edge_is_written_as_serde_json_writes_it() {
    let pieces: Vec<String> = (0u8..0x20)
        .map(|b| char::from(b).to_string())
        .chain(
            [
                "\"", "\\", "\"\\\"", "\\ud800", "é", "中", "🦀", "a", "zz", "\u{7f}", "\u{ffff}",
            ]
            .map(String::from),
        )
        .chain([15usize, 16, 17, 40].map(|n| "r".repeat(n)))
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for (round, lead) in (0..300).zip([0usize, 1, 7, 8, 9, 15, 16, 17].into_iter().cycle()) {
        // Dense with escapes, so the buffer fills many times, each text at other offsets.
        let mut text = "p".repeat(lead);
        while text.len() < 2000 + round * 7 {
            text.push_str(&pieces[next(pieces.len())]);
        }
        let expected = serde_json::to_vec(&text).expect("serialises");
        let mut at_sites = Vec::new();
        write_at_sites(&mut at_sites, text.as_bytes(), &sites_of(text.as_bytes()));
        assert_eq!(at_sites, expected, "{text:?}");
        let mut searched = Vec::new();
        write_utf8_str(&mut searched, text.as_bytes());
        assert_eq!(searched, expected, "{text:?}");
    }
}

/// Runs of every length up to past the longest copied word by word, ending at every
/// distance from the body's last sixteen bytes: each run is copied whole, and each
/// escape after it written as `serde_json` writes it.
#[test]
fn runs_of_every_length_up_to_the_bodys_end_are_copied_whole() {
    for run in 0..=(WORD_RUN + 20) {
        for tail in 0..20 {
            let text = format!(
                "{}\"{}\n{}\\{}",
                "a".repeat(3),
                "r".repeat(run),
                "s".repeat(run / 2),
                "t".repeat(tail)
            );
            let mut out = b"[1,".to_vec();
            write_at_sites(&mut out, text.as_bytes(), &sites_of(text.as_bytes()));
            out.push(b']');
            assert_eq!(
                out,
                serde_json::to_vec(&(1, &text)).expect("serialises"),
                "run {run}, tail {tail}"
            );
        }
    }
}

/// Sites out of order can put one in the body's last sixteen bytes among those written
/// by words, with a run long enough to be copied by words: it is copied without reading
/// past the body, and the wrong order then falls back to the search.
#[test]
fn a_site_in_the_last_word_out_of_order_is_copied_within_the_body() {
    let mut text = vec![b'a'; 100];
    for at in [10, 20, 60, 95] {
        text[at] = b'"';
    }
    let mut out = Vec::new();
    write_at_sites(&mut out, &text, &[60, 95, 10, 20]);
    let mut searched = Vec::new();
    write_utf8_str(&mut searched, &text);
    assert_eq!(out, searched);
}
