//! Why a call got no exchanged token: the class it fails with and the sentence the
//! model reads. A leaf of its own, so the upstream kinds can name it without depending
//! on the exchanger (which records metrics).

use toolgate_resilience::ErrorClass;

use super::endpoint::Unreachable;

/// Why a call got no exchanged token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExchangeError {
    /// The caller sent no access token (an API key, the shared token, or nothing).
    NoToken,
    /// The authorization server refused the exchange.
    Refused {
        code: Option<&'static str>,
        status: u16,
    },
    /// The authorization server could not be asked, or failed.
    Unavailable(Unreachable),
}

impl ExchangeError {
    /// The class the call fails with.
    pub fn class(&self) -> ErrorClass {
        match self {
            ExchangeError::NoToken | ExchangeError::Refused { .. } => ErrorClass::Auth,
            ExchangeError::Unavailable(u) => u.class,
        }
    }

    /// The sentence the model reads: nothing of either token, nor anything the
    /// authorization server wrote but a registered OAuth error code.
    pub fn message(&self, tool: &str, dependency: &str) -> String {
        match self {
            ExchangeError::NoToken => format!(
                "{tool} was not called: {dependency} is called with the signed-in user's authority, and this call \
                 came without a user's access token (an API key, the shared token or no credential). Error class: auth. \
                 toolgate sent nothing. Do not retry: the call needs a client that signs in through the authorization server."
            ),
            ExchangeError::Refused { code, status } => format!(
                "{tool} was not called: the authorization server refused to exchange the caller's access token for a \
                 token for {dependency} ({}). Error class: auth. toolgate sent nothing to {dependency}. Do not retry: the \
                 user may need to sign in again or be granted access to {dependency}.",
                code.map_or_else(
                    || format!("HTTP {status}"),
                    |c| format!("{c}, HTTP {status}")
                )
            ),
            ExchangeError::Unavailable(u) => format!(
                "{tool} was not called: toolgate could not get a token for {dependency} from the authorization server: \
                 {}. Error class: {}. toolgate sent nothing to {dependency}; the call may succeed when retried later.",
                u.why,
                u.class.as_str()
            ),
        }
    }
}
