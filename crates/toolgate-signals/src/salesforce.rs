//! Salesforce `Sforce-Limit-Info: api-usage=18/5000`.
//!
//! Source: <https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm>
//! — `api-usage=<used>/<limit>` for the org's rolling 24-hour API request allocation,
//! and `per-app-api-usage=17/250(appName=sample-connected-app)` for connected-app
//! limits. Each key becomes a policy; the parenthesised suffix is dropped.

use std::time::Duration;

use crate::quota::Collector;
use crate::{Headers, Quota, num};

const DAY: Duration = Duration::from_secs(86_400);

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    let Some(v) = h.joined("sforce-limit-info") else {
        return;
    };
    for part in v.split(',') {
        let Some((key, usage)) = part.split_once('=') else {
            continue;
        };
        let usage = usage.split('(').next().unwrap_or("");
        let Some((used, limit)) = usage.split_once('/') else {
            continue;
        };
        let (Some(used), Some(limit)) = (num::parse_u64(used), num::parse_u64(limit)) else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        out.quota(Quota {
            limit: Some(limit),
            remaining: Some(limit.saturating_sub(used)),
            window: (key == "api-usage").then_some(DAY),
            ..Quota::new(key)
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, read};
    use chrono::DateTime;

    #[test]
    fn table() {
        let now = DateTime::from_timestamp(0, 0).unwrap();
        // (value, [(policy, limit, remaining)]) — first two are the documented examples.
        type Case<'a> = (&'a [u8], &'a [(&'a str, u64, u64)]);
        let cases: &[Case<'_>] = &[
            (b"api-usage=18/5000", &[("api-usage", 5000, 4982)]),
            (
                b"api-usage=25/5000, per-app-api-usage=17/250(appName=sample-connected-app)",
                &[("per-app-api-usage", 250, 233), ("api-usage", 5000, 4975)],
            ),
            (b"api-usage=5001/5000", &[("api-usage", 5000, 0)]),
            (b"api-usage=x/5000", &[]),
            (b"garbage", &[]),
        ];
        for (value, want) in cases {
            let fields: [(&str, &[u8]); 1] = [("Sforce-Limit-Info", value)];
            let s = read(200, &Headers::new(&fields), now, Flavour::Salesforce);
            let got: Vec<_> = s
                .quota
                .iter()
                .map(|q| (q.policy.as_str(), q.limit.unwrap(), q.remaining.unwrap()))
                .collect();
            assert_eq!(&got, want, "{:?}", String::from_utf8_lossy(value));
        }
    }
}
