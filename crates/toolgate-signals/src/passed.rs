//! Whether a message or code says, in words, that a usage limit was passed — "Usage is
//! over limit." (Blockfrost), "quota exceeded" (OpenCage), `usage_limit_reached`
//! (apilayer), `CUQPS_HAS_EXCEEDED_THE_LIMIT` (AMap), "Developer Over Qps" (Mashery),
//! `ACCESS_TOO_FREQUENT` — rather than the phrases vendors happened to use.
//!
//! A limit word (`limit`, `quota`, `qps`, `rate`) within two words of a passed word (`over`,
//! `exceeded`, `reached`, `exhausted`), "too frequent(ly)", a limit on how often calls
//! come ("frequency limit", "freq out of limit"), or what is counted
//! followed by `limited` ("App Call Limited", Taobao). Limits of other things
//! pass the same way — "Body exceeds the size limit", "the `limit` parameter exceeds
//! 100", "amount exceeds the card's limit" — and are no throttle: a word naming such a
//! thing anywhere in the text, or a rule an input must keep, rules it out. A budget of
//! calls spent says the same: "run out of credits" (ScrapeGraphAI's 402),
//! `insufficient_credits`, "out of quota", "out of call volume quota" (Legrand's 403).
//! Only the first [`MAX_WORDS`] words are read. Chinese, Japanese and Korean, written
//! without spaces, are read by their own words ([`cjk`]).

mod cjk;

/// The auxiliaries of a verb ("has been reached", "was exceeded"), which stand between a
/// limit and its passing without saying anything of them.
const AUXILIARIES: [&str; 8] = ["has", "have", "had", "been", "is", "are", "was", "were"];
/// Words that undo a passing said beside them.
const NEGATIONS: [&str; 9] = [
    "not", "never", "hasn", "haven", "hadn", "isn", "aren", "wasn", "weren",
];

/// Whether `word` (followed by `next`) only fills the space between a limit and its
/// passing: a verb's auxiliary, a number (the limit's size), or the `of` that introduces
/// one ("limit of 150").
fn is_said_between(word: &str, next: Option<&str>) -> bool {
    let number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    AUXILIARIES.contains(&word)
        || number(word)
        || (word == "of" && next.is_some_and(number))
        // The window a limit counts in ("Rate limit per minute exceeded"): `per`, then
        // the period, which is dropped as the word before it is.
        || (word == "per" && next.is_some_and(|n| WINDOW_WORDS.contains(&n)))
}

/// Whether `word` is the period of a `per` said between a limit and its passing.
fn is_window_after_per(word: &str, before: Option<&str>) -> bool {
    before == Some("per") && WINDOW_WORDS.contains(&word)
}

/// Words of a text examined.
const MAX_WORDS: usize = 40;

const LIMIT: [&str; 6] = ["limit", "limits", "quota", "qps", "rate", "ratelimit"];
const PASSED: [&str; 6] = [
    "over",
    "exceeded",
    "exceeds",
    "exceed",
    "reached",
    "exhausted",
];
/// What a limit of calls counts, said between the limit and its passing.
const COUNTED: [&str; 9] = [
    "concurrent",
    "concurrency",
    "request",
    "requests",
    "call",
    "calls",
    "api",
    "query",
    "queries",
];
/// What an API's budget of calls is counted in, when it is not a rate.
const BUDGET: [&str; 3] = ["credits", "quota", "units"];
/// What else a limit is put on (a size, an input, money, storage, a plan's seats: none
/// comes back by waiting), and the words of a rule an input breaks ("limit must be over
/// 0").
const OTHER_LIMITS: [&str; 32] = [
    "complexity",
    "depth",
    "size",
    "length",
    "long",
    "large",
    "characters",
    "chars",
    "bytes",
    "byte",
    "parameter",
    "param",
    "field",
    "value",
    "file",
    "items",
    "page",
    "amount",
    "balance",
    "card",
    "withdrawal",
    "funds",
    "interest",
    "exchange",
    "storage",
    "disk",
    "space",
    "seat",
    "seats",
    "members",
    "must",
    "should",
];

/// Money moved, whose limit is an account's or a card's, not the API's: "Transaction
/// would exceed daily sending limit" (Danipa's 422), "Maximum number of refunds exceeded"
/// (a payment's own). Counted per unit of time
/// ("transactions per second") it is a rate again.
const MONEY_MOVED: [&str; 10] = [
    "transaction",
    "transactions",
    "transfer",
    "transfers",
    "payout",
    "payouts",
    "refund",
    "refunds",
    "remittance",
    "remittances",
];

/// What a process runs out of, whose limit is the server's own ("Worker exceeded resource
/// limits", "CPU time limit exceeded"): the call that passed it fails the same way when sent
/// again, and waiting does not reset it. "resource" counts only right before its limit, since
/// a throttle may name the resource it throttles ("rate limit exceeded for this resource").
const RUNTIME_LIMITS: [&str; 2] = ["memory", "cpu"];

/// Whether the words name a limit of something other than calls: a size, an input,
/// money, storage, a process's own resources, or money moved (not counted per unit of time).
fn other_limit_named(w: &[String]) -> bool {
    w.iter().enumerate().any(|(i, x)| {
        let next = w.get(i + 1).map(String::as_str);
        OTHER_LIMITS.contains(&x.as_str())
            || RUNTIME_LIMITS.contains(&x.as_str())
            || (matches!(x.as_str(), "resource" | "resources")
                && matches!(next, Some("limit" | "limits")))
            || (MONEY_MOVED.contains(&x.as_str()) && next != Some("per"))
    })
}

/// Whether `text` speaks of a limit, and the limit is of something other than calls:
/// such a message beside a code that says "limit exceeded" tells what the code means. A
/// maximum is a limit ("Maximum number of refunds exceeded").
pub(crate) fn names_other_limit(text: &str) -> bool {
    let w = words(text);
    (w.iter()
        .any(|x| LIMIT.contains(&x.as_str()) || x == "maximum" || x == "max")
        && other_limit_named(&w))
        || cjk::names_other_limit(text)
}

/// The words of `text`, lowercase: `_`, `-`, spaces, punctuation and case changes split
/// them (`CUQPS_HAS_EXCEEDED` is `cuqps has exceeded`, `OverLimit` is `over limit`).
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        let boundary = !c.is_alphanumeric() || (c.is_uppercase() && previous_lower);
        if boundary && !word.is_empty() {
            out.push(std::mem::take(&mut word));
            if out.len() >= MAX_WORDS {
                return out;
            }
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() && out.len() < MAX_WORDS {
        out.push(word);
    }
    out
}

/// Whether `text` says a usage limit was passed.
pub(crate) fn says_limit_passed(text: &str) -> bool {
    let w = words(text);
    let is = |i: usize, set: &[&str]| w.get(i).is_some_and(|x| set.contains(&x.as_str()));
    if other_limit_named(&w) {
        return false;
    }
    if cjk::says_limit_passed(text) {
        return true;
    }
    if limit_of_calls_passed(&w) {
        return true;
    }
    let too_frequent =
        (0..w.len()).any(|i| is(i, &["too"]) && is(i + 1, &["frequent", "frequently", "often"]));
    // A limit put on how often calls come is a rate limit, whatever verb says it was hit:
    // Feishu's "request trigger frequency limit", WeCom's "api freq out of limit".
    let frequency_limit = (0..w.len()).any(|i| {
        is(i, &["frequency", "freq"])
            && (i + 1..=i + 3).any(|j| {
                is(j, &["limit", "limited"])
                    && !(i + 1..j).any(|k| is(k, &NEGATIONS) || is(k, &["no", "without"]))
            })
    });
    // Taobao's "App Call Limited": what is counted, then `limited`.
    let counted_limited = (0..w.len()).any(|i| {
        is(
            i,
            &["call", "calls", "request", "requests", "query", "queries"],
        ) && is(i + 1, &["limited"])
    });
    // A count of calls that passed is a limit of them passed, with no word for the limit:
    // data.go.kr's `LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR`, "Number of calls
    // exceeded". Only plurals: "Request exceeds …" is one request too large.
    let count_passed = (0..w.len()).any(|i| {
        is(i, &["requests", "calls", "queries"])
            && is(i + 1, &["exceeded", "exceeds", "exceed", "exhausted"])
    });
    if times_in_a_window(&w) {
        return true;
    }
    // What is counted may stand between the two without moving them apart: "exceeded
    // concurrent request limit" (NetSuite's `ExceededConcurrentRequestLimitFault`) is
    // "exceeded limit".
    let w: Vec<String> = w
        .into_iter()
        .filter(|x| !COUNTED.contains(&x.as_str()))
        .collect();
    // Nor do the limit's size and the verb's auxiliaries: "Your daily points limit of 150 has
    // been reached" (spoonacular's 402) is "limit reached". A negation between the two
    // keeps them apart ("the limit has not been reached" passes nothing).
    let w: Vec<String> = w
        .iter()
        .enumerate()
        .filter(|(i, x)| {
            let before = i.checked_sub(1).and_then(|b| w.get(b)).map(String::as_str);
            !is_said_between(x, w.get(i + 1).map(String::as_str)) && !is_window_after_per(x, before)
        })
        .map(|(_, x)| x.clone())
        .collect();
    let is = |i: usize, set: &[&str]| w.get(i).is_some_and(|x| set.contains(&x.as_str()));
    // A `limit` that exceeds a maximum, in the present tense of a value's description, is
    // a parameter's value too large ("limit exceeds maximum of 100", a page size), not a
    // limit of calls passed ("limit exceeded, maximum 100 calls per minute").
    let over_its_maximum = |i: usize, j: usize| {
        let maximum = |k: usize| is(k, &["maximum", "max"]);
        j == i + 1
            && is(i, &["limit"])
            && is(j, &["exceeds", "exceed"])
            && (maximum(j + 1) || (is(j + 1, &["the"]) && maximum(j + 2)))
    };
    let near = (0..w.len()).any(|i| {
        is(i, &LIMIT)
            && (i.saturating_sub(2)..=i + 2).any(|j| {
                j != i
                    && is(j, &PASSED)
                    && !over_its_maximum(i, j)
                    && !(i.min(j)..i.max(j)).any(|k| is(k, &NEGATIONS))
            })
    });
    // A budget spent: "You have run out of credits", `insufficient_credits`, "out of
    // quota", with what the budget counts or spans between ("out of call volume quota",
    // "out of daily quota"). Only a budget of calls: money, stock and memory run out the
    // same way.
    let spent = (0..w.len()).any(|i| {
        (is(i, &["out"])
            && is(i + 1, &["of"])
            && (i + 2..=i + 3).any(|j| is(j, &BUDGET) && !(i + 2..j).any(|k| is(k, &NEGATIONS))))
            || (is(i, &["insufficient"]) && is(i + 1, &BUDGET))
    });
    too_frequent || frequency_limit || counted_limited || count_passed || near || spent
}

/// Words that say a count of times is the most allowed.
const AT_MOST: [&str; 7] = [
    "only", "maximum", "max", "upto", "allowed", "limit", "limited",
];
/// The windows a count of times may be said in.
const WINDOW_WORDS: [&str; 12] = [
    "second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours", "day",
    "days",
];

/// A count of times allowed in a window of time: "You may only perform this action upto
/// maximum 180 number of times within 3600 seconds" (OCR.space's 403), "at most 10
/// times per minute". A number of times in a window is a rate, whatever the action; the
/// words of a maximum keep out texts that only report how often something happened
/// ("failed 3 times within 30 seconds").
fn times_in_a_window(w: &[String]) -> bool {
    let is = |i: usize, set: &[&str]| w.get(i).is_some_and(|x| set.contains(&x.as_str()));
    let number = |i: usize| {
        w.get(i)
            .is_some_and(|x| x.bytes().all(|b| b.is_ascii_digit()))
    };
    let window_after = |i: usize| {
        is(i, &["within", "per", "in", "every", "a", "an"])
            && (is(i + 1, &WINDOW_WORDS) || (number(i + 1) && is(i + 2, &WINDOW_WORDS)))
    };
    (0..w.len()).any(|i| is(i, &["times"]) && (i + 1..=i + 2).any(window_after))
        && w.iter().any(|x| AT_MOST.contains(&x.as_str()))
}

/// Words a limit of calls may be named by in a sentence that says what it limits.
const LIMIT_NOUNS: [&str; 6] = [
    "limit",
    "limits",
    "quota",
    "ratelimit",
    "threshold",
    "allowance",
];
/// How far a limit's own phrase may part it from its passing.
const MAX_PHRASE: usize = 14;
/// Words that join a limit to what it counts ("threshold for total number of requests").
const JOINING: [&str; 9] = [
    "for", "of", "on", "the", "total", "number", "your", "daily", "monthly",
];

/// A limit named with the calls it limits, then passed: "the daily threshold for total
/// number of requests allocated to the user has been reached" (the BLS Public Data API,
/// answering with a 200), "the allowance of API calls for this key was exceeded". The
/// calls must follow the limit through joining words only ("a threshold for alerts on
/// failed requests" limits alerts), and the phrase up to the passing hold no negation;
/// a limit of anything else is ruled out before, as everywhere here.
fn limit_of_calls_passed(w: &[String]) -> bool {
    let is = |i: usize, set: &[&str]| w.get(i).is_some_and(|x| set.contains(&x.as_str()));
    let counts_calls = |i: usize| {
        (i + 1..w.len().min(i + MAX_PHRASE))
            .take_while(|&k| is(k, &JOINING) || is(k, &COUNTED))
            .any(|k| is(k, &COUNTED))
    };
    (0..w.len()).any(|i| {
        is(i, &LIMIT_NOUNS)
            && counts_calls(i)
            && (i + 2..=i + MAX_PHRASE)
                .any(|j| is(j, &PASSED) && !(i + 1..j).any(|k| is(k, &NEGATIONS)))
    })
}

#[cfg(test)]
mod tests {
    use super::says_limit_passed;

    /// A parameter named `limit` whose value passes its maximum is a value too large,
    /// not a limit of calls passed; a rate over its maximum still is one.
    #[test]
    fn a_limit_parameter_over_its_maximum_is_no_limit_passed() {
        for t in [
            "limit exceeds maximum of 100",
            "limit exceeds the maximum allowed value",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
        for t in [
            "Rate limit exceeded",
            "limit exceeded, maximum 100 calls per minute",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn the_window_a_limit_counts_in_may_stand_before_its_passing() {
        for t in [
            "Rate limit per minute exceeded. Please, contact support.",
            "Quota per day has been reached",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
        assert!(!says_limit_passed("Rate limit per minute is 60"));
    }

    #[test]
    fn a_most_allowed_count_of_times_in_a_window_is_a_rate_passed() {
        for t in [
            "You may only perform this action upto maximum 180 number of times within 3600 seconds",
            "This action is allowed at most 10 times per minute",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
        // How often something happened is no limit.
        for t in [
            "The upstream failed 3 times within 30 seconds",
            "Retried 5 times in a minute",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn a_limit_passed_in_any_spelling() {
        for t in [
            "Usage is over limit.",
            "Project Over Limit",
            "quota exceeded",
            "usage_limit_reached",
            "CUQPS_HAS_EXCEEDED_THE_LIMIT",
            "DAILY_QUERY_OVER_LIMIT",
            "Developer Over Qps",
            "ERR_403_DEVELOPER_OVER_RATE",
            "ACCESS_TOO_FREQUENT",
            "Requests made too frequently, slow down",
            "MonthlyQuotaExhausted",
            "App Call Limited",
            "Request limited, please slow down",
            "You have reached the limit of calls for this hour",
            "insufficient_credits",
            "You have run out of credits. Please upgrade your plan.",
            "Account is out of quota",
            // Azure API Management's refusal, as Legrand's 403 sends it.
            "Out of call volume quota. Quota will be replenished in 00:12:34.",
            "You are out of daily quota",
            "INSUFFICIENT_UNITS",
            "exceededConcurrentRequestLimitFault",
            "Exceeded concurrent request limit",
            "RATE_OF_API_CALLS_EXCEEDED",
            "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
            "Number of calls exceeded for this key",
            "DAILY_QUERIES_EXHAUSTED",
            "Rate limit exceeded for this resource",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn a_limit_on_how_often_calls_come_is_passed_when_named_in_an_error() {
        for t in [
            "request trigger frequency limit",
            "api freq out of limit, hint: [1651125626252370061579454]",
            "FREQUENCY_LIMITED",
            "Access frequency limited, try later",
            "The call frequency limit of this app was hit",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
        for t in [
            "The frequency limit must be between 1 and 10",
            "Invalid frequency parameter",
            "Reminder frequency: weekly, no limit",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn the_size_of_the_limit_and_the_verb_s_auxiliaries_do_not_part_the_words() {
        for t in [
            // spoonacular's 402.
            "Your daily points limit of 150 has been reached. Please upgrade your plan.",
            "Your hourly limit of 500 has been reached",
            "The daily quota of 2,000 units has been exhausted",
            "Rate limit was exceeded",
            "The monthly limit of 10000 calls was exceeded for this key",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
        for t in [
            "Your daily limit of 500 has not been reached",
            "The quota of 100 hasn't been exceeded yet",
            "Limit of 3 was never reached",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn a_limit_named_with_the_calls_it_limits_is_passed_across_its_phrase() {
        for t in [
            // The BLS Public Data API's refusal, sent with a 200.
            "Request could not be serviced, as the daily threshold for total number of requests allocated to the user has been reached.",
            "The allowance of API calls for this key was exceeded",
            "Your quota for queries against this dataset has been exhausted",
        ] {
            assert!(says_limit_passed(t), "{t}");
        }
        for t in [
            // The same phrase not passed, or a limit of something else across it.
            "The daily threshold for total number of requests has not been reached",
            "The threshold for requests per page of results was exceeded",
            "A threshold for alerts on failed requests was reached",
            "The limit on request body size was exceeded",
            "Threshold reached for the temperature sensor",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn other_limits_and_ordinary_words_are_not() {
        for t in [
            "Body exceeds the size limit",
            "The limit parameter exceeds the maximum of 100",
            "Amount exceeds the card limit",
            "Insufficient funds: withdrawal limit reached",
            "Rate limits apply to every key",
            "Limit must be over zero",
            "The item is over there",
            "Access limited to administrators",
            "The interest rate exceeds the cap",
            "storageQuotaExceeded",
            "exceededRequestSizeLimitFault",
            "Exceeded the request limit of 100 items per page",
            "Seat limit reached: remove members or upgrade",
            "Not found",
            "Insufficient funds",
            "The shop ran out of stock",
            "Worker ran out of memory",
            "Worker exceeded resource limits",
            "CPU time limit exceeded",
            "Memory limit exceeded",
            "Insufficient permissions to read credits",
            "Out of office",
            "Request exceeds the maximum of 10 MB",
            "Requests exceeded the page size",
            "",
        ] {
            assert!(!says_limit_passed(t), "{t}");
        }
    }

    #[test]
    fn a_limit_on_money_moved_is_no_rate_limit_unless_counted_per_time() {
        for t in [
            "Transaction would exceed daily sending limit",
            "Daily transfer limit reached",
            "Payout limit exceeded for this recipient",
        ] {
            assert!(!says_limit_passed(t), "{t}");
            assert!(super::names_other_limit(t), "{t}");
        }
        assert!(says_limit_passed("Transactions per second limit exceeded"));
        assert!(!super::names_other_limit(
            "Transactions per second limit exceeded"
        ));
        // A message that names no limit names no other limit.
        assert!(!super::names_other_limit(
            "Transaction declined by the issuer"
        ));
        assert!(!super::names_other_limit("Rate limit exceeded"));
    }

    #[test]
    fn a_maximum_of_refunds_is_a_payments_limit() {
        for t in [
            "Maximum number of refunds exceeded",
            "Refund limit exceeded for this payment",
        ] {
            assert!(!says_limit_passed(t), "{t}");
            assert!(super::names_other_limit(t), "{t}");
        }
        assert!(!super::names_other_limit(
            "Maximum requests per second exceeded"
        ));
    }
}
