//! Waits stated in the languages APIs answer their users in besides English: the
//! words put before a time to come and the names of the units, so that Omie's
//! "Aguarde 60 segundos" (Portuguese), "Espere 30 segundos" and "Inténtelo de nuevo en
//! 2 minutos" (Spanish), "Réessayez dans 45 secondes" (French), "Versuchen Sie es in
//! 30 Sekunden erneut" (German), "Повторите через 5 секунд" (Russian), "Spróbuj
//! ponownie za 30 sekund" (Polish), "Riprova tra 60 secondi" (Italian), "Probeer het
//! over 60 seconden opnieuw" (Dutch), "Zkuste to znovu za 60 sekund" (Czech), "thử lại
//! sau 10 giây" (Vietnamese), "coba lagi dalam 60 detik" (Indonesian), "ลองใหม่อีกครั้งใน 30
//! วินาที" (Thai), "المحاولة بعد 60 ثانية" (Arabic) and "נסה שוב בעוד 30 שניות" (Hebrew)
//! read as the English phrasings do, and so do their like in Ukrainian, Romanian
//! ("peste 60 de secunde", its `de` between number and unit), Greek, Swedish, Danish,
//! Norwegian, Finnish, Slovak, Croatian, Bulgarian, Malay and Catalan. Turkish,
//! Hungarian, Finnish, Estonian, Kazakh and Persian put their "after" behind the amount
//! ("10 saniye sonra", "30 másodperc múlva", "30 sekunnin kuluttua"), and German, Dutch,
//! Turkish, Persian and Hindi may end the clause with the verb that tells to wait ("bitte
//! 30 Sekunden warten", "gelieve 60 seconden te wachten", "60 saniye bekleyin"): both are
//! read by [`time_to_come_before`], the verbs also as instructions. So do Armenian,
//! Uzbek, Hindi, Marathi, Nepali, Bengali, Urdu and Mongolian ("20 վայրկյան հետո",
//! "30 সেকেন্ড পরে"); Georgian carries its "in" as the unit's ending ("30 წამში"), and
//! Swahili puts the unit before its number ("baada ya sekunde 20"), as Hausa ("a cikin
//! daƙiƙa 30"), Zulu ("emizuzwaneni eyi-30", the unit carrying "in") and Sinhala ("තත්පර
//! 30 කින්") do; Amharic, Kazakh, Kyrgyz, Punjabi and Basque put their "in" or "after"
//! behind the unit ("በ30 ሰከንድ ውስጥ", "30 секундтан соң", "30 segundo barru"), and Yoruba
//! writes a second in two words ("ìsẹ́jú-ààyá"). Units that take case endings (Tamil,
//! Telugu, Kannada, Malayalam, Khmer, Burmese, Finnish, Hungarian, Turkish, Kurmanji,
//! Turkmen, Nepali, Odia, Assamese) are read by their stems ([`super::stems`]). Tibetan
//! puts its unit first and "after" behind the number ("སྐར་ཆ་ ༣༠ རྗེས་སུ"), and Laravel's
//! Pashto translation sets its number apart from a unit of two words, "please" and
//! "of" between ("20 لطفا د دویمې برخې وروسته"), read past those words alone.
//!
//! Source of the first: <https://ajuda.omie.com.br/pt-BR/articles/8001888-tratando-os-erros-de-api>
//! ("Requisições redundantes liberadas a cada 60 segundos"). The triggers are matched
//! whole, in the lowered text, like the English ones, and an amount needs its unit.

use std::time::Duration;

use crate::MAX_WAIT;
use crate::num::TimeUnit;

/// Words after which an amount of time is a time to come (the English `in`, `after`);
/// each entry commented with its language. German's `in` is the English word.
pub(super) const TRIGGERS: [&str; 64] = [
    " em ",                       // Portuguese
    " após ",                     // Portuguese
    " en ",                       // Spanish
    " tras ",                     // Spanish
    " dans ",                     // French
    " après ",                    // French
    " nach ",                     // German
    " через ",                    // Russian
    " za ",                       // Polish, Czech
    " tra ",                      // Italian
    " fra ",                      // Italian
    " sau ",                      // Vietnamese
    " dalam ",                    // Indonesian
    " setelah ",                  // Indonesian
    "ใน ",                        // Thai, which writes no space before it
    " بعد ",                      // Arabic
    " בעוד ",                     // Hebrew
    " peste ",                    // Romanian
    " σε ",                       // Greek
    " om ",                       // Swedish, Danish, Norwegian
    " o ",                        // Slovak
    " след ",                     // Bulgarian
    " na ",                       // Dutch
    " d'aquí a ",                 // Catalan
    " pēc ",                      // Latvian
    " čez ",                      // Slovenian
    " pagkatapos ng ",            // Filipino
    " baada ya ",                 // Swahili, its unit before the number ("baada ya sekunde 20")
    " eftir ",                    // Icelandic ("reyndu aftur eftir 30 sekúndur")
    " i gceann ",                 // Irish ("i gceann 30 soicind")
    " mewn ",                     // Welsh ("ceisiwch eto mewn 30 eiliad")
    " a cikin ",                  // Hausa, its unit before the number ("a cikin daƙiƙa 30")
    " l\u{1eb9}\u{301}y\u{ec}n ", // Yoruba `lẹ́yìn` ("lẹ́yìn 30 ìsẹ́jú-ààyá")
    " баъд аз ",                  // Tajik ("баъд аз 30 сония")
    " دوای ",                     // Kurdish (Sorani) ("دوای ١٠ چرکە")
    "ໃນອີກ ",                      // Lao, which writes no space before it ("ລອງໃໝ່ໃນອີກ 30 ວິນາທີ")
    " di ",                       // Kurdish (Kurmanji), closed by `de` ("di 30 çirkeyan de")
    " dentro de ",                // Portuguese, Spanish, Galician: within ("dentro de 30 segundos")
    "ក្នុងរយៈពេល ",                  // Khmer: within a period of, written with no space before it
    "បន្ទាប់ពី ",                     // Khmer: after
    "ຫຼັງຈາກ ",                     // Lao: after
    " bayan ",                    // Hausa: after, its unit first ("bayan daƙiƙa 30")
    " ngemuva ",                  // Zulu: after, its unit first ("ngemuva kwemizuzwana engu-30")
    " пас аз ",                   // Tajik: after
    " piştî ",                    // Kurdish (Kurmanji): after
    " ar ôl ",                    // Welsh: after
    " праз ",                     // Belarusian: in ("праз 20 секунд")
    " binne ",                    // Afrikaans: within ("binne 20 sekondes")
    " oor ",                      // Afrikaans: in ("oor 2 minute")
    " oer ",                      // Frisian: in ("oer 2 minuten")
    " an ",          // Luxembourgish: in ("an 20 Sekonnen"); English "an" takes no digit
    " post ",        // Esperanto: after ("post 20 sekundoj")
    " fi żmien ",    // Maltese: within
    " pas ",         // Albanian: after ("pas 20 sekondave")
    " afaka ",       // Malagasy: in, after ("afaka 2 minitra")
    " emva ",        // Xhosa: after, its unit first ("emva kwemizuzu emi-2")
    " sawise ",      // Javanese: after
    " saatos ",      // Sundanese: after
    " ā muri i te ", // Maori: after
    " nan ",         // Haitian Creole: in
    " human sa ",    // Cebuano: after, `ka` between number and unit
    " sa loob ng ",  // Tagalog: within
    " i le ",        // Samoan: in
    " katika ",      // Swahili: in, its unit first ("katika sekunde 20")
];

/// Words put before a time of day with its zone to come back at ("réessayez après 14h00
/// UTC", "nach 14:00 UTC", "thử lại sau 14:00 UTC"), read as the English `after`, `at`
/// and `until` are; each entry commented with its language.
pub(super) const BEFORE_AN_INSTANT: [&str; 21] = [
    " après ",          // French
    " à ",              // French
    " nach ",           // German
    " um ",             // German
    " após ",           // Portuguese
    " às ",             // Portuguese
    " después de las ", // Spanish
    " a las ",          // Spanish
    " tras las ",       // Spanish
    " dopo le ",        // Italian
    " alle ",           // Italian
    " na ",             // Dutch
    " om ",             // Dutch, Swedish, Danish, Norwegian
    " po ",             // Polish
    " после ",          // Russian
    " в ",              // Russian
    " sau ",            // Vietnamese
    " lúc ",            // Vietnamese
    " efter ",          // Swedish, Danish
    " klo ",            // Finnish ("klo 14.00 UTC")
    " kl. ",            // Swedish, Danish, Norwegian ("kl. 14.00 CET")
];

/// Words put behind a time of day with its zone to come back after, each commented with
/// its language: Turkish "16:00 UTC'den sonra", Hungarian "16:00 CET után", Finnish "klo
/// 16.00 UTC jälkeen", Estonian "16:00 UTC pärast".
pub(super) const AFTER_AN_INSTANT: [&str; 4] = [
    " sonra",   // Turkish
    " után",    // Hungarian
    " jälkeen", // Finnish
    " pärast",  // Estonian
];

/// Words that tell the caller to wait, followed by the amount (the English `wait`,
/// `try again in`); each entry commented with its language.
pub(super) const TOLD: [&str; 97] = [
    " aguarde ",                     // Portuguese, Spanish
    " aguardar ",                    // Portuguese ("é preciso aguardar 1 hora")
    " aguardado ",                   // Portuguese ("deve ser aguardado 1 hora")
    " esperar ",                     // Spanish ("debe esperar 30 segundos")
    " attendre ",                    // French ("merci d'attendre 10 secondes")
    " espere ",                      // Spanish, Portuguese
    " attendez ",                    // French
    " réessayez dans ",              // French
    " patienter ",                   // French ("veuillez patienter 60 secondes")
    " warten sie ",                  // German
    " подождите ",                   // Russian
    " повторите через ",             // Russian
    " попробуйте через ",            // Russian
    " повторите запрос через ",      // Russian
    " spróbuj ponownie za ",         // Polish
    " odczekaj ",                    // Polish
    " riprova tra ",                 // Italian
    " attendi ",                     // Italian
    " probeer het over ",            // Dutch
    " wacht ",                       // Dutch
    " zkuste to znovu za ",          // Czech
    " počkejte ",                    // Czech
    " thử lại sau ",                 // Vietnamese
    " coba lagi dalam ",             // Indonesian
    " tunggu ",                      // Indonesian
    "ลองใหม่อีกครั้งใน ",                // Thai
    " المحاولة بعد ",                // Arabic
    " נסה שוב בעוד ",                // Hebrew
    " зачекайте ",                   // Ukrainian
    " спробуйте через ",             // Ukrainian
    " așteptați ",                   // Romanian
    " încercați din nou peste ",     // Romanian
    " reîncercați peste ",           // Romanian
    " várjon ",                      // Hungarian
    " περιμένετε ",                  // Greek
    " δοκιμάστε ξανά σε ",           // Greek
    " vänta ",                       // Swedish
    " försök igen om ",              // Swedish
    " vent ",                        // Danish, Norwegian
    " prøv igen om ",                // Danish
    " prøv igjen om ",               // Norwegian
    " odota ",                       // Finnish
    " počkajte ",                    // Slovak
    " skúste to znova o ",           // Slovak
    " pričekajte ",                  // Croatian
    " pokušajte ponovno za ",        // Croatian
    " изчакайте ",                   // Bulgarian
    " опитайте отново след ",        // Bulgarian
    " cuba lagi dalam ",             // Malay
    " espereu ",                     // Catalan
    " torneu-ho a provar d'aquí a ", // Catalan
    " bandykite dar kartą po ",      // Lithuanian
    " palaukite ",                   // Lithuanian
    " mēģiniet vēlreiz pēc ",        // Latvian
    " uzgaidiet ",                   // Latvian
    " покушајте поново за ",         // Serbian
    " сачекајте ",                   // Serbian
    " pokušajte ponovo za ",         // Serbian, in Latin letters
    " sačekajte ",                   // Serbian, in Latin letters
    " poskusite znova čez ",         // Slovenian
    " počakajte ",                   // Slovenian
    " обидете се повторно за ",      // Macedonian
    " почекајте ",                   // Macedonian
    " provoni përsëri pas ",         // Albanian
    " prisni ",                      // Albanian
    " დაელოდეთ ",                    // Georgian
    " subukang muli pagkatapos ng ", // Filipino
    " maghintay ng ",                // Filipino
    " jaribu tena baada ya ",        // Swahili
    " subiri ",                      // Swahili
    " ફરીથી પ્રયાસ કરો ",             // Gujarati: try again
    " uzame futhi ",                 // Zulu: try again ("uzame futhi emizuzwaneni eyi-30")
    " sake gwadawa a cikin ",        // Hausa: try again in
    " reyndu aftur eftir ",          // Icelandic: try again after
    "ລໍຖ້າ ",                          // Lao: wait, written with no space before it
    " bíddu í ",                     // Icelandic: wait for
    " fan ",                         // Irish: wait
    " arhoswch ",                    // Welsh: wait
    " itxaron ",                     // Basque: wait
    " agarde ",                      // Galician: wait
    " esperi ",                      // Catalan: wait
    " wag ",                         // Afrikaans: wait
    " wag asseblief ",               // Afrikaans: wait, please ("wag asseblief 30 sekondes")
    " waart ",                       // Luxembourgish: wait
    " wachtsje ",                    // Frisian: wait
    " atendu ",                      // Esperanto: wait
    " stenna ",                      // Maltese: wait
    " пачакайце ",                   // Belarusian: wait
    " սպասեք ",                      // Armenian: wait
    " sug ",                         // Somali: wait
    " andraso ",                     // Malagasy: wait
    " linda ",                       // Xhosa: wait
    " enteni ",                      // Javanese: wait
    " antosan ",                     // Sundanese: wait
    " tatari ",                      // Maori: wait
    " tann ",                        // Haitian Creole: wait
    " paghulat og ",                 // Cebuano: wait for
];

/// Words put behind an amount of time to make it a time to come (Turkish `sonra`,
/// "10 saniye sonra": ten seconds after); each entry commented with its language.
const AFTER_THE_AMOUNT: [&str; 54] = [
    " sonra",        // Turkish
    " múlva",        // Hungarian ("30 másodperc múlva")
    " kuluttua",     // Finnish ("30 sekunnin kuluttua")
    " pärast",       // Estonian ("30 sekundi pärast")
    " кейін",        // Kazakh ("30 секундтан кейін")
    " بعد",          // Persian ("60 ثانیه بعد")
    " հետո",         // Armenian ("20 վայրկյան հետո")
    " keyin",        // Uzbek ("15 soniyadan keyin")
    " बाद",          // Hindi ("30 सेकंड बाद")
    " नंतर",          // Marathi ("30 सेकंद नंतर")
    " पछि",          // Nepali ("60 सेकेन्ड पछि")
    " পরে",          // Bengali ("30 সেকেন্ড পরে")
    " дараа",        // Mongolian ("30 секундын дараа")
    " ውስጥ",          // Amharic: within ("በ30 ሰከንድ ውስጥ")
    " соң",          // Kazakh ("30 секундтан соң")
    " кийин",        // Kyrgyz ("30 секунддан кийин")
    " barru",        // Basque: within ("30 segundo barru")
    " ਵਿੱਚ",          // Punjabi: in ("30 ਸਕਿੰਟਾਂ ਵਿੱਚ")
    " කින්",           // Sinhala: in, its unit before the number ("තත්පර 30 කින්")
    " päästä",       // Finnish: after ("2 minuutin päästä")
    " elteltével",   // Hungarian: once … passed ("20 másodperc elteltével")
    " belül",        // Hungarian: within ("2 percen belül")
    " içinde",       // Turkish: within ("20 saniye içinde")
    " በኋላ",          // Amharic: after ("ከ30 ሰከንድ በኋላ")
    " తర్వాత",         // Telugu: after
    " பிறகு",        // Tamil: after
    " கழித்து",       // Tamil: after
    " ನಂತರ",         // Kannada: after
    " ശേഷം",         // Malayalam: after
    " પછી",          // Gujarati: after
    " ਬਾਅਦ",         // Punjabi: after
    " وروسته",       // Pashto: after
    " buruan",       // Basque: after ("30 segundoren buruan")
    " ondoren",      // Basque: after
    " után",         // Hungarian: after ("2 óra után")
    " jälkeen",      // Finnish: after ("30 sekunnin jälkeen")
    " ərzində",      // Azerbaijani: within ("20 saniyə ərzində")
    " soň",          // Turkmen: after ("2 minutdan soň")
    " kadib",        // Somali: after ("2 daqiiqo kadib")
    " შემდეგ",       // Georgian: after ("2 წუთის შემდეგ")
    " անց",          // Armenian: later ("20 վայրկյան անց")
    " পর",           // Bengali: after, short of `পরে`
    " পিছত",         // Assamese: after ("১০ ছেকেণ্ডৰ পিছত")
    " ପରେ",          // Odia: after
    " کانپوءِ",       // Sindhi: after
    " ۾",            // Sindhi: in ("20 سيڪنڊن ۾")
    " كېيىن",        // Uyghur: after
    " كىيىن",        // Uyghur: after, another spelling
    " so\u{2018}ng", // Uzbek: after, with its turned comma (`so‘ng`)
    " so\u{2bb}ng",  // Uzbek: after, with the letter's own comma (`soʻng`)
    " so'ng",        // Uzbek: after, with an apostrophe
    " сўнг",         // Uzbek, in Cyrillic: after
    " эчендә",       // Tatar: within ("20 секунд эчендә")
    " རྗེས",           // Tibetan: after, its unit first ("སྐར་ཆ་ ༣༠ རྗེས་སུ")
];

/// Verbs put behind the amount they tell the caller to wait, in languages that end a
/// clause with its verb: German "bitte 30 Sekunden warten", Dutch "gelieve 60 seconden
/// te wachten" and "over 5 minuten opnieuw proberen", Turkish "60 saniye bekleyin",
/// Persian "60 ثانیه صبر کنید", Hindi "30 सेकंड प्रतीक्षा करें"; each entry commented with
/// its language.
pub(super) const TOLD_BEHIND: [&str; 18] = [
    " warten",         // German
    " wachten",        // Dutch
    " te wachten",     // Dutch
    " opnieuw",        // Dutch
    " bekleyin",       // Turkish
    " bekleyiniz",     // Turkish
    " صبر کنید",       // Persian
    " प्रतीक्षा",        // Hindi
    " kadar bekleyin", // Turkish: wait up to ("2 dakikaya kadar bekleyin")
    " күтіңіз",        // Kazakh: wait
    " күтүңүз",        // Kyrgyz: wait
    " интизор",        // Tajik: wait ("30 сония интизор шавед")
    " gözləyin",       // Azerbaijani: wait ("30 saniyə gözləyin")
    " хүлээнэ үү",     // Mongolian: please wait
    " көтегез",        // Tatar: wait
    " garaşyň",        // Turkmen: wait
    " kuting",         // Uzbek: wait
    " кутинг",         // Uzbek, in Cyrillic: wait
];

/// The longest time to come the lowered text states with the word for "after" behind
/// its amount and unit ("10 saniye sonra tekrar deneyin"), or a verb telling to wait
/// ([`TOLD_BEHIND`]), capped at [`MAX_WAIT`].
pub(super) fn time_to_come_before(t: &str) -> Option<Duration> {
    amount_before(t, &AFTER_THE_AMOUNT)
        .max(amount_before(t, &TOLD_BEHIND))
        .max(amount_with_unit_in(t))
        .max(super::stems::time_to_come(t))
}

/// The longest amount of time, with its unit, that stands right before one of `behind`
/// in the lowered text, capped at [`MAX_WAIT`].
pub(super) fn amount_before(t: &str, behind: &[&str]) -> Option<Duration> {
    let mut best = None;
    for after in behind {
        let mut from = 0;
        while let Some(i) = t.get(from..).and_then(|rest| rest.find(after)) {
            let before = &t[..from + i];
            from += i + after.len();
            // The whole word only: `sonraki` (next) is no "after".
            if t[from..].starts_with(char::is_alphabetic) {
                continue;
            }
            let mut words = before.split_ascii_whitespace().rev();
            let (Some(unit), Some(number)) = (words.next(), words.next()) else {
                continue;
            };
            // "probeer het om 14.30 uur opnieuw": an hour of the clock, no amount.
            let before_number = words.next();
            if super::clock::time_of_day(before_number.unwrap_or_default(), number, Some(unit)) {
                continue;
            }
            // Sinhala writes the unit first ("තත්පර 30 කින්": seconds 30 in); a count may
            // be a word ("bir dakika sonra", "yarım saat sonra").
            let found = unit_word(unit)
                .and_then(|u| {
                    u.decimal(crate::num::bare_number(number), MAX_WAIT)
                        .or_else(|| {
                            super::spelled::count(number).and_then(|n| u.float(n, MAX_WAIT))
                        })
                })
                .or_else(|| unit_then_number(number, Some(unit)))
                .or_else(|| {
                    number_apart_from_its_unit(number, unit, before_number.into_iter().chain(words))
                });
            best = best.max(found);
        }
    }
    best
}

/// Words a translation may put between a number and its unit, each commented with its
/// language: Laravel's Pashto "20 لطفا د دویمې برخې وروسته" (20, please, of the second
/// part, after).
const BETWEEN_NUMBER_AND_UNIT: [&str; 3] = [
    "لطفا", // Pashto: please
    "لطفاً", // Pashto: please, with its tanwin
    "د",    // Pashto: of
];

/// The amount a unit of two words (`first`, `second`, [`TWO_WORDS`]) states with its
/// number standing apart before it, only [`BETWEEN_NUMBER_AND_UNIT`] words between (at
/// most three); `earlier` are the words before `first`, nearest first.
fn number_apart_from_its_unit<'a>(
    first: &str,
    second: &str,
    earlier: impl Iterator<Item = &'a str>,
) -> Option<Duration> {
    let unit = unit_of_two(first, Some(second))?;
    let number = earlier
        .take(4)
        .find(|w| !BETWEEN_NUMBER_AND_UNIT.contains(w))?;
    unit.decimal(crate::num::bare_number(number), MAX_WAIT)
}

/// The unit a word after a word for "in" names: as [`unit`], but Malay `saat` is seconds
/// there ("cuba lagi dalam 20 saat"), while Turkish `saat`, an hour, stands before its
/// `sonra` ("1 saat sonra") and is read by [`amount_before`].
pub(super) fn unit_ahead(word: &str) -> Option<TimeUnit> {
    if word == "saat" {
        return Some(TimeUnit::Seconds);
    }
    unit(word)
}

fn unit_word(word: &str) -> Option<TimeUnit> {
    TimeUnit::from_word(word).or_else(|| unit(word))
}

/// The unit a word in one of these languages names (lowercase); `None` for English
/// words, which [`TimeUnit::from_word`] knows.
pub(super) fn unit(word: &str) -> Option<TimeUnit> {
    Some(match word {
        "milissegundos" | "milisegundos" | "millisecondes" | "millisekunden" | "мс" => {
            TimeUnit::Millis
        }
        // Portuguese, Spanish, French, German, Russian; Polish and Czech; Italian; Dutch;
        // Turkish; Vietnamese; Indonesian; Thai; Arabic; Hebrew.
        "segundo" | "segundos" | "seconde" | "secondes" | "sekunde" | "sekunden" | "секунда"
        | "секунды" | "секунду" | "секунд" | "сек" | "sekund" | "sekundy" | "sekundę"
        | "sekundu" | "secondi" | "seconden" | "saniye" | "giây" | "detik" | "วินาที" | "ثانية"
        | "ثوان" | "ثواني" | "ثوانٍ" | "שניות" | "שנייה" | "שניה" => {
            TimeUnit::Seconds
        }
        // Ukrainian and Bulgarian; Romanian; Hungarian; Greek; Swedish, Danish and
        // Norwegian; Finnish; Slovak; Croatian; Estonian; Kazakh; Persian; Malay; Catalan;
        // Hindi.
        "секунди"
        | "secunde"
        | "secundă"
        | "másodperc"
        | "másodpercet"
        | "δευτερόλεπτα"
        | "δευτερόλεπτο"
        | "sekunder"
        | "sekuntia"
        | "sekunnin"
        | "sekunti"
        | "sekúnd"
        | "sekundi"
        | "sekundit"
        | "секундтан"
        | "ثانیه"
        | "segons"
        | "सेकंड" => TimeUnit::Seconds,
        "хвилин" | "хвилину" | "хвилини" | "минути" | "perc" | "percet" | "λεπτά" | "λεπτό"
        | "minuter" | "minutter" | "minuuttia" | "minuutin" | "minút" | "minuta" | "minutit"
        | "минуттан" | "دقیقه" | "minit" | "minuts" | "मिनट" => {
            TimeUnit::Minutes
        }
        "годину" | "години" | "годин" | "óra" | "órát" | "ώρα" | "ώρες" | "timmar" | "timme"
        | "tuntia" | "tunnin" | "сағат" | "сағаттан" | "ساعت" | "hores" | "घंटे" => {
            TimeUnit::Hours
        }
        "minuto" | "minutos" | "minuten" | "минута" | "минуты" | "минуту" | "минут" | "мин"
        | "minut" | "minuty" | "minutę" | "minutu" | "minuti" | "minuut" | "dakika" | "phút"
        | "menit" | "นาที" | "دقيقة" | "دقائق" | "דקות" | "דקה" => {
            TimeUnit::Minutes
        }
        "hora"
        | "horas"
        | "heure"
        | "heures"
        | "stunde"
        | "stunden"
        | "час"
        | "часа"
        | "часов"
        | "godzin"
        | "godziny"
        | "godzinę"
        | "hodin"
        | "hodiny"
        | "hodinu"
        | "ora"
        | "ore"
        | "uur"
        | "saat"
        | "giờ"
        | "jam"
        | "ชั่วโมง"
        | "ساعة"
        | "ساعات"
        | "שעה"
        | "שעות" => TimeUnit::Hours,
        // Lithuanian; Latvian; Serbian; Albanian; Georgian; Armenian; Azerbaijani;
        // Uzbek; Marathi; Nepali; Bengali; Urdu; Mongolian.
        "sekundžių"
        | "sekundes"
        | "sekundēm"
        | "секунде"
        | "sekonda"
        | "sekondash"
        | "sekondë"
        | "წამი"
        | "წამს"
        | "վայրկյան"
        | "saniyə"
        | "saniyədən"
        | "soniya"
        | "soniyadan"
        | "सेकंद"
        | "सेकेन्ड"
        | "সেকেন্ড"
        | "سیکنڈ"
        | "секундын" => TimeUnit::Seconds,
        "minučių" | "minūtēm" | "minūtes" | "minūti" | "minutash" | "წუთი" | "წუთს" | "րոպե"
        | "dəqiqə" | "dəqiqədən" | "daqiqa" | "daqiqadan" | "मिनिटे" | "मिनेट" | "মিনিট" | "منٹ"
        | "минутын" => TimeUnit::Minutes,
        // Lithuanian; Latvian; Serbian; Slovenian; Macedonian; Albanian; Georgian;
        // Armenian; Azerbaijani; Uzbek; Marathi; Nepali; Bengali; Urdu; Mongolian;
        // Filipino.
        "valandų" | "valandas" | "valandą" | "stundām" | "stundas" | "stundu" | "сати" | "сата"
        | "sat" | "sati" | "sata" | "ur" | "uri" | "ure" | "часови" | "orë" | "orësh" | "საათი"
        | "საათს" | "ժամ" | "saatdan" | "soat" | "soatdan" | "तास" | "घण्टा" | "ঘণ্টা" | "گھنٹے"
        | "цагийн" | "oras" => TimeUnit::Hours,
        // Danish and Norwegian ("prøv igen om 2 timer").
        "timer" => TimeUnit::Hours,
        // Amharic; Kyrgyz; Tajik; Kurdish (Sorani, then Kurmanji); Icelandic; Irish;
        // Welsh; Basque; Lao; Gujarati; Punjabi; Yoruba (`ìsẹ́jú` alone is minutes,
        // `ìsẹ́jú-ààyá` seconds: [`unit_of_two`]).
        "ሰከንድ"
        | "секунддан"
        | "сония"
        | "چرکە"
        | "çirke"
        | "çirkeyan"
        | "sekúndur"
        | "sekúndna"
        | "sekúndu"
        | "soicind"
        | "eiliad"
        | "ວິນາທີ"
        | "સેકંડ"
        | "સેકન્ડ"
        | "ਸਕਿੰਟ"
        | "ਸਕਿੰਟਾਂ" => TimeUnit::Seconds,
        "ደቂቃ"
        | "мүнөт"
        | "мүнөттөн"
        | "дақиқа"
        | "خولەک"
        | "deqîqe"
        | "deqîqeyan"
        | "mínútur"
        | "mínútna"
        | "mínútu"
        | "nóiméad"
        | "nóiméid"
        | "munud"
        | "funud"
        | "ນາທີ"
        | "મિનિટ"
        | "ਮਿੰਟ"
        | "ਮਿੰਟਾਂ"
        | "\u{ec}s\u{1eb9}\u{301}j\u{fa}" => TimeUnit::Minutes,
        "ሰዓት"
        | "саат"
        | "сааттан"
        | "соат"
        | "کاتژمێر"
        | "saet"
        | "saetan"
        | "klukkustund"
        | "klukkustundir"
        | "klukkustunda"
        | "uair"
        | "awr"
        | "ordu"
        | "ຊົ່ວໂມງ"
        | "કલાક"
        | "ਘੰਟੇ"
        | "ਘੰਟਿਆਂ" => TimeUnit::Hours,
        // Belarusian; Afrikaans; Luxembourgish; Esperanto; Maltese; Albanian; Somali;
        // Malagasy; Maori; Haitian Creole; Samoan; Georgian (genitive, before "after");
        // Mongolian; Uyghur; Uzbek in Cyrillic; Sindhi.
        "sekondes" | "sekonde" | "sekonnen" | "sekonn" | "sekundoj" | "sekundojn" | "sekondi"
        | "sekondave" | "ilbiriqsi" | "segondra" | "hēkona" | "segonn" | "sekone" | "წამის"
        | "секундийн" | "سېكۇنت" | "سېكۇنتتىن" | "сониядан" | "سيڪنڊ" | "سيڪنڊن" => {
            TimeUnit::Seconds
        }
        "хвілін" | "хвіліну" | "хвіліны" | "minutten" | "minutt" | "minutoj" | "minutojn"
        | "minutave" | "daqiiqo" | "daqiiqadood" | "minitra" | "meneti" | "წუთის" | "مىنۇت"
        | "مىنۇتتىن" | "дақиқадан" | "منٽ" | "منٽن" => TimeUnit::Minutes,
        "гадзін" | "гадзіну" | "гадзіны" | "stonnen" | "stonn" | "horoj" | "horojn" | "horo"
        | "siegħa" | "sigħat" | "orëve" | "saacadood" | "saac" | "èdtan" | "itula" | "საათის"
        | "سائەت" | "سائەتتىن" | "соатдан" | "ڪلاڪ" | "ڪلاڪن" => {
            TimeUnit::Hours
        }
        // Pashto.
        "ثانیې" | "ثانیو" => TimeUnit::Seconds,
        "دقیقې" | "دقیقو" => TimeUnit::Minutes,
        _ => return super::stems::unit(word),
    })
}

/// Units written before their number, each commented with its language: Swahili
/// "baada ya sekunde 20" (after seconds twenty), "subiri dakika 5".
const UNIT_FIRST: [(&str, TimeUnit); 19] = [
    ("sekunde", TimeUnit::Seconds),      // Swahili
    ("dakika", TimeUnit::Minutes),       // Swahili
    ("daƙiƙa", TimeUnit::Seconds),       // Hausa ("a cikin daƙiƙa 30")
    ("minti", TimeUnit::Minutes),        // Hausa
    ("awa", TimeUnit::Hours),            // Hausa
    ("emizuzwaneni", TimeUnit::Seconds), // Zulu, the unit carrying "in" ("emizuzwaneni eyi-30")
    ("emizuzwini", TimeUnit::Minutes),   // Zulu
    ("emahoreni", TimeUnit::Hours),      // Zulu
    ("තත්පර", TimeUnit::Seconds),         // Sinhala ("තත්පර 30 කින්")
    ("මිනිත්තු", TimeUnit::Minutes),         // Sinhala
    ("පැය", TimeUnit::Hours),            // Sinhala
    ("kwemizuzwana", TimeUnit::Seconds), // Zulu, after `ngemuva` ("ngemuva kwemizuzwana engu-30")
    ("kwemizuzu", TimeUnit::Minutes),    // Zulu, Xhosa ("emva kwemizuzu emi-2")
    ("སྐར་ཆ་", TimeUnit::Seconds),        // Tibetan, closed by its syllable mark
    ("སྐར་ཆ", TimeUnit::Seconds),         // Tibetan
    ("སྐར་མ་", TimeUnit::Minutes),        // Tibetan
    ("སྐར་མ", TimeUnit::Minutes),         // Tibetan
    ("ཆུ་ཚོད་", TimeUnit::Hours),          // Tibetan
    ("ཆུ་ཚོད", TimeUnit::Hours),           // Tibetan
];

/// The amount of time `unit` and `number` spell when the unit comes first ("sekunde
/// 20"), capped at [`MAX_WAIT`].
pub(super) fn unit_then_number(unit: &str, number: Option<&str>) -> Option<Duration> {
    let (_, unit) = UNIT_FIRST.iter().find(|(word, _)| *word == unit)?;
    unit.decimal(crate::num::bare_number(number?), MAX_WAIT)
}

/// Units written in two words, each commented with its language: Yoruba `ìsẹ́jú ààyá`
/// (a second; `ìsẹ́jú` alone is a minute), which [`super::lowered`] splits at its hyphen.
const TWO_WORDS: [(&str, &str, TimeUnit); 2] = [
    (
        "\u{ec}s\u{1eb9}\u{301}j\u{fa}", // Yoruba
        "\u{e0}\u{e0}y\u{e1}",
        TimeUnit::Seconds,
    ),
    // Pashto as Laravel's translation writes seconds: `د دویمې برخې`, "of the second
    // part", the ordinal taken for the unit.
    ("دویمې", "برخې", TimeUnit::Seconds),
];

/// The unit `first` and `second` name together, where two words make one.
pub(super) fn unit_of_two(first: &str, second: Option<&str>) -> Option<TimeUnit> {
    let second = second?;
    TWO_WORDS
        .iter()
        .find(|(a, b, _)| *a == first && *b == second)
        .map(|(_, _, unit)| *unit)
}

/// Units that carry the word for "in" as their ending, each commented with its
/// language: Georgian "30 წამში" (in 30 seconds).
const UNIT_IN: [(&str, TimeUnit); 3] = [
    ("წამში", TimeUnit::Seconds), // Georgian
    ("წუთში", TimeUnit::Minutes), // Georgian
    ("საათში", TimeUnit::Hours),  // Georgian
];

/// The longest time to come the lowered text states as a number and a unit that
/// carries "in" ([`UNIT_IN`]), capped at [`MAX_WAIT`]. Only a text beyond ASCII can
/// hold one.
fn amount_with_unit_in(t: &str) -> Option<Duration> {
    if t.is_ascii() {
        return None;
    }
    let mut best = None;
    let mut previous = "";
    for word in t.split_whitespace() {
        let word = word.trim_end_matches(['.', ',', ';', ')', '!', '։', '។', '။', '।']);
        if let Some((_, unit)) = UNIT_IN.iter().find(|(w, _)| *w == word) {
            best = best.max(unit.decimal(previous, MAX_WAIT));
        }
        previous = word;
    }
    best
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{told_to_wait, wait_in};

    #[test]
    fn waits_told_in_other_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "ERROR: Consumo redundante detectado. Aguarde 60 segundos para realizar uma nova requisição.",
                Some(s(60)),
            ),
            (
                "Limite excedido, tente novamente em 2 minutos.",
                Some(s(120)),
            ),
            ("Demasiadas solicitudes. Espere 30 segundos.", Some(s(30))),
            ("Inténtelo de nuevo en 2 minutos", Some(s(120))),
            ("Trop de requêtes. Réessayez dans 45 secondes.", Some(s(45))),
            (
                "Zu viele Anfragen. Bitte versuchen Sie es in 30 Sekunden erneut.",
                Some(s(30)),
            ),
            (
                "Слишком много запросов. Повторите через 5 секунд.",
                Some(s(5)),
            ),
            ("Превышен лимит, подождите 1 минуту", Some(s(60))),
            ("Límite alcanzado; se restablece tras 1 hora", Some(s(3600))),
            ("Spróbuj ponownie za 30 sekund.", Some(s(30))),
            ("Riprova tra 60 secondi.", Some(s(60))),
            ("Probeer het over 2 minuten opnieuw", Some(s(120))),
            ("Zkuste to znovu za 60 sekund.", Some(s(60))),
            ("Lütfen 10 saniye sonra tekrar deneyin.", Some(s(10))),
            ("Vui lòng thử lại sau 10 giây", Some(s(10))),
            ("Silakan coba lagi dalam 60 detik.", Some(s(60))),
            ("กรุณาลองใหม่อีกครั้งใน 30 วินาที", Some(s(30))),
            ("يرجى المحاولة بعد 60 ثانية", Some(s(60))),
            ("נסה שוב בעוד 30 שניות", Some(s(30))),
            // Turkish `sonraki` (next) is no "after"; a number without a unit before
            // `sonra` is none either.
            ("10 saniye sonraki istekte", None),
            ("2 sonra", None),
            // An amount without a unit, or a unit without an amount, is no wait.
            ("Aguarde 60 para realizar uma nova requisição.", None),
            ("Aguarde alguns segundos.", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }

    #[test]
    fn instructions_to_wait_in_other_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Aguarde 60 segundos.", Some(s(60))),
            (
                "Por favor, espere 10 segundos antes de reintentar.",
                Some(s(10)),
            ),
            ("Veuillez patienter : attendez 2 minutes.", Some(s(120))),
            ("Bitte warten Sie 15 Sekunden.", Some(s(15))),
            ("Повторите запрос через 3 секунды.", Some(s(3))),
            (
                "Deve ser aguardado 1 hora para efetuar nova solicitação.",
                Some(s(3600)),
            ),
            ("Debe esperar 30 segundos.", Some(s(30))),
            ("Veuillez patienter 60 secondes.", Some(s(60))),
            ("Odczekaj 5 minut.", Some(s(300))),
            ("Vui lòng thử lại sau 10 giây", Some(s(10))),
            ("נסה שוב בעוד 30 שניות", Some(s(30))),
            // Saying when something happens is not telling the caller to wait.
            ("O código expira em 5 minutos.", None),
            ("El enlace caduca en 10 minutos.", None),
            ("Le jeton expire dans 30 secondes.", None),
            ("Token wygaśnie za 5 minut.", None),
            ("Il codice scade tra 10 minuti.", None),
        ] {
            assert_eq!(told_to_wait(text), want, "{text}");
        }
    }

    #[test]
    fn waits_with_the_verb_or_after_behind_the_amount() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Bitte 45 Sekunden warten.", Some(s(45))),
            ("Gelieve 20 seconden te wachten", Some(s(20))),
            ("Probeer het na 30 seconden opnieuw", Some(s(30))),
            ("Lütfen 15 saniye bekleyiniz", Some(s(15))),
            ("1 saat sonra tekrar deneyin", Some(s(3600))),
            ("Próbálja újra 2 perc múlva", Some(s(120))),
            ("Yritä uudelleen 5 minuutin kuluttua", Some(s(300))),
            ("Proovige uuesti 30 sekundi pärast", Some(s(30))),
            ("5 минуттан кейін қайталаңыз", Some(s(300))),
            ("لطفاً 30 ثانیه صبر کنید", Some(s(30))),
            ("कृपया 30 सेकंड प्रतीक्षा करें", Some(s(30))),
            // A verb after something that is no amount of time is none.
            ("Bitte 30 warten", None),
            ("Bitte auf die Bestätigung warten", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
        // The verbs are instructions; "after" alone is a time to come.
        assert_eq!(told_to_wait("Bitte 10 Sekunden warten"), Some(s(10)));
        assert_eq!(told_to_wait("60 saniye bekleyin"), Some(s(60)));
        assert_eq!(told_to_wait("A kód 5 perc múlva lejár"), None);
    }

    #[test]
    fn waits_told_in_more_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Спробуйте через 20 секунд", Some(s(20))),
            ("Încercați din nou peste 30 de secunde", Some(s(30))),
            ("Reîncercați peste 5 minute", Some(s(300))),
            ("Δοκιμάστε ξανά σε 10 δευτερόλεπτα", Some(s(10))),
            ("Försök igen om 2 minuter", Some(s(120))),
            ("Prøv igen om 45 sekunder", Some(s(45))),
            ("Odota 30 sekuntia", Some(s(30))),
            ("Skúste to znova o 15 sekúnd", Some(s(15))),
            ("Pričekajte 60 sekundi", Some(s(60))),
            ("Изчакайте 2 минути", Some(s(120))),
            ("Sila cuba lagi dalam 30 saat", Some(s(30))),
            ("Espereu 10 segons", Some(s(10))),
        ] {
            assert_eq!(told_to_wait(text), want, "{text}");
        }
    }

    #[test]
    fn waits_told_in_eighteen_more_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Bandykite dar kartą po 45 sekundžių", Some(s(45))),
            ("Palaukite 3 minučių", Some(s(180))),
            ("Mēģiniet vēlreiz pēc 2 minūtēm", Some(s(120))),
            ("Покушајте поново за 5 секунде", Some(s(5))),
            ("Sačekajte 1 sat", Some(s(3600))),
            ("Sačekajte 2 sata", Some(s(7200))),
            ("Poskusite znova čez 2 uri", Some(s(7200))),
            ("Почекајте 40 секунди", Some(s(40))),
            ("Provoni përsëri pas 2 orësh", Some(s(7200))),
            ("დაელოდეთ 5 წუთი", Some(s(300))),
            ("Subukang muli pagkatapos ng 2 oras", Some(s(7200))),
            ("Subiri dakika 3", Some(s(180))),
        ] {
            assert_eq!(told_to_wait(text), want, "{text}");
        }
        for (text, want) in [
            ("სცადეთ 2 წუთში", Some(s(120))),
            ("5 րոպե հետո", Some(s(300))),
            ("2 daqiqadan keyin", Some(s(120))),
            ("1 dəqiqədən sonra", Some(s(60))),
            ("2 मिनेट पछि", Some(s(120))),
            ("৫ মিনিট পরে", Some(s(300))),
            ("۵ منٹ بعد", Some(s(300))),
            ("२ मिनिटे नंतर", Some(s(120))),
            ("5 минутын дараа", Some(s(300))),
            ("Jaribu tena baada ya sekunde ٤٥", Some(s(45))),
            // A unit first with no number behind it, or a number after "in" with no
            // unit, is no wait.
            ("Jaribu tena baada ya sekunde chache", None),
            ("სცადეთ მოგვიანებით 2", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }
    #[test]
    fn waits_told_in_twenty_more_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "በጣም ብዙ የመግባት ሙከራዎች። እባክዎ በ20 ሰከንድ ውስጥ እንደገና ይሞክሩ።",
                Some(s(20)),
            ),
            (
                "ພະຍາຍາມເຂົ້າສູ່ລະບົບຫຼາຍເກີນໄປ. ກະລຸນາລອງໃໝ່ໃນອີກ 20 ວິນາທີ.",
                Some(s(20)),
            ),
            ("અતિશય લૉગિન પ્રયાસો. ફરીથી પ્રયાસ કરો20 સેકંડ.", Some(s(20))),
            (
                "ਬਹੁਤ ਸਾਰੀਆਂ ਲੌਗਇਨ ਕੋਸ਼ਿਸ਼ਾਂ। ਕਿਰਪਾ ਕਰਕੇ 60 ਸਕਿੰਟਾਂ ਵਿੱਚ ਦੁਬਾਰਾ ਕੋਸ਼ਿਸ਼ ਕਰੋ।",
                Some(s(60)),
            ),
            (
                "බොහෝ පිවිසුම් උත්සහයන් සිදු කර ඇත. කරුණාකර තත්පර 20 කින් නැවත උත්සාහ කරන්න.",
                Some(s(20)),
            ),
            (
                "Miningi kakhulu imizamo yokungena ngemvume. Sicela uzame futhi emizuzwaneni eyi-20.",
                Some(s(20)),
            ),
            (
                "yunƙurin shiga da yawa. Da fatan za a sake gwadawa a cikin daƙiƙa 20.",
                Some(s(20)),
            ),
            (
                "Ìgbìyànjú ìwọlé pọ̀ jù. Jọ̀wọ́ tún gbìyànjú lẹ́yìn 20 ìsẹ́jú-ààyá.",
                Some(s(20)),
            ),
            (
                "Кіру әрекеті тым көп болды. 20 секундтан соң қайталап көріңіз.",
                Some(s(20)),
            ),
            (
                "Кирүү аракети өтө көп. Сураныч, 60 секунддан кийин кайра аракет кылыңыз.",
                Some(s(60)),
            ),
            (
                "Теъдоди зиёди талош барои воридшудан ба система. Лутфан баъд аз 20 сония боз кӯшиш намоед.",
                Some(s(20)),
            ),
            (
                "Gelek hewldanên têketinê. Ji kerema xwe di 20 çirkeyan de dîsa biceribîne.",
                Some(s(20)),
            ),
            (
                "Of margar innskráningartilraunir. Vinsamlegast reyndu aftur eftir 60 sekúndur.",
                Some(s(60)),
            ),
            (
                "An iomarca iarrachtaí logáil isteach. Bain triail eile as i gceann 20 soicind.",
                Some(s(20)),
            ),
            (
                "Gormod o ymdrechion mewngofnodi. Ceisiwch eto mewn 20 eiliad.",
                Some(s(20)),
            ),
            (
                "Atzipen saialdi gehiegi. Mesedez berriro saiatu 20 segundo barru.",
                Some(s(20)),
            ),
            (
                "Ha superat el nombre màxim d'intents d'accés. Si us plau, torni a intentar-ho en 60 segons.",
                Some(s(60)),
            ),
            (
                "Demasiados intentos de acceso. Por favor, inténtao de novo en 20 segundos.",
                Some(s(20)),
            ),
            (
                "زۆر هەوڵی چوونەژوورەوە. تکایە دوای ١٠ چرکە هەوڵبدەرەوە.",
                Some(s(10)),
            ),
            ("Ceisiwch eto mewn 2 funud", Some(s(120))),
            ("Ceisiwch eto mewn 2 munud", Some(s(120))),
            ("Reyndu aftur eftir 2 klukkustundir", Some(s(7200))),
            ("Lẹ́yìn 2 ìsẹ́jú", Some(s(120))),
            // A unit first with no number after it, a number glued to letters of ASCII.
            ("Sicela uzame futhi emizuzwaneni ezimbalwa", None),
            ("Da fatan za a sake gwadawa a cikin daƙiƙa kaɗan", None),
            ("በx30 ሰከንድ ውስጥ", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }
    #[test]
    fn waits_with_other_words_for_after_and_wait_in_those_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("እባክዎ ከ30 ሰከንድ በኋላ እንደገና ይሞክሩ", Some(s(30))),
            ("30 సెకన్ల తర్వాత మళ్లీ ప్రయత్నించండి", Some(s(30))),
            ("30 வினாடிகளுக்குப் பிறகு மீண்டும் முயற்சிக்கவும்", Some(s(30))),
            ("2 ನಿಮಿಷಗಳ ನಂತರ", Some(s(120))),
            ("30 സെക്കൻഡിന് ശേഷം", Some(s(30))),
            ("30 સેકન્ડ પછી", Some(s(30))),
            ("30 ਸਕਿੰਟਾਂ ਬਾਅਦ", Some(s(30))),
            ("۳۰ ثانیې وروسته بیا هڅه وکړئ", Some(s(30))),
            ("សូមព្យាយាមម្តងទៀតក្នុងរយៈពេល៣០វិនាទី", Some(s(30))),
            ("ກະລຸນາລໍຖ້າ 30 ວິນາທີ", Some(s(30))),
            ("ລອງໃໝ່ຫຼັງຈາກ 2 ນາທີ", Some(s(120))),
            ("Sake gwadawa bayan daƙiƙa 30", Some(s(30))),
            ("Zama futhi ngemuva kwemizuzwana engu-30", Some(s(30))),
            ("Пас аз 2 дақиқа боз кӯшиш кунед", Some(s(120))),
            ("30 сония интизор шавед", Some(s(30))),
            ("Piştî 30 çirkeyan dîsa biceribîne", Some(s(30))),
            ("Rhowch gynnig arall arni ar ôl 30 eiliad", Some(s(30))),
            ("Vinsamlegast bíddu í 30 sekúndur", Some(s(30))),
            ("Fan 30 soicind", Some(s(30))),
            ("Arhoswch 2 funud", Some(s(120))),
            ("Itxaron 30 segundo", Some(s(30))),
            ("Saiatu berriro 30 segundoren buruan", Some(s(30))),
            ("Agarde 30 segundos", Some(s(30))),
            ("Inténtao de novo dentro de 2 minutos", Some(s(120))),
            ("Esperi 30 segons", Some(s(30))),
            ("30 секунд күтіңіз", Some(s(30))),
            ("30 секунд күтүңүз", Some(s(30))),
            // A number glued to a unit of Latin letters keeps its reading.
            ("retry after 880.092µs", Some(Duration::from_nanos(880_092))),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }

    #[test]
    fn waits_told_in_the_words_and_units_of_thirty_more_languages() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("Паспрабуйце яшчэ раз праз 20 секунд.", Some(s(20))),
            ("Паспрабуйце праз 5 хвілін.", Some(s(300))),
            ("Probeer asseblief weer binne 20 sekondes", Some(s(20))),
            ("Probeer weer oor 2 minute.", Some(s(120))),
            ("Probearje it oer 2 minuten opnij.", Some(s(120))),
            ("Wag asseblief 30 sekondes.", Some(s(30))),
            ("Atendu 30 sekundojn.", Some(s(30))),
            ("Пачакайце 30 секунд.", Some(s(30))),
            ("30 saniyə gözləyin.", Some(s(30))),
            ("30 секунд хүлээнэ үү.", Some(s(30))),
            (
                "Probéiert w.e.g. nach eng Kéier an 20 Sekonnen.",
                Some(s(20)),
            ),
            ("Bonvolu provi denove post 20 sekundoj.", Some(s(20))),
            ("Erġa' pprova fi żmien 2 minuti.", Some(s(120))),
            ("Ju lutem provoni përsëri pas 20 sekondave.", Some(s(20))),
            ("Isku day mar kale 2 daqiiqo kadib.", Some(s(120))),
            ("Andramo indray afaka 2 minitra.", Some(s(120))),
            ("Zama kwakhona emva kwemizuzu emi-2.", Some(s(120))),
            ("Coba maneh sawise 2 menit.", Some(s(120))),
            ("Cobian deui saatos 2 menit.", Some(s(120))),
            ("Me ngana anō ā muri i te 2 meneti.", Some(s(120))),
            ("Eseye ankò nan 2 minit.", Some(s(120))),
            ("Sulayi pag-usab human sa 2 ka minuto.", Some(s(120))),
            ("Subukang muli sa loob ng 2 minuto.", Some(s(120))),
            ("Toe taumafai i le 2 minute.", Some(s(120))),
            ("Tafadhali jaribu tena katika sekunde 20.", Some(s(20))),
            ("20 saniyə ərzində yenidən cəhd edin", Some(s(20))),
            ("2 minutdan soň gaýtadan synanyşyň.", Some(s(120))),
            ("სცადეთ 2 წუთის შემდეგ.", Some(s(120))),
            ("Փորձեք կրկին 20 վայրկյան անց։", Some(s(20))),
            ("অনুগ্রহ করে ২ মিনিট পর আবার চেষ্টা করুন।", Some(s(120))),
            ("অনুগ্ৰহ কৰি ১০ ছেকেণ্ডৰ পিছত পুনৰ চেষ্টা কৰক।", Some(s(10))),
            ("ଦୟାକରି ୨ ମିନିଟ୍ ପରେ ପୁନର୍ବାର ଚେଷ୍ଟା କରନ୍ତୁ", Some(s(120))),
            ("مهرباني ڪري 2 منٽن کانپوءِ ٻيهر ڪوشش ڪريو.", Some(s(120))),
            ("مهرباني ڪري 20 سيڪنڊن ۾ ٻيهر ڪوشش ڪريو.", Some(s(20))),
            ("يەنە 20 سېكۇنتتىن كىيىن قايتا سىناپ بېقىڭ.", Some(s(20))),
            (
                "Iltimos 20 soniyadan so‘ng yana urinib ko‘ring.",
                Some(s(20)),
            ),
            ("Илтимос 20 сониядан сўнг яна уриниб кўринг.", Some(s(20))),
            ("Зинһар, 20 секунд эчендә кабатлап карагыз.", Some(s(20))),
            ("20 секундийн дараа дахин оролдоно уу.", Some(s(20))),
            ("Yritä uudelleen 30 sekunnin jälkeen.", Some(s(30))),
            ("Próbálja újra 2 óra után.", Some(s(7200))),
            ("སྐར་ཆ་ ༣༠ རྗེས་སུ་ཡང་བསྐྱར་ཚོད་ལྟ་གནང་རོགས།", Some(s(30))),
            ("སྐར་མ་ ༥ རྗེས་སུ་ཡང་བསྐྱར་ཚོད་ལྟ་གནང་རོགས།", Some(s(300))),
            // A word for after behind a number with no unit, or a unit with no number,
            // is no wait.
            ("Próbálja újra 2 után.", None),
            ("Isku day mar kale daqiiqo kadib.", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }

    #[test]
    fn a_number_apart_from_its_unit_past_words_a_translation_puts_between_is_read() {
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "دلته ډیر د ننوتلو هڅې شتون لري.45 لطفا د دویمې برخې وروسته هڅه وکړئ.",
                Some(s(45)),
            ),
            ("20 د دویمې برخې وروسته", Some(s(20))),
            // Other words between, or no number at all, give nothing.
            ("20 کسان د دویمې برخې وروسته", None),
            ("لطفا د دویمې برخې وروسته هڅه وکړئ", None),
        ] {
            assert_eq!(wait_in(text), want, "{text}");
        }
    }
}
