//! Definitions other than tools (prompts, resource templates) as served from their
//! pins, and what a server answers of them.

use std::collections::{BTreeMap, BTreeSet};

use toolgate_contract::{PromptDefinition, ResourceTemplateDefinition};

use super::Fronted;
use crate::sync::lock as guard;

/// Pinned definitions of one kind other than tools (prompts, resource templates), as
/// served: from their pins, without those awaiting review under `block`.
#[derive(Debug)]
pub(super) struct Served<T> {
    /// Pinned ones the last check refused for the limits (so not read as removed).
    pub(super) refused: BTreeSet<String>,
    /// Served names with the pinned definition each is served from, as last published.
    pub(super) served: BTreeMap<String, T>,
    /// Pinned ones not served because their live definition is pending review, by
    /// served name, with the owner who reviews it.
    pub(super) withheld: BTreeMap<String, String>,
}

impl<T> Default for Served<T> {
    fn default() -> Self {
        Served {
            refused: BTreeSet::new(),
            served: BTreeMap::new(),
            withheld: BTreeMap::new(),
        }
    }
}

impl Fronted {
    /// Whether one of this server's served (pinned) URI templates could expand to
    /// `uri`.
    pub(crate) fn templates_match(&self, uri: &str) -> bool {
        guard(&self.state)
            .templates
            .served
            .keys()
            .any(|t| toolgate_contract::uri_template_matches(t, uri))
    }

    /// Whether this server serves the pinned resource template `uri_template`.
    pub(crate) fn serves_template(&self, uri_template: &str) -> bool {
        guard(&self.state)
            .templates
            .served
            .contains_key(uri_template)
    }

    /// The resource templates served now, from their pins.
    pub fn resource_templates(&self) -> Vec<ResourceTemplateDefinition> {
        guard(&self.state)
            .templates
            .served
            .values()
            .cloned()
            .collect()
    }

    /// The prompts served now, by exposed name.
    pub fn prompts(&self) -> BTreeMap<String, PromptDefinition> {
        guard(&self.state).prompts.served.clone()
    }

    /// The pinned prompt served as `exposed`, or why it is not: `Err(Some(owner))` when
    /// it is withheld for review, `Err(None)` when the server serves no such prompt.
    pub fn prompt(&self, exposed: &str) -> Result<PromptDefinition, Option<String>> {
        let state = guard(&self.state);
        if let Some(p) = state.prompts.served.get(exposed) {
            return Ok(p.clone());
        }
        Err(state.prompts.withheld.get(exposed).cloned())
    }
}
