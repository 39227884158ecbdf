//! Waits stated in Chinese, Japanese and Korean, which put the word for "after" behind
//! the amount and write no spaces: "请60秒后再试" (try again after 60 seconds), "1分钟后重试",
//! "30秒後に再試行してください", "10초 후에 다시 시도해 주세요". An amount, its unit
//! ([`UNITS`]) and then `后`, `後` or `후` is a time to come, as English `in` makes one;
//! followed by a word for trying again ([`AGAIN`]) it tells the caller to wait. "令牌将在
//! 30分钟后过期" (the token expires in 30 minutes) is a time to come and no instruction; an
//! amount before `前` (ago), or with no unit ("第2页"), is neither.

use std::time::Duration;

use crate::MAX_WAIT;
use crate::num::TimeUnit;

/// Unit words, the longer spelling of a unit before the shorter it starts with.
const UNITS: [(&str, TimeUnit); 13] = [
    ("秒钟", TimeUnit::Seconds),
    ("秒鐘", TimeUnit::Seconds),
    ("秒", TimeUnit::Seconds),
    ("分钟", TimeUnit::Minutes),
    ("分鐘", TimeUnit::Minutes),
    ("分間", TimeUnit::Minutes),
    ("分", TimeUnit::Minutes),
    ("小时", TimeUnit::Hours),
    ("小時", TimeUnit::Hours),
    ("時間", TimeUnit::Hours),
    ("초", TimeUnit::Seconds),
    ("분", TimeUnit::Minutes),
    ("시간", TimeUnit::Hours),
];

/// Words for "after", put behind the amount.
const AFTER: [&str; 8] = ["之后", "之後", "以后", "以後", "后", "後", "후", "뒤"];

/// Words for trying again, which make a time to come an instruction.
const AGAIN: [&str; 9] = [
    "再试",
    "再試",
    "重试",
    "重試",
    "再次",
    "再度",
    "再実行",
    "다시",
    "재시도",
];

/// Words put right behind the amount that tell the caller to wait it out: Japanese
/// "30秒待ってから" (wait 30 seconds, then), "30秒お待ちください", Korean "10초 기다린 후"
/// (after waiting 10 seconds), "10초 기다려 주세요". Each is an instruction on its own.
const WAIT: [&str; 5] = ["待って", "お待ち", "待機", "기다린", "기다려"];

/// Characters after the word for "after" in which a word for trying again is looked for
/// ("后再试", "後に再試行", "후에 다시").
const AGAIN_WITHIN: usize = 6;

/// The longest time to come the text states, capped at [`MAX_WAIT`].
pub(super) fn time_to_come(text: &str) -> Option<Duration> {
    amounts(text).map(|(d, _)| d).max()
}

/// The longest wait the text tells the caller to keep before trying again, capped at
/// [`MAX_WAIT`].
pub(super) fn told(text: &str) -> Option<Duration> {
    amounts(text)
        .filter(|(_, again)| *again)
        .map(|(d, _)| d)
        .max()
}

/// Each amount with its unit and `after`, and whether a word for trying again follows.
fn amounts(text: &str) -> impl Iterator<Item = (Duration, bool)> + '_ {
    // Every character of these scripts is three bytes in UTF-8 led by 0xE1..=0xED; a text
    // without such a byte (every English one) is let go after one pass.
    let cjk = text.bytes().any(|b| (0xE1..=0xED).contains(&b));
    let mut rest = if cjk { text } else { "" };
    std::iter::from_fn(move || {
        loop {
            let start = rest.find(|c: char| c.is_ascii_digit())?;
            let digits = rest[start..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(rest.len(), |n| start + n);
            let number = &rest[start..digits];
            rest = &rest[digits..];
            if let Some(found) = amount_after(number, rest) {
                return Some(found);
            }
        }
    })
}

/// The amount `number` makes with the unit and `after` that begin `rest`, and whether a
/// word for trying again follows soon after.
fn amount_after(number: &str, rest: &str) -> Option<(Duration, bool)> {
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let (unit, rest) = UNITS
        .iter()
        .find_map(|(word, unit)| rest.strip_prefix(word).map(|r| (*unit, r)))?;
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    if WAIT.iter().any(|w| rest.starts_with(w)) {
        return Some((unit.decimal(number, MAX_WAIT)?, true));
    }
    let rest = AFTER.iter().find_map(|w| rest.strip_prefix(w))?;
    let soon: String = rest.chars().take(AGAIN_WITHIN).collect();
    let again = AGAIN.iter().any(|w| soon.contains(w));
    Some((unit.decimal(number, MAX_WAIT)?, again))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{time_to_come, told};

    #[test]
    fn waits_told_in_chinese_japanese_and_korean() {
        let s = Duration::from_secs;
        for (text, want) in [
            ("请求过于频繁，请60秒后再试", s(60)),
            ("访问太频繁，请 1 分钟后重试", s(60)),
            ("請求過於頻繁，請在30秒後重試", s(30)),
            (
                "リクエストが多すぎます。30秒後に再試行してください。",
                s(30),
            ),
            ("1時間後に再度お試しください", s(3600)),
            ("요청이 너무 많습니다. 10초 후에 다시 시도해 주세요.", s(10)),
            ("호출 한도를 초과했습니다. 1분 후 재시도하세요", s(60)),
            ("请1.5秒后再试", Duration::from_millis(1500)),
        ] {
            assert_eq!(told(text), Some(want), "{text}");
            assert_eq!(time_to_come(text), Some(want), "{text}");
        }
    }

    #[test]
    fn a_time_to_come_without_trying_again_is_no_instruction() {
        assert_eq!(told("令牌将在30分钟后过期"), None);
        assert_eq!(
            time_to_come("令牌将在30分钟后过期"),
            Some(Duration::from_secs(1800))
        );
        assert_eq!(told("세션이 5분 후 만료됩니다"), None);
    }

    #[test]
    fn amounts_without_a_unit_and_after_are_no_waits() {
        for text in [
            "请稍后再试",
            "잠시 후 다시 시도해 주세요",
            "第2页，共10页",
            "10分钟前更新",
            "2025年6月1日",
            "请求超过60次",
            "Please retry after 60 seconds",
            "",
        ] {
            assert_eq!(time_to_come(text), None, "{text}");
            assert_eq!(told(text), None, "{text}");
        }
        // Never longer than the longest wait.
        assert_eq!(told("请99999小时后再试"), Some(crate::MAX_WAIT));
    }

    #[test]
    fn a_wait_told_by_a_verb_behind_the_amount() {
        use super::super::told_to_wait;
        let s = std::time::Duration::from_secs;
        assert_eq!(told_to_wait("60秒お待ちください"), Some(s(60)));
        assert_eq!(
            told_to_wait("5分待ってから再度お試しください"),
            Some(s(300))
        );
        assert_eq!(told_to_wait("20초 기다린 후 다시 시도하세요"), Some(s(20)));
        assert_eq!(told_to_wait("30초 뒤에 다시 시도해 주세요"), Some(s(30)));
        // A verb of waiting with no amount before it tells no length.
        assert_eq!(told_to_wait("しばらくお待ちください"), None);
    }
}
