//! Cost of writing a successful `tools/call` answer for a ~12 KB upstream body: the
//! direct path (the checked bytes copied in, the text block escaped from bytes) next to
//! the rmcp path (the body parsed into a `Value` for `structuredContent`, the result
//! serialised). Both answers carry the same members; tests/e2e/direct.rs checks that.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use toolgate::pipeline::{CallOutcome, Structured};

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
        signals: json!({
            "tool": "web_search", "dependency": "search_api", "contract_version": "3.1",
            "attempts": 1, "elapsed_ms": 1, "paced_ms": 0, "latency_ms": 0.4,
            "error_class": null, "retryable": null, "deprecation": null,
            "health": {"status": "healthy", "quota": [], "breaker": {"state": "closed"}}
        }),
    }
}

fn bench(c: &mut Criterion) {
    let body = bytes::Bytes::from(body());
    eprintln!("body size: {} bytes", body.len());
    c.bench_function("answer/direct_12kb", |b| {
        b.iter(|| toolgate::mcp::direct::answer(black_box("41"), outcome(&body), true))
    });
    c.bench_function("answer/rmcp_result_12kb", |b| {
        b.iter(|| {
            let result = toolgate::mcp::to_result(outcome(black_box(&body)));
            serde_json::to_vec(&result).expect("serialises")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
