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
pub mod yaml;

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
    let text = read_text_file(path).map_err(|why| {
        ConfigErrors::new(
            path,
            "",
            vec![ConfigError::new("", format!("cannot read the config file: {why}"))
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

/// Largest config file read. The largest imported configs measured are a few MB
/// (Stripe's 451 tools: 2.5 MB); a file past this is a mistake, and reading it whole
/// would hold that much memory before a single error could be reported.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// The text of a config file, or of a file read beside one (the config an import
/// merges into, a schema `toolgate diff` checks against): a regular file (a FIFO would
/// block, `/dev/zero` never ends; checked before opening) of at most
/// [`MAX_CONFIG_BYTES`], in UTF-8. The error says why, to follow the file's name.
pub fn read_text_file(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(
            "it is not a regular file (a device, FIFO, socket or folder is never read)".into(),
        );
    }
    let too_large = || {
        format!(
            "it is larger than {} MiB, the most toolgate reads of a config or schema file",
            MAX_CONFIG_BYTES / 1024 / 1024
        )
    };
    // The size first, so a large file is refused without being read; the read is
    // capped too, for a file that grows meanwhile.
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    yaml::text_of(bytes)
}

fn parse_yaml(file: &Path, text: &str) -> Result<yaml_serde::Value, ConfigErrors> {
    yaml::from_str(text).map_err(|e| {
        let mut err = match e.help() {
            Some(help) => ConfigError::new("", format!("the file is not read: {e}")).help(help),
            None => ConfigError::new("", format!("the file is not valid YAML: {e}"))
                .help("fix the YAML syntax at the position shown"),
        };
        err.location = e.location();
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
