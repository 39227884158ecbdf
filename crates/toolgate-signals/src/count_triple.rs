//! A budget said in one field as three counts: what this request spent, what is left,
//! and the limit.
//!
//! Source: Yandex Direct API v5 (<https://yandex.com/dev/direct/doc/en/concepts/headers>):
//! every answer carries `Units: 10/20828/64000` — points spent by this request / points
//! left / daily limit — beside `Units-Used-Login`. The name carries no rate-limit
//! word, only what the budget is counted in, so it is read by that alone: a field named
//! by one such noun (`Units`, `Points`, `Credits`, optionally `X-`), whose value is three
//! counts `spent/left/limit` with neither of the first two above the limit. A value of
//! another shape (two counts, a date, words) is not read, nor a noun among other words
//! (`Units-Used-Login`, `X-Units-Per-Page`).

use crate::quota::Collector;
use crate::{Headers, Quota, num};

/// The nouns a budget of calls is counted in, when one names the field alone.
const NOUNS: [&str; 4] = ["units", "points", "credits", "quota"];

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    for (name, value) in h.iter() {
        let lower = name.trim().to_ascii_lowercase();
        let noun = lower.strip_prefix("x-").unwrap_or(&lower);
        if !NOUNS.contains(&noun) {
            continue;
        }
        let Some((spent, left, limit)) = std::str::from_utf8(value).ok().and_then(triple) else {
            continue;
        };
        if spent > limit || left > limit {
            continue;
        }
        out.quota(Quota {
            limit: Some(limit),
            remaining: Some(left),
            ..Quota::new(noun)
        });
    }
}

/// `a/b/c`: three counts.
fn triple(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.trim().split('/').map(|p| num::count(p.trim()));
    let (a, b, c) = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some((a, b, c))
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, read};
    use chrono::DateTime;

    fn quotas(fields: &[(&str, &[u8])]) -> Vec<(String, Option<u64>, Option<u64>)> {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        read(200, &Headers::new(fields), now, Flavour::Auto)
            .quota
            .into_iter()
            .map(|q| (q.policy, q.limit, q.remaining))
            .collect()
    }

    #[test]
    fn spent_left_and_limit_in_one_field() {
        // Yandex Direct, with the login field beside it.
        assert_eq!(
            quotas(&[("Units", b"10/20828/64000"), ("Units-Used-Login", b"agrom")]),
            vec![("units".to_owned(), Some(64_000), Some(20_828))]
        );
        assert_eq!(
            quotas(&[("X-Points", b" 5 / 995 / 1000 ")]),
            vec![("points".to_owned(), Some(1000), Some(995))]
        );
        assert_eq!(
            quotas(&[("credits", b"0/0/500")]),
            vec![("credits".to_owned(), Some(500), Some(0))]
        );
    }

    #[test]
    fn other_shapes_and_names_are_not_read() {
        for fields in [
            &[("Units", &b"10/20828"[..])][..],
            &[("Units", b"70000/20828/64000")],
            &[("Units", b"10/90000/64000")],
            &[("Units", b"metric")],
            &[("Units", b"1/2/3/4")],
            &[("Units-Used-Login", b"1/2/3")],
            &[("X-Units-Per-Page", b"1/2/3")],
            &[("Release-Date", b"1/2/2025")],
        ] {
            assert_eq!(quotas(fields), vec![], "{fields:?}");
        }
    }
}
