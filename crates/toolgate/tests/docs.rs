//! The architecture page names files and folders so that a newcomer can find the code
//! for any stage of a call; every one it names must exist.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Backticked words that name a file (`pipeline/mod.rs`, `Cargo.toml`) or a folder
/// (`fronting/`). URLs, HTTP paths (`/mcp`) and MCP method names
/// (`notifications/tools/list_changed`) are not files.
fn named_paths(markdown: &str) -> Vec<String> {
    const FILE_ENDINGS: [&str; 8] = [
        ".rs", ".md", ".toml", ".json", ".lua", ".py", ".sh", ".yaml",
    ];
    markdown
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.contains(char::is_whitespace) && !w.starts_with('/') && !w.contains("://"))
        .filter(|w| w.ends_with('/') || FILE_ENDINGS.iter().any(|e| w.ends_with(e)))
        .map(str::to_owned)
        .collect()
}

/// Whether `name` is a path from the repository's root, from a crate's folder or from a
/// crate's `src/`, or (a bare file name) a file somewhere in a crate's `src/`.
fn exists(name: &str) -> bool {
    let root = repo();
    if root.join(name).exists() {
        return true;
    }
    let crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    crates
        .iter()
        .any(|c| c.join(name).exists() || c.join("src").join(name).exists())
        || (!name.contains('/') && crates.iter().any(|c| contains_file(&c.join("src"), name)))
}

fn contains_file(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let p = e.path();
            if p.is_dir() {
                contains_file(&p, name)
            } else {
                p.file_name().is_some_and(|f| f == name)
            }
        })
}

#[test]
fn every_file_the_architecture_page_names_exists() {
    let page =
        std::fs::read_to_string(repo().join("docs/architecture.md")).expect("docs/architecture.md");
    let named = named_paths(&page);
    assert!(
        named.len() > 40,
        "the page names only {} files: is it still the map of the code?",
        named.len()
    );
    let missing: Vec<&String> = named.iter().filter(|n| !exists(n)).collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names files that do not exist: {missing:?}"
    );
}

#[test]
fn a_name_that_is_no_file_is_caught() {
    let named = named_paths(
        "see `pipeline/interpret.rs`, `store.rs`, `/mcp` and `notifications/tools/list_changed`",
    );
    assert_eq!(named, ["pipeline/interpret.rs", "store.rs"]);
    assert!(!exists("pipeline/interpret.rs"));
    assert!(!exists("store.rs"));
    assert!(exists("pipeline/mod.rs"));
}
