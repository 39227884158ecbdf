//! The `alerts:` section: where notifications go and when the alert rules fire.

use std::time::Duration;

use super::{Compiler, limits};
use crate::model::*;
use crate::raw::*;

impl Compiler<'_> {
    pub(super) fn alerts(&mut self, raw: RawAlerts) -> AlertsConfig {
        let webhooks = self.webhooks("alerts.webhooks", raw.webhooks);
        let owners = raw
            .owners
            .into_iter()
            .map(|(owner, o)| {
                let hooks = self.webhooks(&format!("alerts.owners.{owner}.webhooks"), o.webhooks);
                (owner, hooks)
            })
            .collect();
        let d = |c: &mut Self, field: &str, v: Option<String>, default: Duration, min: Duration| {
            c.duration_min(format!("alerts.{field}"), v.as_ref(), default, min)
        };
        AlertsConfig {
            webhooks,
            owners,
            throttle: d(
                self,
                "throttle",
                raw.throttle,
                Duration::from_secs(3600),
                limits::MIN_THROTTLE,
            ),
            evaluate_every: d(
                self,
                "evaluate_every",
                raw.evaluate_every,
                Duration::from_secs(30),
                limits::MIN_EVALUATE_EVERY,
            ),
            recovery_window: d(
                self,
                "recovery_window",
                raw.recovery_window,
                Duration::from_secs(3600),
                limits::MIN_RECOVERY_WINDOW,
            ),
            sunset_within: d(
                self,
                "sunset_within",
                raw.sunset_within,
                Duration::from_secs(30 * 86_400),
                limits::MIN_SUNSET_WITHIN,
            ),
            circuit_open_for: d(
                self,
                "circuit_open_for",
                raw.circuit_open_for,
                Duration::from_secs(600),
                limits::MIN_CIRCUIT_OPEN_FOR,
            ),
        }
    }

    fn webhooks(&mut self, at: &str, raw: Vec<RawWebhook>) -> Vec<Webhook> {
        let mut out = Vec::new();
        for (i, w) in raw.into_iter().enumerate() {
            let path = format!("{at}.{i}");
            let format = match w.format.as_deref() {
                None | Some("json") => WebhookFormat::Json,
                Some("slack") => WebhookFormat::Slack,
                Some(other) => {
                    self.err(
                        format!("{path}.format"),
                        format!("unknown webhook format `{other}`"),
                        "use `json` or `slack`",
                    );
                    WebhookFormat::Json
                }
            };
            if let Some(url) = self.url(&format!("{path}.url"), &w.url) {
                out.push(Webhook { url, format });
            }
        }
        out
    }
}
