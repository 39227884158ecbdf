//! A header that names the error of the reply, read for whether it says a limit was
//! passed: API proxies put the refusal's code there and an HTML page in the body, as
//! TIBCO Mashery does (`X-Mashery-Error-Code: ERR_403_DEVELOPER_OVER_QPS` on a 403,
//! <https://support.mashery.com/docs/read/mashery_api/20_reporting/error_codes>).
//! A header is such a header by its name's last words — `error`, `error-code`,
//! `errorcode`, `error-type`, `errortype`, `error-reason` — and its value counts only
//! when its words say a usage limit was passed ([`crate::passed`]) or name a throttle;
//! an inactive key or a bad signature in the same header is no throttle.

use crate::headers::Headers;

/// The longest value read.
const MAX_VALUE: usize = 120;

fn names_an_error(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    ["error", "errorcode", "errortype", "errorreason"]
        .iter()
        .any(|end| n.ends_with(end))
}

/// A header the rate limiter itself names as the refusal's code or reason (Xandr's
/// `x-ratelimit-code` on its 429s and on the 503s it sheds load with): whatever its
/// value, the limiter refused the call.
fn names_a_limiters_refusal(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    n.contains("ratelimit") && ["code", "reason"].iter().any(|end| n.ends_with(end))
}

/// Whether an error header of the reply says the caller passed a usage limit.
pub(crate) fn says_throttled(headers: &Headers<'_>) -> bool {
    headers.iter().any(|(name, value)| {
        (names_a_limiters_refusal(name) && !value.trim_ascii().is_empty())
            || names_an_error(name)
                && value.len() <= MAX_VALUE
                && std::str::from_utf8(value).is_ok_and(|v| {
                    let lower = v.to_ascii_lowercase();
                    crate::passed::says_limit_passed(v)
                        || lower.contains("throttl")
                        || lower.contains("ratelimit")
                        || lower.contains("rate_limit")
                        || lower.contains("toomanyrequests")
                })
    })
}

#[cfg(test)]
mod tests {
    use super::says_throttled;
    use crate::headers::Headers;

    fn one(name: &str, value: &str) -> bool {
        says_throttled(&Headers::new(&[(name, value.as_bytes())]))
    }

    #[test]
    fn an_error_header_that_names_a_passed_limit() {
        assert!(one("X-Mashery-Error-Code", "ERR_403_DEVELOPER_OVER_QPS"));
        assert!(one("X-Mashery-Error-Code", "ERR_403_DEVELOPER_OVER_RATE"));
        assert!(one("X-Gateway-Error", "QuotaExceeded"));
        assert!(one("x-amzn-ErrorType", "ThrottlingException"));
        assert!(one("X-Error-Reason", "rate_limit_exceeded"));
    }

    #[test]
    fn a_header_the_rate_limiter_names_for_its_refusal_says_it_refused() {
        assert!(one("x-ratelimit-code", "member-read-limit"));
        assert!(one("X-RateLimit-Reason", "burst"));
        assert!(!one("x-ratelimit-code", ""));
        // A count or a reset is no refusal.
        assert!(!one("X-RateLimit-Remaining", "3"));
        assert!(!one("X-Ratelimit-Reset", "30"));
    }

    #[test]
    fn other_errors_and_other_headers_are_not() {
        assert!(!one("X-Mashery-Error-Code", "ERR_403_DEVELOPER_INACTIVE"));
        assert!(!one("X-Mashery-Error-Code", "ERR_403_NOT_AUTHORIZED"));
        assert!(!one("X-Error-Code", "PAYLOAD_SIZE_LIMIT_EXCEEDED"));
        // The same words in a header that is not an error's.
        assert!(!one("X-Plan-Description", "over quota pricing applies"));
        assert!(!one("X-Mashery-Error-Code", &"OVER_QPS ".repeat(40)));
    }
}
