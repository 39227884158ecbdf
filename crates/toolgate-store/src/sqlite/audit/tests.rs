//! How a batch of audit rows is split into `INSERT` statements.

use super::{MAX_ROWS_PER_STATEMENT, insert_of, rows_in_next_statement};

/// The statements' row counts for a batch of `n` rows.
fn plan(n: usize) -> Vec<usize> {
    let mut left = n;
    let mut rows = Vec::new();
    while left > 0 {
        let next = rows_in_next_statement(left);
        rows.push(next);
        left -= next;
    }
    rows
}

#[test]
fn a_batch_is_written_by_few_statements_that_cover_each_row_once() {
    for n in 1..=3 * 512 {
        let rows = plan(n);
        assert_eq!(rows.iter().sum::<usize>(), n, "{n} rows: {rows:?}");
        let tail = rows.iter().filter(|r| **r < MAX_ROWS_PER_STATEMENT).count();
        assert!(tail <= 6, "{n} rows: a tail of {tail} statements");
    }
    assert_eq!(plan(5), [4, 1]);
    assert_eq!(plan(130), [64, 64, 2]);
}

#[test]
fn statements_come_in_seven_shapes_so_the_statement_cache_keeps_them_all() {
    let mut shapes: Vec<usize> = (1..=2_000).flat_map(plan).collect();
    shapes.sort_unstable();
    shapes.dedup();
    assert_eq!(shapes, [1, 2, 4, 8, 16, 32, 64]);
}

#[test]
fn each_statement_binds_ten_parameters_a_row() {
    for rows in [1, 2, 4, 8, 16, 32, 64] {
        let text = insert_of(rows);
        assert_eq!(text.matches('?').count(), 10 * rows, "{rows} rows");
    }
}

/// A directory of its own for one test's store.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-audit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names of the indexes on the audit table.
fn audit_indexes(c: &rusqlite::Connection) -> Vec<String> {
    let mut stmt = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit' ORDER BY name")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The indexes SQLite's plan for `sql` reads, with `params` bound.
fn indexes_read(
    c: &rusqlite::Connection,
    sql: &str,
    params: &[rusqlite::types::Value],
) -> Vec<String> {
    let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let steps: Vec<String> = stmt
        .query_map(rusqlite::params_from_iter(params), |r| r.get(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    steps
        .iter()
        .filter_map(|step| step.split(" INDEX ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_index_on_the_audit_table_is_one_its_queries_read() {
    use rusqlite::types::Value;
    let dir = fresh_dir("indexes");
    let path = dir.join("state.db");
    drop(super::super::SqliteStore::open(&path).unwrap());
    let c = rusqlite::Connection::open(&path).unwrap();
    let mut read = Vec::new();
    // The listing with every combination of its five filters given or left out.
    for given in 0..32u32 {
        let filter = |bit: u32, value: &str| {
            if given & (1 << bit) == 0 {
                Value::Null
            } else {
                Value::Text(value.into())
            }
        };
        let params = [
            filter(0, "anonymous"),
            filter(1, "web_search"),
            filter(2, "ok"),
            filter(3, "2026-01-01T00:00:00.000Z"),
            filter(4, "2027-01-01T00:00:00.000Z"),
            Value::Integer(100),
        ];
        read.extend(indexes_read(&c, super::LIST, &params));
    }
    read.extend(indexes_read(
        &c,
        super::PRUNE,
        &[
            Value::Text("2026-01-01T00:00:00Z".into()),
            Value::Integer(500),
        ],
    ));
    read.sort();
    read.dedup();
    assert_eq!(
        audit_indexes(&c),
        read,
        "an index no query reads only adds to each row's insert"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_store_with_the_older_audit_indexes_keeps_its_rows_and_every_filter_after_opening() {
    let dir = fresh_dir("older");
    let path = dir.join("state.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        let before = super::super::MIGRATIONS
            .iter()
            .position(|m| *m == super::DROP_UNUSED_INDEXES)
            .unwrap();
        for (i, sql) in super::super::MIGRATIONS[..before].iter().enumerate() {
            c.execute_batch(sql).unwrap();
            c.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        assert_eq!(audit_indexes(&c), ["audit_agent", "audit_at", "audit_tool"]);
        for (at, agent, tool) in [
            ("2026-05-01T12:00:00.000Z", "alice", "web_search"),
            ("2026-05-01T12:00:01.000Z", "bob", "web_search"),
            ("2026-05-01T12:00:02.000Z", "alice", "weather"),
        ] {
            c.execute(
                "INSERT INTO audit (at, agent, tool, outcome, attempts, latency_ms, args_sha256)
                 VALUES (?1, ?2, ?3, 'ok', 1, 3, 'ab')",
                rusqlite::params![at, agent, tool],
            )
            .unwrap();
        }
    }
    let store = super::super::SqliteStore::open(&path).unwrap();
    let read = |agent: Option<&str>, tool: Option<&str>| crate::audit::AuditQuery {
        agent: agent.map(str::to_string),
        tool: tool.map(str::to_string),
        limit: 10,
        ..Default::default()
    };
    let times = |rows: Vec<crate::audit::AuditRecord>| {
        rows.into_iter()
            .map(|r| r.at[17..19].to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        times(store.audit(read(None, None)).await.unwrap()),
        ["02", "01", "00"]
    );
    assert_eq!(
        times(store.audit(read(Some("alice"), None)).await.unwrap()),
        ["02", "00"]
    );
    assert_eq!(
        times(store.audit(read(None, Some("web_search"))).await.unwrap()),
        ["01", "00"]
    );
    assert_eq!(
        times(
            store
                .audit(read(Some("alice"), Some("weather")))
                .await
                .unwrap()
        ),
        ["02"]
    );
    let cut = chrono::DateTime::parse_from_rfc3339("2026-05-01T12:00:01.500Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    assert_eq!(store.prune_audit(cut, 10).await.unwrap(), 2);
    let c = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(audit_indexes(&c), ["audit_at"]);
    let _ = std::fs::remove_dir_all(&dir);
}
