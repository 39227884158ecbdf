//! MCP over stdio: newline-delimited JSON-RPC on stdin/stdout (logs go to stderr).
//!
//! Requests are answered concurrently (a slow tool call does not hold up a `ping`);
//! one writer task owns stdout so answers never interleave. At end of input, or on
//! shutdown (SIGTERM, Ctrl-C), reading stops; the requests still running are finished
//! and their answers written before returning.

use std::sync::{Arc, Mutex};

use rmcp::model::ProtocolVersion;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::dispatch::Server;
use super::jsonrpc;

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
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(mut line) = rx.recv().await {
            line.push(b'\n');
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    // The version the client's `initialize` negotiated, once it has.
    let session: Arc<Mutex<Option<ProtocolVersion>>> = Arc::default();
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
            if tx.send(refusal).await.is_err() {
                break;
            }
            continue;
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let body = body.to_vec();
        let server = server.clone();
        let session = session.clone();
        let tx = tx.clone();
        tasks.spawn(async move {
            let answer = match jsonrpc::parse(&body) {
                Err(refusal) => Some(refusal.to_json()),
                Ok(message) => {
                    let version = lock(&session).clone();
                    let reply = server
                        .handle(message, version.as_ref().map(ProtocolVersion::as_str))
                        .await;
                    reply.map(|r| {
                        if let Some(v) = r.negotiated {
                            *lock(&session) = Some(v);
                        }
                        r.body
                    })
                }
            };
            if let Some(answer) = answer {
                let _ = tx.send(answer).await;
            }
        });
        // Reap finished tasks so a long session does not accumulate them.
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    drop(tx);
    writer.await.map_err(std::io::Error::other)?
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_read_whole_and_overlong_ones_are_cut_at_the_limit() {
        let input: &[u8] = b"abc\n\n0123456789\nlast";
        let mut reader = BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 3);
        assert_eq!(buf, b"abc");
        buf.clear();
        assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 1);
        assert_eq!(buf, b" ");
        buf.clear();
        assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 6);
        buf.clear();
        assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 4);
        assert_eq!(buf, b"last");
        buf.clear();
        assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 0);
    }
}
