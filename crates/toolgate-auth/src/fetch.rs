//! Bounded GETs of an authorization server's metadata and keys: a timeout, a size cap,
//! JSON only. What an authorization server sends is never logged.

use std::time::Duration;

use serde_json::Value;

/// How long one fetch may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest metadata or JWKS document read (real ones are a few KiB).
pub const MAX_DOCUMENT_BYTES: usize = 256 << 10;

/// GETs `url` and parses its JSON body; the error is a sentence for the log.
pub async fn json(http: &reqwest::Client, url: &url::Url) -> Result<Value, String> {
    let response = http
        .get(url.as_str())
        .header(reqwest::header::ACCEPT, "application/json")
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|e| format!("GET {url} failed: {}", error_chain(&e)))?;
    read_json(response, "GET", url).await
}

/// POSTs `form` (already `application/x-www-form-urlencoded`) to `url` with HTTP Basic
/// client credentials and parses the JSON answer; the error is a sentence for the log.
pub async fn post_form(
    http: &reqwest::Client,
    url: &url::Url,
    basic: &str,
    form: String,
) -> Result<Value, String> {
    let response = http
        .post(url.as_str())
        .header(reqwest::header::ACCEPT, "application/json")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(reqwest::header::AUTHORIZATION, basic)
        .body(form)
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|e| format!("POST {url} failed: {}", error_chain(&e)))?;
    read_json(response, "POST", url).await
}

async fn read_json(
    mut response: reqwest::Response,
    method: &str,
    url: &url::Url,
) -> Result<Value, String> {
    if !response.status().is_success() {
        return Err(format!("{method} {url} answered {}", response.status()));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
    {
        return Err(format!(
            "GET {url}: the document is over {MAX_DOCUMENT_BYTES} bytes"
        ));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("{method} {url} failed while reading: {}", error_chain(&e)))?
    {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(format!(
                "GET {url}: the document is over {MAX_DOCUMENT_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| format!("{method} {url}: the body is not JSON ({e})"))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
