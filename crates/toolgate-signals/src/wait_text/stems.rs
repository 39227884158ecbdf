//! Units whose stem takes case endings, in agglutinative languages: Tamil writes "in 30
//! seconds" as one word, "30 வினாடிகளில்" (seconds + plural + in), Telugu "30 సెకన్లలో",
//! Kannada "30 ಸೆಕೆಂಡುಗಳಲ್ಲಿ", Malayalam "30 സെക്കൻഡിനുള്ളിൽ" (within), Khmer "30
//! វិនាទីក្រោយ" (seconds after), Burmese "30 စက္ကန့်အကြာတွင်", Finnish "30 sekunnissa";
//! and a unit takes an ending before a word for after or within: Finnish "2 minuutin
//! päästä", Hungarian "2 percen belül", Turkish "2 dakikaya kadar bekleyin". A list of
//! every inflected form would always miss one; a stem and the endings its language puts
//! on it name them all.
//!
//! A word names a unit when it is a stem followed by one of its language's endings —
//! any ending for the scripts beyond ASCII, whose stems are long and whose words no
//! other language shares, and only the listed endings for stems in Latin letters (so
//! Hungarian `perc` is not English "percent"). A number followed by such a word whose
//! ending says "in", "within" or "after" is a time to come by itself.

use std::time::Duration;

use crate::MAX_WAIT;
use crate::num::TimeUnit;

/// How a stem may end.
enum Endings {
    /// Any ending: scripts beyond ASCII.
    Any,
    /// Only these (the bare stem among them where it is a word).
    Listed(&'static [&'static str]),
}

/// Unit stems, each commented with its language.
const STEMS: [(&str, TimeUnit, Endings); 51] = [
    ("வினாடி", TimeUnit::Seconds, Endings::Any),  // Tamil
    ("நொடி", TimeUnit::Seconds, Endings::Any),   // Tamil
    ("நிமிட", TimeUnit::Minutes, Endings::Any),  // Tamil
    ("மணிநேர", TimeUnit::Hours, Endings::Any),   // Tamil
    ("సెకన్", TimeUnit::Seconds, Endings::Any),    // Telugu
    ("సెకను", TimeUnit::Seconds, Endings::Any),   // Telugu
    ("నిమిష", TimeUnit::Minutes, Endings::Any),    // Telugu
    ("గంట", TimeUnit::Hours, Endings::Any),      // Telugu
    ("ಸೆಕೆಂಡ", TimeUnit::Seconds, Endings::Any),   // Kannada
    ("ನಿಮಿಷ", TimeUnit::Minutes, Endings::Any),    // Kannada
    ("ಗಂಟೆ", TimeUnit::Hours, Endings::Any),      // Kannada
    ("സെക്കൻഡ", TimeUnit::Seconds, Endings::Any), // Malayalam
    ("സെക്കന്റ", TimeUnit::Seconds, Endings::Any), // Malayalam
    ("മിനിറ്റ", TimeUnit::Minutes, Endings::Any), // Malayalam
    ("മണിക്കൂ", TimeUnit::Hours, Endings::Any),    // Malayalam
    ("វិនាទី", TimeUnit::Seconds, Endings::Any),   // Khmer
    ("នាទី", TimeUnit::Minutes, Endings::Any),    // Khmer
    ("ម៉ោង", TimeUnit::Hours, Endings::Any),      // Khmer
    ("စက္ကန့်", TimeUnit::Seconds, Endings::Any),   // Burmese
    ("မိနစ်", TimeUnit::Minutes, Endings::Any),    // Burmese
    ("sekun", TimeUnit::Seconds, Endings::Listed(&FINNISH_SECOND)), // Finnish
    (
        "minuut",
        TimeUnit::Minutes,
        Endings::Listed(&FINNISH_MINUTE),
    ), // Finnish
    ("másodperc", TimeUnit::Seconds, Endings::Listed(&HUNGARIAN)), // Hungarian
    ("perc", TimeUnit::Minutes, Endings::Listed(&HUNGARIAN)), // Hungarian
    ("dakika", TimeUnit::Minutes, Endings::Listed(&TURKISH)), // Turkish
    ("segundo", TimeUnit::Seconds, Endings::Listed(&BASQUE)), // Basque
    ("minutu", TimeUnit::Minutes, Endings::Listed(&BASQUE)), // Basque
    ("ordu", TimeUnit::Hours, Endings::Listed(&BASQUE)), // Basque
    ("விநாடி", TimeUnit::Seconds, Endings::Any),  // Tamil, spelt with its dental n
    ("సెకండ", TimeUnit::Seconds, Endings::Any),   // Telugu, another spelling
    ("နာရီ", TimeUnit::Hours, Endings::Any),      // Burmese
    ("tun", TimeUnit::Hours, Endings::Listed(&FINNISH_HOUR)), // Finnish
    ("ór", TimeUnit::Hours, Endings::Listed(&HUNGARIAN_HOUR)), // Hungarian
    (
        "saniye",
        TimeUnit::Seconds,
        Endings::Listed(&TURKISH_SECOND),
    ), // Turkish
    ("saat", TimeUnit::Hours, Endings::Listed(&TURKISH_HOUR)), // Turkish
    ("çirk", TimeUnit::Seconds, Endings::Listed(&KURMANJI_SECOND)), // Kurmanji
    ("deqîqe", TimeUnit::Minutes, Endings::Listed(&KURMANJI)), // Kurmanji
    ("deqe", TimeUnit::Minutes, Endings::Listed(&KURMANJI)), // Kurmanji
    ("saet", TimeUnit::Hours, Endings::Listed(&KURMANJI_HOUR)), // Kurmanji
    ("demjimêr", TimeUnit::Hours, Endings::Listed(&KURMANJI_HOUR)), // Kurmanji
    ("sekunt", TimeUnit::Seconds, Endings::Listed(&TURKMEN)), // Turkmen
    ("minut", TimeUnit::Minutes, Endings::Listed(&TURKMEN)), // Turkmen
    ("sagat", TimeUnit::Hours, Endings::Listed(&TURKMEN)), // Turkmen
    ("सेकेन्ड", TimeUnit::Seconds, Endings::Any),   // Nepali
    ("मिनेट", TimeUnit::Minutes, Endings::Any),   // Nepali
    ("घण्टा", TimeUnit::Hours, Endings::Any),     // Nepali
    ("ସେକେଣ୍ଡ", TimeUnit::Seconds, Endings::Any), // Odia
    ("ମିନିଟ", TimeUnit::Minutes, Endings::Any),    // Odia
    ("ଘଣ୍ଟା", TimeUnit::Hours, Endings::Any),      // Odia
    ("ছেকেণ্ড", TimeUnit::Seconds, Endings::Any), // Assamese
    ("মিনিট", TimeUnit::Minutes, Endings::Any),  // Assamese, Bengali
];

/// Kurmanji endings: the oblique plural (`çirkan`, `deqîqeyan`: "di 30 çirkan de", in
/// 30 seconds) and the construct forms (`deqîqeyên`, `demjimêrê`).
const KURMANJI_SECOND: [&str; 7] = ["e", "an", "eyan", "ê", "eyê", "eyên", "ên"];
const KURMANJI: [&str; 5] = ["", "yan", "yê", "yên", "ya"];
const KURMANJI_HOUR: [&str; 4] = ["", "an", "ê", "ên"];

/// Turkmen endings: `sekuntda` (in seconds), `minutdan` (from minutes, before `soň`).
const TURKMEN: [&str; 3] = ["", "da", "dan"];

/// Finnish endings of `sekun-` (`sekunti`, `sekuntia`, `sekunnin`, `sekunnissa`) and of
/// `minuut-` (`minuutti`, `minuuttia`, `minuutin`, `minuutissa`).
const FINNISH_SECOND: [&str; 5] = ["ti", "tia", "nin", "nissa", "nit"];
const FINNISH_MINUTE: [&str; 5] = ["ti", "tia", "in", "issa", "it"];

/// Finnish endings of `tun-` (`tunti`, `tuntia`, `tunnin`, `tunnissa`: in an hour).
const FINNISH_HOUR: [&str; 4] = ["ti", "tia", "nin", "nissa"];

/// Hungarian endings of `ór-` (`óra`, `órát`, `órán`: "1 órán belül", within an hour).
const HUNGARIAN_HOUR: [&str; 3] = ["a", "át", "án"];

/// Hungarian endings: `perc`, `percet`, `percen` (on: "2 percen belül", within two
/// minutes), `percig` (for).
const HUNGARIAN: [&str; 4] = ["", "et", "en", "ig"];

/// Turkish endings of `dakika`: the bare word, `dakikaya` ("2 dakikaya kadar", up to two
/// minutes), `dakikadan`, `dakikalık`.
const TURKISH: [&str; 4] = ["", "ya", "dan", "lık"];

/// Basque endings: `segundoren` ("30 segundoren buruan", after 30 seconds), `segundotan`,
/// `segundoko`.
const BASQUE: [&str; 4] = ["", "ren", "tan", "ko"];

/// Turkish endings of `saniye` (`saniyeye kadar`, up to seconds; `saniyeden`) and of
/// `saat` (`saate kadar`, `saatten`); the bare `saat` is read before `sonra` by the
/// word list, where Malay's `saat` after its "in" is seconds.
const TURKISH_SECOND: [&str; 3] = ["ye", "den", "lik"];
const TURKISH_HOUR: [&str; 3] = ["e", "ten", "lik"];

/// Endings that carry "in", "within" or "after", each commented with its language.
const TIME_TO_COME: [&str; 13] = [
    "ில்",     // Tamil: in (`வினாடிகளில்`)
    "க்குள்",   // Tamil: within
    "లో",      // Telugu: in (`సెకన్లలో`)
    "ಲ್ಲಿ",     // Kannada: in (`ಸೆಕೆಂಡುಗಳಲ್ಲಿ`)
    "ിൽ",     // Malayalam: in, within (`സെക്കൻഡിനുള്ളിൽ`)
    "ក្រោយ",   // Khmer: after (`វិនាទីក្រោយ`)
    "အကြာ",   // Burmese: after a lapse of
    "အကြာတွင်", // Burmese: after a lapse of (`စက္ကန့်အကြာတွင်`)
    "nissa",  // Finnish: in (`sekunnissa`)
    "issa",   // Finnish: in (`minuutissa`)
    "da",     // Turkmen: in (`sekuntda`)
    "पछि",    // Nepali: after, glued (`मिनेटपछि`)
    "ରେ",     // Odia: in (`ସେକେଣ୍ଡରେ`)
];

/// Marks that end a sentence or a clause in these scripts, trimmed off a word.
const STOPS: [char; 9] = ['.', ',', ';', ')', '!', '։', '។', '။', '।'];

/// The unit `word` names as a stem with one of its endings, and the ending.
fn stem_and_ending(word: &str) -> Option<(TimeUnit, &str)> {
    STEMS.iter().find_map(|(stem, unit, endings)| {
        let ending = word.strip_prefix(stem)?;
        let fits = match endings {
            Endings::Any => true,
            Endings::Listed(listed) => listed.contains(&ending),
        };
        fits.then_some((*unit, ending))
    })
}

/// The unit `word` names as a stem with one of its language's endings.
pub(super) fn unit(word: &str) -> Option<TimeUnit> {
    stem_and_ending(word).map(|(unit, _)| unit)
}

/// The longest time to come the lowered text states as a number followed by a unit
/// whose ending says "in", "within" or "after" ([`TIME_TO_COME`]), capped at
/// [`MAX_WAIT`].
pub(super) fn time_to_come(t: &str) -> Option<Duration> {
    let mut best = None;
    let mut previous = "";
    for word in t.split_whitespace() {
        let word = word.trim_end_matches(STOPS);
        if let Some((unit, ending)) = stem_and_ending(word)
            && TIME_TO_COME.iter().any(|e| ending.ends_with(e))
        {
            best = best.max(unit.decimal(crate::num::bare_number(previous), MAX_WAIT));
        }
        previous = word;
    }
    best
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::wait_in;
    use super::unit;
    use crate::num::TimeUnit;

    #[test]
    fn a_unit_stem_whose_ending_says_in_is_a_time_to_come() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "அதிக அளவு உள்நுழைவு முயற்சிகள். 20 வினாடிகளில் மீண்டும் முயற்சிக்கவும்.",
                Some(s(20)),
            ),
            (
                "చాలా ఎక్కువ లాగిన్ ప్రయత్నాలు. దయచేసి 20 సెకన్లలో మళ్లీ ప్రయత్నించండి.",
                Some(s(20)),
            ),
            (
                "ಹಲವಾರು ಲಾಗಿನ್ ಪ್ರಯತ್ನಗಳು. ದಯವಿಟ್ಟು ಮತ್ತೆ ಪ್ರಯತ್ನಿಸಿ 60\t ಸೆಕೆಂಡುಗಳಲ್ಲಿ",
                Some(s(60)),
            ),
            (
                "വളരെയധികം ലോഗിൻ ശ്രമങ്ങൾ. 20 സെക്കൻഡിനുള്ളിൽ വീണ്ടും ശ്രമിക്കുക.",
                Some(s(20)),
            ),
            ("ការបញ្ចូលច្រើនដងពេក។ សូមសាកល្បង 20 វិនាទីក្រោយ។", Some(s(20))),
            (
                "အကောင့်ဝင်ရန် ကြိုးစားမှု များလွန်းသည်။ ကျေးဇူးပြု၍ 60 စက္ကန့်အကြာတွင် ထပ်စမ်းကြည့်ပါ။",
                Some(s(60)),
            ),
            ("2 நிமிடங்களில் மீண்டும் முயற்சிக்கவும்", Some(s(120))),
            ("1 மணிநேரத்தில்", Some(s(3600))),
            ("2 నిమిషాల్లో", Some(s(120))),
            ("5 ನಿಮಿಷಗಳಲ್ಲಿ", Some(s(300))),
            ("2 മിനിറ്റിനുള്ളിൽ", Some(s(120))),
            ("Yritä uudelleen 30 sekunnissa", Some(s(30))),
            ("Yritä uudelleen 5 minuutissa", Some(s(300))),
            // Other endings say no time to come: "for 30 seconds", "of 2 minutes".
            ("30 வினாடிகளுக்கு", None),
            ("30 sekunnin", None),
            // A stem with no number before it is no amount.
            ("சில வினாடிகளில்", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }

    #[test]
    fn a_unit_stem_takes_its_languages_endings_before_words_for_after() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Yritä uudelleen 2 minuutin päästä", Some(s(120))),
            ("Próbálja újra 20 másodperc elteltével", Some(s(20))),
            ("Kérjük, 2 percen belül ne küldjön újabbat", Some(s(120))),
            ("Lütfen 20 saniye içinde tekrar deneyin", Some(s(20))),
            ("Lütfen 2 dakikaya kadar bekleyin", Some(s(120))),
            ("Lütfen 30 saniyeye kadar bekleyin", Some(s(30))),
            ("Yritä uudelleen 1 tunnissa", Some(s(3600))),
            ("Kérjük, 1 órán belül próbálja újra", Some(s(3600))),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
        // A stem in Latin letters takes only its language's endings: `percent` is no
        // minutes, `perceptive` neither.
        assert_eq!(unit("percen"), Some(TimeUnit::Minutes));
        assert_eq!(unit("percent"), None);
        assert_eq!(unit("sekunnissa"), Some(TimeUnit::Seconds));
        assert_eq!(unit("sekunnus"), None);
        assert_eq!(wait_in("Retry after 30 percent of the window"), None);
    }

    #[test]
    fn kurmanji_turkmen_nepali_and_odia_units_take_their_endings() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "Ji kerema xwe di 30 çirkan de dîsa biceribîne.",
                Some(s(30)),
            ),
            ("Piştî 2 deqeyan dîsa biceribîne.", Some(s(120))),
            ("Piştî 1 demjimêrê dîsa biceribîne.", Some(s(3600))),
            ("Di 5 deqîqeyên pêş de dîsa biceribîne.", Some(s(300))),
            (
                "20 sekuntda gaýtadan synanyşmagyňyzy haýyş edýäris.",
                Some(s(20)),
            ),
            ("कृपया २ मिनेटपछि फेरि प्रयास गर्नुहोस्।", Some(s(120))),
            ("ଦୟାକରି 20 ସେକେଣ୍ଡରେ ପୁନର୍ବାର ଚେଷ୍ଟା କରନ୍ତୁ", Some(s(20))),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
        // The endings are the language's own: `çirkek` is no unit, `minutes` stays
        // English, and a Turkmen unit in a case that says no "in" is no time to come.
        assert_eq!(unit("çirkek"), None);
        assert_eq!(unit("minutda"), Some(TimeUnit::Minutes));
        assert_eq!(wait_in("20 sekuntdan ybarat"), None);
    }
}
