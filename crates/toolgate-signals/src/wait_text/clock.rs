//! Times of day told apart from durations: "probeer het om 9 uur opnieuw" (try again at
//! nine o'clock), "réessayez après 14h30", "tente novamente após 14h", "thử lại sau
//! 14h30", "um 14:30 Uhr" name an hour of the clock to come back at, not nine or
//! fourteen hours to wait. A number is an hour of the clock when it carries its minutes
//! behind a clock's separator (`14h30`, `14:30`, and `14.30` before a word for o'clock),
//! when it is glued to `h` after a word for "after" in a language that writes the hour
//! so (`après 14h`), or when a word for o'clock in the "at" sense stands around it
//! (Dutch `om … uur`, German `… Uhr`). Without its zone whose clock it is cannot be
//! told, so such a time gives no wait at all, as in English.
//!
//! `dans 2h` (in two hours) and the Nordic `om 2 timer` (in two hours) stay durations:
//! the first has no "after" before it, the second no word for o'clock.

/// Words for o'clock put behind the hour: Dutch `uur` ("14.30 uur"), German `Uhr`,
/// French and Portuguese `h` ("14 h 30").
const O_CLOCK: [&str; 3] = ["uur", "uhr", "h"];

/// A word before the hour and the word behind it that together say "at that hour":
/// Dutch "om 9 uur", where `uur` after any other word is hours ("over 2 uur"), and
/// Vietnamese "lúc 9 giờ".
const AT_THE_HOUR: [(&str, &str); 2] = [("om", "uur"), ("lúc", "giờ")];

/// Words that are both "hours" and "o'clock", each commented with its language: Dutch
/// "na 15 uur" is after three in the afternoon, "na 2 uur" after two hours; Vietnamese
/// "sau 14 giờ" after two in the afternoon, "sau 2 giờ" after two hours.
const HOURS_OR_O_CLOCK: [&str; 2] = [
    "uur", // Dutch
    "giờ", // Vietnamese
];

/// Words for "after" before which an hour of the afternoon and a word of
/// [`HOURS_OR_O_CLOCK`] name the clock, each commented with its language.
const AFTER_THE_WHOLE_HOUR: [&str; 2] = [
    "na",  // Dutch
    "sau", // Vietnamese
];

/// Words for "after" before which an hour glued to `h` is an hour of the clock, each
/// commented with its language: French "après 14h", Portuguese "após 14h", Vietnamese
/// "sau 14h", German "nach 14h", Spanish "tras las 14h", Indonesian "setelah 14h".
const AFTER_THE_HOUR: [&str; 6] = [
    "après",   // French
    "após",    // Portuguese
    "sau",     // Vietnamese
    "nach",    // German
    "tras",    // Spanish
    "setelah", // Indonesian
];

/// Whether the amount at the start of `rest`, right after `trigger`, is a time of day.
pub(super) fn at_start(trigger: &str, rest: &str) -> bool {
    let before = trigger.split_whitespace().last().unwrap_or_default();
    let mut words = rest
        .split_ascii_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ';', ')', '!']));
    words
        .next()
        .is_some_and(|number| time_of_day(before, number, words.next()))
}

/// Whether `number`, written after the word `before` and before the word `next`, is an
/// hour of the clock rather than an amount of time.
pub(super) fn time_of_day(before: &str, number: &str, next: Option<&str>) -> bool {
    let number = number.trim_end_matches(['.', ',', ';', ')', '!']);
    let Some(i) = number.find([':', 'h', '.']) else {
        return is_hour(number)
            && next.is_some_and(|n| {
                n == "uhr"
                    || AT_THE_HOUR.contains(&(before, n))
                    || (HOURS_OR_O_CLOCK.contains(&n)
                        && AFTER_THE_WHOLE_HOUR.contains(&before)
                        && afternoon(number))
            });
    };
    let (hour, rest) = number.split_at(i);
    let minutes = &rest[1..];
    if !is_hour(hour) {
        return false;
    }
    if minutes.is_empty() {
        return rest.starts_with('h') && AFTER_THE_HOUR.contains(&before);
    }
    let is_minutes =
        minutes.len() == 2 && minutes.bytes().all(|b| b.is_ascii_digit()) && minutes < "60";
    // A point is a decimal's as often as a clock's: "1.5 uur" is an hour and a half,
    // "14.30 uur" half past two, told apart by the two digits and the word for o'clock.
    is_minutes && (!rest.starts_with('.') || next.is_some_and(|n| O_CLOCK.contains(&n)))
}

/// Whether `hour` is one of the afternoon or evening, 13 to 23: after a word for "after",
/// "15 uur" and "14 giờ" are rarely a wait of that many hours, while 24 is a day ("sau
/// 24 giờ") and 1 to 12 as often two hours as two o'clock, which stay amounts.
fn afternoon(hour: &str) -> bool {
    hour.parse::<u8>().is_ok_and(|h| (13..=23).contains(&h))
}

/// Whether `text` is an hour of the clock: one or two digits, 0 to 24.
fn is_hour(text: &str) -> bool {
    (1..=2).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_digit())
        && text.parse::<u8>().is_ok_and(|h| h <= 24)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::wait_in;
    use super::time_of_day;

    #[test]
    fn hours_of_the_clock_are_no_amounts() {
        for (before, number, next) in [
            ("om", "9", Some("uur")),
            ("om", "14.30", Some("uur")),
            ("après", "14h30", None),
            ("après", "14h", None),
            ("após", "9h", Some("amanhã")),
            ("sau", "14h30", None),
            ("um", "14:30", Some("uhr")),
            ("nach", "14", Some("uhr")),
            ("bis", "07:05", None),
        ] {
            assert!(
                time_of_day(before, number, next),
                "{before} {number} {next:?}"
            );
        }
        for (before, number, next) in [
            // Durations: no word for o'clock, or no "after" before a glued `h`.
            ("om", "2", Some("timer")),
            ("over", "2", Some("uur")),
            ("dans", "2h", None),
            ("after", "14h", None),
            ("in", "1.5", Some("uur")),
            ("om", "1.5", Some("uur")),
            ("in", "30", Some("seconds")),
            // No hour of a clock: too many digits, minutes past 59, a hundred hours.
            ("après", "14h75", None),
            ("om", "100", Some("uur")),
            ("après", "123h", None),
        ] {
            assert!(
                !time_of_day(before, number, next),
                "{before} {number} {next:?}"
            );
        }
    }

    #[test]
    fn a_throttle_naming_an_hour_gives_no_wait_of_that_many_hours() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Probeer het morgen om 9 uur opnieuw.", None),
            ("Te veel verzoeken. Probeer het om 14.30 uur opnieuw.", None),
            ("Réessayez après 14h30.", None),
            ("Trop de requêtes, réessayez après 14h.", None),
            ("Tente novamente após 14h.", None),
            ("Vui lòng thử lại sau 9h.", None),
            // Durations beside them stay durations.
            ("Prøv igjen om 2 timer.", Some(s(7200))),
            ("Réessayez dans 2h.", Some(s(7200))),
            ("Probeer het over 2 uur opnieuw.", Some(s(7200))),
            ("Probeer het over 1.5 uur opnieuw.", Some(s(5400))),
            ("Retry after 14h.", Some(s(14 * 3600))),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }
    #[test]
    fn an_afternoon_hour_after_a_word_for_after_is_the_clock_not_hours() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Te veel verzoeken. Probeer het na 15 uur opnieuw.", None),
            ("Probeer het vandaag na 17 uur opnieuw", None),
            ("Quá nhiều yêu cầu. Vui lòng thử lại sau 14 giờ.", None),
            ("Thử lại sau 14 giờ 30.", None),
            ("Thử lại lúc 9 giờ", None),
            // Hours that are as often an amount stay one, and a day is a day.
            ("Probeer het na 2 uur opnieuw.", Some(s(7200))),
            ("Vui lòng thử lại sau 2 giờ.", Some(s(7200))),
            ("Thử lại sau 24 giờ.", Some(s(86_400))),
            ("Probeer het over 15 uur opnieuw.", Some(s(15 * 3600))),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }
}
