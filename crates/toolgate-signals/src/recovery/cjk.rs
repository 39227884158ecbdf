//! What a message in Chinese, Japanese or Korean says would fix a failure.
//!
//! These languages write no spaces between words, so a message is one run of letters to
//! [`crate::passed::words`] ("access_token已过期" is `access` and `token已过期`), and the
//! word rules read nothing in it. Here a rule is two parts found anywhere in the text: what
//! a credential is called (in the language, or the ASCII name a message often keeps:
//! `token`, `secret`) and a word that refuses it ("已过期" expired, "无效" invalid, "期限切れ"
//! expired, "만료" expired), or a passing state said in so many words ("系统繁忙" system
//! busy, "しばらくしてから" after a while, "メンテナンス中" under maintenance), or an account to
//! top up ("请充值" please recharge). A word that merely says an error happened
//! ("错误", "エラー") refuses nothing: "an unexpected error occurred during authentication"
//! is the server's. Only a text with a character beyond ASCII is looked at.

use super::Recovery;

/// What a credential is called: Chinese, Japanese, Korean, and the ASCII names messages
/// in those languages keep.
const CREDENTIALS: [&str; 17] = [
    "token",
    "secret",
    "signature",
    "令牌",
    "凭证",
    "签名",
    "验签",
    "密钥",
    "秘钥",
    "密码",
    "トークン",
    "パスワード",
    "署名",
    "認証情報",
    "토큰",
    "비밀번호",
    "인증",
];

/// What refuses a credential: expired, invalid, revoked, illegal, wrong.
const REFUSED: [&str; 16] = [
    "过期",
    "失效",
    "无效",
    "非法",
    "不合法",
    "不正确",
    "不匹配",
    "期限切れ",
    "有効期限が切れ",
    "無効",
    "失効",
    "正しくありません",
    "不正な",
    "만료",
    "유효하지",
    "올바르지",
];

/// The caller's account must be topped up: "请充值" (please recharge), "账户已欠费"
/// (the account is in arrears), "チャージしてください", "충전해 주세요". A balance short
/// alone ("余额不足") may be a payer's wallet, the request's to change.
const ACCOUNT: [&str; 7] = [
    "请充值",
    "請充值",
    // Traditional Chinese (Taiwan): "please store value", top up.
    "請儲值",
    "请储值",
    "账户已欠费",
    "チャージしてください",
    "충전해",
];

/// A passing state: the system busy, "try again after a while", temporarily, under
/// maintenance.
const PASSING: [&str; 19] = [
    "系统繁忙",
    "服务繁忙",
    "稍后重试",
    "稍后再试",
    // Traditional Chinese: busy, and "try again later".
    "系統忙碌",
    "系統繁忙",
    "稍後重試",
    "稍後再試",
    "しばらくしてから",
    "一時的",
    "混み合って",
    "잠시 후",
    "일시적",
    "维护中",
    "維護中",
    "暂时不可用",
    "メンテナンス中",
    "점검 중",
    "점검중",
];

/// The request's own mistake: the thing it names does not exist ("订单不存在", "存在しません",
/// "존재하지 않"), cannot be found ("찾을 수 없"), or a required item is missing ("必須項目",
/// "누락"). A parameter "error" alone ("参数错误") says no more than that one happened.
const REQUEST: [&str; 8] = [
    "不存在",
    "存在しません",
    "見つかりません",
    "必須項目",
    "존재하지 않",
    "찾을 수 없",
    "누락되었",
    "필수 항목",
];

/// Whether the text, written in one of these languages, says the request itself is
/// wrong. Read after every other meaning.
pub(super) fn says_request(text: &str) -> bool {
    !text.is_ascii() && REQUEST.iter().any(|w| text.contains(w))
}

/// What the text says would fix the failure, if it is written in one of these languages
/// and says it in the words above.
pub(super) fn read(text: &str) -> Option<Recovery> {
    if text.is_ascii() {
        return None;
    }
    let lower = text.to_lowercase();
    let has = |set: &[&str]| set.iter().any(|w| lower.contains(w));
    if has(&ACCOUNT) {
        return Some(Recovery::Account);
    }
    if has(&CREDENTIALS) && has(&REFUSED) {
        return Some(Recovery::Credentials);
    }
    has(&PASSING).then_some(Recovery::Transient)
}

#[cfg(test)]
mod tests {
    use super::{Recovery, read};

    #[test]
    fn a_credential_refused_in_chinese_japanese_or_korean() {
        for text in [
            "access_token已过期",
            "令牌无效，请重新授权",
            "签名不匹配",
            "client_secret非法",
            "アクセストークンは期限切れです。",
            "パスワードが正しくありません。",
            "토큰이 만료되었습니다.",
            "인증 토큰이 유효하지 않습니다.",
        ] {
            assert_eq!(read(text), Some(Recovery::Credentials), "{text}");
        }
    }

    #[test]
    fn an_account_to_top_up_or_maintenance_in_chinese_japanese_or_korean() {
        assert_eq!(read("当前账户余额不足，请充值"), Some(Recovery::Account));
        assert_eq!(
            read("残高が不足しています。チャージしてください"),
            Some(Recovery::Account)
        );
        // A balance short alone may be a payer's: no account of the caller's.
        assert_eq!(read("余额不足"), None);
        for text in [
            "系统维护中",
            "現在メンテナンス中です",
            "서비스 점검 중입니다",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
    }

    #[test]
    fn a_passing_state_in_chinese_japanese_or_korean() {
        for text in [
            "系统繁忙，请稍后再试",
            "ただいま混み合っております。しばらくしてから再度お試しください。",
            "일시적인 오류입니다. 잠시 후 다시 시도해 주세요.",
        ] {
            assert_eq!(read(text), Some(Recovery::Transient), "{text}");
        }
    }

    #[test]
    fn an_error_named_beside_a_credential_refuses_nothing() {
        for text in [
            // "An unexpected error occurred during authentication. Please try again."
            "認証中に予期しないエラーが発生しました。もう一度お試しください。",
            // "Parameter error", "The function list exceeds the maximum; retry with fewer".
            "参数错误",
            "提供されたファンクションリストは、許可されている最大長を超えています。再試行してください。",
            // "Token issued" is no refusal; plain ASCII is the word rules' to read.
            "令牌已发放",
            "token expired",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn the_requests_own_mistake_in_chinese_japanese_or_korean() {
        use super::says_request;
        for text in [
            "商品不存在",
            "指定された注文は存在しません",
            "必須項目が入力されていません",
            "상품을 찾을 수 없습니다",
            "필수 파라미터가 누락되었습니다",
        ] {
            assert!(says_request(text), "{text}");
        }
        // A parameter "error" alone, a passing state, plain ASCII: none.
        for text in ["参数错误", "系統忙碌中，請稍後再試", "not found"] {
            assert!(!says_request(text), "{text}");
        }
        assert_eq!(read("系統忙碌中，請稍後再試"), Some(Recovery::Transient));
        assert_eq!(read("餘額不足，請儲值"), Some(Recovery::Account));
    }
}
