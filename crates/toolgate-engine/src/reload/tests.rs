//! Reloads of a real config file: rejected with every error, or served with the state
//! of what did not change.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use toolgate_resilience::ErrorClass;

use super::Current;
use crate::dependency::Gate;
use crate::gateway::Gateway;

fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-reload-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// A config with dependencies `a` and `b` (`b`'s timeout given) and a tool on each,
/// plus `extra` tools.
fn config(dir: &Path, b_timeout: &str, extra: &str) -> String {
    let tool = |name: &str, dep: &str| {
        format!(
            "  {name}:\n    dependency: {dep}\n    owner: a@example.com\n    request: {{ path: /{name} }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        )
    };
    format!(
        "gateway:\n  state: {}\ndependencies:\n  a: {{ base_url: \"http://127.0.0.1:9\" }}\n  b: {{ base_url: \"http://127.0.0.1:9\", timeout: {b_timeout} }}\ntools:\n{}{}{extra}",
        dir.join("state.db").display(),
        tool("ta", "a"),
        tool("tb", "b"),
    )
}

async fn serving(dir: &Path, yaml: &str) -> (Arc<Current>, PathBuf) {
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, yaml).expect("write the config");
    let config = toolgate_config::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    let gateway = Gateway::new(config, store).expect("gateway");
    (Current::new(gateway, Some(path.clone())), path)
}

/// Five failed attempts open a dependency's breaker.
fn open_breaker(gateway: &Gateway, dependency: &str, now: Instant) {
    let state = gateway.dependency(dependency).expect("the dependency");
    for _ in 0..5 {
        match state.gate(now, Duration::from_secs(10), true) {
            Gate::Go(attempt) => {
                attempt.settle(now, None, None, Some(ErrorClass::Connect));
            }
            other => panic!("admitted while closed: {other:?}"),
        }
    }
    assert!(state.open_for(now).is_some(), "the breaker opened");
}

#[tokio::test]
async fn an_invalid_config_is_rejected_with_every_error_and_the_old_one_keeps_serving() {
    let dir = dir();
    let (current, path) = serving(&dir, &config(&dir, "5s", "")).await;
    let before = current.load();
    // Both results are scraped at 0 before any reload, so the first rejection is an
    // increase Prometheus can alert on rather than a series that appears at 1.
    let fresh = before.metrics().render();
    for result in ["ok", "rejected"] {
        let series = format!("toolgate_config_reloads_total{{result=\"{result}\"}} 0");
        assert!(fresh.contains(&series), "{series} in {fresh}");
    }
    // Two independent mistakes: an unknown dependency and a timeout that is no duration.
    let broken = config(&dir, "soon", "").replace("dependency: a\n", "dependency: nowhere\n");
    std::fs::write(&path, broken).expect("write");
    let report = current.reload().await;
    assert_eq!(report.result, "rejected");
    assert!(!report.accepted());
    let fields: Vec<&str> = report.errors.iter().map(|e| e.field.as_str()).collect();
    assert!(
        fields
            .iter()
            .any(|f| f.starts_with("dependencies.b.timeout")),
        "{fields:?}"
    );
    assert!(
        fields.iter().any(|f| f.starts_with("tools.ta")),
        "{fields:?}"
    );
    assert!(
        report.errors.iter().all(|e| e.line.is_some()),
        "located: {:?}",
        report.errors
    );
    assert_eq!(report.generation, 1);
    assert_eq!(current.generation(), 1);
    assert!(
        Arc::ptr_eq(&before, &current.load()),
        "the old gateway keeps serving"
    );
    assert!(current.load().route("ta").is_some());
    let metrics = current.load().metrics().render();
    assert!(
        metrics.contains("toolgate_config_reloads_total{result=\"rejected\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("toolgate_config_generation 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("toolgate_config_last_reload_successful 0"),
        "{metrics}"
    );
}

#[tokio::test]
async fn an_unchanged_dependency_keeps_its_breaker_and_a_changed_one_starts_over() {
    let dir = dir();
    let (current, path) = serving(&dir, &config(&dir, "5s", "")).await;
    let now = Instant::now();
    let first = current.load();
    open_breaker(&first, "a", now);
    open_breaker(&first, "b", now);
    let ta_state = first.tool_state("ta").expect("ta");
    let tb_state = first.tool_state("tb").expect("tb");

    std::fs::write(&path, config(&dir, "7s", "")).expect("write");
    let report = current.reload().await;
    assert!(report.accepted(), "{report:?}");
    assert_eq!(report.generation, 2);
    let changes = report.changes.expect("changes");
    assert_eq!(changes.dependencies_kept, ["a"]);
    assert_eq!(changes.dependencies_reset, ["b"]);
    assert_eq!(changes.tools_changed, ["tb"]);
    assert!(
        changes.needs_restart.is_empty(),
        "{:?}",
        changes.needs_restart
    );

    let next = current.load();
    assert!(!Arc::ptr_eq(&first, &next));
    let a = next.dependency("a").expect("a");
    assert!(Arc::ptr_eq(a, first.dependency("a").expect("a")));
    assert!(a.open_for(now).is_some(), "a's breaker is still open");
    let b = next.dependency("b").expect("b");
    assert_eq!(b.spec.timeout, Duration::from_secs(7));
    assert!(
        b.open_for(now).is_none(),
        "b starts over with a closed breaker"
    );
    assert!(Arc::ptr_eq(&ta_state, &next.tool_state("ta").expect("ta")));
    assert!(!Arc::ptr_eq(&tb_state, &next.tool_state("tb").expect("tb")));
    // The call path uses the kept state: the route of `ta` is refused by the breaker.
    assert!(
        next.route("ta")
            .expect("ta")
            .dependency
            .open_for(now)
            .is_some()
    );
    let metrics = next.metrics().render();
    assert!(
        metrics.contains("toolgate_config_generation 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("toolgate_config_reloads_total{result=\"ok\"} 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn tools_added_and_removed_are_served_and_clients_are_told() {
    let dir = dir();
    let (current, path) = serving(&dir, &config(&dir, "5s", "")).await;
    let mut client = current
        .load()
        .broadcast()
        .subscribe(None, crate::broadcast::new_reader());
    let tc = "  tc:\n    dependency: a\n    owner: a@example.com\n    request: { path: /tc }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";
    let without_tb = {
        let full = config(&dir, "5s", tc);
        let start = full.find("  tb:\n").expect("tb");
        let end = full.find("  tc:\n").expect("tc");
        format!("{}{}", &full[..start], &full[end..])
    };
    std::fs::write(&path, without_tb).expect("write");
    let report = current.reload().await;
    assert!(report.accepted(), "{report:?}");
    let changes = report.changes.expect("changes");
    assert_eq!(changes.tools_added, ["tc"]);
    assert_eq!(changes.tools_removed, ["tb"]);
    let routes = current.load().routes();
    assert!(routes.contains_key("tc") && !routes.contains_key("tb"));
    let told = client.next().await;
    assert_eq!(
        told[0].1.as_ref(),
        br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
}

#[tokio::test]
async fn a_setting_only_a_restart_changes_is_named_and_keeps_its_value() {
    let dir = dir();
    let yaml = config(&dir, "5s", "");
    let (current, path) = serving(&dir, &yaml).await;
    let listen = current.load().config().gateway.listen;
    let moved = yaml.replace(
        "gateway:\n",
        "gateway:\n  listen: 127.0.0.1:1\n  shutdown_delay: 0s\n  audit: { retention: 2h }\n",
    );
    std::fs::write(&path, moved).expect("write");
    let report = current.reload().await;
    assert!(report.accepted(), "{report:?}");
    assert_eq!(
        report.changes.expect("changes").needs_restart,
        ["gateway.listen", "gateway.shutdown_delay", "gateway.audit"]
    );
    assert_eq!(current.load().config().gateway.listen, listen);
    assert_eq!(
        current.load().config().gateway.shutdown_delay,
        Duration::from_secs(5)
    );
    assert_eq!(
        current.load().config().gateway.audit.retention,
        Duration::from_secs(30 * 24 * 3600),
        "the audit writer's retention stays that of start-up"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reload_is_in_the_audit_trail_as_whoever_started_it() {
    let dir = dir();
    let (current, path) = serving(&dir, &config(&dir, "5s", "")).await;
    let audit = current
        .load()
        .audit()
        .cloned()
        .expect("the trail is on by default");
    let store = current.load().store().clone();
    let stop = tokio_util::sync::CancellationToken::new();
    let writer = tokio::spawn(audit.clone().run_writer(store.clone(), stop.clone()));

    std::fs::write(&path, config(&dir, "7s", "")).expect("write the config");
    assert!(current.reload_by(super::BY_SIGNAL).await.accepted());
    std::fs::write(&path, "tools: [").expect("write the config");
    assert!(!current.reload_by(super::BY_WATCH).await.accepted());
    std::fs::write(&path, config(&dir, "9s", "")).expect("write the config");
    assert!(current.reload_by("alice").await.accepted());

    assert!(audit.flush(Duration::from_secs(10)).await);
    let rows = store
        .audit(toolgate_store::AuditQuery {
            tool: Some("config".into()),
            limit: 10,
            ..Default::default()
        })
        .await
        .expect("read the trail");
    let mut seen: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.agent.clone(), r.outcome.clone()))
        .collect();
    seen.sort();
    let pair = |who: &str, what: &str| (who.to_string(), what.to_string());
    assert_eq!(
        seen,
        vec![
            pair("SIGHUP", "reloaded"),
            pair("alice", "reloaded"),
            pair("reload_watch", "reload_rejected"),
        ]
    );
    stop.cancel();
    writer.await.expect("the writer stops");
    let _ = std::fs::remove_dir_all(dir);
}

/// How long a call of `dependency` at `at` is held (`None`: it may go; it is not sent).
fn held_at(gateway: &Gateway, dependency: &str, at: Instant) -> Option<Duration> {
    let state = gateway.dependency(dependency).expect("the dependency");
    match state.gate(at, Duration::from_secs(10), true) {
        Gate::AccountHeld { retry_in } => Some(retry_in),
        Gate::Go(attempt) => {
            attempt.unsent();
            None
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn a_reloaded_account_hold_keeps_the_hold_in_progress_and_sets_the_next() {
    let dir = dir();
    let with_hold = |hold: &str| {
        config(&dir, "5s", "").replace("gateway:\n", &format!("gateway:\n  account_hold: {hold}\n"))
    };
    let (current, path) = serving(&dir, &with_hold("10m")).await;
    let t0 = Instant::now();
    let first = current.load();
    let a = first.dependency("a").expect("a");
    match a.gate(t0, Duration::from_secs(10), true) {
        Gate::Go(attempt) => {
            attempt.settle(t0, None, None, Some(ErrorClass::Account));
        }
        other => panic!("nothing is held yet: {other:?}"),
    }
    assert_eq!(held_at(&first, "a", t0), Some(Duration::from_secs(600)));

    std::fs::write(&path, with_hold("1m")).expect("write");
    let report = current.reload().await;
    assert!(report.accepted(), "{report:?}");
    let changes = report.changes.expect("changes");
    // Kept with its live state: the hold in progress is not ended by the reload.
    assert_eq!(changes.dependencies_kept, ["a", "b"]);
    assert!(changes.tools_changed.is_empty(), "{changes:?}");
    let next = current.load();
    let later = t0 + Duration::from_secs(120);
    assert_eq!(held_at(&next, "a", later), Some(Duration::from_secs(480)));
    // Refused again at its trial: the next hold is the reloaded minute.
    let trial_at = t0 + Duration::from_secs(600);
    match next
        .dependency("a")
        .expect("a")
        .gate(trial_at, Duration::from_secs(10), true)
    {
        Gate::Go(attempt) => {
            attempt.settle(trial_at, None, None, Some(ErrorClass::Account));
        }
        other => panic!("the trial goes: {other:?}"),
    }
    assert_eq!(held_at(&next, "a", trial_at), Some(Duration::from_secs(60)));
}
