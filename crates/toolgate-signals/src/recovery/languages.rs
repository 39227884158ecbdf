//! What a message in a language other than English says would fix a failure: the
//! account behind the calls (credits spent, a plan without the feature: Zenvia's "Sua
//! conta não possui créditos suficientes", Papierkram's "Diese Funktion ist in Ihrem
//! Tarif nicht enthalten"), the credentials ("O token de acesso expirou", "Token không
//! hợp lệ"), nothing but time (maintenance, "Serviço temporariamente indisponível",
//! "El documento se está procesando"), or the request itself (a field required, a thing
//! it names not found: "O campo … é obrigatório", "Kunden hittades inte"), which a 5xx
//! or a 2xx error envelope says as often as a 4xx does and which is read last.
//!
//! Each table holds one meaning, each entry commented with its language. Entries are
//! written as [`crate::passed::words`] spells a text (lowercase, punctuation a space:
//! "quota d'appels" is `quota d appels`) and matched as whole words, or with any
//! ending where the entry ends in `*`; scripts whose
//! marks split words there (Thai, Arabic, Hebrew, Persian, the scripts of India and
//! Sri Lanka, Khmer, Lao, Burmese, Ethiopic) are matched as parts of the lowered text,
//! a credential there only when named as one ("API కీ", "టోకెన్") beside a word refusing it. Like the English rules, an account is the caller's only when its words say so:
//! a card's or a customer's balance ("Kart limiti yetersiz, yetersiz bakiye") names no
//! credits, plan or top-up of the caller's, and stays the request's. Only the codes and
//! messages of a failed reply come here, each cut to a bounded length by the caller.

use super::Recovery;

/// The caller's account must change: its credits or allowance spent, a plan without the
/// feature, a top-up asked for.
const ACCOUNT: [&str; 48] = [
    "não possui créditos",               // Portuguese
    "créditos insuficientes",            // Portuguese, Spanish
    "créditos esgotados",                // Portuguese
    "recarregue seus créditos",          // Portuguese
    "seu plano não permite",             // Portuguese
    "upgrade do plano",                  // Portuguese
    "faça upgrade",                      // Portuguese
    "no cuenta con folios",              // Spanish
    "su plan no permite",                // Spanish
    "actualice su plan",                 // Spanish
    "mejore su plan",                    // Spanish
    "adquiera un paquete",               // Spanish
    "passez à une offre supérieure",     // French
    "pas incluse dans votre abonnement", // French
    "pas inclus dans votre abonnement",  // French
    "crédits insuffisants",              // French
    "quota d appels",                    // French
    "in ihrem tarif nicht enthalten",    // German
    "wechseln sie den tarif",            // German
    "nicht genügend guthaben",           // German
    "guthaben aufgebraucht",             // German
    "kontingent aufgebraucht",           // German
    "пополните баланс",                  // Russian
    "не хватает средств на лицевом",     // Russian
    "тариф не позволяет",                // Russian
    "brak środków na koncie",            // Polish
    "środków na koncie",                 // Polish
    "doładuj konto",                     // Polish
    "hesabınıza kredi yükleyin",         // Turkish
    "paketinizi yükseltin",              // Turkish
    "credito insufficiente",             // Italian
    "passa a un piano superiore",        // Italian
    "onvoldoende tegoed",                // Dutch
    "nedostatečný kredit",               // Czech
    "nạp thêm tiền",                     // Vietnamese
    "kuota harian",                      // Indonesian
    "upgrade paket",                     // Indonesian
    "saldo akun anda tidak mencukupi",   // Indonesian
    "поповніть баланс",                  // Ukrainian
    "abonamentul dvs nu include",        // Romanian
    "credit insuficient",                // Romanian
    "előfizetése nem tartalmazza",       // Hungarian
    "abonnemang omfattar inte",          // Swedish
    "uppgradera ditt abonnemang",        // Swedish
    "abonnement omfatter ikke",          // Danish, Norwegian
    "tilaukseesi ei sisälly",            // Finnish
    "sila tambah nilai",                 // Malay
    "kredit akaun tidak mencukupi",      // Malay
];

/// Words that make the account or balance named someone else's, one the request names:
/// a customer's, a payer's, a recipient's ("Brak środków na koncie odbiorcy"). Its
/// state is the request's to change, as in English.
const OTHERS: [&str; 30] = [
    "conta do cliente", // Portuguese (the customer's, not the caller's "área do cliente")
    "saldo do cliente", // Portuguese
    "cuenta del cliente", // Spanish
    "saldo del cliente", // Spanish
    "pagador",          // Portuguese, Spanish
    "destinatário",     // Portuguese
    "destinatario",     // Spanish, Italian
    "beneficiário",     // Portuguese
    "beneficiario",     // Spanish
    "compte du client", // French (not the caller's own "compte client")
    "bénéficiaire",     // French
    "konto des kunden", // German
    "empfängers",       // German
    "клиента",          // Russian
    "получателя",       // Russian
    "klienta",          // Polish
    "odbiorcy",         // Polish
    "müşterinin",       // Turkish (not `müşteri hizmetleri`, customer service)
    "alıcının",         // Turkish
    "rekening van de klant", // Dutch
    "ontvanger",        // Dutch
    "příjemce",         // Czech
    "của khách hàng",   // Vietnamese
    "penerima",         // Indonesian
    "одержувача",       // Ukrainian
    "destinatarului",   // Romanian
    "kedvezményezett*", // Hungarian
    "mottagarens",      // Swedish
    "modtagerens",      // Danish
    "mottakerens",      // Norwegian
];

/// What a credential is called.
const CREDENTIALS: [&str; 86] = [
    "token",           // the name most languages keep
    "chave",           // Portuguese
    "senha",           // Portuguese
    "credenciais",     // Portuguese
    "clave",           // Spanish
    "contraseña",      // Spanish
    "credenciales",    // Spanish
    "jeton",           // French
    "clé",             // French
    "identifiants",    // French
    "schlüssel",       // German
    "passwort",        // German
    "zugriffstoken",   // German
    "токен",           // Russian
    "ключ",            // Russian
    "пароль",          // Russian
    "klucz",           // Polish
    "hasło",           // Polish
    "anahtar*",        // Turkish (`*`: any ending, as "anahtarı", its key)
    "şifre*",          // Turkish
    "chiave",          // Italian
    "sleutel",         // Dutch
    "wachtwoord",      // Dutch
    "heslo",           // Czech
    "mật khẩu",        // Vietnamese
    "kunci",           // Indonesian
    "cheia",           // Romanian
    "cheie",           // Romanian
    "parola",          // Romanian
    "kulcs",           // Hungarian
    "jelszó",          // Hungarian
    "κλειδί",          // Greek
    "διακριτικό",      // Greek
    "åtkomsttoken",    // Swedish
    "nyckel*",         // Swedish (`*`: `nyckeln`, the key)
    "lösenord*",       // Swedish
    "adgangstoken",    // Danish
    "adgangskode",     // Danish
    "nøgle*",          // Danish
    "tilgangsnøkkel*", // Norwegian
    "tilgangstoken",   // Norwegian
    "passord*",        // Norwegian
    "avain",           // Finnish (`API-avain`)
    "salasana",        // Finnish
    "kľúč",            // Slovak
    "парола",          // Bulgarian
    "ključ",           // Croatian, Serbian
    "lozinka",         // Croatian, Serbian
    "kunci rahsia",    // Malay (secret key)
    "testimoni",       // Catalan
    "clau",            // Catalan
    "contrasenya",     // Catalan
    "raktas",          // Lithuanian
    "atslēga",         // Latvian
    "võti",            // Estonian
    "кључ",            // Serbian
    "клуч*",           // Macedonian (`*`: any ending, as "клучот", the key)
    "çelësi",          // Albanian
    "ტოკენი",          // Georgian
    "բանալին",         // Armenian
    "açarı",           // Azerbaijani
    "кілті",           // Kazakh (key)
    "ачкычы",          // Kyrgyz (key)
    "lykill",          // Icelandic
    "allwedd",         // Welsh
    "gako",            // Basque
    "eochair",         // Irish
    "ukhiye",          // Zulu
    "maɓallin",        // Hausa
    "clau",            // Catalan
    "aðgangslykill",   // Icelandic: access key
    "gakoa",           // Basque: the key
    "tokena",          // Basque: the token
    "tocyn",           // Welsh: token
    "ithokheni",       // Zulu: token
    "токендин",        // Kyrgyz: the token's
    "түлхүүр",         // Mongolian: key
    "kaliti",          // Uzbek: its key
    "калити",          // Uzbek, in Cyrillic: its key
    "გასაღები",        // Georgian: key
    "çelës",           // Albanian: key
    "ufunguo",         // Swahili: key
    "api key",         // Tagalog and others, the English words lent
    "ŝlosilo",         // Esperanto: key
    "ċavetta",         // Maltese: key
    "schlëssel",       // Luxembourgish: key
];

/// What refuses a credential: expired, invalid, revoked.
const REFUSED: [&str; 112] = [
    "expirou",              // Portuguese
    "expirado",             // Portuguese, Spanish
    "expirada",             // Portuguese, Spanish
    "inválido",             // Portuguese, Spanish
    "inválida",             // Portuguese, Spanish
    "vencido",              // Spanish
    "caducado",             // Spanish
    "expiró",               // Spanish
    "expiré",               // French
    "expirée",              // French
    "a expiré",             // French
    "invalide",             // French
    "révoqué",              // French
    "abgelaufen",           // German
    "ungültig",             // German
    "ungültiger",           // German
    "ungültige",            // German
    "истёк",                // Russian
    "истек",                // Russian
    "недействителен",       // Russian
    "неверный",             // Russian
    "nieprawidłowy",        // Polish
    "niepoprawny",          // Polish
    "niepoprawne",          // Polish
    "wygasł",               // Polish
    "geçersiz",             // Turkish
    "süresi doldu",         // Turkish
    "scaduta",              // Italian
    "scaduto",              // Italian
    "non valida",           // Italian
    "ongeldig",             // Dutch
    "ongeldige",            // Dutch
    "verlopen",             // Dutch
    "neplatné",             // Czech
    "neplatný",             // Czech
    "vypršel",              // Czech
    "không hợp lệ",         // Vietnamese
    "hết hạn",              // Vietnamese
    "tidak valid",          // Indonesian
    "kedaluwarsa",          // Indonesian
    "невірний",             // Ukrainian
    "недійсний",            // Ukrainian
    "минув",                // Ukrainian
    "invalidă",             // Romanian
    "a expirat",            // Romanian
    "érvénytelen",          // Hungarian
    "lejárt",               // Hungarian
    "μη έγκυρο",            // Greek
    "μη έγκυρος",           // Greek
    "έληξε",                // Greek
    "ogiltig",              // Swedish
    "ogiltigt",             // Swedish
    "har gått ut",          // Swedish
    "ugyldig",              // Danish, Norwegian
    "udløbet",              // Danish
    "utløpt",               // Norwegian
    "virheellinen",         // Finnish
    "vanhentunut",          // Finnish
    "neplatný",             // Slovak (as Czech)
    "невалид*",             // Bulgarian (`*`: any ending, every gender)
    "nevažeći",             // Croatian, Serbian
    "istekao",              // Croatian, Serbian
    "tidak sah",            // Malay
    "ha caducat",           // Catalan
    "no vàlid",             // Catalan
    "neteisingas",          // Lithuanian
    "negaliojantis",        // Lithuanian
    "nederīga",             // Latvian
    "nederīgs",             // Latvian
    "vigane",               // Estonian
    "kehtetu",              // Estonian
    "aegunud",              // Estonian
    "неважећи",             // Serbian
    "neveljaven",           // Slovenian
    "i pavlefshëm",         // Albanian
    "არასწორია",            // Georgian
    "ვადაგასულია",          // Georgian
    "անվավեր",              // Armenian
    "etibarsız*",           // Azerbaijani (`*`: any ending)
    "жарамсыз",             // Kazakh
    "жараксыз",             // Kyrgyz
    "ógildur",              // Icelandic
    "annilys",              // Welsh
    "baliogabea",           // Basque
    "neamhbhailí",          // Irish
    "ongavumelekile",       // Zulu: not allowed
    "mara inganci",         // Hausa: without validity
    "no vàlida",            // Catalan
    "no vàlid",             // Catalan
    "non válida",           // Galician
    "non válido",           // Galician
    "мерзімі өткен",        // Kazakh: expired
    "мөөнөтү өткөн",        // Kyrgyz: expired
    "útrunninn",            // Icelandic: expired
    "útrunnið",             // Icelandic: expired
    "iraungita",            // Basque: expired
    "iraungi da",           // Basque: has expired
    "imithe in éag",        // Irish: expired
    "wedi dod i ben",       // Welsh: expired
    "iphelelwe yisikhathi", // Zulu: expired
    "caducou",              // Galician: expired
    "буруу",                // Mongolian: wrong
    "noto g ri",            // Uzbek: wrong (`noto‘g‘ri`, its turned commas spaces)
    "нотўғри",              // Uzbek, in Cyrillic: wrong
    "yanlış",               // Azerbaijani: wrong
    "սխալ է",               // Armenian: is wrong
    "няправільны",          // Belarusian: wrong
    "si sahihi",            // Swahili: not valid
    "hindi wasto*",         // Tagalog: not valid (`hindi wastong`)
    "nevalida",             // Esperanto: invalid
    "invalida",             // Maltese: invalid
    "ongëlteg*",            // Luxembourgish: invalid (`ongëltege`)
];

/// Tokens and keys that are no credential: a page's, a cursor's.
const NOT_CREDENTIALS: [&str; 6] = [
    "paginação",  // Portuguese
    "paginación", // Spanish
    "página",     // Portuguese, Spanish
    "pagination", // French
    "cursor",     // Spanish, Portuguese
    "seite",      // German
];

/// A passing state: maintenance under way, a service briefly unavailable, "try again
/// later", a document still being processed.
const PASSING: [&str; 118] = [
    "temporariamente indisponível",      // Portuguese
    "em manutenção",                     // Portuguese
    "manutenção programada",             // Portuguese
    "tente novamente mais tarde",        // Portuguese
    "está sendo processado",             // Portuguese
    "temporalmente no disponible",       // Spanish
    "en mantenimiento",                  // Spanish
    "mantenimiento programado",          // Spanish
    "intente de nuevo más tarde",        // Spanish
    "intente nuevamente en unos",        // Spanish
    "se está procesando",                // Spanish
    "temporairement indisponible",       // French
    "en maintenance",                    // French
    "réessayer plus tard",               // French
    "réessayez plus tard",               // French
    "vorübergehend nicht verfügbar",     // German
    "wartungsarbeiten",                  // German
    "später erneut",                     // German
    "технические работы",                // Russian
    "временно недоступен",               // Russian
    "попробуйте позже",                  // Russian
    "tymczasowo niedostępn*",            // Polish (`*`: any ending, both genders)
    "przerwa techniczna",                // Polish
    "spróbuj ponownie później",          // Polish
    "geçici olarak kullanılamıyor",      // Turkish
    "bakım çalışması",                   // Turkish
    "temporaneamente non disponibile",   // Italian
    "manutenzione programmata",          // Italian
    "riprova più tardi",                 // Italian
    "tijdelijk niet beschikbaar",        // Dutch
    "wegens onderhoud",                  // Dutch
    "dočasně nedostupn*",                // Czech (`*`: any ending)
    "probíhá údržba",                    // Czech
    "đang bảo trì",                      // Vietnamese
    "sedang dalam pemeliharaan",         // Indonesian
    "coba beberapa saat lagi",           // Indonesian
    "sementara tidak tersedia",          // Indonesian
    "тимчасово недоступн*",              // Ukrainian (`*`: any ending)
    "технічні роботи",                   // Ukrainian
    "спробуйте пізніше",                 // Ukrainian
    "temporar indisponibil*",            // Romanian
    "reîncercați mai târziu",            // Romanian
    "încercați mai târziu",              // Romanian
    "átmenetileg nem elérhető",          // Hungarian
    "próbálja újra később",              // Hungarian
    "προσωρινά μη διαθέσιμ*",            // Greek (`*`: any ending)
    "δοκιμάστε ξανά αργότερα",           // Greek
    "tillfälligt otillgänglig",          // Swedish
    "försök igen senare",                // Swedish
    "midlertidigt utilgængelig",         // Danish
    "prøv igen senere",                  // Danish
    "midlertidig utilgjengelig",         // Norwegian
    "prøv igjen senere",                 // Norwegian
    "tilapäisesti poissa käytöstä",      // Finnish
    "yritä myöhemmin uudelleen",         // Finnish
    "dočasne nedostupn*",                // Slovak (`*`: any ending)
    "prebieha údržba",                   // Slovak
    "privremeno nedostupan",             // Croatian, Serbian
    "privremeno nedostupn*",             // Croatian, Serbian (`*`: any ending)
    "временно недостъпн*",               // Bulgarian (`*`: any ending)
    "опитайте отново по късно",          // Bulgarian
    "dalam penyelenggaraan",             // Malay
    "cuba sebentar lagi",                // Malay
    "temporalment no disponible",        // Catalan
    "per manteniment",                   // Catalan
    "laikinai nepasiekiam*",             // Lithuanian (`*`: any ending)
    "bandykite vėliau",                  // Lithuanian
    "īslaicīgi nav pieejam*",            // Latvian (`*`: any ending)
    "ajutiselt kättesaamatu",            // Estonian
    "proovige hiljem uuesti",            // Estonian
    "pokušajte ponovo kasnije",          // Serbian
    "pokušajte ponovo nakon",            // Serbian ("… nakon par minuta", after a few minutes)
    "začasno ni na voljo",               // Slovenian
    "привремено недостапн*",             // Macedonian (`*`: any ending)
    "привремено недостапен",             // Macedonian, its masculine
    "përkohësisht i padisponueshëm",     // Albanian
    "დროებით მიუწვდომელია",              // Georgian
    "ժամանակավորապես հասանելի չէ",       // Armenian
    "müvəqqəti olaraq əlçatan deyil",    // Azerbaijani
    "vaqtincha mavjud emas",             // Uzbek
    "pansamantalang hindi magagamit",    // Filipino
    "haipatikani kwa muda",              // Swahili
    "түр ашиглах боломжгүй",             // Mongolian
    "insizakalo ayitholakali",           // Zulu
    "қызмет қолжетімсіз",                // Kazakh
    "кызмат жеткиликтүү эмес",           // Kyrgyz
    "þjónusta ekki tiltæk",              // Icelandic
    "þjónustu hendi", // Icelandic, as a web framework's translation words a service unavailable
    "níl an tseirbhís ar fáil", // Irish
    "gwasanaeth ddim ar gael", // Welsh
    "ddim ar gael dros dro", // Welsh: not available for the time being
    "zerbitzua ez dago erabilgarri", // Basque
    "servizo non dispoñible", // Galician
    "temporalmente non dispoñible", // Galician
    "no disponible temporalment", // Catalan
    "servei no disponible", // Catalan
    "уақытша қолжетімсіз", // Kazakh: temporarily unavailable
    "убактылуу жеткиликсиз", // Kyrgyz: temporarily unavailable
    "aldi baterako ez dago erabilgarri", // Basque: not available for a while
    "mantentze lanetan", // Basque: under maintenance
    "saiatu berriro geroago", // Basque: try again later
    "en mantemento",  // Galician: under maintenance
    "inténtao de novo máis tarde", // Galician: try again later
    "en manteniment", // Catalan: under maintenance
    "torneu ho a provar més tard", // Catalan: try again later
    "í viðhaldi",     // Icelandic: under maintenance
    "reyndu aftur síðar", // Icelandic: try again later
    "tímabundið ekki tiltæk", // Icelandic: temporarily not available
    "ceisiwch eto yn nes ymlaen", // Welsh: try again later
    "cynnal a chadw", // Welsh: maintenance
    "техникалық жұмыстар", // Kazakh: maintenance works
    "кейінірек қайталап көріңіз", // Kazakh: try again later
    "техникалык иштер", // Kyrgyz: maintenance works
    "кийинчерээк кайра аракет", // Kyrgyz: try again later
    "түр ажиллахгүй", // Mongolian: temporarily not working
    "ժամանակավորապես անհասանելի", // Armenian: temporarily unreachable
    "часова недаступны", // Belarusian: temporarily unavailable
    "tydelik nie beskikbaar", // Afrikaans: temporarily not available
];

/// Entries in scripts whose marks split words, matched as parts of the lowered text:
/// (Thai, Lao, Khmer, Burmese, Arabic, Hebrew, Persian, Urdu, Ethiopic and the scripts
/// of India and Sri Lanka) for each meaning.
const ACCOUNT_UNSPACED: [&str; 5] = [
    "เครดิตไม่เพียงพอ",             // Thai: credit not enough
    "اشحن رصيدك",                // Arabic: top up your balance
    "אין מספיק קרדיט",           // Hebrew: not enough credit
    "اعتبار حساب شما کافی نیست", // Persian: your account's credit is not enough
    "حساب خود را شارژ",          // Persian: top up your account
];
const CREDENTIALS_UNSPACED: [&str; 2] = [
    "अमान्य टोकन", // Hindi: invalid token
    "टोकन अमान्य", // Hindi: token invalid
];
/// What a credential is called in scripts whose marks split words, matched as parts of
/// the lowered text: a key named with the `api` English lends it ("API కీ", "API ಕೀ"),
/// so that a phone number or a code called invalid names no credential. Read beside
/// [`REFUSED_UNSPACED`]; each entry commented with its language.
const CREDENTIAL_NAMES_UNSPACED: [&str; 25] = [
    "ቁልፍ",      // Amharic: key
    "សោ api",   // Khmer: API key
    "api ကီး",   // Burmese
    "api යතුර",  // Sinhala
    "api కీ",    // Telugu
    "api ಕೀ",    // Kannada
    "api കീ",   // Malayalam
    "api કી",   // Gujarati
    "api ਕੁੰਜੀ",  // Punjabi
    "ລະຫັດ api", // Lao: API code
    "டோக்கன்",    // Tamil: token
    "api சாவி",  // Tamil: API key
    "ቶከን",      // Amharic: token
    "ថូខឹន",      // Khmer: token
    "တိုကင်",      // Burmese: token
    "ටෝකන",     // Sinhala: token
    "టోకెన్",      // Telugu: token
    "ಟೋಕನ್",      // Kannada: token
    "ടോക്കൺ",    // Malayalam: token
    "ટોકન",     // Gujarati: token
    "ਟੋਕਨ",      // Punjabi: token
    "ໂທເຄັນ",    // Lao: token
    "api कुञ्जी", // Nepali: API key
    "api की",   // Marathi, Hindi: API key
    "api কী",   // Bengali: API key
];

/// Words that refuse a credential in those scripts: invalid, not correct; each entry
/// commented with its language.
const REFUSED_UNSPACED: [&str; 25] = [
    "ልክ ያልሆነ",      // Amharic: not right
    "មិនត្រឹមត្រូវ",     // Khmer: not correct
    "မမှန်ကန်",        // Burmese: not correct
    "වලංගු නොවන",    // Sinhala: not valid
    "చెల్లని",         // Telugu: invalid
    "ಅಮಾನ್ಯ",        // Kannada: invalid
    "അസാധുവായ",        // Malayalam: invalid
    "અમાન્ય",        // Gujarati: invalid
    "ਅਵੈਧ",          // Punjabi: invalid
    "ບໍ່ຖືກຕ້ອງ",       // Lao: not correct
    "தவறான",         // Tamil: wrong
    "ጊዜው ያለፈበት",    // Amharic: expired
    "ផុតកំណត់",        // Khmer: expired
    "သက်တမ်းကုန်",      // Burmese: expired
    "කල් ඉකුත්",       // Sinhala: expired
    "గడువు ముగిసింది", // Telugu: expired
    "ಅವಧಿ ಮುಗಿದಿದೆ",    // Kannada: expired
    "കാലഹരണപ്പെട്ടു",   // Malayalam: expired
    "સમાપ્ત થયું",     // Gujarati: expired
    "ਮਿਆਦ ਪੁੱਗ",      // Punjabi: expired
    "ໝົດອາຍຸ",        // Lao: expired
    "காலாவதி",        // Tamil: expired
    "अमान्य",        // Nepali, Hindi: invalid
    "अवैध",          // Marathi, Hindi: invalid
    "অবৈধ",         // Bengali: invalid
];
const PASSING_UNSPACED: [&str; 34] = [
    "ปิดปรับปรุง",                                // Thai: closed for maintenance
    "تحت الصيانة",                             // Arabic: under maintenance
    "غير متاحة مؤقت",                          // Arabic: temporarily unavailable
    "בתחזוקה",                                 // Hebrew: under maintenance
    "موقتاً در دسترس نیست",                     // Persian: temporarily unavailable
    "موقتا در دسترس نیست",                     // Persian, written without the tanwin
    "در حال بروزرسانی",                        // Persian: being updated
    "अस्थायी रूप से अनुपलब्ध",                      // Hindi: temporarily unavailable
    "সাময়িকভাবে অনুপলব্ধ",                         // Bengali: temporarily unavailable
    "عارضی طور پر دستیاب نہیں",                // Urdu: temporarily unavailable
    "የአገልግሎት መቋረጥ",                            // Amharic: the service interrupted
    "សេវាមិនអាចប្រើ",                            // Khmer
    "සේවා නොමැත",                               // Sinhala
    "సహాయము అందించుట వీలుకాదు",                    // Telugu
    "తాత్కాలికంగా అందుబాటులో లేదు",                    // Telugu: temporarily unavailable
    "സേവനം ലഭ്യമല്ല",                            // Malayalam
    "ਸੇਵਾ ਉਪਲੱਬਧ ਨਹੀਂ",                           // Punjabi
    "ບໍ່\u{200b}ມີ\u{200b}ບໍ\u{200b}ລິ\u{200b}ການ", // Lao, its syllables split by zero-width spaces
    "ບໍ່ມີບໍລິການ",                                 // Lao
    "சேவை கிடைக்கவில்லை",                        // Tamil: the service not obtainable
    "ဝန်ဆောင်မှုမရရှိနိုင်ပါ",                          // Burmese
    "ಸೇವೆ ಲಭ್ಯವಿಲ್ಲ",                               // Kannada
    "સેવા ઉપલબ્ધ નથી",                           // Gujarati
    "સેવા ઉપલબ્ઘ નથી",           // Gujarati, as a web framework's translation spells it
    "నిర్వహణలో",                  // Telugu: under maintenance
    "తర్వాత మళ్లీ ప్రయత్నించండి",      // Telugu: try again later
    "பராமரிப்பில்",               // Tamil: under maintenance
    "பின்னர் மீண்டும் முயற்சிக்கவும்", // Tamil: try again later
    "ನಿರ್ವಹಣೆಯಲ್ಲಿ",                // Kannada: under maintenance
    "അറ്റകുറ്റപ്പണി",              // Malayalam: maintenance
    "ጥገና ላይ",                  // Amharic: under maintenance
    "ቆይተው እንደገና ይሞክሩ",         // Amharic: try again later
    "ព្យាយាមម្តងទៀតនៅពេលក្រោយ",    // Khmer: try again later
    "ລອງໃໝ່ພາຍຫຼັງ",              // Lao: try again later
];

/// The request's own mistake: a field required, a thing it names not found. A 5xx or a
/// 2xx error envelope that says so is the request's to mend, as in English ("is
/// required", "not found"). Each entry commented with its language.
const REQUEST: [&str; 78] = [
    "é obrigatório",              // Portuguese
    "é obrigatória",              // Portuguese
    "não encontrado",             // Portuguese
    "não encontrada",             // Portuguese
    "es obligatorio",             // Spanish
    "es obligatoria",             // Spanish
    "es requerido",               // Spanish
    "es requerida",               // Spanish
    "no encontrado",              // Spanish
    "no encontrada",              // Spanish
    "est obligatoire",            // French
    "est requis",                 // French
    "introuvable",                // French
    "ist ein pflichtfeld",        // German
    "ist erforderlich",           // German
    "nicht gefunden",             // German
    "è obbligatorio",             // Italian
    "è obbligatoria",             // Italian
    "non trovato",                // Italian
    "non trovata",                // Italian
    "is verplicht",               // Dutch
    "niet gevonden",              // Dutch
    "jest wymagane",              // Polish
    "jest wymagany",              // Polish
    "jest wymagana",              // Polish
    "nie znaleziono",             // Polish
    "je povinné",                 // Czech, Slovak
    "je povinný",                 // Czech, Slovak
    "nebyl nalezen*",             // Czech
    "nebol nájden*",              // Slovak
    "не найден*",                 // Russian (`*`: any ending, every gender)
    "обязательно для заполнения", // Russian
    "не знайдено",                // Ukrainian
    "обов язкове поле",           // Ukrainian (its apostrophe a space)
    "bulunamadı",                 // Turkish
    "zorunludur",                 // Turkish
    "este obligatoriu",           // Romanian
    "este obligatorie",           // Romanian
    "nu a fost găsit*",           // Romanian
    "nem található",              // Hungarian
    "mező kötelező",              // Hungarian
    "δεν βρέθηκε",                // Greek
    "είναι υποχρεωτικό",          // Greek
    "hittades inte",              // Swedish
    "är obligatoriskt",           // Swedish
    "er påkrævet",                // Danish
    "blev ikke fundet",           // Danish
    "er påkrevd",                 // Norwegian
    "finnes ikke",                // Norwegian
    "ble ikke funnet",            // Norwegian
    "on pakollinen",              // Finnish
    "ei löytynyt",                // Finnish
    "je obavezno",                // Croatian, Serbian
    "nije pronađen*",             // Croatian, Serbian
    "е задължително",             // Bulgarian
    "не е намерен*",              // Bulgarian
    "és obligatori",              // Catalan
    "no s ha trobat",             // Catalan
    "diperlukan",                 // Malay (required)
    "wajib diisi",                // Indonesian (must be filled in)
    "није пронађен*",             // Serbian (`*`: any ending)
    "табылмады",                  // Kazakh
    "табылган жок",               // Kyrgyz
    "ez da aurkitu",              // Basque
    "non atopado",                // Galician
    "non atopada",                // Galician
    "non se atopou",              // Galician
    "ni chanfuwyd",               // Welsh
    "fannst ekki",                // Icelandic
    "níor aimsíodh",              // Irish
    "олдсонгүй",                  // Mongolian: was not found
    "topilmadi",                  // Uzbek: was not found
    "tapılmadı",                  // Azerbaijani: was not found
    "ვერ მოიძებნა",               // Georgian: could not be found
    "nuk u gjet",                 // Albanian: was not found
    "nie gevind nie",             // Afrikaans: not found
    "не знойдзен*",               // Belarusian: not found (`*`: any ending)
    "haikupatikana",              // Swahili: was not found
];

/// The request's mistake in Persian, whose marks split words: "یافت نشد" (not found),
/// "ارسال نشده است" (was not sent), "الزامی است" (is required).
const REQUEST_UNSPACED: [&str; 6] = [
    "یافت نشد",       // Persian
    "ارسال نشده است", // Persian
    "الزامی است",     // Persian
    "አልተገኘም",         // Amharic
    "దొరకలేదు",         // Telugu
    "കണ്ടെത്തിയില്ല",    // Malayalam
];

/// Whether `text`, whose [`crate::passed::words`] are `words`, says in one of these
/// languages that the request itself is wrong. Read after every other meaning: a passing
/// state or refused credentials said beside it come first.
/// What a proxy or the upstream itself lacks where the request may be right: a server,
/// a host, a method ("Serveur introuvable", "Метод не найден"), as the English rule
/// leaves "host not found" to the status. Each entry commented with its language.
const NOT_THE_REQUEST: [&str; 12] = [
    "server",   // German, Dutch, Swedish, Danish, Norwegian, Romanian, Croatian
    "serveur",  // French
    "servidor", // Portuguese, Spanish, Catalan
    "сервер",   // Russian, Ukrainian, Bulgarian
    "host",     // most of them
    "hôte",     // French
    "método",   // Portuguese, Spanish
    "méthode",  // French
    "methode",  // German, Dutch
    "metodo",   // Italian
    "метод",    // Russian, Ukrainian, Bulgarian
    "metoda",   // Polish, Czech, Slovak, Romanian, Croatian
];

pub(super) fn says_request(words: &[String], text: &str) -> bool {
    // Every entry but Malay's and Indonesian's holds a letter beyond ASCII or is led by
    // one of theirs; the join is paid only by a failed reply's codes and messages.
    if words.iter().any(|w| NOT_THE_REQUEST.contains(&w.as_str())) {
        return false;
    }
    let joined = format!(" {} ", words.join(" "));
    REQUEST.iter().any(|e| has_words(&joined, e))
        || (!text.is_ascii() && REQUEST_UNSPACED.iter().any(|e| text.contains(e)))
}

/// What `text`, whose [`crate::passed::words`] are `words`, says would fix the failure, in one of these
/// languages.
pub(super) fn read(words: &[String], text: &str) -> Option<Recovery> {
    let joined = format!(" {} ", words.join(" "));
    let has = |set: &[&str]| set.iter().any(|e| has_words(&joined, e));
    // The unspaced entries are all beyond ASCII: a text of plain ASCII skips them.
    let lower = (!text.is_ascii()).then(|| text.to_lowercase());
    let has_unspaced = |set: &[&str]| {
        lower
            .as_deref()
            .is_some_and(|l| set.iter().any(|e| l.contains(e)))
    };
    if (has(&ACCOUNT) || has_unspaced(&ACCOUNT_UNSPACED)) && !has(&OTHERS) {
        return Some(Recovery::Account);
    }
    let credentials_refused = (has(&CREDENTIALS) && has(&REFUSED))
        || has_unspaced(&CREDENTIALS_UNSPACED)
        || (has_unspaced(&CREDENTIAL_NAMES_UNSPACED) && has_unspaced(&REFUSED_UNSPACED));
    if credentials_refused && !has(&NOT_CREDENTIALS) {
        return Some(Recovery::Credentials);
    }
    (has(&PASSING) || has_unspaced(&PASSING_UNSPACED)).then_some(Recovery::Transient)
}

/// Whether `joined` (words between single spaces, a space at each end) holds `entry` as
/// whole words, its last word with any ending where the entry ends in `*`.
fn has_words(joined: &str, entry: &str) -> bool {
    let (entry, any_ending) = match entry.strip_suffix('*') {
        Some(stem) => (stem, true),
        None => (entry, false),
    };
    let mut from = 0;
    while let Some(i) = joined.get(from..).and_then(|rest| rest.find(entry)) {
        let at = from + i;
        let end = at + entry.len();
        from = end;
        let starts = joined[..at].ends_with(' ');
        let ends = any_ending || joined[end..].starts_with(' ');
        if starts && ends {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::Recovery;
    use crate::passed::words;

    fn read(text: &str) -> Option<Recovery> {
        super::read(&words(text), text)
    }

    #[test]
    fn an_account_to_mend_in_other_languages() {
        for text in [
            "Sua conta não possui créditos suficientes.",
            // The caller's own customer area is no one else's.
            "Créditos insuficientes: recarregue na área do cliente.",
            "No cuenta con folios disponibles.",
            "Cette fonctionnalité n'est pas incluse dans votre abonnement.",
            "Quota d'appels API atteint pour aujourd'hui.",
            "Diese Funktion ist in Ihrem Tarif nicht enthalten.",
            "Недостаточно денег, пополните баланс",
            "Brak wystarczających środków na koncie",
            "Yetersiz bakiye. Lütfen hesabınıza kredi yükleyin.",
            "Credito insufficiente per l'invio",
            "Kuota harian akun Anda telah habis.",
            "เครดิตไม่เพียงพอ",
        ] {
            assert_eq!(read(text), Some(Recovery::Account), "{text}");
        }
    }

    #[test]
    fn a_card_or_a_customer_short_of_funds_is_no_account_of_the_caller() {
        for text in [
            "Kart limiti yetersiz, yetersiz bakiye",
            "Saldo insuficiente na conta para realizar o saque",
            "Недостаточно средств на балансе для выплаты",
            "Fondos insuficientes en la tarjeta",
            "Brak środków na koncie odbiorcy",
            "Créditos insuficientes na conta do cliente",
            "Crédits insuffisants sur le compte du client",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn credentials_refused_in_other_languages() {
        for text in [
            "O token de acesso expirou.",
            "El token de acceso ha expirado",
            "Votre jeton d'accès a expiré",
            "Der API-Schlüssel ist abgelaufen",
            "Токен доступа истёк",
            "Niepoprawny klucz API",
            "API anahtarı geçersiz",
            "Chiave non valida o scaduta",
            "Ongeldige API-sleutel",
            "Neplatné heslo",
            "Token không hợp lệ",
            "Kunci API tidak valid",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
        // A page's token refused is the request's.
        assert_eq!(read("Token de paginação inválido"), None);
    }

    #[test]
    fn a_passing_state_in_other_languages() {
        for text in [
            "Serviço temporariamente indisponível.",
            "API em manutenção programada.",
            "El documento se está procesando. Intente nuevamente en unos segundos.",
            "Service en maintenance. Veuillez réessayer plus tard.",
            "Wegen Wartungsarbeiten nicht erreichbar",
            "Ведутся технические работы",
            "Serwis tymczasowo niedostępny",
            "Planlı bakım çalışması nedeniyle",
            "Servizio temporaneamente non disponibile",
            "Tijdelijk niet beschikbaar wegens onderhoud",
            "Hệ thống đang bảo trì",
            "Layanan sedang dalam pemeliharaan",
            "ปิดปรับปรุงระบบชั่วคราว",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
    }

    #[test]
    fn ordinary_failures_say_none_of_these() {
        for text in [
            "O campo cepDestino é obrigatório.",
            "Recurso no encontrado",
            "Das Feld 'customer_id' ist ein Pflichtfeld.",
            "Manutenção do veículo não encontrada",
            "Invalid API key",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn accounts_credentials_and_passing_states_in_more_languages() {
        for text in [
            "Баланс вичерпано, поповніть баланс у кабінеті",
            "Credit insuficient pentru trimiterea mesajului",
            "Az előfizetése nem tartalmazza az API-hozzáférést",
            "Abonnement omfatter ikke denne funktion",
            "Sila tambah nilai untuk meneruskan",
            "لطفاً حساب خود را شارژ کنید",
        ] {
            assert_eq!(read(text), Some(Recovery::Account), "{text}");
        }
        for text in [
            "Токен доступу недійсний",
            "Parola a expirat",
            "Lejárt jelszó",
            "Το διακριτικό έληξε",
            "Ogiltigt lösenord",
            "Ugyldig adgangskode",
            "Tilgangstoken er utløpt",
            "Salasana on vanhentunut",
            "Невалиден ключ",
            "Ključ je istekao",
            "Clau no vàlid",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
        for text in [
            "Сервіс тимчасово недоступний",
            "Platforma este temporar indisponibilă",
            "A rendszer átmenetileg nem elérhető",
            "Η πλατφόρμα είναι προσωρινά μη διαθέσιμη",
            "Försök igen senare",
            "Prøv igjen senere",
            "Rajapinta on tilapäisesti poissa käytöstä",
            "Услугата е временно недостъпна",
            "Aplikasi dalam penyelenggaraan",
            "Servei temporalment no disponible",
            "سامانه در حال بروزرسانی است",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
        // A recipient's balance is the request's; a key named, not refused, is nothing.
        for text in [
            "Недостатньо коштів на рахунку одержувача, поповніть баланс одержувача",
            "Kulcs létrehozva",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn the_requests_own_mistake_in_other_languages() {
        let says = |text: &str| super::says_request(&words(text), text);
        for text in [
            "O campo 'email' é obrigatório",
            "Cliente no encontrado",
            "Le champ 'iban' est obligatoire",
            "Artikel nicht gefunden",
            "Il campo 'cap' è obbligatorio",
            "Bestelling niet gevonden",
            "Nie znaleziono faktury",
            "Pole 'ico' je povinné",
            "Товар не найден",
            "Відправлення не знайдено",
            "Sipariş bulunamadı",
            "Câmpul 'cif' este obligatoriu",
            "A számla nem található",
            "Το προϊόν δεν βρέθηκε",
            "Ordern hittades inte",
            "Faktura blev ikke fundet",
            "Produktet finnes ikke",
            "Tilausta ei löytynyt",
            "Račun nije pronađen",
            "Пратката не е намерена",
            "No s'ha trobat el document",
            "تراکنش یافت نشد",
        ] {
            assert!(says(text), "{text}");
        }
        // A passing state, a credential refused, English words, a server or a method
        // not found: none of this table's.
        for text in [
            "Serveur introuvable",
            "Метод не найден",
            "Host nicht gefunden",
            "Serviço temporariamente indisponível",
            "Ogiltig åtkomsttoken",
            "Field 'email' is required",
            "Behörighet saknas",
        ] {
            assert!(!says(text), "{text}");
        }
    }

    #[test]
    fn credentials_and_passing_states_in_eighteen_more_languages() {
        for text in [
            "API raktas neteisingas arba pasibaigęs",
            "Prieigos atslēga ir nederīga",
            "Kehtetu API võti",
            "Ваш API кључ је неважећи",
            "Ključ je neveljaven",
            "Клучот е невалиден",
            "Çelësi i aksesit është i pavlefshëm",
            "თქვენი ტოკენი ვადაგასულია",
            "Մուտքի բանալին անվավեր է",
            "Daxil edilmiş açarı etibarsızdır",
            "टोकन अमान्य है",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
        for text in [
            "Sistema laikinai nepasiekiama",
            "Serviss īslaicīgi nav pieejams",
            "Liides on ajutiselt kättesaamatu",
            "Greška na serveru, pokušajte ponovo kasnije",
            "Plačila začasno ni na voljo",
            "Системот е привремено недостапен",
            "API është përkohësisht i padisponueshëm",
            "სისტემა დროებით მიუწვდომელია",
            "Համակարգը ժամանակավորապես հասանելի չէ",
            "Sistem müvəqqəti olaraq əlçatan deyil",
            "Server vaqtincha mavjud emas",
            "भुगतान सेवा अस्थायी रूप से अनुपलब्ध",
            "সার্ভার সাময়িকভাবে অনুপলব্ধ",
            "یہ سروس عارضی طور پر دستیاب نہیں",
            "Ang API ay pansamantalang hindi magagamit",
            "Mfumo haipatikani kwa muda",
            "Систем түр ашиглах боломжгүй",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
        // A key or token named beside no word that refuses it is no refusal.
        for text in ["Raktas sukurtas", "Атслēga saglabāta", "ტოკენი შეიქმნა"]
        {
            assert_eq!(read(text), None, "{text}");
        }
    }
    #[test]
    fn a_passing_state_and_a_refused_key_in_twenty_more_languages() {
        for text in [
            "የአገልግሎት መቋረጥ",
            "សេវាមិនអាចប្រើ",
            "සේවා නොමැත",
            "సహాయము అందించుట వీలుకాదు",
            "സേവനം ലഭ്യമല്ല",
            "ਸੇਵਾ ਉਪਲੱਬਧ ਨਹੀਂ",
            "ບໍ່\u{200b}ມີ\u{200b}ບໍ\u{200b}ລິ\u{200b}ການ",
            "சேவை கிடைக்கவில்லை",
            "Insizakalo Ayitholakali",
            "Қызмет қолжетімсіз",
            "кызмат жеткиликтүү эмес",
            "Níl an tseirbhís ar fáil",
            "Gwasanaeth Ddim Ar Gael",
            "Zerbitzua ez dago erabilgarri",
            "Servizo non dispoñible",
            "Þjónusta ekki tiltæk",
            "Servei no disponible temporalment",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
        for text in [
            "ልክ ያልሆነ የኤፒአይ ቁልፍ",
            "សោ API មិនត្រឹមត្រូវ",
            "API ကီး မမှန်ကန်ပါ",
            "වලංගු නොවන API යතුර",
            "చెల్లని API కీ",
            "ಅಮಾನ್ಯ API ಕೀ",
            "അസാധുവായ API കീ",
            "અમાન્ય API કી",
            "ਅਵੈਧ API ਕੁੰਜੀ",
            "ລະຫັດ API ບໍ່ຖືກຕ້ອງ",
            "API кілті жарамсыз",
            "API ачкычы жараксыз",
            "Ógildur API-lykill",
            "Allwedd API annilys",
            "API gako baliogabea",
            "Eochair API neamhbhailí",
            "Ukhiye we-API ongavumelekile",
            "Maɓallin API mara inganci",
            "Clau d'API no vàlida",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
        // Something else called invalid, in the same words, is no credential.
        for text in [
            "చెల్లని ఫోన్ నంబర్",
            "അസാധുവായ ഫോൺ നമ്പർ",
            "Kennitala er ógild",
            "Mae'r cod post yn annilys",
            "Inombolo yocingo engavumelekile",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn a_thing_not_found_in_more_languages_is_the_requests_mistake() {
        for text in [
            "አልተገኘም",
            "దొరకలేదు",
            "കണ്ടെത്തിയില്ല",
            "Шот табылмады",
            "Эсеп табылган жок",
            "Faktura ez da aurkitu",
            "Factura non atopada",
            "Ni chanfuwyd yr anfoneb",
            "Reikningur fannst ekki",
            "Níor aimsíodh an sonrasc",
        ] {
            assert!(super::says_request(&words(text), text), "{text}");
        }
        assert!(!super::says_request(
            &words("Reikningur mótteknn"),
            "Reikningur mótteknn"
        ));
    }
    #[test]
    fn an_expired_token_and_maintenance_in_those_languages() {
        for text in [
            "ቶከን ጊዜው ያለፈበት ነው",
            "ថូខឹនផុតកំណត់",
            "တိုကင် သက်တမ်းကုန်သွားပါပြီ",
            "ටෝකනය කල් ඉකුත් වී ඇත",
            "టోకెన్ గడువు ముగిసింది",
            "ಟೋಕನ್ ಅವಧಿ ಮುಗಿದಿದೆ",
            "ടോക്കൺ കാലഹരണപ്പെട്ടു",
            "ટોકન સમાપ્ત થયું",
            "ਟੋਕਨ ਦੀ ਮਿਆਦ ਪੁੱਗ ਗਈ",
            "ໂທເຄັນໝົດອາຍຸ",
            "டோக்கன் காலாவதியானது",
            "Токен мерзімі өткен",
            "Токендин мөөнөтү өткөн",
            "Aðgangslykill er útrunninn",
            "Tokena iraungita dago",
            "Mae'r tocyn wedi dod i ben",
            "Ithokheni iphelelwe yisikhathi",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
        for text in [
            "Zerbitzua aldi baterako ez dago erabilgarri",
            "Sistema mantentze-lanetan dago",
            "O servizo está en mantemento",
            "El servei està en manteniment",
            "Kerfið er í viðhaldi",
            "Ceisiwch eto yn nes ymlaen",
            "Техникалық жұмыстар жүргізілуде",
            "సేవ నిర్వహణలో ఉంది",
            "சேவை பராமரிப்பில் உள்ளது",
            "ጥገና ላይ ነው። ቆይተው እንደገና ይሞክሩ",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
        // An offer or a code that expired is no credential.
        assert_eq!(read("Tarjouskoodi iraungita dago"), None);
        assert_eq!(read("ఆఫర్ గడువు ముగిసింది"), None);
    }

    #[test]
    fn credentials_passing_states_and_things_not_found_in_eighteen_more_languages() {
        for text in [
            "API түлхүүр буруу байна",
            "अमान्य API कुञ्जी",
            "अवैध API की",
            "অবৈধ API কী",
            "API kaliti noto‘g‘ri",
            "API калити нотўғри",
            "Yanlış API açarı",
            "API გასაღები არასწორია",
            "API բանալին սխալ է",
            "Çelës API i pavlefshëm",
            "Няправільны ключ API",
            "Ufunguo wa API si sahihi",
            "Hindi wastong API key",
            "Nevalida API-ŝlosilo",
            "Ċavetta API invalida",
            "Ongëltege API-Schlëssel",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
        for text in [
            "Үйлчилгээ түр ажиллахгүй байна",
            "Ծառայությունը ժամանակավորապես անհասանելի է",
            "Сэрвіс часова недаступны",
            "Diens tydelik nie beskikbaar nie",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
        for text in [
            "Нэхэмжлэх олдсонгүй",
            "Hisob-faktura topilmadi",
            "Faktura tapılmadı",
            "ინვოისი ვერ მოიძებნა",
            "Fatura nuk u gjet",
            "Faktuur nie gevind nie",
            "Рахунак не знойдзены",
            "Ankara haikupatikana",
        ] {
            assert!(super::says_request(&words(text), text), "{text}");
        }
        // A wrong phone number names no credential.
        assert_eq!(read("Telefon nömrəsi yanlışdır"), None);
        assert_eq!(read("अमान्य फोन नंबर"), None);
    }
}
