//! The command line: `serve`, `check`, `diff`, `incidents`, `probe`, `status`,
//! `config-schema`, `signals-schema`, `alerts`, `import openapi`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use tokio_util::sync::CancellationToken;

use toolgate_config as config;
use toolgate_engine::gateway::Gateway;
use toolgate_store::Store;

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
    /// Pin the tool definitions of the MCP servers in the config: connect, list the
    /// tools, and write them into each server's lockfile. A serving toolgate takes the
    /// new pins within seconds, so review first: `--dry-run` shows every pending change
    /// and writes nothing; then accept what was reviewed with `--server` (and `--tool`).
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
    /// Print the JSON Schema of the config file.
    ConfigSchema,
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
    Openapi {
        /// The spec file.
        spec: PathBuf,
        /// Dependency name (default: from the spec's title).
        #[arg(long)]
        dependency: Option<String>,
        /// Base URL instead of the spec's first server.
        #[arg(long)]
        base_url: Option<String>,
        /// Owner of every tool: the person or rota alerted when a contract drifts
        /// (without it, a placeholder `check` refuses).
        #[arg(long)]
        owner: Option<String>,
        /// Prefix of every tool name, e.g. `stripe_` (several APIs in one file).
        #[arg(long)]
        prefix: Option<String>,
        /// The security scheme to send (the import lists them all).
        #[arg(long)]
        security: Option<String>,
        /// Bind a parameter the model cannot know: `NAME=VALUE`, a constant or
        /// `${VAR}`; it leaves the model's input. Repeatable.
        #[arg(long, value_name = "NAME=VALUE")]
        bind: Vec<String>,
        /// A shorter form for the model (trimmed descriptions, nested schemas
        /// summarised); arguments are still checked against the full schema.
        #[arg(long)]
        compact: bool,
        /// Only operations whose name, operationId or path matches (`*`, `?`).
        #[arg(long)]
        include: Vec<String>,
        /// Leave out operations whose name, operationId or path matches.
        #[arg(long)]
        exclude: Vec<String>,
        /// Only operations with this tag.
        #[arg(long)]
        tag: Vec<String>,
        /// Write here (stdout without it); an existing file is merged into, showing contract changes.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// A folder besides the spec's own that `$ref`s may read files from (repeatable).
        #[arg(long = "allow-dir", value_name = "DIR")]
        allow_dir: Vec<PathBuf>,
    },
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
        } => serve(&config, demo, stdio, listen).await,
        Command::Check { config } => Ok(check(&config)),
        Command::Lock {
            config,
            servers,
            tools,
            dry_run,
            check,
        } => {
            let options = toolgate_engine::fronting::lock::Options {
                servers,
                tools,
                dry_run: dry_run || check,
            };
            lock(&config, &options, check).await
        }
        Command::Diff { schema, response } => diff(&schema, &response),
        Command::Incidents {
            config,
            state,
            demo,
            all,
            json,
        } => {
            let state = if demo {
                let path = crate::demo::offline_config()?.gateway.state;
                // Opening the store would create an empty one here and report no
                // incidents: say instead that this is not where the demo ran.
                if !path.exists() {
                    anyhow::bail!(
                        "no demo state store at {}: run this in the directory `toolgate serve --demo` runs in (it prints the store's path at start-up)",
                        absolute(&path).display()
                    );
                }
                Some(path)
            } else {
                state
            };
            incidents(&config, state, all, json).await
        }
        Command::Alerts {
            what: AlertsCommand::Prometheus,
        } => {
            say_raw!("{}", crate::alerts::prometheus::rules_yaml());
            Ok(ExitCode::SUCCESS)
        }
        Command::Alerts {
            what: AlertsCommand::Grafana,
        } => {
            say!(
                "{}",
                serde_json::to_string_pretty(&crate::alerts::grafana::dashboard())?
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Probe {
            config,
            tool,
            format,
        } => probe(&config, tool.as_deref(), &format).await,
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
            what:
                ImportCommand::Openapi {
                    spec,
                    dependency,
                    base_url,
                    owner,
                    prefix,
                    security,
                    bind,
                    compact,
                    include,
                    exclude,
                    tag,
                    output,
                    allow_dir,
                },
        } => {
            let bind = bind
                .iter()
                .map(|b| match b.split_once('=') {
                    Some((k, v)) if !k.trim().is_empty() => {
                        Ok((k.trim().to_string(), v.to_string()))
                    }
                    _ => Err(anyhow::anyhow!(
                        "--bind {b}: write NAME=VALUE, e.g. --bind 'account_sid=${{TWILIO_ACCOUNT_SID}}'"
                    )),
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let existing = match &output {
                Some(o) if o.exists() => Some(
                    std::fs::read_to_string(o)
                        .with_context(|| format!("reading {}", o.display()))?,
                ),
                _ => None,
            };
            let opts = toolgate_import::openapi::Options {
                spec,
                dependency,
                base_url,
                owner,
                prefix,
                security,
                bind,
                compact,
                include,
                exclude,
                tags: tag,
                existing,
                allow_dirs: allow_dir,
            };
            let outcome = toolgate_import::openapi::run(&opts).map_err(|e| anyhow::anyhow!(e))?;
            match &output {
                Some(o) => std::fs::write(o, &outcome.yaml)
                    .with_context(|| format!("writing {}", o.display()))?,
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
        Command::ConfigSchema => {
            say!("{}", serde_json::to_string_pretty(&config::json_schema())?);
            Ok(ExitCode::SUCCESS)
        }
        Command::SignalsSchema => {
            say!(
                "{}",
                serde_json::to_string_pretty(&toolgate_engine::pipeline::signals_schema())?
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn check(path: &Path) -> ExitCode {
    match config::load(path) {
        Ok(c) if !crate::build::missing(&c).is_empty() => {
            for missing in crate::build::missing(&c) {
                eprintln!("error: {missing}");
            }
            ExitCode::FAILURE
        }
        Ok(c) => {
            let apis = c.dependencies.len() - c.mcp_servers.len();
            let servers = if c.mcp_servers.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} MCP server{}",
                    c.mcp_servers.len(),
                    if c.mcp_servers.len() == 1 { "" } else { "s" }
                )
            };
            say!(
                "{}: ok — {} dependenc{}, {} tool{}{servers}",
                path.display(),
                apis,
                if apis == 1 { "y" } else { "ies" },
                c.tools.len(),
                if c.tools.len() == 1 { "" } else { "s" }
            );
            let mut ok = true;
            for (name, server) in &c.mcp_servers {
                match toolgate_contract::Lockfile::read(&server.lock) {
                    Ok(Some(l)) if l.server(name).is_some() => say!(
                        "  MCP server {name}: {} tools pinned in {}",
                        l.server(name).map_or(0, |p| p.tools.len()),
                        server.lock.display()
                    ),
                    Ok(_) => say!(
                        "  MCP server {name}: no pins in {} yet — `toolgate serve` pins what it first sees; run `toolgate lock -c {}` to pin them now",
                        server.lock.display(),
                        path.display()
                    ),
                    Err(e) => {
                        eprintln!("error: MCP server {name}: {e}");
                        ok = false;
                    }
                }
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(errors) => {
            eprintln!("{errors}");
            ExitCode::FAILURE
        }
    }
}

async fn lock(
    path: &Path,
    options: &toolgate_engine::fronting::lock::Options,
    check: bool,
) -> anyhow::Result<ExitCode> {
    let config = match config::load(path) {
        Ok(c) => c,
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    lock_learned(&config, options.dry_run).await?;
    if config.mcp_servers.is_empty() {
        say!("{}: no MCP servers to lock", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let report = match toolgate_engine::fronting::lock::lock(&config, options).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut failed = false;
    let mut pending = false;
    for locked in &report {
        let server = &locked.server;
        match &locked.result {
            Ok(n) if options.dry_run => {
                if locked.pending() {
                    pending = true;
                    let count = locked.changes.len();
                    say!(
                        "{server}: {} pending review in {} (nothing written{}):",
                        if locked.first {
                            format!(
                                "not locked yet, {n} tool{} to pin",
                                if *n == 1 { "" } else { "s" }
                            )
                        } else {
                            format!("{count} change{}", if count == 1 { "" } else { "s" })
                        },
                        locked.path.display(),
                        if check { "" } else { ", --dry-run" }
                    );
                } else {
                    say!(
                        "{server}: up to date with {} ({n} tools pinned)",
                        locked.path.display()
                    );
                }
                for change in &locked.changes {
                    for line in toolgate_engine::fronting::lock::review(change, &locked.new_tools) {
                        say!("  {line}");
                    }
                }
            }
            Ok(n) => {
                if locked.writes {
                    say!(
                        "{server}: {n} tool{} pinned in {}",
                        if *n == 1 { "" } else { "s" },
                        locked.path.display()
                    );
                } else {
                    say!(
                        "{server}: up to date with {} ({n} tools pinned)",
                        locked.path.display()
                    );
                }
                if !locked.first {
                    for change in &locked.changes {
                        say!("  accepted: {}", change.summary());
                    }
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("{server}: not locked (its previous pins are kept): {e}");
            }
        }
        if locked.left_pending > 0 {
            say!(
                "  {} other change{} of {server} left pending (not selected by --tool)",
                locked.left_pending,
                if locked.left_pending == 1 { "" } else { "s" }
            );
        }
        if let Some(refused) = &locked.refused {
            say!("  refused for the server's limits (not pinned): {refused}");
        }
    }
    if options.dry_run && pending && !check {
        let all: Vec<&str> = report
            .iter()
            .filter(|l| l.pending())
            .map(|l| l.server.as_str())
            .collect();
        say!(
            "accept after review with: toolgate lock -c {} --server {}",
            path.display(),
            all.join(" --server ")
        );
    }
    Ok(if failed && check {
        ExitCode::from(2)
    } else if check && pending {
        ExitCode::from(1)
    } else if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Pins the contracts the running gateway learned into the config's lockfile, with
/// their sample counts and when they were learned; a restart resumes from them.
async fn lock_learned(config: &config::Config, dry_run: bool) -> anyhow::Result<()> {
    let pins = match toolgate_engine::status::fetch_learned(config, None).await {
        Ok(p) => p,
        Err(e) => {
            say!("learned contracts: not pinned ({e:#})");
            return Ok(());
        }
    };
    if pins.is_empty() {
        return Ok(());
    }
    let path = &config.gateway.lockfile;
    let mut file = toolgate_contract::Lockfile::read(path)?.unwrap_or_default();
    for (tool, pin) in pins {
        say!(
            "{tool}: learned contract of {} responses{} {} {}",
            pin.samples,
            if pin.capped { " (capped)" } else { "" },
            if dry_run {
                "would be pinned in"
            } else {
                "pinned in"
            },
            path.display()
        );
        file.learned.insert(tool, pin);
    }
    if !dry_run {
        file.write(path)?;
    }
    Ok(())
}

async fn serve(
    path: &Path,
    demo: bool,
    stdio: bool,
    listen: Option<SocketAddr>,
) -> anyhow::Result<ExitCode> {
    let shutdown = CancellationToken::new();
    let mut demo_router = None;
    let config = if demo {
        let (config, router) = crate::demo::start(listen, shutdown.clone()).await?;
        demo_router = Some(router);
        config
    } else {
        match config::load(path) {
            Ok(c) => c,
            Err(errors) => {
                eprintln!("{errors}");
                return Ok(ExitCode::FAILURE);
            }
        }
    };
    let store = Store::connect(&config.gateway)
        .await
        .context("opening the state store")?;
    let listen_addr = listen.unwrap_or(config.gateway.listen);
    let gateway = Gateway::new(config, store)?;
    gateway.restore().await;
    let background = toolgate_engine::background::Background::start(&gateway);
    background
        .servers_checked(toolgate_engine::fronting::STARTUP_WAIT)
        .await;

    spawn_signal_handler(shutdown.clone());

    if stdio {
        if listen.is_some() {
            spawn_http(gateway.clone(), listen_addr, shutdown.clone(), demo_router).await?;
        }
        tracing::info!(
            tools = listed_tools(&gateway),
            state = %gateway.store().describe(),
            "serving MCP on stdio"
        );
        let server = Arc::new(toolgate_server::mcp::dispatch::Server::new(gateway.clone()));
        let max = gateway.config().gateway.max_request_bytes;
        let result = toolgate_server::mcp::stdio::serve(server, max, shutdown.clone()).await;
        shutdown.cancel();
        background.stop(SHUTDOWN_FLUSH).await;
        result?;
        return Ok(ExitCode::SUCCESS);
    }
    let listener = tokio::net::TcpListener::bind(listen_addr)
        .await
        .with_context(|| {
            format!("cannot listen on {listen_addr} (use --listen to pick another address)")
        })?;
    let local = listener.local_addr()?;
    tracing::info!(
        mcp = %format!("http://{local}/mcp"),
        metrics = %format!("http://{local}/metrics"),
        tools = listed_tools(&gateway),
        state = %gateway.store().describe(),
        demo,
        "toolgate is serving"
    );
    if demo {
        eprintln!(
            "\ntoolgate demo: MCP at http://{local}/mcp\n  state store:  {} (read it with `toolgate incidents --demo` from this directory; `toolgate status --demo` asks the server)\n  switch the search API's rename on:  curl -X POST http://{local}/demo/control -H 'content-type: application/json' -d '{{\"search_field\":\"excerpt\"}}'\n  and off again:                     curl -X POST http://{local}/demo/control -H 'content-type: application/json' -d '{{\"search_field\":\"snippet\"}}'\n",
            absolute(&gateway.config().gateway.state).display()
        );
    }
    let router = toolgate_server::server::router(
        gateway.clone(),
        shutdown.clone(),
        demo_router.map(|r| axum::Router::new().nest("/demo", r)),
    );
    let limits = toolgate_server::server::Limits::from_config(&gateway.config().gateway);
    toolgate_server::server::serve_with(listener, router, shutdown, limits).await?;
    tracing::info!("stopped serving");
    // The listener has drained: write out what the last calls raised and deliver it.
    background.stop(SHUTDOWN_FLUSH).await;
    Ok(ExitCode::SUCCESS)
}

/// How long a stopping server may take to write its incidents and deliver them.
const SHUTDOWN_FLUSH: std::time::Duration = std::time::Duration::from_secs(10);

/// What `tools/list` returns: the configured tools and the built-in `dependency_health`.
fn listed_tools(gateway: &Gateway) -> usize {
    gateway.routes().len() + 1
}

/// `path` made absolute against the current directory, for printing where a file is.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// SIGTERM (Kubernetes, systemd) and Ctrl-C both start a graceful shutdown.
fn spawn_signal_handler(shutdown: CancellationToken) {
    tokio::spawn(async move {
        #[cfg(unix)]
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for SIGTERM");
                    std::future::pending::<()>().await;
                }
            }
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = term => {}
        }
        tracing::info!(
            "shutting down: no new connections; letting calls in flight finish (gateway.drain)"
        );
        shutdown.cancel();
    });
}

async fn spawn_http(
    gateway: Arc<Gateway>,
    addr: SocketAddr,
    shutdown: CancellationToken,
    demo: Option<axum::Router>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let limits = toolgate_server::server::Limits::from_config(&gateway.config().gateway);
    let router = toolgate_server::server::router(
        gateway,
        shutdown.clone(),
        demo.map(|r| axum::Router::new().nest("/demo", r)),
    );
    tokio::spawn(toolgate_server::server::serve_with(
        listener, router, shutdown, limits,
    ));
    Ok(())
}

async fn probe(path: &Path, only: Option<&str>, format: &str) -> anyhow::Result<ExitCode> {
    let config = match config::load(path) {
        Ok(c) => c,
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let store = Store::connect(&config.gateway)
        .await
        .context("opening the state store")?;
    let gateway = Gateway::new(config, store)?;
    gateway.restore().await;
    let background = toolgate_engine::background::Background::incidents_only(&gateway);
    // Upstream MCP servers' tools are known once each has been checked (or from pins).
    for server in gateway.fronting().servers() {
        let _ = tokio::time::timeout(
            toolgate_engine::fronting::STARTUP_WAIT,
            server.check(gateway.as_ref()),
        )
        .await;
    }
    let tools: Vec<_> = match only {
        Some(name) => match gateway.tool(name) {
            Some(t) => vec![t],
            None => anyhow::bail!("no tool named `{name}` in {}", path.display()),
        },
        None => {
            let mut tools: Vec<_> = gateway
                .routes()
                .values()
                .filter(|r| r.spec.probe.is_some())
                .map(|r| r.spec.clone())
                .collect();
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            tools
        }
    };
    if tools.is_empty() {
        eprintln!(
            "no tool in {} has a `probe:` section; add one, or name a tool with --tool",
            path.display()
        );
        return Ok(ExitCode::from(2));
    }
    let mut reports = Vec::new();
    for tool in &tools {
        reports.push(toolgate_engine::watch::probe::probe(&gateway, tool).await);
    }
    background.stop(std::time::Duration::from_secs(15)).await;
    match format {
        "json" => say!("{}", serde_json::to_string_pretty(&reports)?),
        "junit" => say_raw!("{}", toolgate_engine::watch::probe::junit(&reports)),
        _ => {
            for r in &reports {
                if r.ok {
                    say!(
                        "ok    {} (contract v{}, {} ms)",
                        r.tool,
                        r.contract_version,
                        r.elapsed_ms
                    );
                } else {
                    say!(
                        "FAIL  {} (contract v{}, owner {}): {}",
                        r.tool,
                        r.contract_version,
                        r.owner,
                        r.message.as_deref().unwrap_or("")
                    );
                }
            }
        }
    }
    let drift = reports
        .iter()
        .any(|r| r.error_class.as_deref() == Some("contract_drift"));
    let failed = reports.iter().any(|r| !r.ok);
    Ok(if drift {
        ExitCode::from(1)
    } else if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

fn diff(schema_path: &Path, response_path: &Path) -> anyhow::Result<ExitCode> {
    let schema_text = std::fs::read_to_string(schema_path)
        .with_context(|| format!("reading {}", schema_path.display()))?;
    let schema: serde_json::Value = serde_json::from_str(&schema_text)
        .or_else(|_| yaml_serde::from_str(&schema_text))
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

async fn incidents(
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
