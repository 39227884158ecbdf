//! `toolgate diff`: checks a saved response against a response schema offline, with
//! the same rename-aware report a call gets.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;

pub(super) fn diff(schema_path: &Path, response_path: &Path) -> anyhow::Result<ExitCode> {
    // Read with the bounds of a config's own schema files: a FIFO, a device or a
    // file past 64 MiB is refused by its kind and size before anything is read.
    let schema_text = toolgate_config::read_text_file(schema_path)
        .map_err(|why| anyhow::anyhow!("cannot read {}: {why}", schema_path.display()))?;
    let schema: serde_json::Value = serde_json::from_str(&schema_text)
        .or_else(|_| toolgate_config::yaml::from_str(&schema_text))
        .with_context(|| format!("{} is neither JSON nor YAML", schema_path.display()))?;
    let body_text = std::fs::read(response_path)
        .with_context(|| format!("reading {}", response_path.display()))?;
    // A bare file name's parent is the empty path: its $refs resolve from here.
    let dir = match schema_path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let contract = toolgate_contract::ResponseContract::compile(&schema, Some(dir))
        .map_err(|e| anyhow::anyhow!("{}: {e}", schema_path.display()))?;
    let body: serde_json::Value = match serde_json::from_slice(&body_text) {
        Ok(v) => v,
        Err(e) => {
            say!(
                "{} is not JSON ({e}): this is contract drift",
                response_path.display()
            );
            return Ok(ExitCode::from(1));
        }
    };
    match contract.check(&body) {
        Ok(()) => {
            say!(
                "{} matches {}",
                response_path.display(),
                schema_path.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(drift) => {
            say!("{drift}");
            Ok(ExitCode::from(1))
        }
    }
}
