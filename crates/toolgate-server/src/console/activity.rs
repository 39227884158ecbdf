//! An incident's reach on its page: the agents whose calls hit it, and every webhook
//! delivery about it (attempts, delivered or dead-lettered) with the dead letters the
//! notifier recorded without trying (a full queue, a stopped notifier).

use std::fmt::Write as _;

use super::layout::esc;
use toolgate_store::{Delivery, Incident};

/// What a request may see of `i`'s agents: a credential that names an agent sees its
/// own sightings by name and every other agent's only as a count (one agent never
/// learns what another called); the admin credential sees them all.
pub fn visible_to(i: &mut Incident, identity: Option<&toolgate_auth::Identity>) {
    if let Some(own) = identity.and_then(|id| id.agent.as_deref()) {
        only(i, &own.name);
    }
}

/// Keeps `own`'s sightings by name and counts every other agent's.
fn only(i: &mut Incident, own: &str) {
    let others: i64 = i
        .agents
        .iter()
        .filter(|a| a.agent != own)
        .map(|a| a.sightings)
        .sum();
    i.agents.retain(|a| a.agent == own);
    i.agents_unlisted = i.agents_unlisted.saturating_add(others);
}

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

    #[test]
    fn an_agent_sees_its_own_sightings_by_name_and_the_others_only_counted() {
        let agent = |name: &str, sightings| toolgate_store::IncidentAgent {
            agent: name.into(),
            sightings,
        };
        let mut i = Incident {
            id: 1,
            kind: "contract_drift".into(),
            tool: "t".into(),
            dependency: "d".into(),
            owner: "o".into(),
            status: "open".into(),
            title: "x".into(),
            detail: serde_json::Value::Null,
            contract_version: None,
            first_seen: String::new(),
            last_seen: String::new(),
            count: 10,
            fingerprint: String::new(),
            acked_by: None,
            acked_at: None,
            resolved_by: None,
            resolved_at: None,
            agents: vec![agent("bob", 5), agent("alice", 3)],
            agents_unlisted: 2,
        };
        assert_eq!(
            agents(&i).as_deref(),
            Some("bob (5), alice (3), 2 sightings by other agents")
        );
        visible_to(&mut i, None);
        assert_eq!(i.agents.len(), 2, "the admin credential sees every name");
        only(&mut i, "alice");
        assert_eq!(i.agents, vec![agent("alice", 3)]);
        assert_eq!(i.agents_unlisted, 7);
        only(&mut i, "carol");
        assert!(i.agents.is_empty() && i.agents_unlisted == 10);
    }
}
