//! An incident's reach on its page: the agents whose calls hit it, and every webhook
//! delivery about it (attempts, delivered or dead-lettered) with the dead letters the
//! notifier recorded without trying (a full queue, a stopped notifier).

use std::fmt::Write as _;

use super::layout::esc;
use toolgate_store::{Delivery, Incident};

/// "alice (12), bob (3), and 5 sightings by other agents", or `None` when no
/// configured agent's call hit it (probes, alert rules, anonymous callers).
pub fn agents(i: &Incident) -> Option<String> {
    if i.agents.is_empty() && i.agents_unlisted == 0 {
        return None;
    }
    let mut parts: Vec<String> = i
        .agents
        .iter()
        .map(|a| format!("{} ({})", a.agent, a.sightings))
        .collect();
    if i.agents_unlisted > 0 {
        parts.push(format!(
            "{} sighting{} by other agents",
            i.agents_unlisted,
            if i.agents_unlisted == 1 { "" } else { "s" }
        ));
    }
    Some(parts.join(", "))
}

/// The deliveries section: newest first; `letters` are the incident's dead letters
/// (target, error, at), shown when no delivery row accounts for them.
pub fn deliveries(list: &[Delivery], letters: &[(String, String, String)]) -> String {
    let mut out = String::from("<h2>Webhook deliveries</h2>");
    let unaccounted: Vec<&(String, String, String)> = letters
        .iter()
        .filter(|(target, error, _)| {
            !list
                .iter()
                .any(|d| &d.target == target && d.error.as_ref() == Some(error))
        })
        .collect();
    if list.is_empty() && unaccounted.is_empty() {
        out.push_str("<p class=\"muted\" id=\"deliveries\">No webhook was notified about this incident (no route for its owner, or nothing sent yet).</p>");
        return out;
    }
    out.push_str(
        "<table id=\"deliveries\"><thead><tr><th>When</th><th>Event</th><th>Target</th>\
         <th class=\"num\">Attempts</th><th>Result</th></tr></thead><tbody>",
    );
    for d in list {
        let result = match &d.error {
            None => "<span class=\"s-ok\">delivered</span>".to_string(),
            Some(e) => format!("<span class=\"s-bad\">dead letter</span>: {}", esc(e)),
        };
        let _ = write!(
            out,
            "<tr data-delivery=\"{status}\"><td><time>{at}</time></td><td>{event}</td><td><code>{target}</code></td>\
             <td class=\"num\">{attempts}</td><td>{result}</td></tr>",
            status = esc(&d.status),
            at = esc(&d.at),
            event = esc(&d.event),
            target = esc(&d.target),
            attempts = d.attempts,
        );
    }
    for (target, error, at) in unaccounted {
        let _ = write!(
            out,
            "<tr data-delivery=\"dead_letter\"><td><time>{}</time></td><td>–</td><td><code>{}</code></td>\
             <td class=\"num\">0</td><td><span class=\"s-bad\">dead letter</span>: {}</td></tr>",
            esc(at),
            esc(target),
            esc(error)
        );
    }
    out.push_str("</tbody></table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliveries_show_attempts_results_and_unsent_dead_letters_escaped() {
        let list = vec![
            Delivery {
                event: "updated".into(),
                target: "https://hooks.example/<x>".into(),
                attempts: 3,
                status: "dead_letter".into(),
                error: Some("HTTP 500".into()),
                at: "2026-01-01T00:01:00Z".into(),
            },
            Delivery {
                event: "opened".into(),
                target: "https://hooks.example/<x>".into(),
                attempts: 1,
                status: "delivered".into(),
                error: None,
                at: "2026-01-01T00:00:00Z".into(),
            },
        ];
        let letters = vec![
            (
                "https://hooks.example/<x>".into(),
                "HTTP 500".into(),
                "2026-01-01T00:01:00Z".into(),
            ),
            (
                "https://hooks.example/<x>".into(),
                "notification queue full".into(),
                "2026-01-01T00:02:00Z".into(),
            ),
        ];
        let html = deliveries(&list, &letters);
        assert_eq!(html.matches("<tr data-delivery=").count(), 3, "{html}");
        assert_eq!(html.matches("data-delivery=\"dead_letter\"").count(), 2);
        assert!(html.contains("notification queue full"), "{html}");
        assert!(
            html.contains("&lt;x&gt;") && !html.contains("<x>"),
            "{html}"
        );
        assert!(deliveries(&[], &[]).contains("No webhook was notified"));
    }
}
