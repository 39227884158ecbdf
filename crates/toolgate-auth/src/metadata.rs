//! OAuth 2.0 Protected Resource Metadata (RFC 9728): how a client that got a 401 finds
//! the authorization server.

use serde_json::{Value, json};

use toolgate_config::AuthConfig;

/// The well-known path; the resource's own path is appended to it (RFC 9728 §3.1).
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Where the metadata of `resource` is published: the well-known path inserted between
/// the resource's origin and its path.
pub fn resource_metadata_url(resource: &str) -> String {
    match url::Url::parse(resource) {
        Ok(mut url) => {
            let path = url.path().trim_end_matches('/').to_string();
            url.set_path(&format!("{WELL_KNOWN}{path}"));
            url.set_query(None);
            url.to_string()
        }
        Err(_) => WELL_KNOWN.to_string(),
    }
}

/// Whether `suffix`, the path after [`WELL_KNOWN`] of a metadata request (without its
/// leading `/`), names `resource`'s own path: only that one is published (RFC 9728
/// §3.1); any other is another resource's, which this server does not protect.
pub fn names_resource(resource: &str, suffix: &str) -> bool {
    let path = url::Url::parse(resource)
        .map(|u| u.path().trim_matches('/').to_owned())
        .unwrap_or_default();
    suffix.trim_matches('/') == path
}

/// The metadata document. `scopes_supported` lists what /mcp needs and then every
/// scope a tool needs (`tool_scopes`), once each: a client that asks for all of them
/// (the specification's fallback when a challenge names none) can call every tool.
pub fn metadata_document<'a>(
    auth: &AuthConfig,
    tool_scopes: impl IntoIterator<Item = &'a str>,
) -> Value {
    let mut supported: Vec<&str> = auth.scopes.iter().map(String::as_str).collect();
    for s in tool_scopes {
        if !supported.contains(&s) {
            supported.push(s);
        }
    }
    json!({
        "resource": auth.resource,
        "authorization_servers": auth.issuers.iter().map(|i| i.issuer.as_str()).collect::<Vec<_>>(),
        "scopes_supported": supported,
        "bearer_methods_supported": ["header"],
        "resource_name": "toolgate",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_resources_own_path_is_published() {
        assert!(names_resource("https://tools.example.com/mcp", "mcp"));
        assert!(names_resource(
            "https://tools.example.com/gw/mcp/",
            "gw/mcp"
        ));
        assert!(!names_resource("https://tools.example.com/mcp", "admin"));
        assert!(!names_resource(
            "https://tools.example.com/mcp",
            "mcp/other"
        ));
        assert!(!names_resource("https://tools.example.com", "mcp"));
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        assert_eq!(
            resource_metadata_url("https://tools.example.com/mcp"),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            resource_metadata_url("https://tools.example.com"),
            "https://tools.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            resource_metadata_url("http://127.0.0.1:8765/mcp"),
            "http://127.0.0.1:8765/.well-known/oauth-protected-resource/mcp"
        );
    }
}
