//! A count written after the name of the policy it belongs to.
//!
//! IBM API Connect's gateways send `X-RateLimit-Limit: name=rate-limit,100;` and
//! `X-RateLimit-Remaining: name=rate-limit,99;` (ibm.com/docs/en/api-connect, "Rate
//! limits"): the plan's policy name, a comma, then the count. Read as a plain count the
//! value is junk and the whole budget is lost; the name says which policy, the number
//! after it is the count.

/// The count part of `name=<policy>,<count>;` (the text after the first comma, without
/// the `;` that ends the member), or `None` when `text` is not written so. Only the
/// first policy of a list is read: the one the header's own name describes.
pub(crate) fn value(text: &str) -> Option<&str> {
    let text = text.trim();
    let head = text.get(..5)?;
    if !head.eq_ignore_ascii_case("name=") {
        return None;
    }
    let (_, rest) = text.split_once(',')?;
    let count = rest.split(';').next()?.trim();
    (!count.is_empty()).then_some(count)
}

/// `text` with a policy name before its count dropped; `text` itself otherwise.
pub(crate) fn strip(text: &str) -> &str {
    value(text).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_after_its_policy_name_is_the_count() {
        assert_eq!(value("name=rate-limit,100;"), Some("100"));
        assert_eq!(value(" NAME=default,6; "), Some("6"));
        assert_eq!(value("name=rate-limit,0;name=burst-limit,1000;"), Some("0"));
    }

    #[test]
    fn other_values_are_left_as_they_are() {
        for text in [
            "100",
            "100, 100;w=60",
            "name=rate-limit",
            "name=x,;",
            "limit=100",
            "",
        ] {
            assert_eq!(value(text), None, "{text}");
        }
        assert_eq!(strip("100"), "100");
    }
}
