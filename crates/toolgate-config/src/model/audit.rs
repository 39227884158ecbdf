//! `gateway.audit`, validated.

use std::time::Duration;

/// The audit trail's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditSettings {
    /// Whether calls are recorded.
    pub enabled: bool,
    /// How long a record is kept.
    pub retention: Duration,
}

impl AuditSettings {
    /// Records are kept this long unless `retention` says otherwise.
    pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 86_400);
    /// The shortest retention: below it an operator could not read yesterday's calls.
    pub const MIN_RETENTION: Duration = Duration::from_secs(3_600);
}

impl Default for AuditSettings {
    fn default() -> AuditSettings {
        AuditSettings {
            enabled: true,
            retention: AuditSettings::DEFAULT_RETENTION,
        }
    }
}
