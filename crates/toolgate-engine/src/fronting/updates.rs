//! A server's `notifications/resources/updated`, coalesced per resource: the first
//! passes at once, and repeats within [`SPACING`] make one more, sent when the spacing
//! ends. An update only says "read it again", so a server repeating one without end
//! costs each subscribed session one notification a second per resource, not one per
//! repeat, and the last change is never lost.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;

/// The least time between two updates of one resource passed on.
pub(crate) const SPACING: Duration = Duration::from_secs(1);

/// The resources updated lately, and those whose update waits.
#[derive(Debug, Default)]
pub(crate) struct Updates {
    /// When an update of each resource was last passed on (within the last
    /// [`SPACING`], or held).
    sent: BTreeMap<String, Instant>,
    /// Resources updated again since: one update each goes at the end of its spacing.
    held: BTreeSet<String>,
}

impl Updates {
    /// Whether an update of `uri` is passed on now; if not, it is held.
    pub(crate) fn offer(&mut self, uri: &str, now: Instant) -> bool {
        let held = &self.held;
        // Only recent or held ones are kept: as many as there are subscribed resources.
        self.sent
            .retain(|u, at| now < *at + SPACING || held.contains(u));
        match self.sent.get(uri) {
            Some(at) if now < *at + SPACING => {
                self.held.insert(uri.to_owned());
                false
            }
            _ => {
                self.sent.insert(uri.to_owned(), now);
                true
            }
        }
    }

    /// When the next held update is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.held
            .iter()
            .filter_map(|u| self.sent.get(u))
            .min()
            .map(|at| *at + SPACING)
    }

    /// The held updates due by `now`, taken (each counts as passed on now).
    pub(crate) fn take_due(&mut self, now: Instant) -> Vec<String> {
        let due: Vec<String> = self
            .held
            .iter()
            .filter(|u| self.sent.get(*u).is_none_or(|at| *at + SPACING <= now))
            .cloned()
            .collect();
        for uri in &due {
            self.held.remove(uri);
            self.sent.insert(uri.clone(), now);
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_within_the_spacing_make_one_more_at_its_end() {
        let start = Instant::now();
        let mut updates = Updates::default();
        assert!(updates.offer("a", start));
        assert!(
            updates.offer("b", start),
            "each resource has its own spacing"
        );
        for ms in 1..1000 {
            assert!(!updates.offer("a", start + Duration::from_millis(ms)));
        }
        assert_eq!(updates.due(), Some(start + SPACING));
        assert!(updates.take_due(start + SPACING / 2).is_empty());
        assert_eq!(updates.take_due(start + SPACING), ["a"]);
        assert_eq!(updates.due(), None);
        // Passed on at the end of the spacing: the next waits a spacing from then.
        assert!(!updates.offer("a", start + SPACING + SPACING / 2));
        assert!(updates.offer("b", start + SPACING * 2));
        assert_eq!(updates.take_due(start + SPACING * 2), ["a"]);
        // Nothing recent is kept.
        assert!(updates.offer("c", start + SPACING * 10));
        assert_eq!(updates.sent.len(), 1);
    }
}
