//! The watch of one server: checks when it says its definitions changed, when it
//! restarted, lost its session or refused an unknown tool, when the lockfile changed
//! and every `check_every`, coalesced and spaced; and its other notifications passed on.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolgate_mcp_client::Event;

use super::{Checked, Fronted, Host};
use crate::sync::lock as guard;

/// Keeps one server's tools current: checks on every list-changed, restart or lost
/// session, call refused for an unknown tool, and every `check_every` (sooner, with
/// backoff from 2 s, while the server
/// cannot be listed, so a server that was down at start-up is picked up soon after it
/// comes up); tells connected clients when the tools they see changed, and passes the
/// server's other notifications on. The first check is the caller's (`serve` waits for
/// it, bounded).
///
/// Checks are coalesced: while one runs, any number of list-changed notifications make
/// one more check after it, not one each (a server flooding `list_changed` costs at most
/// one `tools/list` in flight and one pending). And they are spaced: a check starts no
/// sooner than [`relist_spacing`] after the previous one started, so a server that
/// repeats `list_changed` without end (or restarts, or loses its session, in a loop)
/// makes toolgate list a large catalogue a few times a minute, not back to back; a
/// change it announces is still picked up, at most that spacing late.
pub async fn watch(
    server: Arc<Fronted>,
    gateway: Arc<dyn Host>,
    mut events: mpsc::Receiver<Event>,
    first: Checked,
    stop: tokio_util::sync::CancellationToken,
) {
    let every = server.spec.check_every;
    let mut backoff = MIN_RELIST_SPACING;
    let now = tokio::time::Instant::now;
    // A deadline, not a sleep per loop: events and lock polls must not push it back.
    let mut due = now() + if first.listed { every } else { backoff };
    let mut events_open = true;
    let mut lock_poll = tokio::time::interval(LOCK_POLL);
    lock_poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut sessions_closed = crate::broadcast::subscribers_closed();
    // Sessions that closed before this watch began are let go of at its first turn.
    sessions_closed.mark_changed();
    // The caller's first check has just run.
    let mut last_check = (now(), Duration::ZERO);
    loop {
        let updates_due = guard(&server.state).updates.due();
        let mut recheck = tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep_until(due) => true,
            () = tokio::time::sleep_until(updates_due.unwrap_or(due)), if updates_due.is_some() => {
                server.send_held_updates(gateway.as_ref());
                false
            }
            () = server.recheck.notified() => true,
            _ = lock_poll.tick() => server.lock_changed(),
            // Any number of closings while busy make one pass over the subscriptions.
            Ok(()) = sessions_closed.changed() => {
                server.let_go_of_closed_sessions();
                false
            }
            event = events.recv(), if events_open => match event {
                None => {
                    events_open = false;
                    false
                }
                Some(event) => on_event(&server, gateway.as_ref(), event),
            },
        };
        while recheck {
            let (started, took) = last_check;
            let allowed = started + relist_spacing(took, every);
            if now() < allowed {
                // Deferred, not dropped: the deadline brings the check.
                due = due.min(allowed);
                break;
            }
            let started = now();
            let checked = server.check(gateway.as_ref()).await;
            last_check = (started, now() - started);
            if checked.changed {
                gateway.notify_all("notifications/tools/list_changed", None);
            }
            if std::mem::take(&mut guard(&server.state).resources_changed) {
                gateway.notify_all("notifications/resources/list_changed", None);
            }
            if checked.listed {
                backoff = MIN_RELIST_SPACING;
                due = now() + every;
            } else {
                due = now() + backoff.min(every);
                backoff = (backoff * 2).min(every);
            }
            // What arrived during the check: other notifications are passed on in order;
            // any number of reasons to check again make one more check.
            recheck = false;
            while let Ok(event) = events.try_recv() {
                recheck |= on_event(&server, gateway.as_ref(), event);
            }
            if stop.is_cancelled() {
                return;
            }
        }
    }
}

/// The least time between the starts of two checks of one server: [`MIN_RELIST_SPACING`],
/// or ten times what the last check took when that is longer (a catalogue that takes
/// long to list or pin is listed at most a tenth of the time), never more than the
/// server's `check_every`.
fn relist_spacing(took: Duration, every: Duration) -> Duration {
    MIN_RELIST_SPACING.max(took.saturating_mul(10)).min(every)
}

/// See [`relist_spacing`].
const MIN_RELIST_SPACING: Duration = Duration::from_secs(2);

/// Handles one event of the server's connection; true when the tools must be checked.
pub(super) fn on_event(server: &Fronted, gateway: &dyn Host, event: Event) -> bool {
    match event {
        // Prompts are served from their pins too: a changed list is checked, and
        // clients are told only when what they see changed.
        Event::ToolsChanged | Event::PromptsChanged => true,
        // A new process or session has forgotten what was subscribed through it.
        Event::Restarted | Event::SessionLost => {
            server.resubscribe();
            true
        }
        Event::Exited { detail } => {
            tracing::warn!(server = %server.spec.name, %detail, "the MCP server's process exited; restarting it");
            false
        }
        // Sent at most once a minute per server; the client has already shed the excess.
        Event::Misbehaving { detail, shed } => {
            server.report_flood(gateway, &detail, shed);
            false
        }
        // The resources themselves are live: clients are told after the check this
        // causes (the templates among them are served from their pins), once however
        // many times the server said it meanwhile — a server repeating it without end
        // must not fill every client's stream with it.
        Event::ResourcesChanged => {
            guard(&server.state).resources_changed = true;
            true
        }
        // Only the sessions that subscribed learn of an update: a resource's URI may
        // say whose it is.
        Event::ResourceUpdated { uri } => {
            let readers = server.subscribers(&uri);
            if readers.is_empty() {
                tracing::debug!(server = %server.spec.name, "a resource update no client subscribed to through toolgate is dropped");
            } else if !guard(&server.state)
                .updates
                .offer(&uri, tokio::time::Instant::now())
            {
                // Repeated within its spacing: it goes when the spacing ends.
                return false;
            }
            gateway.notify_readers(
                "notifications/resources/updated",
                Some(json!({ "uri": uri })),
                readers,
            );
            false
        }
        // A log message no call can be named for (the server's standalone stream, or a
        // stdio server with several calls in flight citing none) may be about any
        // agent's call: it goes to toolgate's log, for the operators, not to every
        // agent. One a call can be named for reaches that call's client alone.
        Event::Notification { method, params } => {
            if method == "notifications/message" {
                log_server_message(server, params);
            }
            false
        }
    }
}

/// Writes a log message of the server's own to toolgate's log, within its budget of
/// lines a second, without the server's credentials and cut to one bounded line.
fn log_server_message(server: &Fronted, params: Option<Value>) {
    let p = params.unwrap_or(Value::Null);
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let take = guard(&server.state)
        .log_budget
        .get_or_insert_with(|| {
            toolgate_mcp_client::LineBudget::new(
                SERVER_LOG_LINES_PER_SECOND,
                Duration::from_secs(1),
            )
        })
        .take(tokio::time::Instant::now());
    if !take.log {
        return;
    }
    if take.suppressed > 0 {
        tracing::info!(server = %server.spec.name, suppressed = take.suppressed, "log messages of the MCP server's own were not logged (more than {SERVER_LOG_LINES_PER_SECOND} a second)");
    }
    // The server's own credentials are kept out of toolgate's log too.
    let secrets =
        crate::explain::Secrets::new(crate::exchange::echo::credentials(&server.spec.dependency));
    let data = crate::explain::upstream_text(&text(&p["data"]), &secrets, 500);
    tracing::info!(
        server = %server.spec.name,
        level = %crate::explain::upstream_text(&text(&p["level"]), &secrets, 20),
        logger = %crate::explain::upstream_text(&text(&p["logger"]), &secrets, 80),
        %data,
        "a log message of the MCP server's own (no call to relay it to)"
    );
}

/// A server's own log messages (no call to relay them to) written to toolgate's log
/// per second at most; the rest are counted, and the count logged with the next.
pub const SERVER_LOG_LINES_PER_SECOND: u32 = 20;

/// How often the lockfile's modification time is looked at (a `stat`), so a `toolgate
/// lock` run beside a serving toolgate takes effect within seconds.
const LOCK_POLL: Duration = Duration::from_secs(2);

/// How long `serve` waits at start-up for every server's first check, so the first
/// `tools/list` already has the tools of servers that are up; a server that is down
/// does not hold the others (they are checked concurrently) and keeps being checked.
pub const STARTUP_WAIT: Duration = Duration::from_secs(10);
