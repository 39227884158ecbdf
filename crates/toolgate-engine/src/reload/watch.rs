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
mod tests;
