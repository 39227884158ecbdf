//! The check of a server's live definitions against its pins: listed, compared,
//! pinned when there are none yet, and the lockfile read again when it changed.

use std::collections::{BTreeMap, BTreeSet};

use toolgate_contract::{
    DefinitionChange, DefinitionKind, PinnedServer, PromptDefinition, ResourceTemplateDefinition,
};

use super::{
    Checked, Fronted, Host, Listed, Refusals, State, first_sight, passthrough, server_identity,
};
use crate::sync::lock as guard;

/// The order a server's checks started listing in, and the latest one applied.
#[derive(Debug, Default)]
pub(crate) struct ListingOrder {
    started: u64,
    applied: u64,
}

impl ListingOrder {
    /// A new listing's number.
    fn start(&mut self) -> u64 {
        self.started += 1;
        self.started
    }

    /// Whether listing `n` may be applied (no later one was); it is then the latest.
    fn apply(&mut self, n: u64) -> bool {
        if n < self.applied {
            return false;
        }
        self.applied = n;
        true
    }
}

/// The names a server's pins hold, by kind (a resource template's: its URI template).
#[derive(Debug, Default)]
pub(crate) struct PinnedNames {
    pub tools: BTreeSet<String>,
    pub prompts: BTreeSet<String>,
    pub templates: BTreeSet<String>,
}

impl PinnedNames {
    pub(crate) fn of(pins: Option<&PinnedServer>) -> PinnedNames {
        let mut names = PinnedNames::default();
        if let Some(p) = pins {
            names.tools = p.tools.iter().map(|t| t.name.clone()).collect();
            names.prompts = p.prompts.iter().map(|t| t.name.clone()).collect();
            names.templates = p
                .resource_templates
                .iter()
                .map(|t| t.uri_template.clone())
                .collect();
        }
        names
    }
}

pub(super) fn mtime(path: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Fronted {
    /// Lists the live tools, prompts and resource templates, compares them with the pins
    /// (pinning them if there are none yet), raises or clears definition-drift
    /// incidents, and publishes the routes, prompts and templates. Returns whether the
    /// tools agents see changed (so clients are told) and whether the server could be
    /// listed.
    ///
    /// Checks may overlap (the first one at start, one a `list_changed` asked for, one a
    /// refused call rang for, an operator's): a check whose listing is older than one
    /// already applied changes nothing, so a stale listing never clears newer findings.
    pub async fn check(&self, gateway: &dyn Host) -> Checked {
        self.reread_lock();
        let names = self.pinned_names();
        let listing = guard(&self.listings).start();
        let live = self.list_live(&names).await;
        let mut order = guard(&self.listings);
        if !order.apply(listing) {
            tracing::debug!(server = %self.spec.name, "a later check's findings stand: this older listing is dropped");
            return Checked {
                changed: false,
                listed: live.is_ok(),
            };
        }
        // `order` stays held until the findings are published (no await follows), so
        // two checks' findings never mix.
        let live = match live {
            Ok(live) => live,
            Err(e) => return self.unlisted(gateway, e),
        };
        let (changes, refused, first_seen) = {
            let mut state = guard(&self.state);
            state.last_error = None;
            state.checked_at = Some(chrono::Utc::now());
            let first_seen = self.pin_first_seen(&mut state, &live);
            let changes = compare_with_pins(&state, &live);
            let refused = record_refusals(&mut state, live);
            state.changes = changes.clone();
            state.refused = refused.clone();
            (changes, refused, first_seen)
        };
        if first_seen {
            self.log_first_seen();
        }
        self.report_limits(gateway, &refused);
        self.report_changes(gateway, &changes);
        Checked {
            changed: self.publish(gateway),
            listed: true,
        }
    }

    /// Every list a check reads. Only the tools' failing fails the check: a server that
    /// lists its tools but not its prompts (or templates) keeps their last findings.
    async fn list_live(&self, names: &PinnedNames) -> Result<Live, String> {
        let tools = self.list_tools(&names.tools).await?;
        let prompts = match self.list_prompts(&names.prompts).await {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::warn!(server = %self.spec.name, error = %e, "could not list the MCP server's prompts; serving its pinned prompts");
                None
            }
        };
        let templates = match self.list_templates(&names.templates).await {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::warn!(server = %self.spec.name, error = %e, "could not list the MCP server's resource templates; serving its pinned ones");
                None
            }
        };
        // Resources are listed with the definitions, so what their listing refuses is
        // told by this check rather than the next one. A server called with each
        // caller's authority lists them to each caller: its own session has none.
        let resources = if self.offers("resources") && !self.calls_with_callers_authority() {
            Some(
                passthrough::read_server_resources(self, None, &passthrough::Asker::default())
                    .await,
            )
        } else {
            None
        };
        Ok(Live {
            tools,
            prompts,
            templates,
            resources,
        })
    }

    /// A check that could not list the server's tools: the error is kept (logged once
    /// while it repeats) and the pinned tools stay served.
    fn unlisted(&self, gateway: &dyn Host, error: String) -> Checked {
        let mut state = guard(&self.state);
        if state.last_error.as_deref() != Some(error.as_str()) {
            tracing::warn!(server = %self.spec.name, error = %error, "could not list the MCP server's tools; serving its pinned tools");
        }
        state.last_error = Some(error);
        drop(state);
        Checked {
            changed: self.publish(gateway),
            listed: false,
        }
    }

    /// Without pins yet, pins what the server lists now, but for what carries hidden
    /// text (unreviewed, it waits for review). Whether it did.
    fn pin_first_seen(&self, state: &mut State, live: &Live) -> bool {
        if state.pins.is_some() {
            return false;
        }
        let init = self.connection.initialized();
        state.pins = Some(PinnedServer {
            server_name: init
                .as_ref()
                .map(|i| server_identity::cleaned(&i.server_name))
                .unwrap_or_default(),
            server_version: init
                .as_ref()
                .map(|i| server_identity::cleaned(&i.server_version))
                .unwrap_or_default(),
            protocol_version: init
                .as_ref()
                .map(|i| i.protocol_version.clone())
                .unwrap_or_default(),
            locked_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            tools: first_sight::pinnable(&self.spec.name, &live.tools.tools),
            prompts: live
                .prompts
                .as_ref()
                .map(|(p, _)| first_sight::pinnable(&self.spec.name, p))
                .unwrap_or_default(),
            resource_templates: live
                .templates
                .as_ref()
                .map(|(t, _)| first_sight::pinnable(&self.spec.name, t))
                .unwrap_or_default(),
        });
        true
    }

    /// The warning that the pins were taken from what the server serves now.
    fn log_first_seen(&self) {
        let state = guard(&self.state);
        let Some(pins) = state.pins.as_ref() else {
            return;
        };
        let (tools, prompts, templates) = (
            pins.tools.len(),
            pins.prompts.len(),
            pins.resource_templates.len(),
        );
        drop(state);
        tracing::warn!(
            server = %self.spec.name,
            lock = %self.spec.lock.display(),
            "no pinned definitions for this MCP server: pinning the {tools} tool, {prompts} prompt and {templates} resource template definitions it serves now; run `toolgate lock` to keep them across restarts",
        );
    }

    /// The names the pins hold, by kind.
    pub(super) fn pinned_names(&self) -> PinnedNames {
        PinnedNames::of(guard(&self.state).pins.as_ref())
    }

    /// Whether the lockfile changed since its pins were read.
    pub(super) fn lock_changed(&self) -> bool {
        let now = mtime(&self.spec.lock);
        now.is_some() && now != guard(&self.state).lock_mtime
    }

    /// Takes the pins from the lockfile again when it changed since they were read:
    /// `toolgate lock` run beside a serving toolgate is how a change is accepted, without
    /// a restart. A lockfile that no longer reads keeps the pins in force (logged).
    fn reread_lock(&self) {
        let now = mtime(&self.spec.lock);
        let mut state = guard(&self.state);
        if now.is_none() || now == state.lock_mtime {
            return;
        }
        match toolgate_contract::Lockfile::read(&self.spec.lock) {
            Ok(Some(l)) => {
                if let Some(pins) = l.server(&self.spec.name) {
                    tracing::info!(server = %self.spec.name, lock = %self.spec.lock.display(), "the lockfile changed: serving its pins");
                    state.pins = Some(pins.clone());
                    state.from_lock = true;
                }
                state.lock_mtime = now;
            }
            Ok(None) => state.lock_mtime = now,
            Err(e) => {
                tracing::error!(server = %self.spec.name, error = %e, "the lockfile changed but cannot be read; the pins in force stay");
                state.lock_mtime = now;
            }
        }
    }
}

/// What one check listed: the tools, and the other lists, each `None` when it could not
/// be read (its last findings stand).
struct Live {
    tools: Listed,
    prompts: Option<(Vec<PromptDefinition>, Refusals)>,
    templates: Option<(Vec<ResourceTemplateDefinition>, Refusals)>,
    resources: Option<passthrough::ResourceListing>,
}

/// The differences between the live definitions and the pins. A pinned definition
/// refused for the limits is still listed: it is not read as removed. A list that could
/// not be read keeps its last findings.
fn compare_with_pins(state: &State, live: &Live) -> Vec<DefinitionChange> {
    let empty = PinnedServer::default();
    let pins = state.pins.as_ref().unwrap_or(&empty);
    let unrefused = |mut changes: Vec<DefinitionChange>, refused: &Refusals| {
        changes.retain(|c| !(c.is_removed() && refused.pinned.contains(c.tool())));
        changes
    };
    let mut changes = unrefused(
        toolgate_contract::compare(&pins.tools, &live.tools.tools),
        &live.tools.refused,
    );
    let prompt_changes = live.prompts.as_ref().map(|(listed, refused)| {
        unrefused(
            toolgate_contract::compare_prompts(&pins.prompts, listed),
            refused,
        )
    });
    let template_changes = live.templates.as_ref().map(|(listed, refused)| {
        unrefused(
            toolgate_contract::compare_resource_templates(&pins.resource_templates, listed),
            refused,
        )
    });
    for (kind, listed) in [
        (DefinitionKind::Prompt, prompt_changes),
        (DefinitionKind::ResourceTemplate, template_changes),
    ] {
        match listed {
            Some(found) => changes.extend(found),
            None => changes.extend(
                state
                    .changes
                    .iter()
                    .filter(|c| c.definition_kind() == kind)
                    .cloned(),
            ),
        }
    }
    changes
}

/// Keeps what each list refused (the resources' from their last listing when this
/// check did not list them) and returns it all as one, for the limits incident.
fn record_refusals(state: &mut State, live: Live) -> Refusals {
    let Live {
        tools: Listed { mut refused, .. },
        prompts,
        templates,
        resources,
    } = live;
    let mut by_list = BTreeMap::new();
    by_list.insert("tools", refused.total());
    if let Some((_, r)) = &prompts {
        state.prompts.refused = r.pinned.clone();
        by_list.insert("prompts", r.total());
        refused.absorb(r);
    }
    if let Some((_, r)) = &templates {
        state.templates.refused = r.pinned.clone();
        by_list.insert("resource_templates", r.total());
        refused.absorb(r);
    }
    if let Some(listing) = resources {
        state.resources_refused = listing.refused;
        state.resources_cut_off = listing.cut_off;
    }
    by_list.insert("resources", state.resources_refused.total());
    refused.absorb(&state.resources_refused);
    by_list.retain(|_, n| *n > 0);
    state.refused_by_list = by_list;
    refused
}
