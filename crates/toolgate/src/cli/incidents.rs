//! `toolgate incidents`: the incidents in a state store (the config's, a given
//! file, or the demo's).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;

use toolgate_config as config;
use toolgate_store::Store;

use super::absolute;

/// The store `--demo` reads: the one `toolgate serve --demo` wrote in this directory.
pub(super) fn demo_state() -> anyhow::Result<PathBuf> {
    let path = crate::demo::offline_config()?.gateway.state;
    // Opening the store would create an empty one here and report no
    // incidents: say instead that this is not where the demo ran.
    if !path.exists() {
        anyhow::bail!(
            "no demo state store at {}: run this in the directory `toolgate serve --demo` runs in (it prints the store's path at start-up)",
            absolute(&path).display()
        );
    }
    Ok(path)
}

pub(super) async fn incidents(
    path: &Path,
    state: Option<PathBuf>,
    all: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let store = match state {
        Some(s) => Store::open(&s),
        None => match config::load(path) {
            Ok(c) => Store::connect(&c.gateway).await,
            Err(errors) => {
                eprintln!("{errors}");
                return Ok(ExitCode::FAILURE);
            }
        },
    }
    .context("opening the state store")?;
    let list = store.incidents(all).await?;
    if json {
        say!("{}", serde_json::to_string_pretty(&list)?);
    } else if list.is_empty() {
        say!(
            "no {}incidents in {}",
            if all { "" } else { "open " },
            store.describe()
        );
    } else {
        for i in &list {
            say!(
                "#{} [{}] {} — {} (owner {}, seen {}×, first {}, last {})",
                i.id,
                i.status,
                i.kind,
                i.title,
                i.owner,
                i.count,
                i.first_seen,
                i.last_seen
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
