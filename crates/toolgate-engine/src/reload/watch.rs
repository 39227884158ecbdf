//! `gateway.reload_watch`: the config file is read every couple of seconds and
//! reloaded, as on SIGHUP, when its content changed. Polling needs no file-system
//! notification API and works on every platform and on a ConfigMap's symlink swap. The
//! content decides, not the modification time: a touch reloads nothing, and two saves
//! within one clock tick of the file system (same time, same size) are still told
//! apart. A hand-written config is kilobytes, so reading it every period costs nothing
//! worth saving; a config of many megabytes (a large import) is better reloaded by
//! signal, as the configuration reference says. A save that leaves the file half-written is rejected like any invalid config
//! (the config in force keeps serving), and the next save is read again.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Current;

/// How often `toolgate serve` looks at the file.
pub const EVERY: Duration = Duration::from_secs(2);

/// What the file held when last read.
#[derive(Debug, Default)]
pub struct Watched {
    /// Hash of the content last read.
    content: Option<u64>,
}

impl Watched {
    /// The file as it is now: later looks compare with this.
    pub fn at(path: &Path) -> Watched {
        let mut w = Watched::default();
        w.changed(path);
        w
    }

    /// Whether the content differs from the last look's (false while the file cannot
    /// be read: a file being replaced is looked at again next time).
    pub fn changed(&mut self, path: &Path) -> bool {
        let Ok(bytes) = std::fs::read(path) else {
            return false;
        };
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        let content = Some(h.finish());
        let changed = self.content.is_some() && content != self.content;
        self.content = content;
        changed
    }
}

impl Current {
    /// Reloads the config file whenever its content changes, looking every `every`,
    /// until `stop`. Does nothing for a gateway not started from a file (the demo).
    pub async fn watch_file(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        let Some(path) = self.source.clone() else {
            return;
        };
        let look = path.clone();
        let Ok(mut watched) = tokio::task::spawn_blocking(move || Watched::at(&look)).await else {
            return;
        };
        tracing::info!(file = %path.display(), every = ?every, "watching the config file: a change is reloaded");
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
            let look = path.clone();
            let Ok((again, changed)) = tokio::task::spawn_blocking(move || {
                let changed = watched.changed(&look);
                (watched, changed)
            })
            .await
            else {
                return;
            };
            watched = again;
            if changed {
                tracing::info!(file = %path.display(), "the config file changed: reloading");
                let _ = self.reload_by(super::BY_WATCH).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}
