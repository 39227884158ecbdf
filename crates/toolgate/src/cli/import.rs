//! `toolgate import openapi`: a Swagger 2.0 / OpenAPI 3.x description → a config
//! that passes `check`, merged into an existing file to show contract changes.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;

/// The arguments of `toolgate import openapi`.
#[derive(Debug, clap::Args)]
pub(super) struct OpenapiArgs {
    /// The spec file.
    pub spec: PathBuf,
    /// Dependency name (default: from the spec's title).
    #[arg(long)]
    pub dependency: Option<String>,
    /// Base URL instead of the spec's first server.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Owner of every tool: the person or rota alerted when a contract drifts
    /// (without it, a placeholder `check` refuses).
    #[arg(long)]
    pub owner: Option<String>,
    /// Prefix of every tool name, e.g. `stripe_` (several APIs in one file).
    #[arg(long)]
    pub prefix: Option<String>,
    /// The security scheme to send (the import lists them all).
    #[arg(long)]
    pub security: Option<String>,
    /// Bind a parameter the model cannot know: `NAME=VALUE`, a constant or
    /// `${VAR}`; it leaves the model's input. Repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    pub bind: Vec<String>,
    /// A shorter form for the model (trimmed descriptions, nested schemas
    /// summarised); arguments are still checked against the full schema.
    #[arg(long)]
    pub compact: bool,
    /// Only operations whose name, operationId or path matches (`*`, `?`).
    #[arg(long)]
    pub include: Vec<String>,
    /// Leave out operations whose name, operationId or path matches.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Only operations with this tag.
    #[arg(long)]
    pub tag: Vec<String>,
    /// Write here (stdout without it); an existing file is merged into, showing contract changes.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// A folder besides the spec's own that `$ref`s may read files from (repeatable).
    #[arg(long = "allow-dir", value_name = "DIR")]
    pub allow_dir: Vec<PathBuf>,
}

pub(super) fn openapi(args: OpenapiArgs) -> anyhow::Result<ExitCode> {
    let bind = args
        .bind
        .iter()
        .map(|b| match b.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
            _ => Err(anyhow::anyhow!(
                "--bind {b}: write NAME=VALUE, e.g. --bind 'account_sid=${{TWILIO_ACCOUNT_SID}}'"
            )),
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let output = args.output;
    let existing = match &output {
        Some(o) if o.exists() => {
            // The file merged into is a config: read with the bounds `check` reads it
            // with, so a FIFO or a 100 MB file is refused rather than read whole.
            Some(
                toolgate_config::read_text_file(o)
                    .map_err(|why| anyhow::anyhow!("cannot read {}: {why}", o.display()))?,
            )
        }
        _ => None,
    };
    let opts = toolgate_import::openapi::Options {
        spec: args.spec,
        dependency: args.dependency,
        base_url: args.base_url,
        owner: args.owner,
        prefix: args.prefix,
        security: args.security,
        bind,
        compact: args.compact,
        include: args.include,
        exclude: args.exclude,
        tags: args.tag,
        existing,
        allow_dirs: args.allow_dir,
    };
    let outcome = toolgate_import::openapi::run(&opts).map_err(|e| anyhow::anyhow!(e))?;
    match &output {
        Some(o) => {
            std::fs::write(o, &outcome.yaml).with_context(|| format!("writing {}", o.display()))?
        }
        None => say_raw!("{}", outcome.yaml),
    }
    for line in &outcome.report {
        eprintln!("{line}");
    }
    // Peak memory, for measuring imports of large specs; off by default.
    if std::env::var_os("TOOLGATE_IMPORT_PEAK_MEMORY").is_some()
        && let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(line) = status.lines().find(|l| l.starts_with("VmHWM"))
    {
        eprintln!("peak memory: {}", line.trim_start_matches("VmHWM:").trim());
    }
    Ok(ExitCode::SUCCESS)
}
