//! Writing audit records to a SQLite store in batches, as the audit writer does, for
//! counting the instructions a record costs under callgrind (counts do not move with
//! the machine's load):
//!
//! ```sh
//! cargo build --profile profiling -p toolgate-store --example count_audit
//! valgrind --tool=callgrind target/profiling/examples/count_audit 2000 50
//! valgrind --tool=callgrind target/profiling/examples/count_audit 12000 50
//! ```
//!
//! Arguments: records written, records per batch. Each record is a call of
//! `bench/run`'s tool as its writer fills it in (a time a millisecond or so after the
//! last, the anonymous agent, a request id). The difference of two runs' totals,
//! divided by the difference of their records, is what one record costs, without the
//! store's opening and the runtime's start.

use std::process::ExitCode;

use toolgate_store::{AuditRecord, Store};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(Ok(records)), Some(Ok(per_batch))) = (
        args.next().map(|n| n.parse::<usize>()),
        args.next().map(|n| n.parse::<usize>()),
    ) else {
        eprintln!("usage: count_audit RECORDS PER_BATCH");
        return ExitCode::FAILURE;
    };
    let dir = std::env::temp_dir().join(format!("toolgate-count-audit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::create_dir_all(&dir).is_err() {
        eprintln!("cannot create {}", dir.display());
        return ExitCode::FAILURE;
    }
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        eprintln!("cannot start a runtime");
        return ExitCode::FAILURE;
    };
    let written = runtime.block_on(async {
        let store = Store::open(&dir.join("state.db"))?;
        let start = chrono::Utc::now();
        let mut n = 0;
        while n < records {
            let batch: Vec<AuditRecord> = (n..records.min(n + per_batch.max(1)))
                .map(|i| record(start, i))
                .collect();
            n += batch.len();
            store.record_audit(batch).await?;
        }
        Ok::<usize, toolgate_store::StoreError>(n)
    });
    let _ = std::fs::remove_dir_all(&dir);
    match written {
        Ok(n) => {
            println!("{n} records written");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn record(start: chrono::DateTime<chrono::Utc>, i: usize) -> AuditRecord {
    let at = start + chrono::Duration::microseconds(i64::try_from(i).unwrap_or(0) * 400);
    AuditRecord {
        at: at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        agent: "anonymous".into(),
        tool: "web_search".into(),
        outcome: "ok".into(),
        attempts: 1,
        latency_ms: 3,
        args_sha256: "5d41402abc4b2a76b9719d911017c592".repeat(2),
        incident_id: None,
        request_id: Some(i.to_string()),
        trace_id: None,
    }
}
