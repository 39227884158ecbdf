//! A config whose aliases would expand it past the bound is refused before the copies
//! are built: one 10 KB anchor aliased 8,000 times (80 MB read as copies, several
//! hundred MB as parsed values) leaves the process's peak memory where it was.
//!
//! Measured as the process's peak resident memory, so this file is a test binary of its
//! own with one test.

use std::path::Path;

/// The process's peak resident memory in bytes (Linux).
fn peak() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux's /proc");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    let kb: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in kB");
    kb * 1024
}

#[test]
fn a_large_anchor_aliased_thousands_of_times_is_refused_before_it_is_copied() {
    let big: Vec<String> = (0..100)
        .map(|i| format!("p{i}: {{type: string, description: '{}'}}", "x".repeat(80)))
        .collect();
    let text = format!(
        "big: &big {{{}}}\ndependencies:\n  d: {{base_url: 'https://api.example.com', extra: [{}]}}\n",
        big.join(", "),
        vec!["*big"; 8_000].join(", ")
    );
    let before = peak();
    let env = |_: &str| None;
    let result = toolgate_config::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
    let grown = peak().saturating_sub(before);
    let errors = result.map(|_| ()).expect_err("refused").to_string();
    assert!(errors.contains("more than 64 MiB"), "{errors}");
    // The text is 0.1 MB; reading it as copies would hold hundreds of MB.
    assert!(
        grown < 32 << 20,
        "peak memory grew by {} MB while refusing",
        grown >> 20
    );
}
