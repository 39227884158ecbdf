//! Cost of writing a successful `tools/call` answer for a ~12 KB upstream body (the
//! checked bytes copied in, the text block escaped from bytes), next to what building it
//! through a `serde_json::Value` of the body would cost.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use toolgate_engine::pipeline::{CallOutcome, CallSignals, Structured};

fn body() -> Vec<u8> {
    let results: Vec<Value> = (1..=20)
        .map(|i| {
            json!({
                "title": format!("Result {i}: building reliable tool gateways for AI agents in Rust, part {i}"),
                "url": format!("https://docs.example.com/articles/{i}/building-reliable-tool-gateways-for-ai-agents-in-rust"),
                "snippet": format!("Result {i}. A tool gateway validates every upstream response against a versioned contract, classifies failures by whether a retry can help, and tells the model in one sentence what happened and what to do instead of retrying blindly."),
                "score": 0.5,
                "published": "2026-11-30T12:00:00Z",
                "tags": ["rust", "mcp", "gateway", "contracts", "reliability"],
                "source": {"name": "Example Docs", "domain": "docs.example.com", "rank": i}
            })
        })
        .collect();
    serde_json::to_vec(&json!({"query": "rust tool gateway", "total": 20, "results": results}))
        .expect("json")
}

fn outcome(body: &bytes::Bytes) -> CallOutcome {
    CallOutcome {
        result: Ok(Structured::new(body.clone(), false)),
        notes: vec!["search_api: 3 of 5000 requests left in this window (resets in 41s).".into()],
        signals: CallSignals::new("web_search", "3.1", 1),
    }
}

fn bench(c: &mut Criterion) {
    let body = bytes::Bytes::from(body());
    eprintln!("body size: {} bytes", body.len());
    // The default placement: the note goes into the first text block and is spliced
    // into the body.
    let both = toolgate_server::mcp::answer::NotesPlacement {
        mode: toolgate_config::NotesMode::Inline,
        member: Some("toolgate"),
        structured: true,
    };
    c.bench_function("answer/direct_12kb", |b| {
        b.iter(|| {
            toolgate_server::mcp::answer::tool_call(
                black_box("41"),
                outcome(&body),
                toolgate_server::mcp::envelope::Era::Modern,
                both,
            )
        })
    });
    let text = toolgate_server::mcp::answer::NotesPlacement {
        mode: toolgate_config::NotesMode::Text,
        ..both
    };
    c.bench_function("answer/direct_12kb_notes_as_text", |b| {
        b.iter(|| {
            toolgate_server::mcp::answer::tool_call(
                black_box("41"),
                outcome(&body),
                toolgate_server::mcp::envelope::Era::Modern,
                text,
            )
        })
    });
    // The same body as Python's `json.dumps` writes it for a text with accents: every
    // non-ASCII letter a `\u` escape, which an escaped spelling of a key could hide in.
    let escaped = bytes::Bytes::from(
        String::from_utf8(body.to_vec())
            .expect("utf-8")
            .replace("Rust", "R\\u00fcst")
            .into_bytes(),
    );
    c.bench_function("answer/direct_12kb_escaped_letters", |b| {
        b.iter(|| {
            toolgate_server::mcp::answer::tool_call(
                black_box("41"),
                outcome(&escaped),
                toolgate_server::mcp::envelope::Era::Modern,
                both,
            )
        })
    });
    c.bench_function("answer/value_12kb", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_slice(black_box(&body)).expect("json");
            let text = String::from_utf8_lossy(&body).into_owned();
            let result = json!({"jsonrpc": "2.0", "id": 41, "result": {
                "content": [{"type": "text", "text": text}], "structuredContent": value, "isError": false
            }});
            serde_json::to_vec(&result).expect("serialises")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
