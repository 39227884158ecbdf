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
}
