use super::*;

fn id(text: &str) -> Id {
    match jsonrpc::parse(
        format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"tools/call"}}"#).as_bytes(),
    ) {
        Ok(jsonrpc::Message::Request { id, .. }) => id,
        other => panic!("{other:?}"),
    }
}

fn idle_work() -> Work {
    Box::pin(std::future::pending())
}

fn parking(owner: &Owner, tool: Option<&str>) -> Parking {
    Parking {
        link: Arc::new(SessionLink::for_one_call()),
        owner: owner.clone(),
        tool: tool.map(str::to_owned),
        answers_as: id("1"),
    }
}

fn park_one(parked: &Parked, owner: &Owner) -> String {
    let (_, queue) = mpsc::channel(1);
    let question = ("tg-1".to_owned(), json!({"method": "roots/list"}));
    parked
        .park(
            &parking(owner, Some("t")),
            idle_work(),
            queue,
            vec![question],
        )
        .unwrap_or_else(|_| panic!("room to park"))
}

#[test]
fn only_requests_toolgate_put_to_the_client_are_questions() {
    let (key, request) =
            question(br#"{"jsonrpc":"2.0","id":"tg-4","method":"elicitation/create","params":{"message":"ok?"}}"#)
                .unwrap();
    assert_eq!(key, "tg-4");
    assert_eq!(
        request,
        json!({"method": "elicitation/create", "params": {"message": "ok?"}})
    );
    assert!(
        question(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#).is_none()
    );
    assert!(
        question(br#"{"jsonrpc":"2.0","id":"tg-4"}"#).is_none(),
        "no method"
    );
}

#[test]
fn an_answer_is_readdressed_to_the_retry_that_collects_it() {
    let body = br#"{"jsonrpc":"2.0","id":"first","result":{"x":1}}"#.to_vec();
    let out = readdressed(body.clone(), &id(r#""first""#), &id("7"));
    assert_eq!(out, br#"{"jsonrpc":"2.0","id":7,"result":{"x":1}}"#);
    assert_eq!(
        readdressed(body.clone(), &id(r#""first""#), &id(r#""first""#)),
        body
    );
    // Written otherwise (never by toolgate), it is rewritten whole.
    let odd = br#"{"id":"first","jsonrpc":"2.0","result":{}}"#.to_vec();
    let v: Value = serde_json::from_slice(&readdressed(odd, &id(r#""first""#), &id("8"))).unwrap();
    assert_eq!(v["id"], 8);
}

#[test]
fn a_parked_call_is_its_owners_alone_and_its_tools() {
    let parked = Parked::default();
    let alice = Owner::from_digest(Some("a".repeat(32)));
    let bob = Owner::from_digest(Some("b".repeat(32)));
    let state = park_one(&parked, &alice);
    assert_eq!(state.len(), 32, "128 random bits");
    assert_eq!(
        parked.resume(&state, &bob, Some("t"), None).err(),
        Some(NotResumed::Unknown),
        "another caller's state is unknown to them"
    );
    assert_eq!(
        parked.resume(&state, &alice, Some("u"), None).err(),
        Some(NotResumed::OtherTool)
    );
    assert_eq!(parked.len(), 1, "still parked for its owner");
    let responses = json!({"tg-1": {"roots": []}, "tg-9": {}});
    let call = parked
        .resume(&state, &alice, Some("t"), responses.as_object())
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        call.unanswered().is_empty(),
        "answered; an extra key is ignored"
    );
    assert_eq!(parked.len(), 0, "taken once");
}

#[tokio::test(start_paused = true)]
async fn a_call_nobody_comes_back_for_is_let_go() {
    let parked = Parked::default();
    let owner = Owner::default();
    let state = park_one(&parked, &owner);
    tokio::time::advance(PARKED_FOR).await;
    assert_eq!(
        parked.resume(&state, &owner, Some("t"), None).err(),
        Some(NotResumed::Unknown)
    );
    assert_eq!(parked.len(), 0, "dropped, which cancels the call");
}

#[tokio::test(start_paused = true)]
async fn a_call_nobody_comes_back_for_is_swept_without_another_park() {
    let parked = Arc::new(Parked::default());
    let shutdown = tokio_util::sync::CancellationToken::new();
    parked.spawn_sweeper(shutdown.clone());
    park_one(&parked, &Owner::default());
    tokio::time::sleep(PARKED_FOR - SWEEP_EVERY).await;
    assert_eq!(parked.len(), 1, "still waiting for its retry");
    tokio::time::sleep(SWEEP_EVERY * 2).await;
    assert_eq!(
        parked.len(),
        0,
        "dropped by the sweeper, which cancels the call"
    );
    shutdown.cancel();
}

#[tokio::test]
async fn parked_calls_are_bounded() {
    let parked = Parked::default();
    let owner = Owner::default();
    for _ in 0..MAX_PARKED {
        park_one(&parked, &owner);
    }
    let (_, queue) = mpsc::channel(1);
    assert!(
        parked
            .park(&parking(&owner, None), idle_work(), queue, Vec::new())
            .is_err()
    );
}
