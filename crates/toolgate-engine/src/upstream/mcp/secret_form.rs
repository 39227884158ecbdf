//! A form-mode elicitation that asks the user for a secret.
//!
//! MCP has servers ask for passwords, API keys, access tokens and payment credentials in
//! URL mode only, never in a form (2025-11-25 and later, "Elicitation", security
//! considerations: <https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation>):
//! a form's answer passes through the client, the gateway and the server's logs, and a
//! user shown a form relayed by toolgate may take it for toolgate's own question. A
//! hostile server asks for the user's GitHub token in a form all the same. Such a form
//! is not relayed: a field whose schema marks it as one (`format: password`,
//! `writeOnly`), or whose name, title or description, or the form's message, names a
//! credential refuses the form. Names are read as words (`mfa_code`, `apiKey`, "API
//! key" alike; `secretary` is not `secret`), in several languages, and a word with
//! other meanings counts only where its context gives it this one: `token` ending a
//! field's name, `pin` unless the field is a yes/no or speaks of a map or a message.

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::lookalike::skeleton;

/// Word sequences that name a credential wherever they are written: a field's name,
/// title or description, or the form's message. Words as [`words`] reads them, so
/// `apiKey`, `API key` and `api-key` are one; a sequence matches whole words, so
/// `secretary` is not `secret` and `postcard_number` not `card number`. English and the
/// word for a password in the languages most forms are written in.
const CREDENTIALS: &[&[&str]] = &[
    &["password"],
    &["passwords"],
    &["passwd"],
    &["passphrase"],
    &["passcode"],
    &["pass", "phrase"],
    &["pass", "word"],
    &["pass", "code"],
    &["secret"],
    &["secrets"],
    &["apikey"],
    &["api", "key"],
    &["api", "keys"],
    &["private", "key"],
    &["secret", "key"],
    &["signing", "key"],
    &["encryption", "key"],
    &["access", "token"],
    &["auth", "token"],
    &["api", "token"],
    &["bearer", "token"],
    &["refresh", "token"],
    &["session", "token"],
    &["id", "token"],
    &["oauth", "token"],
    &["security", "token"],
    &["seed", "phrase"],
    &["seed", "words"],
    &["recovery", "phrase"],
    &["mnemonic"],
    &["recovery", "code"],
    &["recovery", "codes"],
    &["backup", "code"],
    &["backup", "codes"],
    &["verification", "code"],
    &["security", "code"],
    &["access", "code"],
    &["auth", "code"],
    &["authentication", "code"],
    &["authenticator", "code"],
    &["sms", "code"],
    &["one", "time", "code"],
    &["one", "time", "password"],
    &["otp"],
    &["totp"],
    &["hotp"],
    &["mfa"],
    &["2fa"],
    &["two", "factor"],
    &["cvv"],
    &["cvv2"],
    &["cvc"],
    &["cvc2"],
    &["credit", "card"],
    &["creditcard"],
    &["card", "number"],
    &["cardnumber"],
    &["card", "verification"],
    &["ssn"],
    &["social", "security", "number"],
    &["social", "insurance", "number"],
    &["pin", "code"],
    &["pin", "number"],
    &["code", "pin"],
    // German, French, Spanish, Catalan, Portuguese, Dutch, the Nordic languages, Polish,
    // Czech, Turkish, Russian and Ukrainian.
    &["passwort"],
    &["kennwort"],
    &["geheimzahl"],
    &["mot", "de", "passe"],
    &["motdepasse"],
    &["contrasena"],
    &["contrasenya"],
    &["clave", "secreta"],
    &["senha"],
    &["wachtwoord"],
    &["losenord"],
    &["passord"],
    &["adgangskode"],
    &["salasana"],
    &["haslo"],
    &["heslo"],
    &["sifre"],
    &["пароль"],
    &["парол"],
];

/// Words of scripts written without spaces, matched anywhere in a text: password,
/// verification code, PIN (Chinese, Japanese, Korean).
const UNSPACED_CREDENTIALS: &[&str] = &[
    "密码",
    "密碼",
    "口令",
    "验证码",
    "驗證碼",
    "パスワード",
    "暗証番号",
    "認証コード",
    "비밀번호",
    "암호",
    "인증번호",
];

/// A field named by one of these words alone, or ending in one (`githubToken`,
/// `slack_pat`), asks for a credential; written elsewhere (`maxTokens` counts them,
/// "token" in a description may be a word of text) they may mean something else.
const CREDENTIAL_NAME_ENDINGS: &[&str] = &["token", "pat"];

/// Words that read as a personal identification number; a map's or a message's pin is
/// the same word, told apart by [`PIN_ELSEWHERE`] or a boolean field ("pin this").
const PIN: &str = "pin";

/// Words that make `pin` something else than a PIN: a pin on a map or a board, a pinned
/// item.
const PIN_ELSEWHERE: &[&str] = &[
    "map",
    "maps",
    "location",
    "marker",
    "place",
    "coordinates",
    "latitude",
    "longitude",
    "geo",
    "address",
    "board",
    "pinned",
];

/// The words of `text`, lowercase, read as a person reads them: compatibility forms and
/// look-alike letters folded ([`skeleton`]), accents dropped (`contraseña` is
/// `contrasena`), and split at anything but a letter or digit and where a word of a
/// name starts with a capital (`githubToken`, `APIKey`, `mfa_code`).
fn words(text: &str) -> Vec<String> {
    let plain: String = text
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .map(|c| match c {
            'ł' | 'Ł' => 'l',
            'ø' | 'Ø' => 'o',
            'ı' => 'i',
            other => other,
        })
        .collect();
    let chars: Vec<char> = plain.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        // `githubToken`: a capital after a small letter; `APIKey`: the last capital of a
        // run before a small letter.
        let starts_word = c.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if starts_word && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out.into_iter().map(|w| skeleton(&w)).collect()
}

fn contains_phrase(words: &[String], phrase: &[&str]) -> bool {
    words
        .windows(phrase.len())
        .any(|w| w.iter().zip(phrase).all(|(a, b)| *a == skeleton(b)))
}

/// Whether `text` names a credential wherever it is written.
fn names_a_credential(text: &str) -> bool {
    let w = words(text);
    CREDENTIALS.iter().any(|p| contains_phrase(&w, p))
        || UNSPACED_CREDENTIALS.iter().any(|u| text.contains(u))
}

/// Whether the field `name` (its schema `field`) asks for a secret: its schema marks it
/// as one, or its name, title or description names a credential, or its name ends
/// with a word that does, or it asks for a PIN.
pub(crate) fn field_is_secret(name: &str, field: &Map<String, Value>) -> bool {
    let text = |k: &str| field.get(k).and_then(Value::as_str).unwrap_or_default();
    if field.get("format").and_then(Value::as_str) == Some("password")
        || field.get("writeOnly") == Some(&Value::Bool(true))
    {
        return true;
    }
    if [name, text("title"), text("description")]
        .into_iter()
        .any(names_a_credential)
    {
        return true;
    }
    let name_words = words(name);
    if name_words
        .last()
        .is_some_and(|w| CREDENTIAL_NAME_ENDINGS.contains(&w.as_str()))
    {
        return true;
    }
    let context: Vec<String> = [text("title"), text("description")]
        .into_iter()
        .flat_map(words)
        .chain(name_words)
        .collect();
    context.iter().any(|w| w == PIN)
        && field.get("type").and_then(Value::as_str) != Some("boolean")
        && !context.iter().any(|w| PIN_ELSEWHERE.contains(&w.as_str()))
}

/// The field (or `message`) of a form-mode `elicitation/create` that asks for a
/// secret, when one does; `None` for any other request.
pub(super) fn secret_asked(method: &str, params: Option<&Value>) -> Option<String> {
    let params = params?;
    if method != "elicitation/create" || params.get("mode").is_some_and(|m| m != "form") {
        return None;
    }
    if params
        .get("message")
        .and_then(Value::as_str)
        .is_some_and(names_a_credential)
    {
        return Some("message".to_owned());
    }
    let properties = params
        .get("requestedSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)?;
    properties.iter().find_map(|(name, field)| {
        let field = field.as_object()?;
        field_is_secret(name, field).then(|| name.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(properties: Value) -> Value {
        json!({"message": "A few details", "requestedSchema": {"type": "object", "properties": properties}})
    }

    fn asked(params: &Value) -> Option<String> {
        secret_asked("elicitation/create", Some(params))
    }

    /// Forms a hostile server sends for a credential, each worded differently.
    #[test]
    fn forms_asking_for_credentials_are_refused_however_worded() {
        let s = |extra: Value| {
            let mut f = json!({"type": "string"});
            if let (Some(f), Some(extra)) = (f.as_object_mut(), extra.as_object()) {
                f.extend(extra.clone());
            }
            f
        };
        for (name, field) in [
            ("password", s(json!({}))),
            ("GitHub_Token", s(json!({}))),
            ("githubToken", s(json!({}))),
            ("token", s(json!({}))),
            ("api-key", s(json!({}))),
            ("APIKey", s(json!({}))),
            ("passphrase", s(json!({}))),
            ("otp", s(json!({}))),
            ("mfa_code", s(json!({}))),
            ("verificationCode", s(json!({}))),
            ("seed", s(json!({"title": "Seed phrase"}))),
            (
                "key",
                s(json!({"description": "Your wallet's private key, hex"})),
            ),
            ("card_cvv", s(json!({}))),
            ("ssn", s(json!({}))),
            ("id", s(json!({"title": "Social Security Number"}))),
            ("pin", s(json!({}))),
            (
                "pin",
                s(json!({"description": "The 4-digit PIN of your card"})),
            ),
            ("value", s(json!({"title": "Your AWS Secret Access Key"}))),
            (
                "v",
                s(json!({"description": "Paste your personal access token"})),
            ),
            ("v", s(json!({"format": "password"}))),
            ("v", s(json!({"writeOnly": true}))),
            ("v", s(json!({"title": "Passwort"}))),
            ("v", s(json!({"title": "Mot de passe"}))),
            ("contraseña", s(json!({}))),
            ("senha", s(json!({}))),
            ("hasło", s(json!({}))),
            ("v", s(json!({"title": "Пароль"}))),
            ("v", s(json!({"title": "请输入密码"}))),
            ("v", s(json!({"title": "パスワード"}))),
            // Look-alike letters: `pаssword` with a Cyrillic а.
            ("p\u{0430}ssword", s(json!({}))),
            (
                "recovery",
                s(json!({"description": "One of your 2FA backup codes"})),
            ),
        ] {
            let params = form(json!({ name: field }));
            assert_eq!(asked(&params).as_deref(), Some(name), "{params}");
        }
        for message in [
            "Enter your pass phrase to continue",
            "Bitte geben Sie Ihr Kennwort ein",
            "Type the one-time code we sent you",
        ] {
            let params = json!({"mode": "form", "message": message,
                   "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}}});
            assert_eq!(asked(&params).as_deref(), Some("message"), "{params}");
        }
    }

    /// Forms that only share a word, or part of one, with a credential.
    #[test]
    fn ordinary_forms_are_relayed_even_when_a_word_looks_like_a_credential() {
        for (name, field) in [
            ("name", json!({"type": "string"})),
            ("email", json!({"type": "string", "format": "email"})),
            ("maxTokens", json!({"type": "integer"})),
            ("token_count", json!({"type": "integer"})),
            ("spin", json!({"type": "boolean"})),
            (
                "username",
                json!({"type": "string", "title": "GitHub user name"}),
            ),
            (
                "pin",
                json!({"type": "string", "title": "Map pin", "description": "Where to drop the pin on the map"}),
            ),
            ("pin", json!({"type": "boolean", "title": "Pin this note"})),
            ("pinLocation", json!({"type": "string"})),
            (
                "secretary",
                json!({"type": "string", "title": "Name of your secretary"}),
            ),
            ("postcard_number", json!({"type": "integer"})),
            ("private_keyword", json!({"type": "string"})),
            ("keyboard_layout", json!({"type": "string"})),
            ("zip_code", json!({"type": "string"})),
            ("passport_country", json!({"type": "string"})),
            (
                "tokenizer",
                json!({"type": "string", "enum": ["bpe", "wordpiece"]}),
            ),
            (
                "compass",
                json!({"type": "string", "description": "Heading, e.g. NNE"}),
            ),
        ] {
            let params = form(json!({ name: field }));
            assert_eq!(asked(&params), None, "{params}");
        }
        // URL mode is where the specification sends such questions.
        let url = json!({"mode": "url", "url": "https://example.com/login", "message": "Enter your password there",
               "elicitationId": "e1"});
        assert_eq!(asked(&url), None);
        assert_eq!(
            secret_asked(
                "sampling/createMessage",
                Some(&json!({"message": "password"}))
            ),
            None
        );
    }
}
