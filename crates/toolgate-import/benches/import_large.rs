//! Cost of `toolgate import openapi` on a generated description shaped like the
//! largest published ones (Microsoft Graph): entity types that inherit from a base
//! through `allOf` and refer to each other, so every request body reaches most of the
//! components, with read-only fields and a discriminated union, and four operations
//! per entity. Sizes are small enough for a quick run; `scale` shows how the cost grows
//! with the number of entities.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use toolgate_import::openapi::{Options, run};

/// A description with `entities` entity types, each referring to the next three.
fn description(entities: usize) -> Value {
    let mut schemas = Map::new();
    schemas.insert(
        "entity".into(),
        json!({"type": "object", "properties": {
            "id": {"type": "string", "readOnly": true},
            "@odata.type": {"type": "string"},
        }}),
    );
    let name = |i: usize| format!("thing{}", i % entities);
    for i in 0..entities {
        let mut props = Map::new();
        for f in 0..12 {
            props.insert(
                format!("field{f}"),
                json!({"type": "string", "nullable": true, "description": "A field of the thing."}),
            );
        }
        for k in 1..=3 {
            props.insert(
                format!("link{k}"),
                json!({"$ref": format!("#/components/schemas/{}", name(i + k))}),
            );
        }
        props.insert(
            "many".into(),
            json!({"type": "array", "items": {"$ref": format!("#/components/schemas/{}", name(i + 5))}}),
        );
        props.insert(
            "created".into(),
            json!({"$ref": "#/components/schemas/stamp"}),
        );
        schemas.insert(
            name(i),
            json!({"allOf": [{"$ref": "#/components/schemas/entity"},
                             {"type": "object", "properties": props}]}),
        );
    }
    schemas.insert(
        "stamp".into(),
        json!({"type": "string", "format": "date-time", "readOnly": true}),
    );
    let mut paths = Map::new();
    for i in 0..entities {
        let item = json!({"$ref": format!("#/components/schemas/{}", name(i))});
        let ok = json!({"200": {"description": "ok",
            "content": {"application/json": {"schema": item.clone()}}}});
        let body = json!({"required": true,
            "content": {"application/json": {"schema": item.clone()}}});
        let id =
            json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
        paths.insert(
            format!("/things{i}"),
            json!({
                "get": {"operationId": format!("list{i}"), "responses": ok.clone()},
                "post": {"operationId": format!("create{i}"), "requestBody": body.clone(), "responses": ok.clone()},
            }),
        );
        paths.insert(
            format!("/things{i}/{{id}}"),
            json!({
                "parameters": id,
                "get": {"operationId": format!("get{i}"), "responses": ok.clone()},
                "patch": {"operationId": format!("update{i}"), "requestBody": body, "responses": ok},
            }),
        );
    }
    json!({
        "openapi": "3.0.1",
        "info": {"title": "Generated", "version": "1.0"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
        "components": {"schemas": schemas},
    })
}

fn write(entities: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-import-bench-{}-{entities}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("spec.json");
    std::fs::write(&file, description(entities).to_string()).expect("the description written");
    file
}

fn scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("import_generated");
    group.sample_size(10);
    for entities in [25, 50, 100] {
        let spec = write(entities);
        let opts = Options {
            spec: spec.clone(),
            owner: Some("team@example.com".into()),
            ..Options::default()
        };
        group.bench_with_input(BenchmarkId::from_parameter(entities), &opts, |b, opts| {
            b.iter(|| black_box(run(black_box(opts)).expect("imports").yaml.len()))
        });
        if let Some(dir) = spec.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    group.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
