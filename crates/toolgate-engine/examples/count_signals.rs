//! Reading the signals of one successful reply (`read_signals`), repeated, for counting
//! its instructions under callgrind (counts do not move with the machine's load):
//!
//! ```sh
//! source bench/fixture.sh; gen_results 20 > /tmp/search.json
//! cargo build --profile profiling -p toolgate-engine --example count_signals
//! valgrind --tool=callgrind target/profiling/examples/count_signals /tmp/search.json 1000
//! ```
//!
//! The reply is `bench/run`'s: its upstream (nginx serving the body as a static file)
//! answers 200 with the headers below, to a tool with the default (`auto`) flavour.
//! Divide the instructions of `read_times` by the count.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use toolgate_engine::upstream::{UpstreamResponse, read_signals};

/// `bench/run`'s tool, as far as reading signals goes.
const CONFIG: &str = r#"
gateway: { listen: "127.0.0.1:0", state: state.db }
dependencies:
  search_api:
    base_url: http://127.0.0.1:8080
    timeout: 5s
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    description: Search the web.
    request: { method: GET, path: /v3/search, query: { q: "{query}" } }
    input_schema: {"type":"object","required":["query"],"properties":{"query":{"type":"string"}}}
    contract:
      version: "3.1"
      response_schema: {"type":"object"}
"#;

/// The headers nginx 1.22 sends with a static JSON file (`curl -sD-` of `bench/run`'s
/// upstream), in its order.
const HEADERS: [(&str, &str); 7] = [
    ("server", "nginx/1.22.1"),
    ("date", "Sun, 06 Dec 2026 12:00:00 GMT"),
    ("content-type", "application/json"),
    ("content-length", "12254"),
    ("last-modified", "Sun, 06 Dec 2026 11:59:58 GMT"),
    ("connection", "keep-alive"),
    ("etag", "\"6933f8de-2fde\""),
];

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(times)) = (args.next(), args.next()) else {
        eprintln!("usage: count_signals BODY_FILE TIMES");
        return ExitCode::FAILURE;
    };
    let Ok(times) = times.parse::<u32>() else {
        eprintln!("TIMES must be a whole number, not `{times}`");
        return ExitCode::FAILURE;
    };
    let body = match std::fs::read(&path) {
        Ok(body) => bytes::Bytes::from(body),
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dir = std::env::temp_dir().join(format!("count_signals-{}", std::process::id()));
    let loaded = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("toolgate.yaml"), CONFIG))
        .map_err(|e| e.to_string())
        .and_then(|()| {
            toolgate_config::load(&dir.join("toolgate.yaml")).map_err(|e| e.to_string())
        });
    let _ = std::fs::remove_dir_all(&dir);
    let tool = match loaded.map(|c| c.tools.get("web_search").cloned()) {
        Ok(Some(tool)) => tool,
        Ok(None) => {
            eprintln!("the config has no web_search tool");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("the config does not load: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut headers = HeaderMap::new();
    for (name, value) in HEADERS {
        headers.append(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    let reply = Ok(UpstreamResponse {
        status: 200,
        headers,
        body,
        latency: Duration::from_millis(1),
        rpc_error: None,
    });
    let read = read_times(&tool, &reply, times);
    println!("signals read {read} of {times} times");
    ExitCode::SUCCESS
}

#[inline(never)]
fn read_times(
    tool: &toolgate_config::ToolSpec,
    reply: &Result<UpstreamResponse, toolgate_engine::upstream::SendError>,
    times: u32,
) -> u32 {
    let now = chrono::Utc::now();
    let mut read = 0;
    for _ in 0..times {
        read += u32::from(black_box(read_signals(tool, black_box(reply), now)).is_some());
    }
    read
}
