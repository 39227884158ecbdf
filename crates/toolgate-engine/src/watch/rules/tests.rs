use super::*;
use toolgate_resilience::ErrorClass;

fn gateway() -> (Arc<Gateway>, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-rules-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    let yaml = format!(
        r#"
gateway: {{ state: {state} }}
dependencies:
  api: {{ base_url: "http://127.0.0.1:9" }}
tools:
  failing:
    dependency: api
    owner: alice@example.com
    request: {{ path: /a }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  recovering:
    dependency: api
    owner: bob@example.com
    request: {{ path: /b }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"#,
        state = dir.join("s.db").display()
    );
    let config = crate::fixtures::config(&yaml);
    let store = toolgate_store::Store::open(&config.gateway.state).unwrap();
    let g = Gateway::new(config, store).unwrap();
    tokio::spawn(g.incidents().clone().run_writer(
        g.store().clone(),
        tokio_util::sync::CancellationToken::new(),
    ));
    (g, dir)
}

/// Incidents as stored, once the writer has caught up.
async fn stored(g: &Gateway, all: bool) -> Vec<toolgate_store::Incident> {
    assert!(g.incidents().flush(Duration::from_secs(10)).await);
    g.store().incidents(all).await.unwrap()
}

fn record(g: &Gateway, tool: &str, now: Instant, recovered: bool) {
    let class = ErrorClass::Timeout;
    let outcome = if recovered { None } else { Some(class) };
    let retries = [class, class];
    lock(&g.tool_state(tool).unwrap().stats).call(now, outcome, &retries, Some((class, recovered)));
}

#[tokio::test(start_paused = true)]
async fn retries_that_never_recover_open_an_incident_and_some_recoveries_do_not() {
    let (g, dir) = gateway();
    let t0 = Instant::now();
    for i in 0..10 {
        record(&g, "failing", t0 + Duration::from_secs(60 * i), false);
        // One in three recovers: retries help, nobody needs waking up.
        record(
            &g,
            "recovering",
            t0 + Duration::from_secs(60 * i),
            i % 3 == 0,
        );
    }
    let now = t0 + Duration::from_secs(600);
    evaluate(&g, now);
    let open = stored(&g, false).await;
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0].kind, "recovery_rate_zero");
    assert_eq!(open[0].tool, "failing");
    assert!(
        open[0].title.contains("timeout") && open[0].owner == "alice@example.com",
        "{}",
        open[0].title
    );

    // Evaluating again updates the same incident instead of opening another.
    evaluate(&g, now + Duration::from_secs(30));
    let open = stored(&g, false).await;
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].count, 2);

    // Once the window holds no failing retries, the incident resolves by itself.
    evaluate(&g, now + Duration::from_secs(2 * 3600));
    assert!(stored(&g, false).await.is_empty());
    let all = stored(&g, true).await;
    assert_eq!(all[0].status, "resolved");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(start_paused = true)]
async fn auth_failures_and_a_success_rate_collapse_are_raised_and_cleared() {
    let (g, dir) = gateway();
    let t0 = Instant::now();
    // A day of 95 % success, then half an hour of mostly auth failures.
    for i in 0..200u64 {
        let outcome = if i % 20 == 0 {
            Some(ErrorClass::ServerError)
        } else {
            None
        };
        lock(&g.tool_state("failing").unwrap().stats).call(
            t0 + Duration::from_secs(400 * i),
            outcome,
            &[],
            None,
        );
    }
    let start = t0 + Duration::from_secs(400 * 200);
    for i in 0..30u64 {
        let outcome = if i % 10 == 0 {
            None
        } else {
            Some(ErrorClass::Auth)
        };
        lock(&g.tool_state("failing").unwrap().stats).call(
            start + Duration::from_secs(30 * i),
            outcome,
            &[],
            None,
        );
    }
    let now = start + Duration::from_secs(900);
    evaluate(&g, now);
    let kinds: Vec<String> = stored(&g, false)
        .await
        .into_iter()
        .map(|i| i.kind)
        .collect();
    assert!(kinds.contains(&"auth_failing".to_string()), "{kinds:?}");
    assert!(
        kinds.contains(&"success_rate_collapse".to_string()),
        "{kinds:?}"
    );
    // An hour later with no calls at all: both conditions are gone.
    evaluate(&g, now + Duration::from_secs(3600));
    assert!(stored(&g, false).await.is_empty());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn refused_exchanged_tokens_are_told_to_operators_as_the_users_tokens_not_toolgates() {
    let mut dependency = crate::fixtures::dependency("api", "http://127.0.0.1:9");
    let shared = refused_credentials_title("my_profile", &dependency, 3);
    assert!(
        shared.contains("refused toolgate's credentials 3×"),
        "{shared}"
    );
    dependency.token_exchange = Some(crate::fixtures::token_exchange());
    let own = refused_credentials_title("my_profile", &dependency, 3);
    assert!(
        own.contains("refused the tokens exchanged for signed-in users 3×")
            && !own.contains("toolgate's credentials"),
        "{own}"
    );
}
