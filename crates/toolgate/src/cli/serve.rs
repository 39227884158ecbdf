//! `toolgate serve`: the gateway over streamable HTTP or stdio, the demo, and a
//! graceful shutdown on SIGTERM.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

use toolgate_config as config;
use toolgate_engine::gateway::Gateway;
use toolgate_store::Store;

use super::absolute;

pub(super) async fn serve(
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
