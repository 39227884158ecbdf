//! Cost of the contract check on a realistic ~10 KB search-API response: the OK path
//! (every upstream 2xx pays it) from the body's bytes, as a call does (`check_bytes`), next
//! to parsing a `serde_json::Value` and checking that (what a call did before), and the
//! drift path (snippet renamed to excerpt in every result, which builds the full diff).

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use toolgate_contract::ResponseContract;

fn body(rename: bool) -> Value {
    body_of(20, rename)
}

fn body_of(n: u32, rename: bool) -> Value {
    let results: Vec<Value> = (0..n)
        .map(|i| {
            let mut r = json!({
                "title": format!("Result number {i}: a reasonably long page title about Rust gateways"),
                "url": format!("https://docs.example.com/articles/{i}/rust-tool-gateways-and-contracts"),
                "snippet": format!("Snippet {i}: toolgate validates every upstream response against the tool's contract and reports drift with a structural diff, never retrying it."),
                "score": 1.0 / f64::from(i + 2),
                "published": if i % 3 == 0 { Value::Null } else { json!("2026-11-30T12:00:00Z") },
                "tags": ["rust", "mcp", "gateway", "contracts"],
                "source": {"name": "Example Docs", "domain": "docs.example.com", "rank": i}
            });
            if let (true, Some(obj)) = (rename, r.as_object_mut())
                && let Some(s) = obj.remove("snippet")
            {
                obj.insert("excerpt".into(), s);
            }
            r
        })
        .collect();
    json!({"query": "rust tool gateway contract drift", "total": n, "next_cursor": "abc123", "results": results})
}

fn bench(c: &mut Criterion) {
    let schema: Value = serde_json::from_str(include_str!("../fixtures/search_schema.json"))
        .expect("fixture parses");
    let contract = ResponseContract::compile(&schema, None).expect("compiles");
    let valid = body(false);
    let drifted = body(true);
    let size = serde_json::to_vec(&valid).map(|v| v.len()).unwrap_or(0);
    eprintln!("body size: {size} bytes");
    assert!(contract.check(&valid).is_ok());
    assert!(contract.check(&drifted).is_err());

    c.bench_function("check/valid_10kb", |b| {
        b.iter(|| contract.check(black_box(&valid)))
    });
    let valid_bytes = serde_json::to_vec(&valid).expect("json");
    assert!(contract.check_bytes(&valid_bytes).is_ok());
    c.bench_function("check_bytes/valid_10kb", |b| {
        b.iter(|| contract.check_bytes(black_box(&valid_bytes)))
    });
    // The full way `check_bytes` takes when its read check cannot vouch: the body read
    // into a `Doc`, then the validator over it (the baseline for the read check).
    let by_doc = jsonschema::options_for::<toolgate_contract::Borrowed>()
        .build(&schema)
        .expect("compiles");
    c.bench_function("doc_then_validate/valid_10kb", |b| {
        b.iter(|| {
            let doc = toolgate_contract::Doc::parse(black_box(&valid_bytes)).expect("json");
            by_doc.is_valid(&doc)
        })
    });
    c.bench_function("parse_value_then_check/valid_10kb", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_slice(black_box(&valid_bytes)).expect("json");
            contract.check(&value)
        })
    });
    // The 1 MiB scale check of bench/run: the same results, 2,200 of them.
    let big = serde_json::to_vec(&body_of(2200, false)).expect("json");
    eprintln!("big body size: {} bytes", big.len());
    assert!(contract.check_bytes(&big).is_ok());
    c.bench_function("check_bytes/valid_1mib", |b| {
        b.iter(|| contract.check_bytes(black_box(&big)))
    });
    c.bench_function("check/drift_snippet_to_excerpt", |b| {
        b.iter(|| contract.check(black_box(&drifted)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
