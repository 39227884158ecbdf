//! Upstreams that would make toolgate work for them: a throttle that says "retry now"
//! to every request, and one that takes the request and never answers. Each call must
//! stay within its deadline and the upstream must see few more requests than calls.

use super::*;

/// A throttle with `Retry-After: 0` on every reply (a misconfigured limiter, or an
/// upstream that wants to be hammered): taken at its word, every call would retry at
/// once, up to its attempts, and an agent's loop would become a retry storm.
fn throttled_now() -> Reply {
    Reply {
        headers: vec![("retry-after", "0".into())],
        ..status(429)
    }
}

#[tokio::test(start_paused = true)]
async fn a_throttle_that_says_retry_now_to_every_request_gets_no_retry_storm() {
    let rig = rig("web_search", vec![throttled_now()]);
    let calls: u32 = 500;
    let started = Instant::now();
    for _ in 0..calls {
        let outcome = rig.search().await;
        let class = failure(&outcome).class;
        assert!(
            matches!(class, ErrorClass::RateLimited | ErrorClass::BudgetExhausted),
            "{class:?}"
        );
    }
    eprintln!(
        "{} upstream requests for {calls} calls in {:?}",
        rig.attempts(),
        started.elapsed()
    );
    // The retry budget: retries at most 20 % of requests, plus a floor of 10 in any
    // 10 s, however often the upstream says "now".
    let attempts = f64::from(rig.attempts());
    let windows = (started.elapsed().as_secs_f64() / 10.0).ceil().max(1.0);
    assert!(
        attempts <= f64::from(calls) * 1.2 + 10.0 * windows,
        "{attempts} upstream requests for {calls} back-to-back calls"
    );
    // Nor does a call wait in toolgate for a throttle that will not lift.
    assert!(
        started.elapsed() < Duration::from_secs(u64::from(calls)),
        "{:?} for {calls} calls",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn an_upstream_that_never_answers_ends_each_call_by_its_deadline() {
    let never = Reply {
        takes: Duration::from_secs(365 * 24 * 3600),
        ..ok(VALID)
    };
    let rig = rig("web_search", vec![never]);
    let mut longest = Duration::ZERO;
    for _ in 0..50 {
        let started = Instant::now();
        let outcome = rig.search().await;
        longest = longest.max(started.elapsed());
        assert!(
            matches!(
                failure(&outcome).class,
                ErrorClass::Timeout | ErrorClass::CircuitOpen
            ),
            "{:?}",
            failure(&outcome).class
        );
    }
    eprintln!("{} attempts, longest call {longest:?}", rig.attempts());
    // The dependency's timeout is 2 s; retries share the call's deadline.
    assert!(longest <= Duration::from_secs(30), "{longest:?}");
    assert!(rig.attempts() <= 60, "{} attempts", rig.attempts());
}

const NESTED: &str = r#"
dependencies:
  users_api: { base_url: "http://127.0.0.1:9" }
tools:
  update_user:
    dependency: users_api
    owner: users-team@example.com
    request: { method: POST, path: /users, body: { user: "{user}" } }
    input_schema:
      type: object
      required: [user]
      properties:
        user: { type: object, properties: { role: { enum: [viewer] } } }
    contract: { version: "1.0", response_schema: { type: object } }
"#;

#[tokio::test(start_paused = true)]
async fn a_member_the_schema_checks_under_another_spelling_never_reaches_the_upstream() {
    let config = crate::fixtures::config(NESTED);
    let spec = config.tools["update_user"].clone();
    let rig = Rig {
        route: Route::new(
            spec.clone(),
            Arc::new(ToolState::new()),
            Arc::new(DependencyState::new(spec.dependency.clone())),
            Fake::new(vec![ok("{}")]),
        ),
        services: rig("web_search", vec![]).services,
    };
    for user in [
        json!({"ROLE": "admin"}),
        json!({"role": "viewer", "Role": "admin"}),
    ] {
        let outcome = rig.call(json!({ "user": user })).await;
        let f = failure(&outcome);
        assert_eq!(f.class, ErrorClass::ClientError, "{user}");
        assert!(
            f.message.contains("a server may read it as `role`"),
            "{}",
            f.message
        );
    }
    assert_eq!(rig.attempts(), 0);
    rig.call(json!({ "user": {"role": "viewer", "name": "a"} }))
        .await
        .result
        .expect("a declared spelling passes");
    assert_eq!(rig.attempts(), 1);
}
