//! The command line: the arguments of every command and the dispatch; each command
//! lives in its own file (`serve`, `reload`, `relearn`, `check`, `lock`, `diff`, `incidents`,
//! `audit`, `probe`, `import openapi`; `status` is the engine's), the generated artefacts in
//! `print`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Prints to stdout, ignoring a closed pipe (`toolgate alerts grafana | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Like `say!` without the newline.
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

mod admin;
mod audit;
mod check;
mod diff;
mod hash_key;
mod import;
mod incidents;
mod lock;
mod print;
mod probe;
mod relearn;
mod reload;
mod serve;

/// An agent-aware tool gateway.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about)]
pub struct Cli {
    /// Log format on stderr.
    #[arg(long, global = true, default_value = "text", value_parser = ["text", "json"])]
    log_format: String,
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up and consumed: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over streamable HTTP (default) or stdio.
    Serve {
        /// Config file.
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Run the built-in demo: a demo upstream on loopback and a config for it.
        #[arg(long)]
        demo: bool,
        /// Serve MCP on stdin/stdout instead of HTTP.
        #[arg(long)]
        stdio: bool,
        /// Override the listen address (with --stdio, also serve /metrics there).
        #[arg(long)]
        listen: Option<SocketAddr>,
    },
    /// Validate a config file and report every error.
    Check {
        /// Config file.
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
    },
    /// Pin the tool, prompt and resource template definitions of the MCP servers in the
    /// config: connect, list them, and write them into each server's lockfile. A serving
    /// toolgate takes the new pins within seconds, so review first: `--dry-run` shows
    /// every pending change and writes nothing; then accept what was reviewed with
    /// `--server` (and `--tool`, `--prompt` or `--resource-template`).
    Lock {
        /// Config file.
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Only this server (repeatable); the other servers' pins stay as they are.
        #[arg(long = "server", value_name = "NAME")]
        servers: Vec<String>,
        /// Only this tool, by the upstream's name or the exposed one (repeatable); its
        /// server's other changes stay pending.
        #[arg(long = "tool", value_name = "NAME")]
        tools: Vec<String>,
        /// Only this prompt, by the upstream's name or the exposed one (repeatable): a
        /// prompt may share a tool's name, and accepting one never accepts the other.
        #[arg(long = "prompt", value_name = "NAME")]
        prompts: Vec<String>,
        /// Only this resource template, by its URI template (repeatable).
        #[arg(long = "resource-template", value_name = "URI_TEMPLATE")]
        resource_templates: Vec<String>,
        /// Show each pending change in full (the changed text, the schema diff) and write
        /// nothing.
        #[arg(long)]
        dry_run: bool,
        /// Like --dry-run, and exit 1 when anything is pending (2 when a server cannot be
        /// listed): for CI.
        #[arg(long, conflicts_with = "dry_run")]
        check: bool,
    },
    /// Diff a response against a JSON Schema, as drift detection would.
    Diff {
        /// JSON Schema file (JSON or YAML).
        schema: PathBuf,
        /// Response body (JSON).
        response: PathBuf,
    },
    /// List incidents from the state store.
    Incidents {
        /// Config file (for the state path).
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Read this state file instead of the config's.
        #[arg(long)]
        state: Option<PathBuf>,
        /// Read the state store of `serve --demo` (started in this directory).
        #[arg(long, conflicts_with = "state")]
        demo: bool,
        /// Include resolved incidents.
        #[arg(long)]
        all: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The audit trail: recorded tool calls, newest first, from the state store.
    Audit {
        /// Config file (for the state store).
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Only this agent's calls (`anonymous` for calls without one).
        #[arg(long)]
        agent: Option<String>,
        /// Only calls of this tool.
        #[arg(long)]
        tool: Option<String>,
        /// Only calls with this outcome: `ok` or an error class (e.g. `rate_limited`).
        #[arg(long)]
        class: Option<String>,
        /// Only calls since this time: RFC 3339, or a duration back from now (`1h`, `7d`).
        #[arg(long)]
        since: Option<String>,
        /// Only calls before this time: RFC 3339, or a duration back from now.
        #[arg(long)]
        until: Option<String>,
        /// At most this many records (at most 10000).
        #[arg(long, default_value_t = 100)]
        limit: u32,
        /// Print JSON lines (one record per line), for export.
        #[arg(long)]
        json: bool,
    },
    /// Run contract probes once (for cron and CI); exit 1 on drift, 2 on other failures.
    Probe {
        /// Config file.
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Only this tool (it may have no `probe:` section; it is called without arguments then).
        #[arg(long)]
        tool: Option<String>,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json", "junit"])]
        format: String,
    },
    /// Per-tool calls, success rate, retries, recovery rate and open incidents of a running server.
    Status {
        /// Config file (for the server address and token).
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Server base URL (default: from the config's gateway.listen).
        #[arg(long)]
        url: Option<String>,
        /// Ask a running `serve --demo` (no config file needed).
        #[arg(long)]
        demo: bool,
        /// Print the JSON instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Make a running server read its config file again (POST /admin/reload): what did
    /// not change keeps its state; a file with errors is rejected, every error printed,
    /// and the config in force keeps serving (exit 1). `kill -HUP` does the same.
    Reload {
        /// Config file (for the server address and token; the server reads its own).
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// Server base URL (default: from the config's gateway.listen).
        #[arg(long)]
        url: Option<String>,
        /// Print the server's JSON answer.
        #[arg(long)]
        json: bool,
    },
    /// Make a tool's learned contract start over on the running server, after its owner
    /// accepted a changed shape: what was learned is dropped (and its pin removed from the
    /// lockfile), open contract-drift incidents of the tool are resolved, and the tool
    /// learns again from its next responses.
    Relearn {
        /// Config file (for the server address and token).
        #[arg(long, short, env = "TOOLGATE_CONFIG", default_value = "toolgate.yaml")]
        config: PathBuf,
        /// The tool, by its exposed name.
        tool: String,
        /// Server base URL (default: from the config's gateway.listen).
        #[arg(long)]
        url: Option<String>,
        /// Print the server's JSON answer.
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON Schema of the config file.
    ConfigSchema,
    /// Print the SHA-256 of an agent's API key, for `agents.<name>.api_key_sha256`. The
    /// key is read from stdin (never an argument: arguments end up in shell history and
    /// process lists); `--generate` makes a new random key and prints it with its hash.
    HashKey {
        /// Generate a new key (printed once: hand it to the agent, keep only the hash).
        #[arg(long)]
        generate: bool,
    },
    /// Print the JSON Schema of `_meta["dev.toolgate/signals"]`.
    SignalsSchema,
    /// Generate tools with contracts from an API description.
    Import {
        #[command(subcommand)]
        what: ImportCommand,
    },
    /// Print alerting artefacts for external monitoring.
    Alerts {
        #[command(subcommand)]
        what: AlertsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum ImportCommand {
    /// A Swagger 2.0 / OpenAPI 3.0 / 3.1 file (JSON or YAML) → a config that passes `check`.
    Openapi(import::OpenapiArgs),
}

#[derive(Debug, Subcommand)]
enum AlertsCommand {
    /// Prometheus alerting rules for toolgate's metrics.
    Prometheus,
    /// A Grafana dashboard (JSON) for toolgate's metrics.
    Grafana,
}

/// Runs the CLI; the exit code says whether it worked.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toolgate: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli.command));
    // With --stdio a blocking thread may still wait on stdin after a SIGTERM; every
    // task that matters has finished by now, so the process waits for it only briefly.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("toolgate: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(format: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TOOLGATE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    // Logs go to stderr: with --stdio, stdout carries the MCP protocol.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if format == "json" {
        builder.json().init();
    } else {
        builder.compact().init();
    }
}

async fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Serve {
            config,
            demo,
            stdio,
            listen,
        } => serve::serve(&config, demo, stdio, listen).await,
        Command::Check { config } => Ok(check::check(&config)),
        Command::Lock {
            config,
            servers,
            tools,
            prompts,
            resource_templates,
            dry_run,
            check,
        } => {
            let options = toolgate_engine::fronting::lock::Options {
                servers,
                tools,
                prompts,
                resource_templates,
                dry_run: dry_run || check,
            };
            lock::lock(&config, &options, check).await
        }
        Command::Diff { schema, response } => diff::diff(&schema, &response),
        Command::Incidents {
            config,
            state,
            demo,
            all,
            json,
        } => {
            let state = if demo {
                Some(incidents::demo_state()?)
            } else {
                state
            };
            incidents::incidents(&config, state, all, json).await
        }
        Command::Audit {
            config,
            agent,
            tool,
            class,
            since,
            until,
            limit,
            json,
        } => {
            let filters = audit::Filters {
                agent,
                tool,
                class,
                since,
                until,
                limit,
            };
            audit::audit(&config, filters, json).await
        }
        Command::Alerts { what } => print::alerts(what),
        Command::Probe {
            config,
            tool,
            format,
        } => probe::probe(&config, tool.as_deref(), &format).await,
        Command::Status {
            config: _,
            url,
            demo: true,
            json,
        } => toolgate_engine::status::run_with(&crate::demo::offline_config()?, url, json).await,
        Command::Status {
            config,
            url,
            demo: false,
            json,
        } => toolgate_engine::status::run(&config, url, json).await,
        Command::Import {
            what: ImportCommand::Openapi(args),
        } => import::openapi(args),
        Command::Reload { config, url, json } => reload::reload(&config, url, json).await,
        Command::Relearn {
            config,
            tool,
            url,
            json,
        } => relearn::relearn(&config, &tool, url, json).await,
        Command::ConfigSchema => print::config_schema(),
        Command::HashKey { generate } => hash_key::hash_key(generate),
        Command::SignalsSchema => print::signals_schema(),
    }
}

/// `path` made absolute against the current directory, for printing where a file is.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
