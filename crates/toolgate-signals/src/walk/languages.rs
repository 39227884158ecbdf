//! Throttles said in the languages APIs answer their users in besides English, and the
//! names those APIs give the member that holds the message.
//!
//! A throttle is said the two ways English says it: "too many requests" in so many words
//! (Mercado Pago's "Demasiadas solicitudes", weclapp's "Zu viele Anfragen", Paraşüt's "Çok
//! fazla istek"), or a limit, what it counts (requests, calls, queries) and a word that
//! says it was passed ("Превышен лимит запросов", "Przekroczono limit zapytań",
//! "Anfragelimit überschritten", SEFAZ's "ultrapassou o limite de 20 consultas por
//! hora"). A limit of anything else ("limit prób doręczenia", delivery attempts) names
//! no requests and passes nothing here. Chinese, Japanese and Korean are read by
//! [`crate::passed`]'s own rule.
//!
//! Texts are matched lowered, as parts of the text, like the English phrases beside them;
//! the walk reads them only in the codes and messages of a failed reply, so an ordinary
//! answer never pays for these tables.

/// "Too many requests", each entry in its language.
const TOO_MANY: [&str; 131] = [
    "muitas requisições",            // Portuguese
    "muitas solicitações",           // Portuguese
    "requisições em excesso",        // Portuguese
    "demasiadas solicitudes",        // Spanish
    "demasiadas peticiones",         // Spanish
    "demasiados requests",           // Spanish
    "trop de requêtes",              // French
    "trop de demandes",              // French
    "zu viele anfragen",             // German
    "zu viele requests",             // German
    "слишком много запросов",        // Russian
    "слишком частые запросы",        // Russian
    "zbyt wiele żądań",              // Polish
    "zbyt wiele zapytań",            // Polish
    "zbyt dużo zapytań",             // Polish
    "çok fazla istek",               // Turkish
    "troppe richieste",              // Italian
    "te veel verzoeken",             // Dutch
    "te veel aanvragen",             // Dutch
    "příliš mnoho požadavků",        // Czech
    "quá nhiều yêu cầu",             // Vietnamese
    "quá nhiều request",             // Vietnamese
    "terlalu banyak permintaan",     // Indonesian
    "terlalu banyak request",        // Indonesian
    "คำขอมากเกินไป",                  // Thai
    "كبير جدًا من الطلبات",           // Arabic ("a very great number of requests")
    "كبير جدا من الطلبات",           // Arabic, written without the tanwin
    "יותר מדי בקשות",                // Hebrew
    "забагато запитів",              // Ukrainian
    "prea multe cereri",             // Romanian
    "prea multe solicitări",         // Romanian
    "túl sok kérés",                 // Hungarian
    "πάρα πολλά αιτήματα",           // Greek
    "för många förfrågningar",       // Swedish
    "för många anrop",               // Swedish
    "for mange forespørgsler",       // Danish
    "for mange anmodninger",         // Danish
    "for mange forespørsler",        // Norwegian
    "liian monta pyyntöä",           // Finnish
    "príliš veľa požiadaviek",       // Slovak
    "previše zahtjeva",              // Croatian
    "previše zahteva",               // Serbian
    "твърде много заявки",           // Bulgarian
    "درخواست\u{200c}ها بیش از حد",   // Persian, its plural joined by a zero-width non-joiner
    "درخواست ها بیش از حد",          // Persian, the plural spaced
    "massa peticions",               // Catalan
    "сұраулар тым көп",              // Kazakh
    "per daug užklausų",             // Lithuanian
    "pārāk daudz pieprasījumu",      // Latvian
    "liiga palju päringuid",         // Estonian
    "превише захтева",               // Serbian
    "preveč zahtev",                 // Slovenian
    "премногу барања",               // Macedonian
    "shumë kërkesa",                 // Albanian
    "ძალიან ბევრი მოთხოვნა",         // Georgian
    "չափազանց շատ հարցումներ",       // Armenian
    "çox sayda sorğu",               // Azerbaijani
    "juda ko'p so'rov",              // Uzbek
    "juda koʻp soʻrov",              // Uzbek, with its turned commas
    "बहुत अधिक अनुरोध",                // Hindi
    "खूप जास्त विनंत्या",                // Marathi
    "धेरै अनुरोध",                      // Nepali
    "অনেক বেশি অনুরোধ",               // Bengali
    "بہت زیادہ درخواستیں",           // Urdu
    "அதிகமான கோரிக்கைகள்",              // Tamil
    "masyadong maraming kahilingan", // Filipino
    "maombi mengi mno",              // Swahili
    "хэт олон хүсэлт",               // Mongolian
    "በጣም ብዙ ጥያቄዎች",                  // Amharic
    "សំណើច្រើនពេក",                    // Khmer
    "សំណើរច្រើនពេក",                   // Khmer, spelt with its final ro
    "တောင်းဆိုမှုများ အလွန်များ",           // Burmese
    "බොහෝ ඉල්ලීම්",                     // Sinhala ("many requests")
    "చాలా ఎక్కువ అభ్యర్థనలు",             // Telugu
    "ಹಲವಾರು ವಿನಂತಿಗಳು",                // Kannada
    "വളരെയധികം അഭ്യർത്ഥനകൾ",           // Malayalam
    "ઘણી બધી વિનંતીઓ",                // Gujarati
    "ਬਹੁਤ ਸਾਰੀਆਂ ਬੇਨਤੀਆਂ",               // Punjabi
    "ການຮ້ອງຂໍຫຼາຍເກີນໄປ",               // Lao
    "bukatu masu yawa",              // Hausa
    "pupọ awọn ibeere",              // Yoruba
    "izicelo eziningi kakhulu",      // Zulu
    "тым көп сұраулар",              // Kazakh, the adjective first
    "өтө көп өтүнүчтөр",             // Kyrgyz
    "аз ҳад зиёд дархост",           // Tajik
    "аз ҳад зиед дархост",           // Tajik, as often written without its ё
    "ډیری غوښتنې",                   // Pashto
    "pir zêde daxwaz",               // Kurdish (Kurmanji)
    "pir pir daxwaz",                // Kurdish (Kurmanji)
    "داواکاری زۆرە",                 // Kurdish (Sorani)
    "of margar beiðnir",             // Icelandic
    "of margir beiðnir",             // Icelandic
    "an iomarca iarratas",           // Irish
    "gormod o geisiadau",            // Welsh
    "eskaera gehiegi",               // Basque
    "demasiadas peticións",          // Galician
    "тым көп сұраныс",               // Kazakh, another word for a request
    "сұраныстар тым көп",            // Kazakh
    "өтө көп суроо",                 // Kyrgyz
    "of margar fyrirspurnir",        // Icelandic: queries
    "an iomarca iarratais",          // Irish
    "massa sol·licituds",            // Catalan
    "buƙatu masu yawa",              // Hausa, with its hooked k
    "ډېرې غوښتنې",                   // Pashto, spelt with its ې
    "زۆر داواکاری",                  // Kurdish (Sorani)
    "တောင်းဆိုမှုများလွန်း",                // Burmese
    "ඉල්ලීම් වැඩියි",                     // Sinhala: requests too many
    "അമിതമായ അഭ്യർത്ഥനകൾ",              // Malayalam
    "ઘણી વધુ વિનંતીઓ",                 // Gujarati
    "ਬਹੁਤ ਜ਼ਿਆਦਾ ਬੇਨਤੀਆਂ",               // Punjabi
    "ಅತಿಯಾದ ವಿನಂತಿಗಳು",                 // Kannada
    "அதிக கோரிக்கைகள்",                // Tamil
    "бик күп сораулар",              // Tatar
    "gaty köp haýyş",                // Turkmen
    "занадта шмат запытаў",          // Belarusian
    "te veel versoeke",              // Afrikaans
    "ze vill ufroen",                // Luxembourgish
    "tro da petoj",                  // Esperanto
    "wisq talbiet",                  // Maltese
    "te folle oanfragen",            // Frisian
    "تمام گهڻيون درخواستون",         // Sindhi
    "ବହୁତ ଅଧିକ ଅନୁରୋଧ",                 // Odia
    "অত্যধিক অনুৰোধ",                  // Assamese
    "izicelo ezininzi kakhulu",      // Xhosa
    "kakehan panjaluk",              // Javanese
    "loba teuing pamundut",          // Sundanese
    "he nui rawa ngā tono",          // Maori
    "twòp demann",                   // Haitian Creole
    "daghan kaayo nga hangyo",       // Cebuano
    "ua tele naua talosaga",         // Samoan
    "həddindən artıq sorğu",         // Azerbaijani
];

/// A limit named with what it counts, in one word or a fixed phrase; each entry
/// commented with its language.
const LIMIT_OF_REQUESTS: [&str; 6] = [
    "anfragelimit",       // German
    "anfragen-limit",     // German
    "verzoeklimiet",      // Dutch
    "istek limit",        // Turkish
    "i\u{307}stek limit", // Turkish, its capital İ lowered to i and a combining dot
    "حد الطلبات",         // Arabic
];

/// Words for a limit; each entry commented with its language.
const LIMIT: [&str; 12] = [
    "limit",  // Portuguese and Spanish `limite`, French, Italian, German, Polish, Czech, Turkish
    "límite", // Spanish
    "лимит",  // Russian
    "limiet", // Dutch
    "giới hạn", // Vietnamese
    "batas",  // Indonesian
    "kuota",  // Indonesian
    "quota",  // French, Italian
    "kontingent", // German
    "ліміт",  // Ukrainian
    "όριο",   // Greek
    "ορίου",  // Greek, its genitive
];

/// What a limit of calls counts, in the plural: requests, calls, queries. Named beside
/// a limit and a word saying it passed, with anything between ("ultrapassou o limite
/// de 20 consultas por hora"); each entry commented with its language.
const COUNTED: [&str; 30] = [
    "requisições",  // Portuguese
    "solicitações", // Portuguese
    "consultas",    // Portuguese, Spanish
    "chamadas",     // Portuguese
    "solicitudes",  // Spanish
    "peticiones",   // Spanish
    "llamadas",     // Spanish
    "requêtes",     // French
    "appels",       // French
    "anfragen",     // German
    "aufrufe",      // German
    "запросов",     // Russian
    "обращений",    // Russian
    "вызовов",      // Russian
    "zapytań",      // Polish
    "żądań",        // Polish
    "wywołań",      // Polish
    "isteği",       // Turkish
    "richieste",    // Italian
    "chiamate",     // Italian
    "verzoeken",    // Dutch
    "aanroepen",    // Dutch
    "požadavků",    // Czech
    "volání",       // Czech
    "yêu cầu",      // Vietnamese
    "permintaan",   // Indonesian
    "запитів",      // Ukrainian
    "cereri",       // Romanian
    "αιτημάτων",    // Greek
    "zahteva",      // Serbian ("limit na broj upućenih zahteva")
];

/// Words that say a limit was passed, as parts of words (`exced` is `excedido` and
/// `excedeu`); each entry commented with its language.
const PASSED: [&str; 25] = [
    "exced",         // Portuguese, Spanish: `excedido`, `excedeu`, `excede`
    "ultrapass",     // Portuguese: `ultrapassou`, `ultrapassado`
    "atingid",       // Portuguese
    "superad",       // Spanish
    "alcanzad",      // Spanish
    "dépass",        // French
    "atteint",       // French
    "überschritten", // German
    "erreicht",      // German
    "превышен",      // Russian
    "исчерпан",      // Russian
    "przekroczon",   // Polish
    "aşıldı",        // Turkish
    "aştınız",       // Turkish
    "superat",       // Italian
    "overschreden",  // Dutch
    "překročen",     // Czech
    "vượt quá",      // Vietnamese
    "melebihi",      // Indonesian
    "terlampaui",    // Indonesian
    "تجاوز",         // Arabic
    "перевищен",     // Ukrainian: `перевищено`
    "depășit",       // Romanian
    "υπέρβαση",      // Greek
    "dostignut",     // Serbian, Croatian: reached
];

/// The word for requests and the words for "too many" put after it, in languages that
/// say "the requests have become too many" and may put words between (Yoruba "Àwọn
/// ìbéèrè ti pọ̀ jù", "Ìbéèrè rẹ ti pọ̀ jù": your requests are too many); each entry
/// commented with its language.
const REQUESTS_THEN_TOO_MANY: [(&str, &str); 6] = [
    ("\u{ec}b\u{e9}\u{e8}r\u{e8}", "p\u{1ecd}\u{300} j\u{f9}"), // Yoruba `ìbéèrè … pọ̀ jù`
    ("རེ་ཞུ", "མང་དྲགས"),                                          // Tibetan
    ("تەلەپ", "بەك كۆپ"),                                       // Uyghur
    ("daxwaz", "pir zêde"),       // Kurdish (Kurmanji): `daxwazên pir zêde`
    ("fangatahana", "be loatra"), // Malagasy
    ("codsiyo", "aad u badan"),   // Somali
];

/// Bytes read after the word for requests for the words for "too many": a few words,
/// never past the end of the sentence.
const TOO_MANY_WITHIN: usize = 40;

/// Whether `lowered` names the requests and, later in the same sentence and within
/// [`TOO_MANY_WITHIN`] bytes, says they are too many ([`REQUESTS_THEN_TOO_MANY`]).
fn requests_then_too_many(lowered: &str) -> bool {
    REQUESTS_THEN_TOO_MANY.iter().any(|(requests, too_many)| {
        lowered.match_indices(requests).any(|(i, _)| {
            let rest = &lowered[i + requests.len()..];
            let mut end = rest.len().min(TOO_MANY_WITHIN);
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            let sentence = rest[..end]
                .split(['.', '!', '?', '։', '།'])
                .next()
                .unwrap_or("");
            sentence.contains(too_many)
        })
    })
}

/// Whether `lowered` (a code or message, in lower case) says in one of these languages
/// that the caller is throttled.
pub(super) fn says_throttled(lowered: &str) -> bool {
    let has = |set: &[&str]| set.iter().any(|p| lowered.contains(p));
    has(&TOO_MANY)
        || ((has(&LIMIT_OF_REQUESTS) || (has(&LIMIT) && has(&COUNTED))) && has(&PASSED))
        || requests_then_too_many(lowered)
}

/// Names these APIs give the member holding a failure's message, normalised as field
/// names are (lowercase, ASCII letters and digits only); each entry commented with its
/// language.
pub(crate) const MESSAGE_NAMES: [&str; 32] = [
    "mensagem",      // Portuguese
    "mensagens",     // Portuguese
    "motivo",        // Portuguese, Spanish (the reason given)
    "xmotivo",       // Portuguese (Brazil's fiscal web services: `cStat`, `xMotivo`)
    "mensaje",       // Spanish
    "mensajes",      // Spanish
    "messaggio",     // Italian
    "meldung",       // German
    "fehlermeldung", // German
    "nachricht",     // German
    "fehler",        // German
    "komunikat",     // Polish
    "mesaj",         // Turkish
    "hatamesaji",    // Turkish
    "pesan",         // Indonesian
    "zprava",        // Czech
    "hibauzenet",    // Hungarian (`hibauzenet`, its accents left out)
    "missatge",      // Catalan
    "poruka",        // Croatian, Serbian
    "viesti",        // Finnish
    "meddelande",    // Swedish
    "klaida",        // Lithuanian (error)
    "kluda",         // Latvian (`kļūda`, error, its accents left out)
    "napaka",        // Slovenian (error)
    "mesazh",        // Albanian
    "xabar",         // Uzbek
    "ujumbe",        // Swahili
    "erreur",        // French (error)
    "errore",        // Italian (error)
    "foutmelding",   // Dutch (error message)
    "hata",          // Turkish (error)
    "chyba",         // Czech, Slovak (error)
];

#[cfg(test)]
mod tests {
    use super::says_throttled;

    #[test]
    fn throttles_said_in_other_languages() {
        for text in [
            "Muitas requisições em um curto período de tempo.",
            "Limite de requisições excedido para esta conta.",
            "Se ha superado el límite de solicitudes por minuto.",
            "Demasiadas peticiones, inténtelo más tarde",
            "Trop de requêtes, merci de patienter",
            "Limite de requêtes dépassée",
            "Bitte warten: zu viele Anfragen von Ihrer IP",
            "Anfragelimit überschritten",
            "Превышен лимит запросов к API",
            "Лимит обращений исчерпан",
            "Przekroczono limit zapytań do API",
            "Consumo indevido - ultrapassou o limite de 20 consultas por hora",
            "Se excedió el límite de 100 llamadas por minuto",
            "Limite de consultas excedido",
            "Superato il limite di richieste",
            "Zbyt wiele żądań",
            "İstek limiti aşıldı",
            "Troppe richieste dal tuo client",
            "Te veel verzoeken",
            "Byl překročen limit požadavků",
            "Đã vượt quá giới hạn yêu cầu",
            "Terlalu banyak permintaan",
            "คำขอมากเกินไป",
            "عدد كبير جدًا من الطلبات",
            "יותר מדי בקשות",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
    }

    #[test]
    fn other_limits_and_ordinary_messages_are_no_throttle() {
        for text in [
            // A limit of something other than requests, passed.
            "Przekroczono limit prób doręczenia",
            "Limite de crédito excedido",
            "Das Feld 'name' hat die maximale Länge überschritten",
            "Превышен лимит суммы перевода",
            "Limite de caracteres excedido na descrição da requisição",
            // English words are the English rules' to read, not these tables'.
            "Request limit exceeded",
            // A limit of requests named, not passed.
            "O limite de requisições é de 600 por minuto",
            // Nothing of limits at all.
            "Chave da API inválida",
            "Too many fields",
        ] {
            assert!(!says_throttled(&text.to_lowercase()), "{text}");
        }
    }

    #[test]
    fn throttles_said_in_more_languages() {
        for text in [
            "Забагато запитів від цього ключа",
            "Перевищено ліміт запитів",
            "Prea multe cereri într-un minut",
            "Limita de cereri depășită",
            "Túl sok kérés",
            "Πάρα πολλά αιτήματα από τη διεύθυνσή σας",
            "Υπέρβαση ορίου αιτημάτων",
            "För många förfrågningar",
            "For mange anmodninger",
            "For mange forespørsler",
            "Liian monta pyyntöä",
            "Príliš veľa požiadaviek",
            "Previše zahtjeva",
            "Твърде много заявки",
            "تعداد درخواست\u{200c}ها بیش از حد مجاز است",
            "Massa peticions",
            "Сұраулар тым көп",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
        // A limit of something other than requests passed; words of a form.
        for text in [
            "Limita de caractere depășită",
            "Υπέρβαση ορίου χρέωσης",
            "Перевищено ліміт суми",
            "Túl sok karakter",
        ] {
            assert!(!says_throttled(&text.to_lowercase()), "{text}");
        }
    }

    #[test]
    fn throttles_said_in_eighteen_more_languages() {
        for text in [
            "Per daug užklausų per minutę",
            "Pārāk daudz pieprasījumu no šīs adreses",
            "Liiga palju päringuid lühikese aja jooksul",
            "Превише захтева са ове адресе",
            "Limit zahteva po minuti je dostignut",
            "Preveč zahtev v kratkem času",
            "Премногу барања во кратко време",
            "Shumë kërkesa brenda një minute",
            "ძალიან ბევრი მოთხოვნა ერთ წუთში",
            "Չափազանց շատ հարցումներ մեկ րոպեում",
            "Bir dəqiqədə çox sayda sorğu",
            "Bir daqiqada juda ko'p so'rovlar",
            "एक मिनट में बहुत अधिक अनुरोध",
            "खूप जास्त विनंत्या आल्या",
            "धेरै अनुरोधहरू प्राप्त भए",
            "এক মিনিটে অনেক বেশি অনুরোধ",
            "ایک منٹ میں بہت زیادہ درخواستیں",
            "ஒரு நிமிடத்தில் அதிகமான கோரிக்கைகள்",
            "Masyadong maraming kahilingan sa isang minuto",
            "Maombi mengi mno kwa dakika moja",
            "Нэг минутад хэт олон хүсэлт",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
        // A limit of something other than requests reached; a request named alone.
        for text in [
            "Limit broja stavki je dostignut",
            "Polje zahteva vrednost",
            "Presežena omejitev števila postavk",
            "Kërkesa u pranua",
        ] {
            assert!(!says_throttled(&text.to_lowercase()), "{text}");
        }
    }
    #[test]
    fn too_many_requests_said_in_twenty_five_more_languages_is_a_throttle() {
        for text in [
            "በጣም ብዙ ጥያቄዎች",
            "សំណើរច្រើនពេក",
            "බොහෝ ඉල්ලීම්",
            "చాలా ఎక్కువ అభ్యర్థనలు",
            "ಹಲವಾರು ವಿನಂತಿಗಳು",
            "വളരെയധികം അഭ്യർത്ഥനകൾ",
            "ઘણી બધી વિનંતીઓ",
            "ਬਹੁਤ ਸਾਰੀਆਂ ਬੇਨਤੀਆਂ",
            "ການຮ້ອງຂໍຫຼາຍເກີນໄປ",
            "Bukatu Masu Yawa",
            "Pupọ Awọn ibeere",
            "Izicelo Eziningi Kakhulu",
            "Тым көп сұраулар",
            "Өтө көп өтүнүчтөр",
            "ډیری غوښتنې",
            "Pir Pir Daxwaz",
            "داواکاری زۆرە",
            "Of Margir Beiðnir",
            "An Iomarca Iarratas",
            "Gormod O Geisiadau",
            "Eskaera gehiegi",
            "Demasiadas peticións",
            "တောင်းဆိုမှုများ အလွန်များသည်။",
            "Аз ҳад зиёд дархостҳо",
            "Of margar beiðnir frá þessu tæki",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
        // Requests named without "too many"; a throttle of something else.
        for text in [
            "ጥያቄዎች ተቀብለናል",
            "Beiðnir mótteknar",
            "Eskaera onartu da",
            "Izicelo zamukelwe",
        ] {
            assert!(!says_throttled(&text.to_lowercase()), "{text}");
        }
    }
    #[test]
    fn too_many_requests_in_other_words_of_those_languages_is_a_throttle() {
        for text in [
            "Тым көп сұраныс жіберілді",
            "Сұраныстар тым көп",
            "Өтө көп суроо жөнөтүлдү",
            "Of margar fyrirspurnir",
            "An iomarca iarratais",
            "Massa sol·licituds",
            "Buƙatu masu yawa",
            "ډېرې غوښتنې",
            "زۆر داواکاری",
            "တောင်းဆိုမှုများလွန်းသည်",
            "ඉල්ලීම් වැඩියි",
            "അമിതമായ അഭ്യർത്ഥനകൾ",
            "ઘણી વધુ વિનંતીઓ",
            "ਬਹੁਤ ਜ਼ਿਆਦਾ ਬੇਨਤੀਆਂ",
            "ಅತಿಯಾದ ವಿನಂತಿಗಳು",
            "அதிக கோரிக்கைகள்",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
    }

    #[test]
    fn requests_named_then_said_too_many_later_in_the_sentence_is_a_throttle() {
        for text in [
            "Àwọn ìbéèrè ti pọ̀ jù. Jọ̀wọ́ dúró díẹ̀.",
            "Ìbéèrè rẹ ti pọ̀ jù",
            "རེ་ཞུ་མང་དྲགས་འདུག",
            "تەلەپ بەك كۆپ",
            "Daxwazên pir zêde",
            "Fangatahana be loatra",
            "Codsiyo aad u badan",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
        for text in [
            // The requests received, or "too many" in another sentence, say no throttle.
            "Àwọn ìbéèrè rẹ ti gba",
            "Ìbéèrè rẹ ti gba. Àwọn ohun tí a fi ránṣẹ́ pọ̀ jù",
            "Daxwaza te hat wergirtin",
        ] {
            assert!(!says_throttled(&text.to_lowercase()), "{text}");
        }
    }

    #[test]
    fn throttles_said_in_nineteen_more_languages() {
        for text in [
            "Бик күп сораулар",
            "Gaty köp haýyş",
            "Занадта шмат запытаў",
            "Te veel versoeke",
            "Ze vill Ufroen",
            "Tro da petoj",
            "Wisq talbiet",
            "Te folle oanfragen",
            "تمام گهڻيون درخواستون",
            "ବହୁତ ଅଧିକ ଅନୁରୋଧ",
            "অত্যধিক অনুৰোধ",
            "Izicelo ezininzi kakhulu",
            "Kakehan panjaluk",
            "Loba teuing pamundut",
            "He nui rawa ngā tono",
            "Twòp demann",
            "Daghan kaayo nga hangyo",
            "Ua tele naua talosaga",
            "Həddindən artıq sorğu",
        ] {
            assert!(says_throttled(&text.to_lowercase()), "{text}");
        }
    }
}
