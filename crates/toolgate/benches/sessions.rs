//! What a handshake-era session costs per request: today's table lookup of a random id,
//! the same lookup of a sealed id (`gateway.session_key_env`) a replica already knows,
//! and verifying a sealed id, which a replica does once for each session it has not seen.

// A benchmark's setup failing should stop it, so unwrap is the right tool here.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::ProtocolVersion;
use serde_json::json;

use toolgate_server::mcp::http::owner::Owner;
use toolgate_server::mcp::http::seal::Sealer;
use toolgate_server::mcp::http::session::Sessions;

const OPEN: usize = 10_000;
const KEY: &[u8] = b"a fleet's session key, 32 bytes or more";

fn sessions(c: &mut Criterion) {
    let idle = Duration::from_secs(3600);
    let version = ProtocolVersion::V_2025_11_25;
    let caps = json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": true}});

    let random = Sessions::new(OPEN, idle);
    let ids: Vec<_> = (0..OPEN)
        .map(|_| {
            random
                .open_with(version.clone(), Some(caps.clone()))
                .unwrap()
        })
        .collect();
    let probe = ids[OPEN / 2].clone();

    let sealer = || Sealer::new(&[KEY], Duration::from_secs(86_400));
    let sealed = Sessions::new(OPEN, idle).with_sealer(sealer());
    let sealed_ids: Vec<_> = (0..OPEN)
        .map(|_| {
            sealed
                .open_with(version.clone(), Some(caps.clone()))
                .unwrap()
        })
        .collect();
    let sealed_probe = sealed_ids[OPEN / 2].clone();

    let verifier = sealer().unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();

    let mut g = c.benchmark_group("session per request");
    g.bench_function("random id, table lookup (no key)", |b| {
        b.iter(|| black_box(random.touch(black_box(&probe))));
    });
    g.bench_function("sealed id, table lookup (known here)", |b| {
        b.iter(|| black_box(sealed.touch(black_box(&sealed_probe))));
    });
    g.bench_function("sealed id, verify (first use on a replica)", |b| {
        b.iter(|| black_box(verifier.open(black_box(&sealed_probe), now).unwrap()));
    });
    g.bench_function("sealed id, seal (initialize)", |b| {
        b.iter(|| black_box(verifier.seal(&version, Some(&caps), &Owner::default(), now)));
    });
    g.finish();
    println!(
        "sealed id: {} bytes; random id: {} bytes",
        sealed_probe.len(),
        probe.len()
    );
}

criterion_group!(benches, sessions);
criterion_main!(benches);
