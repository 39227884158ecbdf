//! Credentials a description declares as ordinary parameters. Many published
//! descriptions define no security scheme and list the key with the other arguments
//! instead (`?key=` on every Weatherbit operation, `api_key` on Flickr's, an
//! `Authorization` header parameter): imported as written, the model would be asked for
//! the key on every call. When the spec's security schemes send nothing, such a
//! parameter becomes the dependency's, filled from an `${ENV}` reference the operator
//! sets, as a declared `apiKey` scheme is.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::refs::Refs;

/// An operation as [`find`] reads it: the file its `$ref`s resolve against, the
/// operation object, and its path's shared parameters, each with its file.
pub type Declared<'a> = (&'a Path, &'a Value, &'a [(PathBuf, Value)]);

/// Names (as [`words`] reads them, joined by `_`) that only ever carry a credential.
const CREDENTIAL: &[&str] = &[
    "access_token",
    "accesstoken",
    "apikey",
    "apitoken",
    "appkey",
    "authorization",
    "authtoken",
    "x_apikey",
];

/// The last two words of a name that only ever carries a credential (`X-API-Key`,
/// `X-Auth-Token`, `Ocp-Apim-Subscription-Key`). Not `application_key`: Jira's
/// `applicationKey` names an application.
const CREDENTIAL_ENDS: &[[&str; 2]] = &[
    ["access", "key"],
    ["access", "token"],
    ["api", "key"],
    ["api", "secret"],
    ["api", "token"],
    ["app", "key"],
    ["app", "secret"],
    ["app", "token"],
    ["auth", "token"],
    ["private", "token"],
    ["secret", "key"],
    ["subscription", "key"],
];

/// Last words of a name that carries a credential in some APIs and an ordinary value
/// in others (Jira's `key` is a project key, a cache API's `key` names an entry, a
/// list's `page_token` is a cursor): a credential only when the parameter's
/// description says so, or the spec asks for it on almost every operation, as it does
/// a key.
const MAYBE_ENDS: &[&str] = &["auth", "key", "licence", "license", "secret", "token"];

/// The last two words of an identifier sent beside a key (VictorOps' `X-VO-Api-Id`),
/// taken the same way.
const MAYBE_ID_ENDS: &[[&str; 2]] = &[
    ["api", "id"],
    ["app", "id"],
    ["application", "id"],
    ["client", "id"],
];

/// Words that make a name an ordinary value whatever it ends with: a cursor
/// (`nextPageToken`), a one-time value of a flow (`reset_token`, `Idempotency-Key`), an
/// object's own key (`sort_key`, `public_key`), and AWS's request-signing parameters
/// (see [`signing_parameter`]).
const ORDINARY_WORDS: &[&str] = &[
    "activation",
    "amz",
    "cache",
    "captcha",
    "confirm",
    "confirmation",
    "continuation",
    "csrf",
    "cursor",
    "device",
    "download",
    "encryption",
    "file",
    "foreign",
    "gpg",
    "idempotency",
    "invitation",
    "invite",
    "lock",
    "next",
    "object",
    "page",
    "partition",
    "pgp",
    "prev",
    "previous",
    "primary",
    "public",
    "push",
    "refresh",
    "registration",
    "reset",
    "resume",
    "share",
    "sort",
    "ssh",
    "sync",
    "unsubscribe",
    "upload",
    "verification",
    "verify",
    "xsrf",
];

/// Words of a description that say a parameter is a credential.
const CREDENTIAL_TEXT: &[&str] = &[
    "access key",
    "access token",
    "api key",
    "api-key",
    "api_key",
    "apikey",
    "api token",
    "app key",
    "application key",
    "auth token",
    "authentication",
    "authorisation",
    "authorization",
    "bearer",
    "credential",
    "licence key",
    "license key",
    "oauth",
    "secret key",
    "subscription key",
    "your key",
    "your token",
];

/// How many credential parameters the dependency sends at most; a spec asking for
/// more is not describing credentials.
pub const MAX_SENT: usize = 4;

/// The words of a name, in lower case: `X-API-Key` → `x`, `api`, `key`;
/// `nextPageToken` → `next`, `page`, `token`.
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        } else {
            if c.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
                && !word.is_empty()
            {
                out.push(std::mem::take(&mut word));
            }
            word.push(c.to_ascii_lowercase());
        }
        previous = Some(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// How much a name alone says a parameter carries a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Named {
    /// Only ever a credential (`api_key`, `X-Auth-Token`, `Authorization`).
    Credential,
    /// A credential in some APIs (`key`, `token`, `X-VO-Api-Id`).
    Maybe,
}

/// What `name` says of a parameter, if it names a credential at all.
pub fn named(name: &str) -> Option<Named> {
    let w = words(name);
    if w.is_empty() || w.iter().any(|x| ORDINARY_WORDS.contains(&x.as_str())) {
        return None;
    }
    let joined = w.join("_");
    let last = w[w.len() - 1].as_str();
    let pair = (w.len() >= 2).then(|| [w[w.len() - 2].as_str(), last]);
    if CREDENTIAL.contains(&joined.as_str())
        || CREDENTIAL.contains(&last)
        || pair.is_some_and(|p| CREDENTIAL_ENDS.contains(&p))
    {
        Some(Named::Credential)
    } else if MAYBE_ENDS.contains(&last) || pair.is_some_and(|p| MAYBE_ID_ENDS.contains(&p)) {
        Some(Named::Maybe)
    } else {
        None
    }
}

/// Whether `name` reads as a credential on its own or possibly (a server variable
/// named `token` is one either way).
pub fn credential_word(name: &str) -> bool {
    named(name).is_some()
}

/// AWS Signature Version 4's parameters (`X-Amz-Signature`, `X-Amz-Date`, …): computed
/// for each request from a secret key, never values a model could give.
pub fn signing_parameter(name: &str) -> bool {
    const SIGV4: &[&str] = &[
        "x-amz-algorithm",
        "x-amz-content-sha256",
        "x-amz-credential",
        "x-amz-date",
        "x-amz-security-token",
        "x-amz-signature",
        "x-amz-signedheaders",
    ];
    SIGV4.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// A parameter the spec declares that carries a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its name as first written.
    pub name: String,
    /// `query` or `header`.
    pub location: String,
    /// How many operations declare it.
    pub operations: usize,
    /// Whether every operation declaring it requires it.
    pub required: bool,
    /// Whether its name or description says it is a credential; else only that almost
    /// every operation asks for it does.
    pub said: bool,
}

impl Found {
    /// Whether a parameter `name` in `location` is this one (header names ignore case).
    pub fn is(&self, name: &str, location: &str) -> bool {
        location == self.location
            && if location == "header" {
                name.eq_ignore_ascii_case(&self.name)
            } else {
                name == self.name
            }
    }
}

/// Query and header parameters of `ops` that carry a credential, most declared first
/// (required ones before optional ones).
pub fn find(refs: &mut Refs, ops: &[Declared<'_>]) -> Vec<Found> {
    struct Seen {
        found: Found,
        described: bool,
    }
    let mut seen: Vec<Seen> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for (op_file, op, shared) in ops {
        let mut params: Vec<Value> = Vec::new();
        for p in op
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Ok((_, p)) = refs.deref(op_file, p) {
                params.push(p);
            }
        }
        for (file, p) in shared.iter() {
            if let Ok((_, p)) = refs.deref(file, p) {
                params.push(p);
            }
        }
        // One count per operation, even when it declares the parameter twice.
        let mut counted: Vec<usize> = Vec::new();
        for p in &params {
            let (Some(name), Some(location)) = (
                p.get("name").and_then(Value::as_str),
                p.get("in").and_then(Value::as_str),
            ) else {
                continue;
            };
            if !matches!(location, "query" | "header") {
                continue;
            }
            let Some(kind) = named(name) else {
                continue;
            };
            if location == "header" && !super::header::is_header_name(name) {
                continue;
            }
            let required = p.get("required") == Some(&Value::Bool(true));
            let described = kind == Named::Credential
                || p.get("description")
                    .and_then(Value::as_str)
                    .is_some_and(says_credential);
            let key_name = if location == "header" {
                name.to_ascii_lowercase()
            } else {
                name.to_string()
            };
            let key = (key_name, location.to_string());
            let at = *index.entry(key).or_insert_with(|| {
                seen.push(Seen {
                    found: Found {
                        name: name.to_string(),
                        location: location.to_string(),
                        operations: 0,
                        required: true,
                        said: false,
                    },
                    described: false,
                });
                seen.len() - 1
            });
            if counted.contains(&at) {
                continue;
            }
            counted.push(at);
            let s = &mut seen[at];
            s.found.operations += 1;
            s.found.required &= required;
            s.described |= described;
        }
    }
    let total = ops.len();
    let mut out: Vec<Found> = seen
        .into_iter()
        .filter(|s| {
            let n = s.found.operations;
            // A credential is the caller's on every call, so the spec asks for it on a
            // good part of its operations; a token or key one operation takes
            // (STS's `WebIdentityToken`, another platform's key a store-linking call
            // records) is that operation's argument.
            n * 4 >= total
                && (s.described
                    // Declared on (almost) every operation, as a key is; a project key
                    // or cache key is a parameter of a few.
                    || n >= 2 && n * 5 >= total * 4)
        })
        .map(|s| Found {
            said: s.described,
            ..s.found
        })
        .collect();
    // Of alternatives declared as often, a key before a token: a key is what an
    // operator configures once, a token (OAuth's `access_token`) expires.
    let keyed = |f: &Found| words(&f.name).iter().any(|w| w.contains("key"));
    out.sort_by(|a, b| {
        b.required
            .cmp(&a.required)
            .then(b.operations.cmp(&a.operations))
            .then(keyed(b).cmp(&keyed(a)))
    });
    out
}

/// Which of `found` the dependency sends: every one the operations require (an API
/// may need a key and an id together), else the most declared one (optional ones are
/// alternatives: Google's `key` or `access_token`); at most [`MAX_SENT`].
pub fn chosen(found: &[Found]) -> Vec<&Found> {
    let required: Vec<&Found> = found.iter().filter(|f| f.required).collect();
    if required.is_empty() {
        found.iter().take(1).collect()
    } else {
        required.into_iter().take(MAX_SENT).collect()
    }
}

/// Whether a parameter's description says it carries a credential.
fn says_credential(text: &str) -> bool {
    let lower = super::text::plain(text).to_ascii_lowercase();
    CREDENTIAL_TEXT.iter().any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests;
