//! `gateway.audit`: whether calls are recorded and for how long.

use super::Compiler;
use crate::model::AuditSettings;
use crate::raw::RawAudit;
use crate::units::parse_duration;

impl Compiler<'_> {
    pub(super) fn audit(&mut self, raw: Option<&RawAudit>) -> AuditSettings {
        let mut out = AuditSettings::default();
        let Some(raw) = raw else {
            return out;
        };
        out.enabled = raw.enabled.unwrap_or(true);
        let Some(text) = raw.retention.as_deref() else {
            return out;
        };
        let path = "gateway.audit.retention";
        match parse_duration(text) {
            Err(msg) => self.err(path, msg, "write a duration like `30d`, `7d` or `12h`"),
            Ok(d) if d < AuditSettings::MIN_RETENTION => self.err(
                path,
                format!("retention `{text}` is below the minimum of 1h"),
                "use at least `1h` (the default is `30d`); to record nothing, write `enabled: false`",
            ),
            Ok(d) => out.retention = d,
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use crate::model::AuditSettings;

    fn compile(audit: &str) -> Result<AuditSettings, String> {
        let text = format!(
            "gateway:\n  audit: {audit}\ndependencies:\n  d: {{base_url: 'http://127.0.0.1:8080'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
        );
        crate::parse(Path::new("t.yaml"), &text, Path::new("."), &|_: &str| None)
            .map(|c| c.gateway.audit)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn retention_and_enabled_are_read_with_defaults() {
        assert_eq!(compile("{}").unwrap(), AuditSettings::default());
        assert_eq!(
            compile("{retention: 7d}").unwrap().retention,
            Duration::from_secs(7 * 86_400)
        );
        assert!(!compile("{enabled: false}").unwrap().enabled);
    }

    #[test]
    fn a_bad_retention_says_what_to_write() {
        let err = compile("{retention: soon}").unwrap_err();
        assert!(
            err.contains("gateway.audit.retention") && err.contains("`30d`"),
            "{err}"
        );
        let err = compile("{retention: 5m}").unwrap_err();
        assert!(
            err.contains("below the minimum of 1h") && err.contains("enabled: false"),
            "{err}"
        );
        let err = compile("{retention: 4000d}").unwrap_err();
        assert!(
            err.contains("gateway.audit.retention") && err.contains("365d"),
            "{err}"
        );
        let err = compile("{keep: 30d}").unwrap_err();
        assert!(err.contains("gateway.audit"), "{err}");
    }
}
