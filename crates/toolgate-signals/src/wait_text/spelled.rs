//! Small counts written in words: "try again in a minute", "in five minutes", "half an
//! hour", "an hour and a half", "en cinco minutos", "dans une demi-heure", "in einer
//! halben Stunde", "через полчаса", "bir dakika sonra", "za minutę". A throttle states its
//! wait so as often as with digits when the wait is short or round.
//!
//! A count is one word of [`COUNTS`] (articles that mean one among them: "a", "un",
//! "une", "einer", "bir"); a word of [`HALVES`] after it, or in its place, makes it half
//! ("une demi-heure", "media hora", "yarım saat"); an English "a" or "an" after "half" is
//! passed over ("half an hour"); and [`AND_A_HALF`] after the unit adds a half ("an hour
//! and a half", "una hora y media"). A few words hold count and unit together
//! ([`WHOLE`]: "полчаса", "mezz'ora"), and a unit in its singular after the word for "in"
//! means one of it where the language drops the count ([`ONE_BY_ITSELF`]: Polish "za
//! minutę", Russian "через минуту"). "A few minutes", "unos minutos", "einige Minuten"
//! name no count and give nothing.

use std::time::Duration;

use crate::MAX_WAIT;
use crate::num::TimeUnit;

/// Counts written as words, lowercase, each line commented with its language.
const COUNTS: [(&str, f64); 61] = [
    // English
    ("a", 1.0),
    ("an", 1.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("five", 5.0),
    ("ten", 10.0),
    ("fifteen", 15.0),
    ("thirty", 30.0),
    // Spanish, Portuguese, Italian, French
    ("un", 1.0),
    ("una", 1.0),
    ("uno", 1.0),
    ("une", 1.0),
    ("um", 1.0),
    ("uma", 1.0),
    ("dos", 2.0),
    ("dois", 2.0),
    ("duas", 2.0),
    ("due", 2.0),
    ("deux", 2.0),
    ("cinco", 5.0),
    ("cinque", 5.0),
    ("cinq", 5.0),
    ("diez", 10.0),
    ("dez", 10.0),
    ("dieci", 10.0),
    ("dix", 10.0),
    ("quince", 15.0),
    ("quinze", 15.0),
    ("treinta", 30.0),
    ("trinta", 30.0),
    ("trenta", 30.0),
    ("trente", 30.0),
    // German
    ("ein", 1.0),
    ("eine", 1.0),
    ("einer", 1.0),
    ("einem", 1.0),
    ("einen", 1.0),
    ("zwei", 2.0),
    ("fünf", 5.0),
    ("zehn", 10.0),
    ("dreißig", 30.0),
    // Dutch
    ("een", 1.0),
    ("één", 1.0),
    ("twee", 2.0),
    ("vijf", 5.0),
    ("tien", 10.0),
    // Russian
    ("один", 1.0),
    ("одну", 1.0),
    ("одна", 1.0),
    ("две", 2.0),
    ("два", 2.0),
    ("пять", 5.0),
    ("десять", 10.0),
    ("тридцать", 30.0),
    // Turkish
    ("bir", 1.0),
    ("iki", 2.0),
    ("beş", 5.0),
    ("otuz", 30.0),
    // Counts of one and a half: German, Russian
    ("anderthalb", 1.5),
    ("полтора", 1.5),
];

/// Words for half, each commented with its language: after a count that means one
/// ("une demi-heure", "einer halben Stunde", "een half uur") or in its place ("media
/// hora", "meia hora", "yarım saat", "half an hour").
const HALVES: [&str; 8] = [
    "half",   // English, Dutch
    "media",  // Spanish
    "meia",   // Portuguese
    "demi",   // French (`demi-heure`, its hyphen read as a space)
    "halben", // German
    "halbe",  // German
    "mezza",  // Italian
    "yarım",  // Turkish
];

/// Words that add a half behind the unit, each commented with its language.
const AND_A_HALF: [(&str, &str, &str); 4] = [
    ("and", "a", "half"), // English: "an hour and a half"
    ("y", "media", ""),   // Spanish: "una hora y media"
    ("e", "meia", ""),    // Portuguese: "uma hora e meia"
    ("et", "demie", ""),  // French: "une heure et demie"
];

/// Words that hold a count and its unit together, each commented with its language.
const WHOLE: [(&str, f64, TimeUnit); 4] = [
    ("полчаса", 0.5, TimeUnit::Hours),     // Russian: half an hour
    ("полминуты", 0.5, TimeUnit::Minutes), // Russian: half a minute
    ("mezz'ora", 0.5, TimeUnit::Hours),    // Italian: half an hour
    ("mezzora", 0.5, TimeUnit::Hours),     // Italian
];

/// Units in their singular that mean one of themselves after a word for "in", each
/// commented with its language.
const ONE_BY_ITSELF: [(&str, TimeUnit); 6] = [
    ("minutę", TimeUnit::Minutes),  // Polish: "za minutę"
    ("godzinę", TimeUnit::Hours),   // Polish: "za godzinę"
    ("минуту", TimeUnit::Minutes),  // Russian: "через минуту"
    ("секунду", TimeUnit::Seconds), // Russian: "через секунду"
    ("хвилину", TimeUnit::Minutes), // Ukrainian: "через хвилину"
    ("годину", TimeUnit::Hours),    // Ukrainian: "через годину"
];

/// The count a word writes ([`COUNTS`]), or half for a word of [`HALVES`].
pub(super) fn count(word: &str) -> Option<f64> {
    if HALVES.contains(&word) {
        return Some(0.5);
    }
    COUNTS.iter().find(|(w, _)| *w == word).map(|(_, n)| *n)
}

/// The amount of time the words starting with `first` spell in words, capped at
/// [`MAX_WAIT`]; `unit_of` names the unit a word is in the caller's languages.
pub(super) fn amount<'a>(
    first: &str,
    mut rest: impl Iterator<Item = &'a str>,
    unit_of: impl Fn(&str) -> Option<TimeUnit>,
) -> Option<Duration> {
    if let Some((_, n, unit)) = WHOLE.iter().find(|(w, _, _)| *w == first) {
        return unit.float(*n, MAX_WAIT);
    }
    if let Some((_, unit)) = ONE_BY_ITSELF.iter().find(|(w, _)| *w == first) {
        return unit.float(1.0, MAX_WAIT);
    }
    let mut n = count(first)?;
    let mut word = rest.next()?;
    if HALVES.contains(&word) && n == 1.0 {
        n = 0.5;
        word = rest.next()?;
    }
    // "half an hour", "half a minute".
    if n == 0.5 && matches!(word, "a" | "an") {
        word = rest.next()?;
    }
    let unit = unit_of(word)?;
    let (a, b, c) = (rest.next(), rest.next(), rest.next());
    let and_a_half = AND_A_HALF
        .iter()
        .any(|(x, y, z)| a == Some(*x) && b == Some(*y) && (z.is_empty() || c == Some(*z)));
    if and_a_half {
        n += 0.5;
    }
    unit.float(n, MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{told_to_wait, wait_in};

    #[test]
    fn small_counts_written_in_words_are_amounts_of_time() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "Too many requests. Please try again in a minute.",
                Some(s(60)),
            ),
            (
                "Rate limit exceeded. Try again in five minutes.",
                Some(s(300)),
            ),
            ("Daily quota reached; retry in half an hour.", Some(s(1800))),
            (
                "Too many requests. Please wait an hour and a half.",
                Some(s(5400)),
            ),
            ("Inténtelo de nuevo en un minuto.", Some(s(60))),
            ("Espere media hora.", Some(s(1800))),
            ("Espere una hora y media.", Some(s(5400))),
            ("Réessayez dans une heure et demie.", Some(s(5400))),
            ("Tente novamente em uma hora e meia.", Some(s(5400))),
            (
                "Bitte in anderthalb Stunden erneut versuchen.",
                Some(s(5400)),
            ),
            ("Повторите через полтора часа.", Some(s(5400))),
            ("Réessayez dans une demi-heure.", Some(s(1800))),
            (
                "Bitte versuchen Sie es in einer halben Stunde erneut.",
                Some(s(1800)),
            ),
            ("Aguarde meia hora.", Some(s(1800))),
            ("Повторите через полчаса.", Some(s(1800))),
            ("Повторите через одну минуту.", Some(s(60))),
            ("Подождите пять минут.", Some(s(300))),
            ("Riprova tra mezz'ora.", Some(s(1800))),
            ("Lütfen bir dakika sonra tekrar deneyin.", Some(s(60))),
            ("Lütfen yarım saat sonra tekrar deneyin.", Some(s(1800))),
            ("Spróbuj ponownie za minutę.", Some(s(60))),
            // Words that name no count give nothing.
            ("Try again in a few minutes.", None),
            ("Inténtelo en unos minutos.", None),
            ("Versuchen Sie es in einigen Minuten erneut.", None),
            ("Try again in a while.", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
        assert_eq!(told_to_wait("Wait ten seconds."), Some(s(10)));
        assert_eq!(told_to_wait("The code expires in a minute."), None);
    }
}
