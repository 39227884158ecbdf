//! `toolgate relearn`: asks the running gateway to make one tool's learned contract
//! start over (`POST /admin/tools/{tool}/relearn`, with the admin token), and prints
//! what it dropped.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use serde_json::Value;

pub(super) async fn relearn(
    path: &Path,
    tool: &str,
    url: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    // Only the server's address and the admin token matter here, so the upstreams'
    // credentials need not be exported.
    let config = match toolgate_config::load_for_reading(path) {
        Ok((c, unset)) => {
            if let Some(u) = unset.iter().find(|u| u.path == "gateway.auth_token_env") {
                anyhow::bail!(
                    "{} is not set: export the gateway's admin token (gateway.auth_token_env)",
                    u.var
                );
            }
            c
        }
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let base = super::admin::base_url(&config, url);
    let tool_segment: String =
        percent_encoding::utf8_percent_encode(tool, percent_encoding::NON_ALPHANUMERIC).to_string();
    let path = format!("/admin/tools/{tool_segment}/relearn");
    let endpoint = format!("{}{path}", base.trim_end_matches('/'));
    let (status, body) = super::admin::post(&config, &base, &path, Duration::from_secs(30)).await?;
    let answer: Value = serde_json::from_str(&body)
        .with_context(|| format!("{endpoint} answered HTTP {status}: {}", body.trim()))?;
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&answer).unwrap_or_default()
        );
    }
    if !status.is_success() {
        let error = answer["error"].as_str().unwrap_or("refused");
        eprintln!("{tool}: not relearned: {error}");
        return Ok(ExitCode::FAILURE);
    }
    if !json {
        say!("{}", sentence(&answer));
    }
    Ok(ExitCode::SUCCESS)
}

/// What the server did, in one line.
fn sentence(answer: &Value) -> String {
    let tool = answer["tool"].as_str().unwrap_or("the tool");
    let samples = answer["dropped_samples"].as_u64().unwrap_or(0);
    let dropped = if answer["was_enforced"] == Value::Bool(true) {
        format!("its enforced contract (learned from {samples} responses) was dropped")
    } else {
        format!("what it had learned ({samples} responses) was dropped")
    };
    let unpinned = match answer["unpinned"].as_str() {
        Some(file) => format!(", its pin removed from {file}"),
        None => String::new(),
    };
    format!(
        "{tool}: {dropped}{unpinned}; it learns again from its next {} responses",
        answer["enforce_after"].as_u64().unwrap_or(0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_reads_as_one_sentence() {
        let answer = serde_json::json!({"tool": "web_search", "dropped_samples": 412,
            "was_enforced": true, "unpinned": "toolgate.lock.json", "enforce_after": 20});
        assert_eq!(
            sentence(&answer),
            "web_search: its enforced contract (learned from 412 responses) was dropped, its pin removed from toolgate.lock.json; it learns again from its next 20 responses"
        );
    }
}
