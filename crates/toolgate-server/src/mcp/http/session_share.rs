//! Each caller's share of a full session table. `gateway.max_sessions` bounds the
//! sessions of every caller together; without a share, one agent opening sessions
//! in a loop (a bug, a crash-looping client, or on purpose) fills the table and every
//! other agent's `initialize` is refused until the sessions idle out. The share only
//! applies to a full table: a gateway with one caller, or with room, behaves as
//! without it.

use std::collections::HashMap;

use super::owner::Owner;

/// The sessions one owner may hold in a full table of `max`: `fraction` of it,
/// rounded up, at least one. A fraction outside (0, 1] is taken as 1 (no share).
pub fn cap(max: usize, fraction: f64) -> usize {
    let max = max.max(1);
    if !(fraction > 0.0 && fraction < 1.0) {
        return max;
    }
    ((max as f64 * fraction).ceil() as usize).clamp(1, max)
}

/// How many sessions each owner holds.
#[derive(Debug)]
pub struct Held<'a> {
    by_owner: HashMap<&'a Owner, usize>,
}

impl<'a> Held<'a> {
    /// Counts the sessions of each owner.
    pub fn count(owners: impl Iterator<Item = &'a Owner>) -> Held<'a> {
        let mut by_owner: HashMap<&'a Owner, usize> = HashMap::new();
        for owner in owners {
            *by_owner.entry(owner).or_default() += 1;
        }
        Held { by_owner }
    }

    /// The sessions `owner` holds.
    pub fn of(&self, owner: &Owner) -> usize {
        self.by_owner.get(owner).copied().unwrap_or(0)
    }

    /// The owner holding the most sessions, when that is more than `share`.
    pub fn most_beyond(&self, share: usize) -> Option<Owner> {
        self.by_owner
            .iter()
            .filter(|(_, n)| **n > share)
            .max_by_key(|(_, n)| **n)
            .map(|(owner, _)| (*owner).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_a_fraction_of_the_table_rounded_up() {
        assert_eq!(cap(10_000, 0.5), 5_000);
        assert_eq!(cap(3, 0.5), 2);
        assert_eq!(cap(1, 0.01), 1);
        for off in [1.0, 0.0, -1.0, 2.0, f64::NAN] {
            assert_eq!(cap(10, off), 10, "{off}");
        }
    }
}
