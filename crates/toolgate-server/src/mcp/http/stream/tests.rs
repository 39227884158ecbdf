use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http_body_util::BodyExt;

use super::*;

async fn chunk(body: &mut Body) -> Option<String> {
    let frame = body.frame().await?.ok()?;
    Some(String::from_utf8(frame.into_data().ok()?.to_vec()).unwrap_or_default())
}

#[tokio::test(start_paused = true)]
async fn a_waiting_call_keeps_its_stream_alive_and_its_session_in_use() {
    let (tx, queue) = mpsc::channel(4);
    let (answer, answered) = tokio::sync::oneshot::channel::<()>();
    let work: Work = Box::pin(async move {
        let _ = answered.await;
        drop(tx);
        Some(Reply::test_ok(
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(),
        ))
    });
    let ticks = Arc::new(AtomicUsize::new(0));
    let counted = ticks.clone();
    let response = relay(
        ReplyMemory::unlimited(),
        b"{\"first\":1}".to_vec(),
        Some(work),
        None,
        queue,
        None,
        move || {
            counted.fetch_add(1, Ordering::SeqCst);
        },
    );
    let mut body = response.into_body();
    assert_eq!(
        chunk(&mut body).await.as_deref(),
        Some("event: message\ndata: {\"first\":1}\n\n")
    );
    let before = tokio::time::Instant::now();
    assert_eq!(chunk(&mut body).await.as_deref(), Some(":\n\n"));
    assert_eq!(before.elapsed(), KEEP_ALIVE);
    assert_eq!(chunk(&mut body).await.as_deref(), Some(":\n\n"));
    assert_eq!(ticks.load(Ordering::SeqCst), 2);
    answer.send(()).unwrap();
    let last = chunk(&mut body).await.unwrap();
    assert!(last.contains(r#""result":{}"#), "{last}");
    assert_eq!(chunk(&mut body).await, None);
}

#[tokio::test]
async fn a_streamed_answer_counts_in_reply_memory_until_written() {
    let memory = ReplyMemory::new(1_000);
    let (_tx, queue) = mpsc::channel(4);
    let answer = vec![b'7'; 5_000];
    let response = relay(
        memory.clone(),
        b"{\"first\":1}".to_vec(),
        None,
        Some(answer),
        queue,
        None,
        || {},
    );
    assert_eq!(
        memory.held(),
        5_000,
        "waiting behind the first event, counted past a full budget"
    );
    let mut body = response.into_body();
    let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert!(memory.held() >= 5_000 + first.len());
    drop(first);
    let last = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert!(last.len() > 5_000);
    assert_eq!(
        memory.held(),
        last.len(),
        "the framed answer, until written"
    );
    drop(last);
    assert!(body.frame().await.is_none());
    assert_eq!(memory.held(), 0);
}

#[tokio::test]
async fn a_question_still_queued_when_the_call_answers_is_not_written() {
    let (tx, queue) = mpsc::channel(4);
    let work: Work = Box::pin(async move {
        // What the call sent before it answered: a notification, a question it no
        // longer waits for, another notification.
        for sent in [
            &br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#[..],
            br#"{"jsonrpc":"2.0","id":"tg-7","method":"sampling/createMessage","params":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}"#,
        ] {
            tx.send(sent.to_vec()).await.unwrap();
        }
        Some(Reply::test_ok(
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(),
        ))
    });
    let response = relay(
        ReplyMemory::unlimited(),
        b"{\"first\":1}".to_vec(),
        Some(work),
        None,
        queue,
        None,
        || {},
    );
    let mut body = response.into_body();
    let mut written = Vec::new();
    while let Some(chunk) = chunk(&mut body).await {
        written.push(chunk);
    }
    let all = written.concat();
    assert!(all.contains("notifications/progress"), "{all}");
    assert!(all.contains("notifications/message"), "{all}");
    assert!(!all.contains("sampling/createMessage"), "{all}");
    assert!(written.last().unwrap().contains(r#""result":{}"#), "{all}");
}

#[test]
fn line_breaks_in_the_json_become_data_lines() {
    let mut out = Vec::new();
    event(Some(7), b"{\"a\":\r\n1,\r\"b\":\n2}", &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "id: 7\nevent: message\ndata: {\"a\":\ndata: \ndata: 1,\ndata: \"b\":\ndata: 2}\n\n"
    );
}
