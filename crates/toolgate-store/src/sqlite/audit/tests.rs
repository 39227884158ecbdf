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
