//! What a name or word written by an upstream server reads as, for comparing it with
//! another: two names a model or a person reads as one are one.
//!
//! A server can list `Search` beside another server's `search`, `ｓｅａｒｃｈ`
//! (fullwidth), `search` written with a Cyrillic `е`, or `café` composed beside `café`
//! decomposed. Each is a different string and the same word to a reader. The
//! [`skeleton`] folds those apart: compatibility forms (NFKC: fullwidth and
//! mathematical letters, ligatures, `ℓ`), case, and the Cyrillic and Greek letters that
//! are drawn like Latin ones (the common part of Unicode's confusables table for those
//! scripts, <https://www.unicode.org/Public/security/latest/confusables.txt>).

use unicode_normalization::UnicodeNormalization;

/// `name` as it reads: NFKC, lowercase, and Latin letters for the Cyrillic and Greek
/// letters drawn like them. Two names with the same skeleton are taken for one.
pub(crate) fn skeleton(name: &str) -> String {
    name.nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| latin_lookalike(c).unwrap_or(c))
        .collect()
}

/// `name` as it is drawn in the sans-serif faces clients show names in: its
/// [`skeleton`] once every capital drawn as a plain vertical stroke (Latin `I`, Greek
/// `Ι`, Cyrillic `І` and `Ӏ`, and what NFKC turns into them such as `Ⅰ`) is taken for
/// the `l` it cannot be told from. Separate from [`skeleton`], which folds case: there
/// `I` is `i`, and `i` has a dot that `l` has not, so one key cannot hold both
/// (`dependency_heaIth` reads as `dependency_health`, while `index` and `lndex` do not
/// read alike).
pub(crate) fn stroke_skeleton(name: &str) -> String {
    name.nfkc()
        .map(|c| if is_capital_stroke(c) { 'l' } else { c })
        .flat_map(char::to_lowercase)
        .map(|c| latin_lookalike(c).unwrap_or(c))
        .collect()
}

/// A capital letter drawn as a single vertical stroke, like `l`.
fn is_capital_stroke(c: char) -> bool {
    matches!(c, 'I' | '\u{399}' | '\u{406}' | '\u{4c0}')
}

/// The Latin letter a lowercase Cyrillic or Greek letter (or its capital) is drawn
/// like; `None` for any other.
fn latin_lookalike(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic.
        'а' => 'a',
        'в' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' => 'e',
        'һ' | 'н' => 'h',
        'і' | 'ї' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'ӏ' => 'l',
        'м' => 'm',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' => 't',
        'у' => 'y',
        'ԝ' => 'w',
        'х' => 'x',
        // Greek.
        'α' => 'a',
        'β' => 'b',
        'ε' => 'e',
        'η' => 'h',
        'ι' => 'i',
        'κ' => 'k',
        'μ' => 'm',
        'ν' => 'n',
        'ο' | 'σ' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'ζ' => 'z',
        // Latin letters drawn like others.
        'ı' => 'i',
        'ɡ' => 'g',
        'ɑ' => 'a',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_read_alike_have_one_skeleton_and_others_do_not() {
        for (a, b) in [
            ("search", "Search"),
            ("search", "SEARCH"),
            ("search", "ｓｅａｒｃｈ"),
            ("search", "s\u{0435}arch"),           // Cyrillic е
            ("search", "S\u{0415}\u{0410}RCH"),    // Cyrillic Е, А
            ("café", "cafe\u{301}"),               // composed and decomposed
            ("copy", "\u{0441}\u{043e}\u{0440}y"), // Cyrillic с, о, р
            ("top", "\u{03c4}\u{03bf}p"),          // Greek τ, ο
            ("file", "\u{fb01}le"),                // the ﬁ ligature
            ("summarize", "𝐬𝐮𝐦𝐦𝐚𝐫𝐢𝐳𝐞"),            // mathematical bold
        ] {
            assert_eq!(skeleton(a), skeleton(b), "{a} / {b}");
        }
        for (a, b) in [
            ("search", "fetch"),
            ("search_docs", "search-docs"),
            ("v1", "vl"),
            ("пароль", "parol"),
        ] {
            assert_ne!(skeleton(a), skeleton(b), "{a} / {b}");
        }
    }

    /// The `paypaI.com` trick (a capital I for an l, Unicode's confusables.txt maps
    /// `I`, Greek `Ι`, Cyrillic `І` and `Ӏ` and the numeral `Ⅰ` to `l`) on tool names.
    #[test]
    fn a_capital_stroke_reads_as_an_l_and_nothing_else_does() {
        for (a, b) in [
            ("dependency_health", "dependency_heaIth"),
            ("list_files", "Iist_files"),
            ("list_files", "\u{399}ist_files"), // Greek capital iota
            ("list_files", "\u{406}ist_files"), // Cyrillic capital І
            ("list_files", "\u{4c0}ist_files"), // Cyrillic palochka
            ("list_files", "\u{2160}ist_files"), // Roman numeral one
        ] {
            assert_eq!(stroke_skeleton(a), stroke_skeleton(b), "{a} / {b}");
        }
        // What folding case alone misses.
        assert_ne!(skeleton("dependency_health"), skeleton("dependency_heaIth"));
        for (a, b) in [("index", "lndex"), ("v1", "vl"), ("list", "iist")] {
            assert_ne!(stroke_skeleton(a), stroke_skeleton(b), "{a} / {b}");
        }
    }
}
