//! A form-mode elicitation that asks the user for a secret.
//!
//! MCP has servers ask for passwords, API keys, access tokens and payment credentials in
//! URL mode only, never in a form (2025-11-25 and later, "Elicitation", security
//! considerations: <https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation>):
//! a form's answer passes through the client, the gateway and the server's logs, and a
//! user shown a form relayed by toolgate may take it for toolgate's own question. A
//! hostile server asks for the user's GitHub token in a form all the same. Such a form
//! is not relayed: a field whose name, title or description, or the form's message,
//! names a credential, or whose schema marks it as one (`format: password`,
//! `writeOnly`), refuses the form.

use serde_json::Value;

/// Words naming a credential, as read with case, spaces and punctuation removed.
const SECRET_WORDS: [&str; 16] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "apikey",
    "privatekey",
    "accesstoken",
    "authtoken",
    "apitoken",
    "bearertoken",
    "refreshtoken",
    "sessiontoken",
    "personalaccesstoken",
    "creditcard",
    "cardnumber",
    "seedphrase",
];

/// Field names that are a credential when they are the whole name.
const SECRET_NAMES: [&str; 6] = ["token", "pat", "pin", "cvv", "cvc", "otp"];

/// `text` lowercased with everything but letters and digits removed.
fn folded(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn names_a_secret(text: &str) -> bool {
    let f = folded(text);
    SECRET_WORDS.iter().any(|w| f.contains(w))
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
        .is_some_and(names_a_secret)
    {
        return Some("message".to_owned());
    }
    let properties = params
        .get("requestedSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)?;
    properties.iter().find_map(|(name, field)| {
        let text = |k: &str| field.get(k).and_then(Value::as_str).unwrap_or_default();
        let secret = names_a_secret(name)
            || SECRET_NAMES.contains(&folded(name).as_str())
            || folded(name).ends_with("token")
            || names_a_secret(text("title"))
            || names_a_secret(text("description"))
            || field.get("format").and_then(Value::as_str) == Some("password")
            || field.get("writeOnly") == Some(&Value::Bool(true));
        secret.then(|| name.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(properties: Value) -> Value {
        json!({"message": "A few details", "requestedSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn forms_asking_for_credentials_are_found_and_ordinary_ones_are_not() {
        for (params, field) in [
            (form(json!({"password": {"type": "string"}})), "password"),
            (
                form(json!({"GitHub_Token": {"type": "string"}})),
                "GitHub_Token",
            ),
            (form(json!({"api-key": {"type": "string"}})), "api-key"),
            (form(json!({"pin": {"type": "string"}})), "pin"),
            (
                form(json!({"value": {"type": "string", "title": "Your AWS Secret Access Key"}})),
                "value",
            ),
            (
                form(
                    json!({"v": {"type": "string", "description": "Paste your personal access token"}}),
                ),
                "v",
            ),
            (
                form(json!({"v": {"type": "string", "format": "password"}})),
                "v",
            ),
            (
                form(json!({"v": {"type": "string", "writeOnly": true}})),
                "v",
            ),
            (
                json!({"mode": "form", "message": "Enter your pass phrase to continue",
                       "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}}}),
                "message",
            ),
        ] {
            assert_eq!(
                secret_asked("elicitation/create", Some(&params)).as_deref(),
                Some(field),
                "{params}"
            );
        }
        for params in [
            form(
                json!({"name": {"type": "string"}, "email": {"type": "string", "format": "email"},
                        "maxTokens": {"type": "integer"}, "spin": {"type": "boolean"},
                        "username": {"type": "string", "title": "GitHub user name"}}),
            ),
            // URL mode is where the specification sends such questions.
            json!({"mode": "url", "url": "https://example.com/login", "message": "Enter your password there",
                   "elicitationId": "e1"}),
        ] {
            assert_eq!(
                secret_asked("elicitation/create", Some(&params)),
                None,
                "{params}"
            );
        }
        assert_eq!(
            secret_asked(
                "sampling/createMessage",
                Some(&json!({"message": "password"}))
            ),
            None
        );
    }
}
