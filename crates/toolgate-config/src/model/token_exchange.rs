//! A dependency called with the caller's authority (RFC 8693 token exchange), validated.

/// The token type of the caller's token and, by default, of the one asked for.
pub const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// How toolgate exchanges a caller's access token for one for the dependency.
#[derive(Debug, Clone)]
pub struct TokenExchange {
    /// The issuer (one of `gateway.auth.issuers`), exactly as configured there.
    pub issuer: String,
    /// The token endpoint, when configured; otherwise found in the issuer's metadata.
    pub token_endpoint: Option<url::Url>,
    /// The `audience` parameter.
    pub audience: Option<String>,
    /// The `resource` parameter (an absolute URI).
    pub resource: Option<String>,
    /// The `scope` parameter.
    pub scope: Option<String>,
    /// The `requested_token_type` parameter.
    pub requested_token_type: String,
    /// toolgate's client id at the issuer.
    pub client_id: String,
    /// Its secret (read from the environment).
    pub client_secret: super::Secret,
    /// Where the client's credentials go.
    pub client_auth: ClientAuth,
}

/// How a client authenticates at a token endpoint (RFC 6749 §2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// HTTP Basic, id and secret form-urlencoded first (`client_secret_basic`).
    Basic,
    /// `client_id` and `client_secret` in the form (`client_secret_post`).
    Post,
}
