//! A limit of calls passed, said in Chinese, Japanese or Korean, which write no spaces
//! between words and so give [`super::says_limit_passed`]'s word pairs nothing to pair:
//! Flashduty's "请求过于频繁，请稍后重试" (requests too frequent), 한국투자증권's
//! EGW00201 "초당 거래건수를 초과하였습니다." (transactions per second exceeded), NEXON's
//! OPENAPI00007 "API 호출량이 초과되었습니다." (call volume exceeded), "リクエスト回数の上限に
//! 達しました" (the request count's upper limit reached).
//!
//! The text says it when it holds a phrase that says so on its own (频繁 "too frequent",
//! 限流 "throttled", 流控 "flow control", "リクエストが多すぎ"), or a word for a count of
//! calls ([`COUNTED`]: 次数 "number of times", 频率 "frequency", 回数, 호출량 "call
//! volume", 건수 "number of cases") beside a word for its limit passed ([`PASSED`]: 超过,
//! 上限, 超過, 초과, 한도). A count words a bare "request" does not make: "请求参数超过最大
//! 长度" is one request too long, "요청 시간 초과" a request timed out. A count of failed
//! sign-ins (密码错误次数, パスワードの入力回数, 비밀번호 오류 횟수) locks an account rather
//! than throttling calls, and rules the text out.
//!
//! The same words put a limit on other things: SmartHR's 403 `plan_limit_exceeded`,
//! "上限人数に達しているため従業員の追加は出来ません" (the plan's head count reached), "文件大小超过
//! 限制" (file size over the limit), "이체 한도 초과" (transfer limit exceeded). A text
//! with a limit word and a word for such a thing ([`OTHER_THINGS`]: a head count, a
//! size, a length, storage, an amount) names that limit ([`names_other_limit`]), which
//! tells what a "limit exceeded" code beside it means.

/// Phrases that say on their own that calls come too fast or too many.
const ON_THEIR_OWN: [&str; 12] = [
    "频繁",
    "頻繁",
    "限流",
    "流控",
    "请求过多",
    "请求太多",
    "访问过多",
    "调用过多",
    "リクエストが多すぎ",
    "リクエスト過多",
    "요청이 너무 많",
    "호출이 너무 많",
];

/// Words for a count of calls, or for how often they come.
const COUNTED: [&str; 20] = [
    "次数",
    "次數",
    "频率",
    "頻率",
    "频次",
    "请求数",
    "请求量",
    "调用量",
    "访问量",
    "并发",
    "回数",
    "頻度",
    "リクエスト数",
    "호출량",
    "요청량",
    "호출 수",
    "요청 수",
    "횟수",
    "건수",
    "트래픽",
];

/// Words for a limit passed or reached.
const PASSED: [&str; 12] = [
    "超过",
    "超過",
    "超出",
    "超限",
    "上限",
    "达到",
    "制限",
    "超え",
    "초과",
    "한도",
    "제한",
    "너무 많",
];

/// Words for signing in, whose failed attempts are counted to lock an account.
const SIGN_IN: [&str; 8] = [
    "密码",
    "密碼",
    "登录",
    "登錄",
    "パスワード",
    "ログイン",
    "비밀번호",
    "로그인",
];

/// Things other than calls that a limit is put on: a head count of people or members, a
/// size, a length or number of characters, storage, files, an amount of money or a
/// transfer. None comes back by waiting.
const OTHER_THINGS: [&str; 34] = [
    "人数",
    "人數",
    "成员",
    "成員",
    "メンバー",
    "従業員数",
    "인원",
    "멤버",
    "大小",
    "サイズ",
    "크기",
    "长度",
    "長度",
    "長さ",
    "길이",
    "文字数",
    "字数",
    "字數",
    "글자",
    "容量",
    "存储",
    "ストレージ",
    "용량",
    "文件",
    "ファイル",
    "파일",
    "金额",
    "金額",
    "余额",
    "残高",
    "금액",
    "잔액",
    "이체",
    "转账",
];

/// Words for a limit, passed or not.
const LIMIT_WORDS: [&str; 8] = [
    "上限", "限制", "制限", "限度", "最大", "한도", "제한", "최대",
];

/// Whether `text` says, in Chinese, Japanese or Korean, that a limit is put on something
/// other than calls ([`OTHER_THINGS`]).
pub(super) fn names_other_limit(text: &str) -> bool {
    if !text.bytes().any(|b| (0xE1..=0xED).contains(&b)) {
        return false;
    }
    let has = |set: &[&str]| set.iter().any(|w| text.contains(w));
    (has(&LIMIT_WORDS) || has(&PASSED)) && has(&OTHER_THINGS)
}

/// Whether `text` says, in Chinese, Japanese or Korean, that a limit of calls was passed.
pub(super) fn says_limit_passed(text: &str) -> bool {
    // Every character of these scripts is three bytes in UTF-8 led by 0xE1..=0xED; a text
    // without such a byte (most texts, all English ones) is let go after one pass.
    if !text.bytes().any(|b| (0xE1..=0xED).contains(&b)) {
        return false;
    }
    let has = |set: &[&str]| set.iter().any(|w| text.contains(w));
    (has(&ON_THEIR_OWN) || (has(&COUNTED) && has(&PASSED))) && !has(&SIGN_IN)
}

#[cfg(test)]
mod tests {
    use super::says_limit_passed;

    #[test]
    fn a_limit_of_calls_passed_in_chinese_japanese_and_korean() {
        for t in [
            // Flashduty's 429, and the other spellings of "too frequent".
            "请求过于频繁，请稍后重试",
            "操作太頻繁，請稍後再試",
            "接口调用次数超过限制",
            "今日访问量已达到上限",
            "秒级流控超限",
            "触发限流，请降低请求速率",
            "リクエストが多すぎます。しばらくしてから再度お試しください。",
            "APIの呼び出し回数の上限に達しました",
            "リクエスト数が制限を超えました",
            // 한국투자증권's EGW00201 and NEXON's OPENAPI00007.
            "초당 거래건수를 초과하였습니다.",
            "API 호출량이 초과되었습니다.",
            "일일 요청 수 한도를 초과했습니다",
            "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn limits_of_other_things_are_named() {
        use super::names_other_limit;
        for t in [
            // SmartHR's plan_limit_exceeded: the plan's head count reached.
            "上限人数に達しているため従業員の追加は出来ません",
            "团队成员数量已达上限",
            "文件大小超过限制",
            "ファイルサイズが上限を超えています",
            "이체 한도 초과",
            "저장 용량이 최대치를 초과했습니다",
            "余额不足，超出转账限额",
        ] {
            assert!(names_other_limit(t), "{t}");
        }
        for t in [
            // A limit of calls, and texts with no limit at all.
            "APIの呼び出し回数の上限に達しました",
            "请求过于频繁，请稍后重试",
            "일일 요청 수 한도를 초과했습니다",
            "ファイルを保存しました",
            "人数を入力してください",
            "Request body size limit exceeded",
            "",
        ] {
            assert!(!names_other_limit(t), "{t}");
        }
    }

    #[test]
    fn other_limits_timeouts_lockouts_and_ordinary_messages_are_not() {
        for t in [
            // One request too large, a request timed out, a size or money limit.
            "请求参数超过最大长度",
            "文件大小超过限制",
            "余额不足",
            "요청 시간 초과",
            "이체 한도 초과",
            "文字数の上限を超えています",
            "このリソースへのアクセスは制限されています",
            // Failed sign-ins lock the account: no wait mends it for every caller.
            "密码错误次数已达上限，账号已锁定",
            "パスワードの入力回数が上限に達しました",
            "비밀번호 오류 횟수를 초과했습니다",
            // Success and parameter messages.
            "정상처리 되었습니다.",
            "参数错误,请检查请求参数是否正确",
            "操作成功",
            "Too many requests",
            "",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
    }
}
