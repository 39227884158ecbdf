//! MCP over stdio: newline-delimited JSON-RPC on stdin/stdout (logs go to stderr).
//!
//! Requests are answered concurrently (a slow tool call does not hold up a `ping`);
//! one writer task owns stdout so lines never interleave. Besides answers it writes what
//! a request sends the client before its answer (notifications, server→client requests,
//! in order, ahead of that answer) and the server's broadcasts; the client's responses
//! to server→client requests are handed to the requests waiting for them. At end of
//! input, or on shutdown (SIGTERM, Ctrl-C), reading stops: requests still waiting for
//! the client fail (it can no longer answer), the rest are finished, and their answers
//! written before returning.

use std::sync::{Arc, Mutex};

use rmcp::model::ProtocolVersion;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::dispatch::{Reply, Server};
use super::jsonrpc::{self, Message};
use super::listen::tagged;
use super::outbound::{self, Outbound, SessionLink};
use toolgate_engine::broadcast::ReaderHandle;
use toolgate_engine::sync::lock;

/// Serves MCP on this process's stdin and stdout until stdin ends or `shutdown`.
pub async fn serve(
    server: Arc<Server>,
    max_message_bytes: usize,
    shutdown: tokio_util::sync::CancellationToken,
) -> std::io::Result<()> {
    serve_io(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        max_message_bytes,
        shutdown,
    )
    .await
}

/// Serves MCP on any byte streams (`serve` uses stdin/stdout; tests use pipes).
pub async fn serve_io<R, W>(
    server: Arc<Server>,
    input: R,
    output: W,
    max_message_bytes: usize,
    shutdown: tokio_util::sync::CancellationToken,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Vec<u8>>(outbound::QUEUE);
    let writer = spawn_writer(output, rx);
    let shared = Shared {
        server: server.clone(),
        session: Arc::default(),
        link: Arc::new(SessionLink::new(None)),
        tx,
        end_of_input: tokio_util::sync::CancellationToken::new(),
    };
    // Broadcasts go to stdout with everything else, until reading stops.
    let stop_broadcasts = tokio_util::sync::CancellationToken::new();
    let broadcasts = spawn_broadcasts(&shared, stop_broadcasts.clone());
    let mut tasks = read_messages(&shared, input, max_message_bytes, &shutdown).await?;
    // Subscriptions end with the input that could cancel them; nobody will answer
    // what is still waiting for the client.
    shared.end_of_input.cancel();
    shared.link.close();
    while tasks.join_next().await.is_some() {}
    stop_broadcasts.cancel();
    let _ = broadcasts.await;
    drop(shared);
    writer.await.map_err(std::io::Error::other)?
}

/// The one task that owns the output: each line written and flushed, until every
/// sender is gone.
fn spawn_writer<W>(
    mut output: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
) -> tokio::task::JoinHandle<std::io::Result<()>>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        while let Some(mut line) = rx.recv().await {
            line.push(b'\n');
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    })
}

/// The server's broadcasts relayed to the output, once the client has initialized,
/// until `stop` or the output is gone.
fn spawn_broadcasts(
    shared: &Shared,
    stop: tokio_util::sync::CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let mut subscriber = shared
        .server
        .broadcast()
        .subscribe(None, shared.link.reader());
    let tx = shared.tx.clone();
    let session = shared.session.clone();
    tokio::spawn(async move {
        loop {
            let batch = tokio::select! {
                () = stop.cancelled() => return,
                batch = subscriber.next() => batch,
            };
            // A client that has not initialized yet is told nothing unasked.
            if lock(&session).is_none() {
                continue;
            }
            for (_, message) in batch {
                if tx.send(message.to_vec()).await.is_err() {
                    return;
                }
            }
        }
    })
}

/// Reads lines until the input ends or `shutdown`, each message answered by a task of
/// its own (an over-long one refused, a blank one skipped); the tasks still running.
async fn read_messages<R: AsyncRead + Unpin>(
    shared: &Shared,
    input: R,
    max_message_bytes: usize,
    shutdown: &tokio_util::sync::CancellationToken,
) -> std::io::Result<tokio::task::JoinSet<()>> {
    let mut tasks = tokio::task::JoinSet::new();
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = tokio::select! {
            () = shutdown.cancelled() => break,
            n = read_line(&mut reader, &mut line, max_message_bytes) => n?,
        };
        if n == 0 {
            break;
        }
        let Some(body) = line.get(..n) else {
            continue;
        };
        if n > max_message_bytes {
            let refusal = jsonrpc::error(
                None,
                jsonrpc::INVALID_REQUEST,
                &format!("Invalid Request: a message is limited to {max_message_bytes} bytes"),
                None,
            );
            if shared.tx.send(refusal).await.is_err() {
                break;
            }
            continue;
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let body = body.to_vec();
        let shared = shared.clone();
        tasks.spawn(shared.answer(body, max_message_bytes));
        // Reap finished tasks so a long session does not accumulate them.
        while tasks.try_join_next().is_some() {}
    }
    Ok(tasks)
}

/// What every message of one stdio session shares.
#[derive(Clone)]
struct Shared {
    server: Arc<Server>,
    /// The version the client's `initialize` negotiated, once it has.
    session: Arc<Mutex<Option<ProtocolVersion>>>,
    /// The client's answers to server→client requests, and its capabilities.
    link: Arc<SessionLink>,
    /// Where lines go to the writer.
    tx: mpsc::Sender<Vec<u8>>,
    end_of_input: tokio_util::sync::CancellationToken,
}

impl Shared {
    /// Answers one message (a `subscriptions/listen` streams until it ends), writing the
    /// answer when there is one.
    async fn answer(self, body: Vec<u8>, max_message_bytes: usize) {
        let answer = match jsonrpc::parse_within(&body, max_message_bytes) {
            Err(refusal) => Some(refusal.to_json()),
            Ok(Message::Request { id, method, params }) if method == "subscriptions/listen" => {
                let outbound = Outbound::new(Some(self.tx.clone()), Some(self.link.clone()), None);
                listen(
                    &self.server,
                    id,
                    params,
                    &outbound,
                    &self.tx,
                    self.end_of_input,
                )
                .await
            }
            Ok(message) => self.handle(message).await,
        };
        if let Some(answer) = answer {
            let _ = self.tx.send(answer).await;
        }
    }

    /// Any other message, handed to the server at the negotiated version; what the
    /// reply negotiates or declares is kept for the session.
    async fn handle(&self, message: Message<'_>) -> Option<Vec<u8>> {
        let version = lock(&self.session).clone();
        let mut outbound = Outbound::new(Some(self.tx.clone()), Some(self.link.clone()), None);
        // A 2026-07-28 request names its own log level (or none: no logs).
        if let Some(meta) = message.params().map(|p| &p.meta)
            && meta.declares_inline()
        {
            outbound = outbound.with_request_log_level(meta.log_level());
        }
        let reply = self
            .server
            .handle(
                message,
                version.as_ref().map(ProtocolVersion::as_str),
                &outbound,
            )
            .await;
        reply.map(|r| {
            if let Some(v) = r.negotiated {
                *lock(&self.session) = Some(v);
            }
            if let Some(c) = r.client_capabilities {
                self.link.set_capabilities(c);
            }
            r.body
        })
    }
}

/// A 2026-07-28 `subscriptions/listen` over stdio: the acknowledgement, then each
/// broadcast the subscription honours as a line of its own, tagged with its id, until
/// the client cancels the request (`notifications/cancelled`, answered as any
/// cancelled request is) or its input ends (nothing more is written for it). What is
/// refused is answered with the error, as over HTTP.
async fn listen(
    server: &Server,
    id: jsonrpc::Id,
    params: Option<super::envelope::Params>,
    outbound: &Outbound,
    lines: &mpsc::Sender<Vec<u8>>,
    end_of_input: tokio_util::sync::CancellationToken,
) -> Option<Vec<u8>> {
    let reader = ReaderHandle::default();
    // Subscribed before the acknowledgement is worked out: nothing sent meanwhile is
    // missed.
    let mut subscriber = server.broadcast().subscribe(None, reader.id());
    let (honoured, ack) = match server.listen(&id, params, outbound, &reader).await {
        Ok(opened) => opened,
        Err(refused) => return Some(refused.body),
    };
    lines.send(ack).await.ok()?;
    let streaming = std::pin::pin!(async {
        loop {
            let batch = tokio::select! {
                () = end_of_input.cancelled() => break,
                batch = subscriber.next() => batch,
            };
            for (_, json) in batch {
                if let Some(message) = tagged(&id, &honoured, &json)
                    && lines.send(message).await.is_err()
                {
                    // Nothing is written any more.
                    return Reply::closed();
                }
            }
        }
        Reply::closed()
    });
    let reply = server.cancellable(&id, outbound, streaming).await;
    // The resources it followed are let go with its reader.
    drop(reader);
    (!end_of_input.is_cancelled() && !reply.body.is_empty()).then_some(reply.body)
}

/// Reads one line (without its newline) into `buf`, keeping at most `limit + 1` bytes
/// of it (the rest of an over-long line is skipped). Returns the line's length as kept
/// (so `limit + 1` means "too long"), or 0 at end of input.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<usize> {
    let mut seen_any = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            // End of input; a last line without a newline still counts.
            return Ok(if seen_any { buf.len().max(1) } else { 0 });
        }
        seen_any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1),
            None => (chunk, chunk.len()),
        };
        let room = (limit + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        let found_newline = done > part.len();
        reader.consume(done);
        if found_newline {
            // A blank line reads as length 1 of whitespace so it is not taken for EOF.
            if buf.is_empty() {
                buf.push(b' ');
            }
            return Ok(buf.len());
        }
    }
}

#[cfg(test)]
mod tests;
