//! The API version a tool sends, checked against the versions its upstream lists as
//! deprecated (`api-deprecated-versions`, [`toolgate_signals::version_list`]).
//!
//! Such a list comes on every reply, whichever version was called, so it is news only
//! when it names the version this tool sends: then the tool's API is deprecated, and the
//! model and owner hear it with the versions the upstream still supports. The version a
//! tool sends is a fixed value of a query parameter or header named for a version
//! (`api-version`, `X-API-Version`, `Stripe-Version`, `Notion-Version`), in the tool's
//! request, its dependency's headers, or its base URL's query.

use toolgate_config::ToolSpec;
use toolgate_config::template::Part;
use toolgate_signals::version_list::VersionLists;
use toolgate_signals::{Deprecation, Headers, Signals};

/// The name and fixed value of the version parameter `tool` sends, if it sends one.
pub fn sent_version(tool: &ToolSpec) -> Option<(String, String)> {
    let fixed = |parts: &[Part]| match parts {
        [Part::Lit(v)] => Some(v.clone()),
        _ => None,
    };
    if let Some(request) = tool.http_request() {
        for (name, template) in &request.query {
            if names_a_version(name)
                && let Some(v) = fixed(&template.0)
            {
                return Some((name.clone(), v));
            }
        }
        for (name, template) in &request.headers {
            if names_a_version(name.as_str())
                && let Some(v) = fixed(&template.0)
            {
                return Some((name.to_string(), v));
            }
        }
    }
    let dependency = &tool.dependency;
    for (name, value) in &dependency.headers {
        if names_a_version(name.as_str())
            && let Ok(v) = value.to_str()
        {
            return Some((name.to_string(), v.to_string()));
        }
    }
    dependency
        .base_url
        .query_pairs()
        .find(|(k, _)| names_a_version(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
}

/// `api-version`, `x-api-version`, `Stripe-Version`, `anthropic-version`; not
/// `version_id` or `min_version`-like words in the middle.
fn names_a_version(name: &str) -> bool {
    name.to_ascii_lowercase()
        .replace(['-', '_'], "")
        .ends_with("version")
}

/// When the reply lists the version `tool` sends as deprecated: the tool's API is
/// deprecated, said once as a deprecation and once in words naming what is supported.
pub fn check(tool: &ToolSpec, headers: &Headers<'_>, signals: &mut Signals) {
    let Some(lists) = VersionLists::read(headers) else {
        return;
    };
    let Some((name, sent)) = sent_version(tool) else {
        return;
    };
    if !lists.lists_as_deprecated(&sent) {
        return;
    }
    signals
        .deprecation
        .get_or_insert_with(Deprecation::default)
        .deprecated = true;
    let supported: Vec<&String> = lists
        .supported
        .iter()
        .filter(|v| !lists.lists_as_deprecated(v))
        .collect();
    signals.warnings.push(if supported.is_empty() {
        format!("the upstream lists {name} {sent}, which this tool sends, as deprecated")
    } else {
        format!(
            "the upstream lists {name} {sent}, which this tool sends, as deprecated; it supports {}",
            supported
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
}

#[cfg(test)]
mod tests;
