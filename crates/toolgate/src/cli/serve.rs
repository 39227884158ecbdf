//! `toolgate serve`: the gateway over streamable HTTP or stdio, the demo, a reload of
//! the config file on SIGHUP, and a graceful shutdown on SIGTERM: readiness fails at
//! once, requests are served for `gateway.shutdown_delay`, then calls in flight drain.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use toolgate_config as config;
use toolgate_engine::gateway::Gateway;
use toolgate_engine::reload::Current;
use toolgate_server::server::Shutdown;
use toolgate_store::Store;

use super::absolute;

pub(super) async fn serve(
    path: &Path,
    demo: bool,
    stdio: bool,
    listen: Option<SocketAddr>,
) -> anyhow::Result<ExitCode> {
    let shutdown = Shutdown::new();
    let mut demo_router = None;
    let config = if demo {
        let (config, router) = crate::demo::start(listen, shutdown.stop.clone()).await?;
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
    // The demo's config is built in memory: there is no file to reload. A reload reads
    // the path as given, like this load did, so paths derived from it (the lockfile)
    // compare equal.
    let current = Current::new(gateway.clone(), (!demo).then(|| path.to_path_buf()));
    current.start_background();
    current
        .servers_checked(toolgate_engine::fronting::STARTUP_WAIT)
        .await;

    spawn_signal_handler(shutdown.clone(), current.clone());
    if !demo && gateway.config().gateway.reload_watch {
        tokio::spawn(
            current
                .clone()
                .watch_file(toolgate_engine::reload::watch::EVERY, shutdown.stop.clone()),
        );
    }

    if stdio {
        let http = listen.map(|_| listen_addr);
        serve_stdio(gateway, &current, &shutdown, http, demo_router).await?;
    } else {
        serve_http(gateway, &current, &shutdown, listen_addr, demo, demo_router).await?;
    }
    Ok(ExitCode::SUCCESS)
}

/// MCP on stdin/stdout until the client closes it, and over HTTP too when `--listen`
/// was given.
async fn serve_stdio(
    gateway: Arc<Gateway>,
    current: &Arc<Current>,
    shutdown: &Shutdown,
    http: Option<SocketAddr>,
    demo_router: Option<axum::Router>,
) -> anyhow::Result<()> {
    if let Some(listen_addr) = http {
        spawn_http(current.clone(), listen_addr, shutdown, demo_router).await?;
    }
    tracing::info!(
        tools = listed_tools(&gateway),
        state = %gateway.store().describe(),
        "serving MCP on stdio"
    );
    let server = Arc::new(toolgate_server::mcp::dispatch::Server::serving(
        current.clone(),
    ));
    let max = gateway.config().gateway.max_request_bytes;
    let result = toolgate_server::mcp::stdio::serve(server, max, shutdown.stop.clone()).await;
    shutdown.stop.cancel();
    current.stop(SHUTDOWN_FLUSH).await;
    Ok(result?)
}

/// MCP, metrics, probes and the console over HTTP until shutdown, then the drain.
async fn serve_http(
    gateway: Arc<Gateway>,
    current: &Arc<Current>,
    shutdown: &Shutdown,
    listen_addr: SocketAddr,
    demo: bool,
    demo_router: Option<axum::Router>,
) -> anyhow::Result<()> {
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
    let router = toolgate_server::server::router_serving(
        current.clone(),
        shutdown,
        demo_router.map(|r| axum::Router::new().nest("/demo", r)),
    );
    let limits = toolgate_server::server::Limits::from_config(&gateway.config().gateway);
    let threads =
        toolgate_server::server::ServingThreads::start(gateway.config().gateway.serving_threads)
            .map(Arc::new);
    tracing::debug!(
        serving_threads = threads.as_ref().map_or(0, |t| t.len()),
        "client connections are served by their own threads"
    );
    drop(gateway);
    toolgate_server::server::serve_on(
        listener,
        router,
        shutdown.stop.clone(),
        limits,
        threads.clone(),
    )
    .await?;
    tracing::info!("stopped serving");
    // The listener has drained: write out what the last calls raised and deliver it.
    current.stop(SHUTDOWN_FLUSH).await;
    // Only now: what the last calls started on a serving thread has finished.
    drop(threads);
    Ok(())
}

/// How long a stopping server may take to write its incidents and deliver them.
const SHUTDOWN_FLUSH: std::time::Duration = std::time::Duration::from_secs(10);

/// What `tools/list` returns: the configured tools and the built-in `dependency_health`.
fn listed_tools(gateway: &Gateway) -> usize {
    gateway.routes().len() + 1
}

/// SIGTERM (Kubernetes, systemd) and Ctrl-C both start a graceful shutdown: readiness
/// fails at once, requests are served for `gateway.shutdown_delay`, then the listener
/// stops and calls in flight get `gateway.drain`. SIGHUP reloads the config file.
fn spawn_signal_handler(shutdown: Shutdown, current: Arc<Current>) {
    #[cfg(unix)]
    spawn_reload_on_hangup(current.clone());
    tokio::spawn(async move {
        #[cfg(unix)]
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for SIGTERM");
                    None
                }
            };
        #[cfg(not(unix))]
        let mut term: Option<()> = None;
        stop_signal(&mut term).await;
        let delay = current.load().config().gateway.shutdown_delay;
        tracing::info!(
            delay = ?delay,
            "shutting down: /readyz answers 503; requests are still served for gateway.shutdown_delay, then calls in flight get gateway.drain (a second signal skips the delay)"
        );
        shutdown.begin(delay);
        // An operator who asks twice does not wait for the delay.
        tokio::select! {
            () = stop_signal(&mut term) => {
                if !shutdown.stop.is_cancelled() {
                    tracing::info!("second stop signal: no new connections from now on");
                }
                shutdown.stop.cancel();
            }
            () = shutdown.stop.cancelled() => {}
        }
    });
}

/// Waits for Ctrl-C or, on Unix, SIGTERM.
#[cfg(unix)]
async fn stop_signal(term: &mut Option<tokio::signal::unix::Signal>) {
    let term = async {
        match term {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// Waits for Ctrl-C.
#[cfg(not(unix))]
async fn stop_signal(_term: &mut Option<()>) {
    let _ = tokio::signal::ctrl_c().await;
}

/// Each SIGHUP reloads the config file (one reload at a time; the outcome is logged).
#[cfg(unix)]
fn spawn_reload_on_hangup(current: Arc<Current>) {
    tokio::spawn(async move {
        let mut hangup = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGHUP: reload with `toolgate reload`");
                return;
            }
        };
        while hangup.recv().await.is_some() {
            tracing::info!("SIGHUP: reloading the config file");
            let _ = current.reload_by(toolgate_engine::reload::BY_SIGNAL).await;
        }
    });
}

async fn spawn_http(
    current: Arc<Current>,
    addr: SocketAddr,
    shutdown: &Shutdown,
    demo: Option<axum::Router>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let limits = toolgate_server::server::Limits::from_config(&current.load().config().gateway);
    let router = toolgate_server::server::router_serving(
        current,
        shutdown,
        demo.map(|r| axum::Router::new().nest("/demo", r)),
    );
    tokio::spawn(toolgate_server::server::serve_with(
        listener,
        router,
        shutdown.stop.clone(),
        limits,
    ));
    Ok(())
}
