//! Who a session belongs to. A session id is a bearer of the session's state (its
//! negotiated version, its client capabilities, the server→client requests waiting on
//! it), so when the gateway knows who sends a request, a session opened by one caller
//! is refused to every other caller, as if it did not exist: an id that leaks (a log, a
//! proxy, another agent's traffic) gives nothing to whoever presents it with their own
//! credentials (the MCP security best practices, "Session Hijacking": bind the session
//! to the user).
//!
//! The owner is the agent the credential named and, for an access token, its issuer and
//! subject: two users of one OAuth agent do not share sessions either, nor two users
//! of the same `sub` at two trusted issuers (each issuer hands out its own). It is kept
//! as a digest, which is also what a sealed id carries, so the id shows no subject.

use toolgate_auth::Identity;

/// Hex digits of the digest kept: 128 bits.
const DIGEST_HEX: usize = 32;

/// The owner of a session; `Owner::default()` when the gateway asks for no credential
/// (every caller is the same anonymous one).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Owner(Option<String>);

impl Owner {
    /// The owner of the sessions `identity` opens (`None`: no credential was asked for).
    pub fn of(identity: Option<&Identity>) -> Owner {
        let Some(identity) = identity else {
            return Owner(None);
        };
        // A gateway without credentials names every request's caller `anonymous`: its
        // one owner is worked out once, not hashed again on every request.
        static ANONYMOUS: std::sync::LazyLock<Owner> =
            std::sync::LazyLock::new(|| Owner::digest_of(toolgate_config::ANONYMOUS, None, None));
        if identity.agent.is_none() && identity.subject.is_none() && identity.issuer.is_none() {
            return ANONYMOUS.clone();
        }
        Owner::digest_of(
            identity.name(),
            identity.issuer.as_deref(),
            identity.subject.as_deref(),
        )
    }

    fn digest_of(name: &str, issuer: Option<&str>, subject: Option<&str>) -> Owner {
        // The parts cannot run into each other: a name has no newline, and the issuer
        // comes after the subject with the issuer's length first. Without an issuer (a
        // key, the shared token) the digest is what it has always been.
        let subject = subject.unwrap_or_default();
        let who = match issuer {
            None => format!("{name}\n{subject}"),
            Some(issuer) => format!("{name}\n{subject}\n{}:{issuer}", issuer.len()),
        };
        let mut digest = toolgate_auth::sha256_hex(who.as_bytes());
        digest.truncate(DIGEST_HEX);
        Owner(Some(digest))
    }

    /// An owner as a sealed id carries it.
    pub fn from_digest(digest: Option<String>) -> Owner {
        Owner(digest)
    }

    /// The digest a sealed id carries; `None` for the anonymous owner.
    pub fn digest(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn identity(agent: Option<&str>, subject: Option<&str>) -> Identity {
        Identity {
            agent: agent.map(|name| {
                Arc::new(toolgate_config::AgentSpec {
                    name: name.to_owned(),
                    matches: None,
                    api_key_sha256: None,
                    tools: None,
                    deny: Vec::new(),
                    quota: None,
                    admin: false,
                })
            }),
            subject: subject.map(str::to_owned),
            ..Identity::default()
        }
    }

    #[test]
    fn the_same_subject_at_two_issuers_owns_sessions_apart() {
        // `sub` is unique only within its issuer: a user of another trusted issuer who
        // got the same `sub` is someone else, and does not get the first one's sessions.
        let at = |issuer: &str| {
            Owner::of(Some(&Identity {
                issuer: Some(issuer.to_owned()),
                ..identity(Some("app"), Some("user-1"))
            }))
        };
        assert_eq!(
            at("https://login.example.com"),
            at("https://login.example.com")
        );
        assert_ne!(
            at("https://login.example.com"),
            at("https://partner.example.net")
        );
        assert_ne!(
            at("https://login.example.com"),
            Owner::of(Some(&identity(Some("app"), Some("user-1"))))
        );
    }

    #[test]
    fn agents_and_subjects_own_sessions_apart() {
        let alice = Owner::of(Some(&identity(Some("alice"), None)));
        assert_eq!(alice, Owner::of(Some(&identity(Some("alice"), None))));
        assert_ne!(alice, Owner::of(Some(&identity(Some("bob"), None))));
        assert_ne!(alice, Owner::default(), "a credential is not no credential");
        assert_ne!(
            Owner::of(Some(&identity(Some("app"), Some("user-1")))),
            Owner::of(Some(&identity(Some("app"), Some("user-2")))),
            "two users of one OAuth agent"
        );
        assert_eq!(Owner::of(None), Owner::default());
        // The anonymous caller is one owner, the same as an identity named so.
        let anonymous = Owner::of(Some(&identity(None, None)));
        assert_eq!(anonymous, Owner::of(Some(&identity(None, None))));
        assert_eq!(
            anonymous,
            Owner::digest_of(toolgate_config::ANONYMOUS, None, None)
        );
        assert_ne!(anonymous, Owner::of(Some(&identity(None, Some("user-1")))));
        assert_ne!(anonymous, Owner::default());
        assert_eq!(alice.digest().map(str::len), Some(DIGEST_HEX));
    }
}
