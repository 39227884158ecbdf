//! Publishing a server's pins: the routes of its tools, its prompts and resource
//! templates as served, without those withheld for review or named like another's.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use toolgate_config::OnChange;
use toolgate_config::ToolSpec;
use toolgate_contract::{
    DefinitionChange, DefinitionKind, PinnedDefinition, PinnedServer, ToolDefinition,
};

use super::served::Served;
use super::{Fronted, Host, State, names, server_identity, spec};
use crate::dependency::DependencyState;
use crate::pipeline::{Route, ToolRoute};
use crate::sync::lock as guard;
use crate::upstream::{AnyUpstream, McpUpstream};

impl Fronted {
    /// Publishes routes from the pins alone (no I/O): with a lockfile, the server's
    /// tools are served from the first moment, whether or not it is up.
    pub fn publish_pinned(&self, gateway: &dyn Host) -> bool {
        self.publish(gateway)
    }

    /// The name a definition of `kind` named `name` upstream is served under: a tool's
    /// or prompt's exposed name, a resource template's URI template (never renamed).
    pub(super) fn served_as(&self, kind: DefinitionKind, name: &str) -> String {
        match kind {
            DefinitionKind::ResourceTemplate => name.to_string(),
            _ => self.spec.exposed_name(name),
        }
    }

    /// Whether `change` keeps its definition from being served until it is reviewed:
    /// every change but a new definition under `on_change: block`, and under `warn`
    /// too a tool whose annotations now say it may do more than its pin says — served
    /// by its pin, it would be approved as the harmless tool it no longer claims to be.
    pub(super) fn withholds(&self, change: &DefinitionChange) -> bool {
        (self.spec.on_change == OnChange::Block && change.hides_tool())
            || !change.widens().is_empty()
    }

    /// Builds the routes from the pins (filtered, without hidden tools) and hands them
    /// to the gateway. Returns whether the published tools changed.
    pub(super) fn publish(&self, gateway: &dyn Host) -> bool {
        // Asked before this server's state is locked: the answer reads other servers'.
        let name = &self.spec.name;
        let other_tools = gateway.names_besides(name, DefinitionKind::Tool);
        let other_prompts = gateway.names_besides(name, DefinitionKind::Prompt);
        let other_templates = gateway.names_besides(name, DefinitionKind::ResourceTemplate);
        let mut state = guard(&self.state);
        let Some(pins) = state.pins.clone() else {
            return false;
        };
        let hidden = self.hidden_tools(&state);
        let mut collisions =
            self.publish_others(&mut state, &pins, gateway, &other_prompts, &other_templates);
        self.withhold_tools(&mut state, &pins, &hidden);
        let dependency = gateway.server_dependency(&self.spec.name);
        let (routes, published) =
            self.routes(&pins, &hidden, dependency, other_tools, &mut collisions);
        let changed = published != state.published;
        state.published = published;
        let before = std::mem::replace(&mut state.collisions, collisions.keys().cloned().collect());
        drop(state);
        gateway.set_server_routes(&self.spec.name, routes);
        names::report(
            gateway.incidents(),
            &self.spec.name,
            &self.spec.owner,
            &before,
            &collisions,
        );
        changed
    }

    /// The pinned tools not served until they are reviewed: under `block`, one whose
    /// live definition differs — or was refused for the limits, so it cannot be
    /// compared; under either policy, one whose hints now say it may do more than its
    /// pin says.
    fn hidden_tools(&self, state: &State) -> BTreeSet<String> {
        let refused = match self.spec.on_change {
            OnChange::Block => state.refused.pinned.iter().cloned().collect(),
            OnChange::Warn => Vec::new(),
        };
        state
            .changes
            .iter()
            .filter(|c| self.withholds(c) && c.definition_kind() == DefinitionKind::Tool)
            .map(|c| c.tool().to_string())
            .chain(refused)
            .collect()
    }

    /// Records the exposed tools withheld for review, with who reviews each, and logs
    /// when they change.
    fn withhold_tools(&self, state: &mut State, pins: &PinnedServer, hidden: &BTreeSet<String>) {
        let withheld: BTreeMap<String, String> = pins
            .tools
            .iter()
            .filter(|d| hidden.contains(&d.name) && self.spec.exposes(&d.name))
            .map(|d| (self.spec.exposed_name(&d.name), self.owner_of(&d.name)))
            .collect();
        if withheld == state.withheld {
            return;
        }
        if withheld.is_empty() {
            tracing::info!(server = %self.spec.name, "no tools are withheld any more");
        } else {
            let names: Vec<&str> = withheld.keys().map(String::as_str).collect();
            tracing::warn!(
                server = %self.spec.name,
                tools = %names.join(", "),
                "withholding tools (on_change: block): their live definitions differ from their pins and await review; see the definition-drift incidents, then accept with `toolgate lock --server {}` (review first with `--dry-run`)",
                self.spec.name
            );
        }
        state.withheld = withheld;
    }

    /// The routes of the pinned tools served, with the definition each is built from by
    /// exposed name: not those hidden, none past `max_tools`, and none whose name reads
    /// as one in `others` or one of this server's before it (added to `collisions`).
    fn routes(
        &self,
        pins: &PinnedServer,
        hidden: &BTreeSet<String>,
        dependency: Option<Arc<DependencyState>>,
        mut others: names::Served,
        collisions: &mut names::Collisions,
    ) -> (Vec<ToolRoute>, BTreeMap<String, ToolDefinition>) {
        // A lockfile may hold any version (written by hand, or before versions were
        // cleaned): only a plain token is printed as a contract version.
        let version = server_identity::contract_version(&pins.server_version);
        let mut routes = Vec::new();
        let mut published = BTreeMap::new();
        for def in &pins.tools {
            if !self.spec.exposes(&def.name) || hidden.contains(&def.name) {
                continue;
            }
            // A lockfile edited past the limits is served no further than they allow.
            if routes.len() >= self.spec.limits.max_tools {
                tracing::warn!(server = %self.spec.name, max_tools = self.spec.limits.max_tools, "the lockfile pins more tools than max_tools allows; the rest are not served");
                break;
            }
            let Some(tool) = self.tool_spec(def, &version) else {
                continue;
            };
            let title = tool.title.as_deref();
            let why = names::taken(DefinitionKind::Tool, &tool.name, &others)
                .or_else(|| title.and_then(|title| names::title_taken(&tool.name, title, &others)));
            if let Some(why) = why {
                collisions.insert((DefinitionKind::Tool, tool.name.clone()), why);
                continue;
            }
            // This server's own names meet too: the first pinned keeps its name.
            others.extend(names::by_skeleton([tool.name.as_str()]));
            let Some(dependency) = dependency.clone() else {
                continue;
            };
            published.insert(tool.name.clone(), def.clone());
            routes.push(self.route(def, tool, dependency));
        }
        (routes, published)
    }

    /// The tool a pinned definition is served as, `None` (logged) when it cannot be.
    fn tool_spec(&self, def: &ToolDefinition, version: &str) -> Option<Arc<ToolSpec>> {
        let d = spec::Definition {
            name: &def.name,
            title: def.title.as_deref(),
            description: def.description.as_deref(),
            input_schema: &def.input_schema,
            output_schema: def.output_schema.as_ref(),
            annotations: def.annotations.as_ref(),
        };
        match spec::tool_spec(&self.spec, &d, version) {
            Ok(t) => Some(Arc::new(t)),
            Err(e) => {
                tracing::warn!(server = %self.spec.name, error = %e, "not exposing an MCP tool");
                None
            }
        }
    }

    /// The route of one served tool: its calls go to the server (or the caller's own
    /// session on it), with the server's dependency state and reply memory.
    fn route(
        &self,
        def: &ToolDefinition,
        tool: Arc<ToolSpec>,
        dependency: Arc<DependencyState>,
    ) -> ToolRoute {
        let callers = self
            .callers
            .clone()
            .map(|c| c as Arc<dyn crate::upstream::mcp::CallerLinks>);
        let upstream = AnyUpstream::Mcp(
            McpUpstream::new(self.link.clone(), def.name.clone())
                .with_callers(callers)
                .scrubbing(&dependency.spec)
                .holding(self.replies.clone(), dependency.replies.clone()),
        );
        Route::new(
            tool,
            Arc::new(crate::tool_state::ToolState::new()),
            dependency,
            upstream,
        )
    }

    /// Sets the prompts and resource templates served from the pins: under `block`,
    /// without one whose live definition differs (or was refused, so cannot be
    /// compared). Clients are told when the prompts or templates they see changed.
    /// Returns the definitions not served because another's name reads the same.
    fn publish_others(
        &self,
        state: &mut State,
        pins: &PinnedServer,
        gateway: &dyn Host,
        other_prompts: &names::Served,
        other_templates: &names::Served,
    ) -> names::Collisions {
        let State {
            changes,
            prompts,
            templates,
            ..
        } = state;
        let mut collisions = names::Collisions::new();
        if self.publish_kind(
            changes,
            &pins.prompts,
            prompts,
            other_prompts,
            &mut collisions,
        ) {
            gateway.notify_all("notifications/prompts/list_changed", None);
        }
        if self.publish_kind(
            changes,
            &pins.resource_templates,
            templates,
            other_templates,
            &mut collisions,
        ) {
            gateway.notify_all("notifications/resources/list_changed", None);
        }
        collisions
    }

    /// Publishes the pins of one kind into `into`, but for those whose served name reads
    /// as one in `others` or one published before it (added to `collisions`); whether
    /// what is served changed.
    fn publish_kind<T: PinnedDefinition>(
        &self,
        changes: &[DefinitionChange],
        pins: &[T],
        into: &mut Served<T>,
        others: &names::Served,
        collisions: &mut names::Collisions,
    ) -> bool {
        let mut others = others.clone();
        let hidden: BTreeSet<&str> = if self.spec.on_change == OnChange::Block {
            changes
                .iter()
                .filter(|c| c.hides_tool() && c.definition_kind() == T::KIND)
                .map(DefinitionChange::tool)
                .chain(into.refused.iter().map(String::as_str))
                .collect()
        } else {
            BTreeSet::new()
        };
        let mut served = BTreeMap::new();
        let mut withheld = BTreeMap::new();
        for d in pins.iter().take(self.spec.limits.max_tools) {
            let name = d.key();
            let as_served = self.served_as(T::KIND, name);
            if hidden.contains(name) {
                withheld.insert(as_served, self.owner_of(name));
            } else if let Some(why) = names::taken(T::KIND, &as_served, &others) {
                collisions.insert((T::KIND, as_served), why);
            } else {
                others.extend(names::by_skeleton([as_served.as_str()]));
                served.insert(as_served, d.clone());
            }
        }
        if withheld != into.withheld {
            if !withheld.is_empty() {
                let names: Vec<&str> = withheld.keys().map(String::as_str).collect();
                tracing::warn!(server = %self.spec.name, kind = T::KIND.noun(), withheld = %names.join(", "), "withholding definitions (on_change: block): their live definitions differ from their pins and await review");
            }
            into.withheld = withheld;
        }
        let changed = served != into.served;
        into.served = served;
        changed
    }
}
