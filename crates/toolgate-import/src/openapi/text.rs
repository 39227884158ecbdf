//! Text taken from a description into what a model reads: collapsed and cut short.

/// Collapses whitespace and cuts at a word boundary near `max` characters.
pub fn trim_text(text: &str, max: usize) -> String {
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let cut: String = collapsed.chars().take(max).collect();
    let at = cut.rfind(' ').filter(|i| *i > max / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([',', '.', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_collapses_and_long_text_is_cut_at_a_word() {
        assert_eq!(trim_text("a  b\n c", 10), "a b c");
        let t = trim_text(&"word ".repeat(100), 30);
        assert!(t.ends_with('…') && t.chars().count() <= 31, "{t}");
    }
}
