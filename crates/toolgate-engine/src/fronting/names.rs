//! One rule for every name a fronted server offers (tools, prompts, resource
//! templates): a name that reads as one already served is not served again.
//!
//! Without a prefix, a server could list its definition beside the one a model was
//! meant to use: `dependency_health` beside toolgate's own tool, `Search` beside
//! another server's `search`, a prompt `summarize` written with a Cyrillic `а` beside
//! another's `summarize`. A model reads each pair as one name, and a client that folds
//! case or normalises text takes them for one. Names are compared by their
//! [`skeleton`] and by their [`stroke_skeleton`] (`dependency_heaIth`, a capital `I`
//! for an `l`, reads as `dependency_health`); each kind is its own namespace (a prompt may share a tool's name, as
//! MCP keeps them apart). The first definition served keeps its name; the other is
//! not served, and its server's owner gets an incident until the names no longer meet.
//! A tool's `title`, which clients show in its name's place, may not read as another
//! tool's name either, or that tool is not served. Titles are compared with names only:
//! two tools may share a title (two servers' "Search", or one server fronted twice),
//! since a model calls a tool by its name, never by its title.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use toolgate_contract::DefinitionKind;
use toolgate_store::{IncidentKind, NewIncident};

use crate::upstream::mcp::lookalike::{skeleton, stroke_skeleton};
use crate::watch::incidents::Incidents;

/// Names served, by each of their [`keys`], each with the name as served.
pub type Served = BTreeMap<String, String>;

/// The keys a name is compared by: its [`skeleton`], and its [`stroke_skeleton`]
/// (marked apart, so the two never meet each other).
fn keys(name: &str) -> [String; 2] {
    [skeleton(name), format!("\u{0}{}", stroke_skeleton(name))]
}

/// `names` keyed by each of their [`keys`] (of names with one key, the first kept).
pub fn by_skeleton<'a>(names: impl IntoIterator<Item = &'a str>) -> Served {
    let mut out = Served::new();
    for name in names {
        for key in keys(name) {
            out.entry(key).or_insert_with(|| name.to_owned());
        }
    }
    out
}

/// Why a tool named `name` may not be shown with `title`, when it may not: the title
/// reads as toolgate's own tool or as a name in `others` (a title that reads
/// as the tool's own name meets nothing, as the name itself was free).
pub fn title_taken(name: &str, title: &str, others: &Served) -> Option<String> {
    if keys(title) == keys(name) {
        return None;
    }
    let why = taken(DefinitionKind::Tool, title, others)?;
    let shown = crate::explain::upstream_text(title, &Default::default(), 80);
    Some(format!("its title `{shown}` is a name too: {why}"))
}

/// Why a definition of `kind` may not be served as `name`, when it may not: toolgate's
/// own tool has the name (tools only), or `others` (what is served already, by
/// skeleton) has it or one that reads the same.
pub fn taken(kind: DefinitionKind, name: &str, others: &Served) -> Option<String> {
    let keys = keys(name);
    if kind == DefinitionKind::Tool
        && let Some(own) = toolgate_config::BUILT_IN_TOOLS
            .iter()
            .find(|b| self::keys(b).iter().zip(&keys).any(|(a, b)| a == b))
    {
        return Some(format!("toolgate's own tool is named `{own}`"));
    }
    let noun = kind.noun();
    let stand_in = || {
        let masked = masked(name)?;
        others.values().find(|other| reads_as(&masked, other))
    };
    keys.iter().find_map(|key| others.get(key)).or_else(stand_in).map(|other| {
        if other == name {
            format!("another {noun} already has this name")
        } else {
            let shown = crate::explain::upstream_text(other, &Default::default(), 80);
            format!("another {noun} is named `{shown}`, which reads the same (it differs only by case, accents or look-alike letters)")
        }
    })
}

/// `name`'s [`skeleton`], each letter from outside ASCII inside a word of ASCII
/// letters left open (`None`); `None` when no word mixes them. A word of Latin
/// letters with one letter of another script or block (an Armenian `օ` in `lօg`, a
/// Latin small capital `ꜱ` in `ꜱearch`) reads as the word with whatever ASCII letter
/// stands in its place: no table of look-alikes can list every letter drawn like
/// another in some face, so the letter is not compared at all. A word written wholly
/// in another script (`搜索`, `поиск`) is compared as it is.
fn masked(name: &str) -> Option<Vec<Option<char>>> {
    let letters: Vec<char> = skeleton(name).chars().collect();
    let mut out: Vec<Option<char>> = letters.iter().copied().map(Some).collect();
    let mut any = false;
    let mut start = 0;
    while start < letters.len() {
        let end = letters[start..]
            .iter()
            .position(|c| !c.is_alphabetic())
            .map_or(letters.len(), |n| start + n);
        let word = &letters[start..end];
        if word.iter().any(char::is_ascii_alphabetic) {
            for (i, c) in word.iter().enumerate() {
                if !c.is_ascii() {
                    out[start + i] = None;
                    any = true;
                }
            }
        }
        start = end + 1;
    }
    any.then_some(out)
}

/// Whether `other` reads as the [`masked`] name: the same length, the same letters
/// where the masked name has one, and an ASCII letter where it is left open.
fn reads_as(masked: &[Option<char>], other: &str) -> bool {
    let other = skeleton(other);
    other.chars().count() == masked.len()
        && other.chars().zip(masked).all(|(o, m)| match m {
            Some(c) => o == *c,
            None => o.is_ascii_alphabetic(),
        })
}

/// The names of one server not served because another name had them, by kind and the
/// name as it would be served, with why.
pub type Collisions = BTreeMap<(DefinitionKind, String), String>;

/// What identifies a collision's incident: the name and the server.
fn subject(kind: DefinitionKind, name: &str, server: &str) -> String {
    format!("{name} ({} of {server}: name taken)", kind.noun())
}

/// Opens an incident (owner's, one per name) for each collision of `now` not open yet,
/// and resolves those of `before` that ended. Logged as an error when it begins.
pub fn report(
    incidents: &Incidents,
    server: &str,
    owner: &str,
    before: &BTreeSet<(DefinitionKind, String)>,
    now: &Collisions,
) {
    for ((kind, name), why) in now {
        let subject = subject(*kind, name, server);
        if incidents.sighting(IncidentKind::DefinitionDrift, &subject, "name-taken") {
            continue;
        }
        let noun = kind.noun();
        let shown = crate::explain::upstream_text(name, &Default::default(), 80);
        tracing::error!(server, name = %shown, kind = noun, "not serving the MCP server's {noun}: {why} (give the server a prefix)");
        incidents.raise(NewIncident {
            kind: IncidentKind::DefinitionDrift,
            tool: subject,
            dependency: server.to_owned(),
            owner: owner.to_owned(),
            fingerprint: "name-taken".to_owned(),
            title: format!(
                "{shown}: the {noun} of MCP server {server} is not served: {why}; give the server a prefix"
            ),
            detail: json!({
                "server": server,
                "name": name,
                "kind": noun,
                "why": why,
                "action": format!("toolgate does not serve the {noun}; the one that had the name keeps it"),
                "hidden": true,
            }),
            contract_version: None,
        });
    }
    for (kind, name) in before {
        if !now.contains_key(&(*kind, name.clone())) {
            let subject = subject(*kind, name, server);
            if incidents.is_open(IncidentKind::DefinitionDrift, &subject) {
                incidents.clear(
                    IncidentKind::DefinitionDrift,
                    &subject,
                    None,
                    "the name no longer meets another: the definition is served",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_taken_by_one_that_reads_the_same_in_its_own_kind_only() {
        let tools = by_skeleton(["search", "fetch"]);
        for name in ["search", "Search", "ＳＥＡＲＣＨ", "s\u{0435}arch"] {
            assert!(
                taken(DefinitionKind::Tool, name, &tools).is_some(),
                "{name}"
            );
        }
        assert!(taken(DefinitionKind::Tool, "Dependency_Health", &Served::new()).is_some());
        // toolgate's own tool is a tool: a prompt of its name meets nothing.
        assert!(taken(DefinitionKind::Prompt, "dependency_health", &Served::new()).is_none());
        assert!(taken(DefinitionKind::Tool, "search_docs", &tools).is_none());
        let prompts = by_skeleton(["summarize"]);
        assert!(taken(DefinitionKind::Prompt, "Summarize", &prompts).is_some());
        assert!(taken(DefinitionKind::Prompt, "summ\u{0430}rize", &prompts).is_some());
        assert!(taken(DefinitionKind::Prompt, "translate", &prompts).is_none());
    }

    #[test]
    fn a_letter_of_another_script_inside_a_latin_word_reads_as_any_letter_in_its_place() {
        let tools = by_skeleton(["log_event", "search", "搜索_v1", "cafe"]);
        for name in [
            "l\u{0585}g_event", // Armenian օ
            "\u{a731}earch",    // Latin small capital ꜱ
            "se\u{0251}rch",    // Latin alpha, also a look-alike
            "s\u{0585}\u{0585}rch",
        ] {
            assert!(
                taken(DefinitionKind::Tool, name, &tools).is_some(),
                "{name}"
            );
        }
        // A word wholly in another script, or a letter standing for no served name,
        // meets nothing.
        for name in [
            "查找_v1",
            "поиск",
            "l\u{0585}g_events",
            "se\u{0585}rch_docs",
            "searc",
        ] {
            assert!(
                taken(DefinitionKind::Tool, name, &tools).is_none(),
                "{name}"
            );
        }
    }
}
