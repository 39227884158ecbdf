//! The per-call work of an HTTP tool call that this crate does, repeated, for counting
//! its instructions under callgrind (counts do not move with the machine's load):
//!
//! ```sh
//! source bench/fixture.sh; gen_results 20 > /tmp/search.json
//! cargo build --profile profiling -p toolgate-server --example count_answer
//! valgrind --tool=callgrind target/profiling/examples/count_answer /tmp/search.json 1000 answer
//! valgrind --tool=callgrind target/profiling/examples/count_answer /tmp/search.json 1000 request
//! ```
//!
//! `answer`: writing the answer to a successful call (`answer::tool_call`) of the body
//! the contract's check vouched for, with the escape sites it noted, as `bench/run`'s
//! stateless (2026-07-28) calls get it. `request`: the request side of that call —
//! reading `bench/run`'s `tools/call` envelope once, deciding its era, checking the
//! arguments against the tool's input schema and rendering the upstream request.
//! A fourth argument names a file holding another response contract (a JSON Schema)
//! for the body. Divide the instructions of `answer_times` or `request_times` by the
//! count.

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;

use toolgate_config::ToolSpec;
use toolgate_engine::pipeline::{CallOutcome, CallSignals, Structured};
use toolgate_server::mcp::answer::{NotesPlacement, tool_call};
use toolgate_server::mcp::envelope::Era;
use toolgate_server::mcp::jsonrpc::{self, Message};

/// `bench/run`'s tool (`tool_yaml web_search /v3/search`) and its dependency.
const CONFIG: &str = r##"
gateway: { listen: "127.0.0.1:0", state: state.db }
dependencies:
  search_api:
    base_url: http://127.0.0.1:8080
    timeout: 5s
    retry: { max_attempts: 3, base_delay: 50ms, max_delay: 1s }
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    description: Search the web.
    request: { method: GET, path: /v3/search, query: { q: "{query}" } }
    annotations: { readOnlyHint: true, idempotentHint: true }
    input_schema: {"type":"object","required":["query"],"properties":{"query":{"type":"string","description":"What to search for."}}}
    contract:
      version: "3.1"
      response_schema: "##;

/// `bench/run`'s response contract, the default.
const SCHEMA: &str = r##"{"type":"object","required":["query","results","total"],"properties":{"query":{"type":"string"},"total":{"type":"integer","minimum":0},"next_cursor":{"type":["string","null"]},"results":{"type":"array","items":{"$ref":"#/$defs/result"}}},"$defs":{"result":{"type":"object","required":["title","url","snippet","score"],"properties":{"title":{"type":"string"},"url":{"type":"string"},"snippet":{"type":"string"},"score":{"type":"number","minimum":0,"maximum":1},"published":{"type":["string","null"]},"tags":{"type":"array","items":{"type":"string"}},"source":{"$ref":"#/$defs/source"}}},"source":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"domain":{"type":"string"},"rank":{"type":"integer"}}}}}"##;

/// `bench/run`'s stateless `tools/call` body (`call_body web_search … "$META"`).
const REQUEST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"rust tool gateway"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(times), Some(stage)) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: count_answer BODY_FILE TIMES answer|request [SCHEMA_FILE]");
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
    let schema = match args.next() {
        Some(file) => match std::fs::read_to_string(&file) {
            // JSON is YAML: the schema goes into the config on one line.
            Ok(text) => text.replace('\n', " "),
            Err(e) => {
                eprintln!("cannot read {file}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => SCHEMA.to_string(),
    };
    let tool = match bench_tool(&schema) {
        Ok(tool) => tool,
        Err(e) => {
            eprintln!("the bench's config does not load: {e}");
            return ExitCode::FAILURE;
        }
    };
    match stage.as_str() {
        "answer" => {
            let Some(sites) = tool.contract.response.vouch(&body) else {
                eprintln!("the contract does not vouch for {path}");
                return ExitCode::FAILURE;
            };
            let structured = Structured::checked(body.clone(), Some(sites), false);
            let bytes = answer_times(&tool, &structured, times);
            println!("{} bytes in, {bytes} bytes of answers written", body.len());
        }
        "request" => {
            let sent = request_times(&tool, times);
            println!("{sent} of {times} requests rendered");
        }
        other => {
            eprintln!("unknown stage `{other}`: answer or request");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn bench_tool(schema: &str) -> Result<Arc<ToolSpec>, String> {
    let dir = std::env::temp_dir().join(format!("count_answer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join("toolgate.yaml");
    std::fs::write(&file, format!("{CONFIG}{schema}\n")).map_err(|e| e.to_string())?;
    let config = toolgate_config::load(&file).map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    config?
        .tools
        .get("web_search")
        .cloned()
        .ok_or_else(|| "no web_search tool".to_string())
}

#[inline(never)]
fn answer_times(tool: &ToolSpec, structured: &Structured, times: u32) -> usize {
    let placement = NotesPlacement::of(tool);
    let mut written = 0;
    for _ in 0..times {
        let outcome = CallOutcome {
            result: Ok(structured.clone()),
            notes: Vec::new(),
            signals: CallSignals::new(&tool.name, &tool.contract.version, 1),
        };
        written += black_box(tool_call(black_box("1"), outcome, Era::Modern, placement)).len();
    }
    written
}

#[inline(never)]
fn request_times(tool: &ToolSpec, times: u32) -> u32 {
    let Some(template) = tool.http_request() else {
        return 0;
    };
    let mut rendered = 0;
    for _ in 0..times {
        let Ok(Message::Request {
            method,
            params: Some(params),
            ..
        }) = jsonrpc::parse(black_box(REQUEST))
        else {
            continue;
        };
        let Ok(era) = Era::decide(&method, &params.meta, None) else {
            continue;
        };
        let Some(serde_json::Value::Object(args)) = params.arguments else {
            continue;
        };
        let args = serde_json::Value::Object(args);
        if !tool.input_validator.is_valid(&args) {
            continue;
        }
        let serde_json::Value::Object(args) = args else {
            continue;
        };
        if black_box(template.render(&tool.dependency.base_url, &args)).is_ok() {
            rendered += u32::from(black_box(era).is_modern());
        }
    }
    rendered
}
