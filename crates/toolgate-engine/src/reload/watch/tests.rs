use std::time::SystemTime;

use super::*;

fn file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-watch-{name}-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir.join("toolgate.yaml")
}

#[test]
fn only_a_changed_content_counts_not_a_touch_or_a_missing_file() {
    let path = file("detect");
    std::fs::write(&path, "a: 1\n").unwrap();
    let mut w = Watched::at(&path);
    assert!(!w.changed(&path), "nothing happened");
    std::fs::write(&path, "a: 2\n").unwrap();
    assert!(w.changed(&path), "new content");
    assert!(!w.changed(&path), "seen once");
    // Written again with the same bytes (a touch, an editor's save without edits):
    // the time moves, the content does not.
    let later = SystemTime::now() + Duration::from_secs(5);
    std::fs::write(&path, "a: 2\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert!(!w.changed(&path), "same content");
    // Replaced: gone for a moment, then back with new content.
    std::fs::remove_file(&path).unwrap();
    assert!(!w.changed(&path), "missing is not a change");
    std::fs::write(&path, "a: 3\n").unwrap();
    assert!(w.changed(&path));
    // Same length, same second: the content decides.
    std::fs::write(&path, "a: 4\n").unwrap();
    assert!(w.changed(&path));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_change_is_served_without_a_signal_and_a_broken_save_is_not() {
    let path = file("serve");
    let dir = path.parent().unwrap().to_path_buf();
    let tool = |name: &str| {
        format!(
            "  {name}:\n    dependency: a\n    owner: a@example.com\n    request: {{ path: /{name} }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        )
    };
    let yaml = |tools: &str| {
        format!(
            "gateway:\n  state: {}\n  reload_watch: true\ndependencies:\n  a: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n{tools}",
            dir.join("state.db").display()
        )
    };
    std::fs::write(&path, yaml(&tool("ta"))).unwrap();
    let config = toolgate_config::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(config.gateway.reload_watch);
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    let gateway = crate::gateway::Gateway::new(config, store).expect("gateway");
    let current = Current::new(gateway, Some(path.clone()));
    let stop = CancellationToken::new();
    let watcher = tokio::spawn(
        current
            .clone()
            .watch_file(Duration::from_millis(20), stop.clone()),
    );
    // Let the watcher take its first look before the file changes.
    let started = current.generation();
    tokio::time::sleep(Duration::from_millis(100)).await;
    std::fs::write(&path, yaml(&format!("{}{}", tool("ta"), tool("tb")))).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !current.load().routes().contains_key("tb") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "tb served after the save"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(current.generation(), started + 1);
    // A broken save is rejected; what was served keeps serving. A valid save after
    // it is served.
    std::fs::write(&path, "gateway: [unclosed\n").unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(current.load().routes().contains_key("tb"));
    std::fs::write(&path, yaml(&tool("tc"))).unwrap();
    while !current.load().routes().contains_key("tc") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "tc served after the fix"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!current.load().routes().contains_key("tb"));
    stop.cancel();
    watcher.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
