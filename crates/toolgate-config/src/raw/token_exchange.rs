//! `dependencies.<name>.token_exchange`, as written: the upstream is called with a token
//! the authorization server issues for it in exchange for the caller's (RFC 8693).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Call the dependency with the caller's authority: toolgate exchanges the caller's
/// access token at the authorization server for a token for this upstream (RFC 8693)
/// and sends that as `Authorization: Bearer`. The caller's own token is never sent.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTokenExchange {
    /// The authorization server that exchanges: one of `gateway.auth.issuers`, by its
    /// issuer URL exactly as written there.
    pub issuer: String,
    /// Its token endpoint. Default: `token_endpoint` from the issuer's RFC 8414 (or
    /// OpenID) metadata.
    pub token_endpoint: Option<String>,
    /// The `audience` parameter: the name the authorization server knows the upstream
    /// by. At least one of `audience` and `resource` is required.
    pub audience: Option<String>,
    /// The `resource` parameter: the upstream's resource URI (absolute, RFC 8707).
    pub resource: Option<String>,
    /// The `scope` parameter: the scopes the upstream token should carry, separated by
    /// spaces. Default: none asked for (the authorization server decides).
    pub scope: Option<String>,
    /// The `requested_token_type` parameter. Default:
    /// `urn:ietf:params:oauth:token-type:access_token`.
    pub requested_token_type: Option<String>,
    /// toolgate's client id at the issuer (the client allowed to exchange).
    pub client_id: String,
    /// The environment variable that holds the client's secret.
    pub client_secret_env: String,
    /// How toolgate authenticates at the token endpoint: `client_secret_basic`
    /// (default, HTTP Basic) or `client_secret_post` (in the form).
    pub client_auth: Option<String>,
}
