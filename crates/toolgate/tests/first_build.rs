//! The README's demo command is a new user's first build; what keeps it short must not
//! quietly disappear: the profile it names (nothing optimised, no debug info) and the
//! lockfile's choice of the unicode-rs IDNA back end over ICU4X.

use std::path::Path;

fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of a TOML table, from its header to the next header.
fn table<'a>(toml: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = toml.lines().skip_while(|l| l.trim() != header);
    assert!(lines.next().is_some(), "no {header} in Cargo.toml");
    lines
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn the_demo_command_builds_with_the_quick_profile() {
    let readme = read("README.md");
    let demo = readme
        .lines()
        .find(|l| l.contains("serve --demo") && l.starts_with("cargo run"))
        .expect("the README's first section has a `cargo run … serve --demo` command");
    let profile = demo
        .split_whitespace()
        .skip_while(|w| *w != "--profile")
        .nth(1)
        .expect("the demo command names its build profile");

    let cargo = read("Cargo.toml");
    let own = table(&cargo, &format!("[profile.{profile}]"));
    assert!(own.contains(&"inherits = \"dev\""), "{own:?}");
    assert!(own.contains(&"debug = false"), "{own:?}");
    let deps = table(&cargo, &format!("[profile.{profile}.package.\"*\"]"));
    assert!(deps.contains(&"opt-level = 0"), "{deps:?}");
    assert!(deps.contains(&"debug = false"), "{deps:?}");
}

#[test]
fn the_lockfile_keeps_idna_off_icu4x() {
    let lock = read("Cargo.lock");
    let adapter = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"idna_adapter\""))
        .expect("url's IDNA adapter is in Cargo.lock");
    assert!(
        adapter.contains("version = \"1.1."),
        "idna_adapter is not on the unicode-rs 1.1 line (restore it: cargo update -p idna_adapter --precise 1.1.0):{adapter}"
    );
    assert!(!lock.contains("name = \"icu_normalizer\""));
}
