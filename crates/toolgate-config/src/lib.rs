//! Configuration: the YAML file (`raw`), the validated model the gateway runs on
//! (`model`), and the compiler between them that reports every error at once.

pub mod address;
mod compile;
mod error;
mod locate;
mod model;
mod raw;
pub mod template;
mod units;

use std::path::Path;

pub use compile::{
    EnvLookup, Secrets, UnsetVariable, expand_env, notes_member, output_schema, valid_tool_name,
};
pub use error::{ConfigError, ConfigErrors};
pub use model::*;
pub use raw::RawConfig;
pub use units::{parse_bytes, parse_duration};

/// Reads and compiles a config file, with `${VAR}` taken from the process environment.
pub fn load(path: &Path) -> Result<Config, ConfigErrors> {
    load_with(path, Secrets::Required).map(|(config, _)| config)
}

/// Reads and compiles a config file for a command that only reads (`incidents`,
/// `status`): an unset `${VAR}` is not an error but is returned, with its field, so the
/// command can say so if it needs that one.
pub fn load_for_reading(path: &Path) -> Result<(Config, Vec<UnsetVariable>), ConfigErrors> {
    load_with(path, Secrets::Optional)
}

fn load_with(path: &Path, secrets: Secrets) -> Result<(Config, Vec<UnsetVariable>), ConfigErrors> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigErrors::new(
            path,
            "",
            vec![ConfigError::new("", format!("cannot read the config file: {e}"))
                .help("pass the path with --config, or run `toolgate serve --demo` to try it without one")],
        )
    })?;
    // The parent of a bare file name (`toolgate.yaml`) is the empty path, which is
    // no directory at all: it means the current one.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let env = |k: &str| std::env::var(k).ok();
    let doc = parse_yaml(path, &text)?;
    compile::compile_with(doc, path, dir, &env, secrets)
        .map_err(|errors| ConfigErrors::new(path, &text, errors))
}

fn parse_yaml(file: &Path, text: &str) -> Result<yaml_serde::Value, ConfigErrors> {
    yaml_serde::from_str(text).map_err(|e| {
        // An alias (`*name`) is read as a copy of its anchor's content: aliases of
        // aliases (a "billion laughs" file) would expand a few lines into gigabytes,
        // and the parser stops once they repeat content a hundred times over.
        let message = e.to_string();
        let mut err = if message.starts_with("repetition limit exceeded") {
            ConfigError::new(
                "",
                "the file's aliases (`*name`) repeat their anchors (`&name`) more than a config can: read as copies, they would take more memory than the file is worth",
            )
            .help("write the repeated part out where it is needed, or name it in fewer aliases")
        } else {
            ConfigError::new("", format!("the file is not valid YAML: {message}"))
                .help("fix the YAML syntax at the position shown")
        };
        err.location = e.location().map(|l| (l.line(), l.column()));
        ConfigErrors::new(file, text, vec![err])
    })
}

/// Compiles config `text`; `file` names it in errors, `dir` resolves schema files.
pub fn parse(
    file: &Path,
    text: &str,
    dir: &Path,
    env: EnvLookup<'_>,
) -> Result<Config, ConfigErrors> {
    let doc = parse_yaml(file, text)?;
    compile::compile(doc, file, dir, env).map_err(|errors| ConfigErrors::new(file, text, errors))
}

/// The JSON Schema of the config file, generated from the raw types.
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(RawConfig)).unwrap_or_default()
}
