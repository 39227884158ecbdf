//! Deprecation notices written in languages other than English.
//!
//! APIs of one market announce a retirement in its language, in the same places an
//! English notice goes (a `Warning` text, a vendor deprecation field, a `warnings` or
//! `avisos` member of the answer, an error's message): "Dieser Endpunkt ist veraltet und
//! wird am 31.12.2025 abgeschaltet", "Cette version de l'API est obsolète et sera
//! supprimée le 30/06/2026", "このAPIは非推奨です。2025年12月31日に廃止されます",
//! "Метод устарел и будет отключён 01.03.2026", "La version 1 de l'API n'est plus prise
//! en charge". Word order differs between languages (German and Japanese put the date
//! before the verb), so a sentence is read by the meanings it holds rather than by a
//! phrase followed by its date:
//!
//! - a word for *deprecated* or *obsolete* ([`DEPRECATED`]) says the subject is
//!   deprecated now;
//! - a phrase for *no longer supported* ([`ENDED`]) says its end has come, which is
//!   deprecated too;
//! - a word for *switched off* or *removed* ([`ENDS`]) announces its end, dated by the
//!   first date in the same sentence (`31.12.2025`, `30/06/2026`, `2026-01-31`,
//!   `2025年12月31日`, `31. Dezember 2025`; day before month, as these languages write
//!   it). A date already past says the end came.
//!
//! Whom the notice is about follows the English rule ([`super::what_it_says`]): a word
//! naming a field or parameter of the request ([`PART_WORDS`]) makes it a note about a
//! part; a word naming the API, an endpoint, a method or a version ([`CALL_WORDS`]), a
//! path or a version token makes it about the call; a notice naming neither says nothing
//! of the call (a catalogue's "statut : obsolète" is a product's). Texts are lowered
//! with Unicode's rules and matched as parts of the text, since several of these scripts
//! do not separate words with spaces.

use chrono::{DateTime, NaiveDate, Utc};

use super::{Retirement, Said};

/// Words saying the subject is deprecated or obsolete now, each with its language.
const DEPRECATED: &[&str] = &[
    "veraltet",             // German
    "abgekündigt",          // German
    "obsolète",             // French
    "déprécié",             // French
    "obsoleto",             // Spanish, Portuguese, Italian
    "obsoleta",             // Spanish, Portuguese, Italian
    "deprecado",            // Spanish
    "deprecada",            // Spanish
    "en desuso",            // Spanish
    "descontinuad",         // Portuguese, Spanish
    "deprecato",            // Italian
    "deprecata",            // Italian
    "verouderd",            // Dutch
    "föråldra",             // Swedish
    "przestarzał",          // Polish
    "zastaral",             // Czech, Slovak
    "kullanımdan kaldırıl", // Turkish
    "устарел",              // Russian
    "застарів",             // Ukrainian
    "非推奨",               // Japanese
    "廃止予定",             // Japanese
    "已废弃",               // Chinese
    "已弃用",               // Chinese
    "已棄用",               // Chinese (traditional)
    "已淘汰",               // Chinese
    "더 이상 사용되지 않",  // Korean
    "사용 중단",            // Korean
    "παρωχημέν",            // Greek
    "καταργημέν",           // Greek
    "έχει καταργηθεί",      // Greek
    "υπό κατάργηση",        // Greek
    "مهمل",                 // Arabic
    "متوقف",                // Arabic
    "משימוש",               // Hebrew ("הוצא משימוש", out of use)
    "מיושן",                // Hebrew
    "lỗi thời",             // Vietnamese
    "không được dùng nữa",  // Vietnamese
    "tidak digunakan lagi", // Indonesian, Malay
    "usang",                // Indonesian
    "învechit",             // Romanian
    "depreciat",            // Romanian
    "forældet",             // Danish
    "foreldet",             // Norwegian
    "utdatert",             // Norwegian
];

/// Phrases saying the subject's end has come: no longer supported.
const ENDED: &[&str] = &[
    "nicht mehr unterstützt",     // German
    "n'est plus prise en charge", // French
    "n'est plus pris en charge",  // French
    "n'est plus supporté",        // French
    "ya no está disponible",      // Spanish
    "ya no es compatible",        // Spanish
    "ya no se admite",            // Spanish
    "ya no está soportad",        // Spanish
    "não é mais suportad",        // Portuguese
    "não é mais compatível",      // Portuguese
    "não está mais disponível",   // Portuguese
    "non è più supportat",        // Italian
    "non è più disponibile",      // Italian
    "niet meer ondersteund",      // Dutch
    "niet langer ondersteund",    // Dutch
    "stöds inte längre",          // Swedish
    "nie jest już obsługiwan",    // Polish
    "není podporován",            // Czech
    "artık desteklenmiyor",       // Turkish
    "больше не поддерживается",   // Russian
    "більше не підтримується",    // Ukrainian
    "サポートを終了",             // Japanese
    "サポート終了",               // Japanese
    "不再支持",                   // Chinese
    "停止支持",                   // Chinese
    "더 이상 지원되지 않",        // Korean
    "δεν υποστηρίζεται πλέον",    // Greek
    "لم يعد مدعوم",               // Arabic
    "אינו נתמך עוד",              // Hebrew
    "ngừng hỗ trợ",               // Vietnamese
    "không còn được hỗ trợ",      // Vietnamese
    "tidak lagi didukung",        // Indonesian
    "nu mai este acceptat",       // Romanian
    "understøttes ikke længere",  // Danish
    "støttes ikke lenger",        // Norwegian
];

/// Words announcing the subject's end: switched off, removed, withdrawn.
const ENDS: &[&str] = &[
    "abgeschaltet",    // German
    "eingestellt",     // German
    "entfernt",        // German
    "supprimé",        // French
    "désactivé",       // French
    "retiré",          // French
    "eliminad",        // Spanish
    "desactivad",      // Spanish
    "retirad",         // Spanish, Portuguese
    "desativad",       // Portuguese
    "removid",         // Portuguese
    "desligad",        // Portuguese
    "rimoss",          // Italian
    "disattivat",      // Italian
    "dismess",         // Italian
    "uitgeschakeld",   // Dutch
    "verwijderd",      // Dutch
    "stopgezet",       // Dutch
    "stängs",          // Swedish
    "tas bort",        // Swedish
    "wyłączon",        // Polish
    "usunięt",         // Polish
    "vypnut",          // Czech
    "odstraněn",       // Czech
    "kapatılacak",     // Turkish
    "kaldırılacak",    // Turkish
    "отключ",          // Russian
    "удалён",          // Russian
    "удален",          // Russian
    "вимкн",           // Ukrainian
    "廃止",            // Japanese
    "提供終了",        // Japanese
    "提供を終了",      // Japanese
    "下线",            // Chinese
    "下線",            // Chinese (traditional)
    "停用",            // Chinese
    "종료",            // Korean
    "απενεργοποι",     // Greek
    "θα καταργηθεί",   // Greek
    "θα αφαιρεθεί",    // Greek
    "إيقاف",           // Arabic
    "إزالة",           // Arabic
    "תושבת",           // Hebrew
    "יוסר",            // Hebrew
    "תוסר",            // Hebrew
    "ngừng hoạt động", // Vietnamese
    "bị xóa",          // Vietnamese
    "gỡ bỏ",           // Vietnamese
    "dihentikan",      // Indonesian, Malay
    "dinonaktifkan",   // Indonesian
    "dihapus",         // Indonesian
    "dezactivat",      // Romanian
    "eliminat",        // Romanian
    "lukkes",          // Danish
    "fjernes",         // Danish, Norwegian
    "slås av",         // Norwegian
];

/// Words naming a part of the request, matched as whole words.
const PART_WORDS: &[&str] = &[
    "feld",      // German
    "felder",    // German
    "champ",     // French
    "champs",    // French
    "paramètre", // French
    "campo",     // Spanish, Portuguese, Italian
    "campos",    // Spanish, Portuguese
    "parámetro", // Spanish
    "parâmetro", // Portuguese
    "parametro", // Italian
    "veld",      // Dutch
    "fält",      // Swedish
    "fältet",    // Swedish
    "pole",      // Polish, Czech
    "parametr",  // Polish, Czech
    "alan",      // Turkish
    "alanı",     // Turkish
    "parametre", // Turkish
    "поле",      // Russian, Ukrainian
    "параметр",  // Russian, Ukrainian
];

/// Words naming a part of the request in scripts written without spaces, matched as
/// parts of the text.
const PART_MARKS: &[&str] = &[
    "フィールド", // Japanese
    "パラメータ", // Japanese
    "項目",       // Japanese
    "字段",       // Chinese
    "参数",       // Chinese
    "參數",       // Chinese (traditional)
    "欄位",       // Chinese (traditional)
    "필드",       // Korean
    "매개변수",   // Korean
    "파라미터",   // Korean
];

/// Words naming the called API, endpoint, method or version, matched as whole words.
const CALL_WORDS: &[&str] = &[
    "api",
    "endpoint",
    "endpunkt",      // German
    "schnittstelle", // German
    "version",       // German, French
    "méthode",       // French
    "versión",       // Spanish
    "versão",        // Portuguese
    "método",        // Spanish, Portuguese
    "metodo",        // Italian
    "versione",      // Italian
    "versie",        // Dutch
    "methode",       // Dutch, German
    "metod",         // Swedish
    "metoda",        // Polish, Czech, Romanian
    "wersja",        // Polish
    "verze",         // Czech
    "uç",            // Turkish ("uç nokta")
    "sürüm",         // Turkish
    "метод",         // Russian, Ukrainian
    "версия",        // Russian
    "версія",        // Ukrainian
    "διεπαφή",       // Greek
    "μέθοδος",       // Greek
    "έκδοση",        // Greek
    "الواجهة",       // Arabic
    "واجهة",         // Arabic
    "الإصدار",        // Arabic
    "ממשק",          // Hebrew
    "נקודת",         // Hebrew ("נקודת קצה", endpoint)
    "גרסה",          // Hebrew
    "versi",         // Indonesian, Malay
    "versiunea",     // Romanian
    "versjon",       // Norwegian
];

/// Words naming the call in scripts written without spaces, matched as parts.
const CALL_MARKS: &[&str] = &[
    "api",
    "エンドポイント", // Japanese
    "バージョン",     // Japanese
    "接口",           // Chinese
    "端点",           // Chinese
    "版本",           // Chinese
    "介面",           // Chinese (traditional)
    "엔드포인트",     // Korean
    "버전",           // Korean
];

/// Characters of a text examined; a notice states itself in its first sentences.
const MAX_CHARS: usize = 600;

/// What a notice in another language says about the called resource; `None` when it
/// holds none of these languages' words for a retirement (the English reading stands).
pub(super) fn what_it_says(text: &str, now: DateTime<Utc>) -> Option<Said> {
    let lower: String = text
        .chars()
        .take(MAX_CHARS)
        .collect::<String>()
        .to_lowercase();
    let mut r = Retirement::default();
    let mut said = false;
    for sentence in sentences(&lower) {
        let deprecated = contains_any(sentence, DEPRECATED);
        let ended = contains_any(sentence, ENDED);
        let ends = contains_any(sentence, ENDS);
        if !(deprecated || ended || ends) {
            continue;
        }
        said = true;
        r.deprecated |= deprecated || ended;
        if (ended || ends)
            && let Some(t) = first_date(sentence)
        {
            r.sunset = Some(r.sunset.map_or(t, |s| s.min(t)));
        }
    }
    if !said {
        return None;
    }
    // An end already past is an end reached: deprecated, whatever the words.
    r.deprecated |= r.sunset.is_some_and(|t| t <= now);
    Some(match subject(&lower) {
        Subject::Part => Said::AboutAPart,
        Subject::Call if r.deprecated || r.sunset.is_some() => Said::AboutTheCall(r),
        Subject::Call | Subject::Other => Said::Nothing,
    })
}

/// Whether a text says, in one of these languages, that something is deprecated or has
/// reached its end, or announces its end with a date: the `deprecation` flag of a notice.
pub(super) fn says_deprecated(text: &str) -> bool {
    let lower: String = text
        .chars()
        .take(MAX_CHARS)
        .collect::<String>()
        .to_lowercase();
    sentences(&lower).any(|s| {
        contains_any(s, DEPRECATED)
            || contains_any(s, ENDED)
            || (contains_any(s, ENDS) && first_date(s).is_some())
    })
}

/// Whether a text speaks, in one of these languages, of a deprecation or an end.
pub(super) fn speaks_of_retirement(text: &str) -> bool {
    let lower: String = text
        .chars()
        .take(MAX_CHARS)
        .collect::<String>()
        .to_lowercase();
    contains_any(&lower, DEPRECATED) || contains_any(&lower, ENDED) || contains_any(&lower, ENDS)
}

fn contains_any(s: &str, words: &[&str]) -> bool {
    words.iter().any(|w| s.contains(w))
}

/// Sentences: split after `.`, `!`, `?` followed by a space, at the ideographic full
/// stop and at line breaks, so the dots of `31.12.2025` do not end one.
fn sentences(lower: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = lower.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let ends = matches!(c, '。' | '！' | '？' | '\n' | '\r')
            || (matches!(c, '.' | '!' | '?') && next_is_space && !ordinal_day(&lower[start..i]));
        if ends {
            out.push(&lower[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&lower[start..]);
    out.into_iter().filter(|s| !s.trim().is_empty())
}

/// Whether `before` ends in a day's number of one or two digits, standing alone: the dot
/// after it is an ordinal's (`31. prosince 2025`, `am 31. Dezember`), not a full stop.
fn ordinal_day(before: &str) -> bool {
    let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let alone = before[..before.len() - digits]
        .chars()
        .next_back()
        .is_none_or(char::is_whitespace);
    (1..=2).contains(&digits) && alone
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Subject {
    Part,
    Call,
    Other,
}

/// Whom the notice names: a part of the request wins over the call, as in English.
fn subject(lower: &str) -> Subject {
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '/' || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let part = words.iter().any(|w| PART_WORDS.contains(w)) || contains_any(lower, PART_MARKS);
    if part {
        return Subject::Part;
    }
    let names_call = |w: &&str| {
        CALL_WORDS.contains(w)
            || w.starts_with('/')
            || w.split(['-', '/'])
                .any(|p| CALL_WORDS.contains(&p) || version_token(p))
    };
    if words.iter().any(names_call) || contains_any(lower, CALL_MARKS) {
        return Subject::Call;
    }
    Subject::Other
}

/// `v1`, `v2`, `v3.1`: an API version.
fn version_token(w: &str) -> bool {
    w.strip_prefix('v').is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_digit())
            && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    })
}

/// The first calendar date written in `s` with digits: year first (`2026-01-31`,
/// `2025/12/31`, `2025年12月31日`, `2025년 12월 31일`) or day first (`31.12.2025`,
/// `30/06/2026`, `01-12-2025`), or with its month's name in the sentence's language
/// (`31. Dezember 2025`, `30 juin 2026`, `31 de diciembre de 2025`, `31 декабря 2025`,
/// `31 tháng 12 năm 2025`; [`crate::calendar`] knows the names), the day starting at
/// midnight UTC.
fn first_date(s: &str) -> Option<DateTime<Utc>> {
    let chars: Vec<char> = s.chars().take(MAX_CHARS).collect();
    (0..chars.len())
        .filter(|&i| chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_digit()))
        .find_map(|i| date_at(&chars[i..]))
        .or_else(|| crate::calendar::first_named_month_date(s, MAX_WORDS))
}

/// Words of a sentence looked at for a date with its month's name.
const MAX_WORDS: usize = 120;

/// A number of at most four digits at the start of `c`: its value and its length.
fn number(c: &[char]) -> Option<(u32, usize)> {
    let len = c.iter().take_while(|c| c.is_ascii_digit()).count();
    if len == 0 || len > 4 {
        return None;
    }
    let value = c[..len]
        .iter()
        .fold(0, |n, d| n * 10 + d.to_digit(10).unwrap_or(0));
    Some((value, len))
}

/// The separator after a date's part, and the spaces after it: whether it joins the
/// parts of one date (`.`, `/`, `-`, or the year's and month's marks of CJK dates).
fn separator(c: &[char]) -> Option<(char, usize)> {
    let sep = *c.first()?;
    if !matches!(sep, '.' | '/' | '-' | '年' | '月' | '년' | '월') {
        return None;
    }
    let spaces = c[1..].iter().take(2).take_while(|c| **c == ' ').count();
    Some((sep, 1 + spaces))
}

fn date_at(c: &[char]) -> Option<DateTime<Utc>> {
    let (first, first_len) = number(c)?;
    let mut at = first_len;
    let (sep1, n) = separator(&c[at..])?;
    at += n;
    let (second, second_len) = number(&c[at..])?;
    at += second_len;
    let (sep2, n) = separator(&c[at..])?;
    at += n;
    let (third, third_len) = number(&c[at..])?;
    at += third_len;
    if c.get(at).is_some_and(char::is_ascii_digit) || second_len > 2 {
        return None;
    }
    let cjk = matches!((sep1, sep2), ('年', '月') | ('년', '월'));
    if !cjk && sep1 != sep2 {
        return None;
    }
    let (year, month, day) = match (first_len, third_len) {
        (4, 1 | 2) => (first, second, third),
        (1 | 2, 4) if !cjk => (third, second, first),
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc())
}

#[cfg(test)]
mod tests;
