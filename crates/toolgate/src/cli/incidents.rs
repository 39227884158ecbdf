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

/// Opening a SQLite store that does not exist would create an empty one and report
/// "no incidents": a read-only command refuses instead, naming the file it looked for.
pub(super) fn existing_file(path: &Path, named_by: &str) -> anyhow::Result<()> {
    if path.is_file() {
        return Ok(());
    }
    anyhow::bail!(
        "no state store at {} ({named_by}): nothing was created. Run this with the config `toolgate serve` runs with; a relative gateway.state starts at the config file's directory",
        absolute(path).display()
    )
}

pub(super) async fn incidents(
    path: &Path,
    state: Option<PathBuf>,
    all: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let store = match state {
        Some(s) => {
            existing_file(&s, "--state")?;
            Store::open(&s)
        }
        // Only the store's location matters here: the upstreams' credentials need not
        // be exported to read incidents.
        None => match config::load_for_reading(path) {
            Ok((c, unset)) => {
                if let Some(u) = unset.iter().find(|u| u.path == "gateway.state") {
                    anyhow::bail!(
                        "gateway.state names ${{{}}}, which is not set: export it to reach the state store",
                        u.var
                    );
                }
                if c.gateway.postgres.is_none() {
                    existing_file(&c.gateway.state, "the config's gateway.state")?;
                }
                Store::connect(&c.gateway).await
            }
            Err(errors) => {
                eprintln!("{errors}");
                return Ok(ExitCode::FAILURE);
            }
        },
    }
    .context("opening the state store")?;
    // Which store was read, so an empty answer cannot be mistaken for the right one's.
    eprintln!("reading {}", store.describe());
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
            // Who acted on it by hand (the console or the admin API), when anyone did.
            let by = match (&i.acked_by, &i.resolved_by) {
                (_, Some(who)) => format!(", resolved by {who}"),
                (Some(who), None) => format!(", acknowledged by {who}"),
                (None, None) => String::new(),
            };
            // The agents whose calls hit it, most sightings first.
            let mut agents: Vec<String> = i
                .agents
                .iter()
                .map(|a| format!("{} {}×", a.agent, a.sightings))
                .collect();
            if i.agents_unlisted > 0 {
                agents.push(format!("{}× by other agents", i.agents_unlisted));
            }
            let by = if agents.is_empty() {
                by
            } else {
                format!("{by}; agents: {}", agents.join(", "))
            };
            say!(
                "#{} [{}] {} — {} (owner {}, seen {}×, first {}, last {}{by})",
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
