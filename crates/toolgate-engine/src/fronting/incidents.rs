//! The incidents a fronted server raises for its owner: definition drift, definitions
//! refused for the limits, a flood of requests of its own.

use std::collections::BTreeMap;

use serde_json::json;
use toolgate_contract::{DefinitionChange, DefinitionKind};
use toolgate_store::{IncidentKind, NewIncident};

use super::{Fronted, Host, Refusals};
use crate::sync::lock as guard;

impl Fronted {
    /// The owner of upstream tool `tool`: its override's, else the server's.
    pub(super) fn owner_of(&self, tool: &str) -> String {
        self.spec
            .tools
            .get(tool)
            .and_then(|o| o.owner.clone())
            .unwrap_or_else(|| self.spec.owner.clone())
    }

    /// The incident key of the server's limits: every tool of the server.
    fn limits_key(&self) -> String {
        self.spec.exposed_name("*")
    }

    /// The server sends more requests of its own than one connection may have in flight,
    /// or more than its stream of messages outside any request may carry in a minute:
    /// one incident for its owner (repeat reports are sightings of it), and a log line.
    pub(super) fn report_flood(&self, gateway: &dyn Host, detail: &str, shed: u64) {
        tracing::warn!(server = %self.spec.name, owner = %self.spec.owner, shed, %detail, "the MCP server floods toolgate; the excess is shed");
        let incidents = gateway.incidents();
        let key = self.spec.exposed_name("*");
        if incidents.sighting(IncidentKind::UpstreamMisbehaving, &key, "flood") {
            return;
        }
        incidents.raise(NewIncident {
            kind: IncidentKind::UpstreamMisbehaving,
            tool: key,
            dependency: self.spec.name.clone(),
            owner: self.spec.owner.clone(),
            fingerprint: "flood".into(),
            title: format!(
                "MCP server {} floods toolgate with requests or messages of its own; the excess is shed",
                self.spec.name
            ),
            detail: json!({ "server": self.spec.name, "shed": shed, "detail": detail }),
            contract_version: None,
        });
    }

    /// One incident for the server's owner while the server lists more than its limits
    /// allow or definitions toolgate cannot read (updated while the same counts
    /// persist), cleared when it no longer does.
    pub(super) fn report_limits(&self, gateway: &dyn Host, refused: &Refusals) {
        let incidents = gateway.incidents();
        let key = self.limits_key();
        if refused.is_empty() {
            if incidents.is_open(IncidentKind::DefinitionDrift, &key) {
                incidents.clear(
                    IncidentKind::DefinitionDrift,
                    &key,
                    None,
                    "the server lists no more than its limits allow, and nothing unreadable",
                );
            }
            return;
        }
        let limits = &self.spec.limits;
        let what = refused.describe(limits);
        let fingerprint = format!(
            "limits:{}:{}:{}:{}:{}",
            refused.over_count,
            refused.too_large,
            refused.over_total,
            refused.unreadable,
            refused.unnamed
        );
        if incidents.sighting(IncidentKind::DefinitionDrift, &key, &fingerprint) {
            return;
        }
        tracing::warn!(
            server = %self.spec.name,
            refused = %what,
            examples = %refused.examples.join(", "),
            "the MCP server lists definitions toolgate refuses (over its limits, or unreadable): they are not pinned, not served"
        );
        incidents.raise(NewIncident {
            kind: IncidentKind::DefinitionDrift,
            tool: key,
            dependency: self.spec.name.clone(),
            owner: self.spec.owner.clone(),
            fingerprint,
            title: format!(
                "MCP server {} lists definitions toolgate refuses: {what}",
                self.spec.name
            ),
            detail: json!({
                "server": self.spec.name,
                "limits": {
                    "max_tools": limits.max_tools,
                    "max_definition_bytes": limits.max_definition_bytes,
                    "max_total_bytes": limits.max_total_bytes,
                },
                "refused": {
                    "over_max_tools": refused.over_count,
                    "over_max_definition_bytes": refused.too_large,
                    "over_max_total_bytes": refused.over_total,
                    "unreadable": refused.unreadable,
                    "listed_twice_differently": refused.conflicting,
                    "unnamed": refused.unnamed,
                    "pinned_refused": refused.pinned.len(),
                    "examples": refused.examples,
                },
                "action": "the refused definitions are neither pinned nor served; raise the server's `limits` if the ones over them are wanted, and ask the server's maintainers to fix the unreadable ones",
            }),
            contract_version: None,
        });
    }

    /// The incident key of a change: the tool's exposed name; for a prompt its exposed
    /// name followed by ` (prompt)` (a server may have a tool and a prompt of the same
    /// name; a name never holds a space, so the two keys cannot meet); for a resource
    /// template its URI template (which toolgate does not rename) followed by
    /// ` (resource template of <server>)`, since two servers may list the same one.
    fn subject(&self, name: &str, kind: DefinitionKind) -> String {
        match kind {
            DefinitionKind::Tool => self.spec.exposed_name(name),
            DefinitionKind::Prompt => format!("{} (prompt)", self.spec.exposed_name(name)),
            DefinitionKind::ResourceTemplate => {
                format!("{name} (resource template of {})", self.spec.name)
            }
        }
    }

    /// One incident per changed tool, prompt or resource template (its owner's),
    /// updated while the same changes persist, cleared when it matches its pin again.
    pub(super) fn report_changes(&self, gateway: &dyn Host, changes: &[DefinitionChange]) {
        let mut by_subject: BTreeMap<(DefinitionKind, &str), Vec<&DefinitionChange>> =
            BTreeMap::new();
        for c in changes {
            by_subject
                .entry((c.definition_kind(), c.tool()))
                .or_default()
                .push(c);
        }
        let names = self.pinned_names();
        let incidents = gateway.incidents();
        for ((kind, name), list) in &by_subject {
            let subject = self.subject(name, *kind);
            let owned: Vec<DefinitionChange> = list.iter().map(|c| (*c).clone()).collect();
            let fingerprint = toolgate_contract::definition_fingerprint(&owned);
            if incidents.sighting(IncidentKind::DefinitionDrift, &subject, &fingerprint) {
                continue;
            }
            let noun = kind.noun();
            let hidden = list.iter().any(|c| self.withholds(c));
            let summary: Vec<String> = list.iter().map(|c| c.summary()).collect();
            let action = if hidden {
                format!("toolgate hides the {noun} until its lock is updated (`toolgate lock`)")
            } else if list.iter().all(|c| c.is_added()) {
                format!("the new {noun} is not exposed until it is pinned (`toolgate lock`)")
            } else {
                "toolgate keeps serving the pinned definition".to_owned()
            };
            let owner = self.owner_of(name);
            tracing::warn!(server = %self.spec.name, subject = %subject, changes = %summary.join("; "), "definition drift: the MCP server's live definition differs from its pin");
            incidents.raise(NewIncident {
                kind: IncidentKind::DefinitionDrift,
                tool: subject.clone(),
                dependency: self.spec.name.clone(),
                owner,
                fingerprint,
                title: format!(
                    "{subject}: definition changed on MCP server {}: {}",
                    self.spec.name,
                    summary.join("; ")
                ),
                detail: json!({
                    "server": self.spec.name,
                    "changes": owned.iter().map(DefinitionChange::to_json).collect::<Vec<_>>(),
                    "action": action,
                    "hidden": hidden,
                }),
                contract_version: None,
            });
        }
        let (refused_tools, refused_prompts, refused_templates) = {
            let state = guard(&self.state);
            (
                state.refused.pinned.clone(),
                state.prompts.refused.clone(),
                state.templates.refused.clone(),
            )
        };
        let settled = [
            (DefinitionKind::Tool, &names.tools, &refused_tools),
            (DefinitionKind::Prompt, &names.prompts, &refused_prompts),
            (
                DefinitionKind::ResourceTemplate,
                &names.templates,
                &refused_templates,
            ),
        ]
        .into_iter()
        .flat_map(|(kind, pinned, refused)| {
            pinned
                .iter()
                .filter(|n| !refused.contains(*n))
                .map(move |n| (kind, n))
        });
        for (kind, name) in settled {
            if !by_subject.contains_key(&(kind, name.as_str())) {
                let subject = self.subject(name, kind);
                if incidents.is_open(IncidentKind::DefinitionDrift, &subject) {
                    incidents.clear(
                        IncidentKind::DefinitionDrift,
                        &subject,
                        None,
                        "the live definition matches the pin again",
                    );
                }
            }
        }
    }
}
