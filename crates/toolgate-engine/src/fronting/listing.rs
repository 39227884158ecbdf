//! Listing a server's definitions (tools, prompts, resource templates): every page,
//! each entry read on its own and kept within the server's limits.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolgate_config::ServerLimits;
use toolgate_contract::{PromptDefinition, ResourceTemplateDefinition, ToolDefinition};
use toolgate_mcp_client::codes;

use super::limits::json_len;
use super::{Fronted, Listed, Refusals, pages};
use crate::sync::lock as guard;

/// Upper bound of `tools/list` pages followed (a server that paginates forever is cut off).
const MAX_PAGES: usize = 100;

/// One list of definitions a server answers: its method, the key of its entries in
/// each page, and the field that names an entry.
#[derive(Clone, Copy)]
struct Listing {
    method: &'static str,
    key: &'static str,
    name_key: &'static str,
    /// Optional within the server's capability: a server that does not know the method
    /// (-32601) lists none, rather than failing the check.
    optional: bool,
}

const TOOLS: Listing = Listing {
    method: "tools/list",
    key: "tools",
    name_key: "name",
    optional: false,
};
const PROMPTS: Listing = Listing {
    method: "prompts/list",
    key: "prompts",
    name_key: "name",
    optional: false,
};
const TEMPLATES: Listing = Listing {
    method: "resources/templates/list",
    key: "resourceTemplates",
    name_key: "uriTemplate",
    optional: true,
};

/// The name of a list entry that cannot be read whole, if its top level can be.
fn entry_name(entry: &RawValue, name_key: &str) -> Option<String> {
    let top: BTreeMap<String, &RawValue> = serde_json::from_str(entry.get()).ok()?;
    serde_json::from_str(top.get(name_key)?.get()).ok()
}

/// A name for the log: one line, capped.
fn shown_name(name: Option<&str>) -> String {
    name.map_or_else(
        || "(none)".to_string(),
        |n| toolgate_contract::one_line(n).chars().take(80).collect(),
    )
}

/// The definitions with one per name: a name listed more than once keeps its first
/// copy when every copy is the same, and loses all of them when they differ (the names
/// returned). Which of two differing copies is the server's real one cannot be told,
/// and serving either would serve what no reviewer pinned.
fn one_per_name<T: PartialEq>(listed: Vec<(String, T)>) -> (Vec<T>, Vec<String>) {
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    let mut conflicting: BTreeSet<String> = BTreeSet::new();
    let mut repeats: BTreeSet<usize> = BTreeSet::new();
    for (i, (name, def)) in listed.iter().enumerate() {
        match first.get(name.as_str()) {
            None => {
                first.insert(name, i);
            }
            Some(&at) => {
                repeats.insert(i);
                if listed[at].1 != *def {
                    conflicting.insert(name.clone());
                }
            }
        }
    }
    let kept = listed
        .into_iter()
        .enumerate()
        .filter(|(i, (name, _))| !repeats.contains(i) && !conflicting.contains(name))
        .map(|(_, (_, def))| def)
        .collect();
    (kept, conflicting.into_iter().collect())
}

impl Fronted {
    /// Every page of `tools/list`, as definitions within the server's limits: a
    /// definition larger than `max_definition_bytes`, one past `max_tools` or past
    /// `max_total_bytes` is counted and dropped, so what is kept stays bounded however
    /// much the server lists. `pinned` names the pinned tools, so a refused one is not
    /// read as removed.
    pub(crate) async fn list_tools(&self, pinned: &BTreeSet<String>) -> Result<Listed, String> {
        let (tools, refused) = self
            .list_definitions(&TOOLS, pinned, ToolDefinition::from_mcp)
            .await?;
        Ok(Listed { tools, refused })
    }

    /// Every page of `prompts/list`, within the same limits as the tools (counted
    /// apart: a server may have `max_tools` tools and as many prompts). A server that
    /// does not offer prompts has none.
    pub(crate) async fn list_prompts(
        &self,
        pinned: &BTreeSet<String>,
    ) -> Result<(Vec<PromptDefinition>, Refusals), String> {
        if !self.offers("prompts") {
            return Ok((Vec::new(), Refusals::default()));
        }
        self.list_definitions(&PROMPTS, pinned, PromptDefinition::from_mcp)
            .await
    }

    /// Every page of `resources/templates/list`, within the same limits as the tools
    /// (counted apart). A server that does not offer resources has none, and so has one
    /// that offers resources without templates (it may not know the method).
    pub(crate) async fn list_templates(
        &self,
        pinned: &BTreeSet<String>,
    ) -> Result<(Vec<ResourceTemplateDefinition>, Refusals), String> {
        if !self.offers("resources") {
            return Ok((Vec::new(), Refusals::default()));
        }
        self.list_definitions(&TEMPLATES, pinned, ResourceTemplateDefinition::from_mcp)
            .await
    }

    /// What a listing of the server's resources refused, and why it was cut off if it
    /// was: kept for `dependency_health`, and, when the counts changed, a check is asked
    /// for, which tells the owner in the server's limits incident (a listing that
    /// refuses the same again asks for none).
    pub(crate) fn resources_listed(&self, refused: Refusals, cut_off: Option<String>) {
        let mut state = guard(&self.state);
        let changed = state.resources_refused != refused;
        state.resources_refused = refused;
        state.resources_cut_off = cut_off;
        drop(state);
        if changed {
            self.recheck.notify_one();
        }
    }

    /// Whether the server said at its handshake that it offers `capability` (before
    /// the handshake: ask).
    pub(crate) fn offers(&self, capability: &str) -> bool {
        self.connection
            .initialized()
            .is_none_or(|i| i.capabilities.get(capability).is_some())
    }

    /// Every page of one list, read by `read` within the server's limits. Each entry
    /// is read on its own: one that cannot be read (one nested past what toolgate
    /// reads, too) is refused by name, and the rest are kept. A name listed more than
    /// once is kept once when every copy is the same, else refused (see
    /// [`one_per_name`]).
    async fn list_definitions<T: PartialEq>(
        &self,
        listing: &Listing,
        pinned: &BTreeSet<String>,
        read: fn(&Value) -> Result<T, String>,
    ) -> Result<(Vec<T>, Refusals), String> {
        let method = listing.method;
        let deadline = pages::Deadline::start(self.spec.dependency.timeout);
        let mut gathered = Gathered::new(listing, pinned, read);
        let mut cursor: Option<Value> = None;
        let mut cursors = pages::Cursors::default();
        for page_number in 0..MAX_PAGES {
            let params = cursor.take().map(|c| json!({ "cursor": c }));
            let Some(page) = self
                .fetch_page(listing, params, &deadline, page_number, &mut gathered)
                .await?
            else {
                return Ok((Vec::new(), Refusals::default()));
            };
            // The page's members as JSON text: an entry too deep to read must not make
            // the whole page unreadable.
            let members: BTreeMap<String, &RawValue> = serde_json::from_str(page.get())
                .map_err(|e| format!("{method} answered something that is not a list: {e}"))?;
            let entries: Vec<&RawValue> = members
                .get(listing.key)
                .and_then(|list| serde_json::from_str(list.get()).ok())
                .unwrap_or_default();
            for entry in entries {
                gathered.take(&self.spec.name, self.spec.limits, entry);
            }
            cursor = self.next_cursor(method, &members, &mut cursors)?;
            if cursor.is_none() {
                break;
            }
        }
        if cursor.is_some() {
            // Pages left unread: what they hold would read as removed.
            let why =
                format!("{method} has more than {MAX_PAGES} pages; the listing is cut off there");
            tracing::warn!(server = %self.spec.name, "{why}");
            return Err(why);
        }
        Ok(gathered.finish(&self.spec.name))
    }

    /// One page of a listing, `None` when the server does not know an optional list's
    /// method (it lists none). A listing cut off at its deadline is not read as the
    /// server's list (what it did not reach would read as removed): the check fails,
    /// and the pins stay.
    async fn fetch_page<T>(
        &self,
        listing: &Listing,
        params: Option<Value>,
        deadline: &pages::Deadline,
        page_number: usize,
        gathered: &mut Gathered<'_, T>,
    ) -> Result<Option<Box<RawValue>>, String> {
        let method = listing.method;
        let cut_off = || {
            let why = deadline.cut_off(method, page_number);
            tracing::warn!(server = %self.spec.name, "{why}");
            why
        };
        let Some(timeout) = deadline.page_timeout() else {
            return Err(cut_off());
        };
        let reply = match self.link.request(method, params, timeout, None).await {
            Ok(reply) => reply,
            Err(_) if deadline.passed() => return Err(cut_off()),
            Err(e) => return Err(e.to_string()),
        };
        gathered
            .refused
            .skipped_by_client(&reply.skipped, gathered.pinned);
        match reply.outcome {
            Ok(page) => Ok(Some(page)),
            Err(e) if listing.optional && e.code == codes::METHOD_NOT_FOUND => Ok(None),
            Err(e) => Err(format!("{method} failed: {} ({})", e.message, e.code)),
        }
    }

    /// The cursor of the page after this one, `None` at the list's end or when the
    /// server came back to a cursor it gave before; an error for a cursor toolgate does
    /// not send back (pages left unread, as at the deadline: the pins stay).
    fn next_cursor(
        &self,
        method: &str,
        members: &BTreeMap<String, &RawValue>,
        cursors: &mut pages::Cursors,
    ) -> Result<Option<Value>, String> {
        let next = members
            .get("nextCursor")
            .and_then(|c| serde_json::from_str::<Value>(c.get()).ok());
        match next {
            Some(c) if !c.is_null() && !cursors.fresh(&c) => {
                tracing::warn!(server = %self.spec.name, method, "the MCP server's list came back to a cursor it gave before; its listing ends there");
                Ok(None)
            }
            Some(c) if !c.is_null() => {
                if let Some(why) = pages::refused_cursor(method, &c) {
                    tracing::warn!(server = %self.spec.name, "{why}");
                    return Err(why);
                }
                Ok(Some(c))
            }
            _ => Ok(None),
        }
    }
}

/// What a listing kept so far within the server's limits, and what it refused.
struct Gathered<'a, T> {
    listing: &'a Listing,
    pinned: &'a BTreeSet<String>,
    read: fn(&Value) -> Result<T, String>,
    /// Each kept definition with its name, in the server's order.
    kept: Vec<(String, T)>,
    refused: Refusals,
    /// The kept definitions' bytes.
    total: usize,
}

impl<'a, T: PartialEq> Gathered<'a, T> {
    fn new(
        listing: &'a Listing,
        pinned: &'a BTreeSet<String>,
        read: fn(&Value) -> Result<T, String>,
    ) -> Self {
        Gathered {
            listing,
            pinned,
            read,
            kept: Vec::new(),
            refused: Refusals::default(),
            total: 0,
        }
    }

    /// Keeps one entry, or refuses it: unreadable, larger than `max_definition_bytes`,
    /// past `max_tools` or past `max_total_bytes` (asked in that order).
    fn take(&mut self, server: &str, limits: ServerLimits, entry: &RawValue) {
        let (method, name_key) = (self.listing.method, self.listing.name_key);
        let t: Value = match serde_json::from_str(entry.get()) {
            Ok(t) => t,
            Err(e) => {
                let name = entry_name(entry, name_key);
                tracing::warn!(server = %server, method, name = %shown_name(name.as_deref()), error = %e, "refusing a definition toolgate cannot read");
                self.refused.unreadable += 1;
                self.refused.note(name.as_deref(), self.pinned);
                return;
            }
        };
        let size = json_len(&t);
        let name = t.get(name_key).and_then(Value::as_str);
        let over = if size > limits.max_definition_bytes {
            Some(&mut self.refused.too_large)
        } else if self.kept.len() >= limits.max_tools {
            Some(&mut self.refused.over_count)
        } else if self.total + size > limits.max_total_bytes {
            Some(&mut self.refused.over_total)
        } else {
            None
        };
        if let Some(count) = over {
            *count += 1;
            self.refused.note(name, self.pinned);
            return;
        }
        match (self.read)(&t) {
            Ok(d) => {
                self.total += size;
                self.kept.push((name.unwrap_or_default().to_string(), d));
            }
            Err(e) => {
                tracing::warn!(server = %server, method, error = %e, "skipping a definition toolgate cannot read");
                self.refused.unreadable += 1;
                self.refused.note(name, self.pinned);
            }
        }
    }

    /// The definitions kept, one per name, and what was refused (with the pinned ones
    /// possibly among the refusals of unknown name).
    fn finish(mut self, server: &str) -> (Vec<T>, Refusals) {
        let method = self.listing.method;
        if self.refused.unnamed > 0 {
            self.possibly_refused(server);
        }
        let (kept, conflicting) = one_per_name(self.kept);
        for name in &conflicting {
            tracing::warn!(server = %server, method, name = %shown_name(Some(name)), "the MCP server lists this name more than once with different definitions; no copy is taken from the list (a pinned one is served from its pin)");
            self.refused.conflicting += 1;
            self.refused.note(Some(name), self.pinned);
        }
        (kept, self.refused)
    }

    /// A refused definition of unknown name may be any pinned one not listed: read as
    /// refused (its pin kept, and withheld under `block`), not removed.
    fn possibly_refused(&mut self, server: &str) {
        let listed: BTreeSet<&str> = self.kept.iter().map(|(n, _)| n.as_str()).collect();
        let unlisted: Vec<&String> = self
            .pinned
            .iter()
            .filter(|p| !listed.contains(p.as_str()) && !self.refused.pinned.contains(*p))
            .collect();
        if !unlisted.is_empty() {
            tracing::warn!(server = %server, method = self.listing.method, unnamed = self.refused.unnamed, possibly_refused = unlisted.len(), "the MCP server's list held refused definitions whose names toolgate did not read; the pinned ones it does not list are read as possibly refused, not removed");
        }
        self.refused.pinned.extend(unlisted.into_iter().cloned());
    }
}
