//! Status feeds: the RSS 2.0 or Atom feed a provider publishes of its incidents, where it
//! has no JSON status document (Azure status, the AWS Health Dashboard's per-service
//! feeds) or beside one (every Atlassian Statuspage's `history.rss` and `history.atom`,
//! Google Cloud's `feed.atom`).
//!
//! Sources: the feeds django-health-check reads as status checks
//! (github.com/codingjoe/django-health-check, `health_check/contrib/rss.py`: AWS, Heroku
//! and Azure RSS; Google Cloud, Fly.io, Platform.sh, DigitalOcean, Render, Vercel and
//! Railway Atom); an AWS item as Grafana's Infinity data source prints it (`Service is
//! operating normally: [RESOLVED] SMS Delivery Delays`, grafana-infinity-datasource
//! `docs/sources/examples/rss-feeds.md`).
//!
//! A feed is history, newest first, so an entry says how things stand only by the state
//! it names: the first incident-lifecycle word of its title, else of its text
//! (Statuspage writes each update as `<strong>Resolved</strong> - …`, newest first;
//! Google Cloud titles start `RESOLVED:` or `UPDATE:`; AWS titles say `Service is
//! operating normally` or `[RESOLVED]`). Resolved and completed entries are over, and
//! scheduled ones have not begun; an entry naming no state is open, since providers that
//! publish a feed of current events (Azure) drop what is over. One incident can appear
//! several times, each update a new item (AWS): only its newest entry speaks for it, so
//! a later `[RESOLVED]` closes the earlier `Informational message:` of the same title.
//! An open incident is degraded, or down when its title says the service is out
//! (`Service disruption`, `Major outage`); an empty feed, or one where all is over, is
//! healthy. Work is bounded: at most [`MAX_ENTRIES`] entries and the first
//! [`MAX_FEED`] bytes are read.
//!
//! A feed has no end for an incident whose closing update never came, so an open
//! reading also ages out, measured from the entry's own date (Atom `<updated>`, else
//! `<published>`; RSS `<pubDate>`; RSS 1.0 `<dc:date>`) to the time the feed was
//! fetched, which the caller gives. An entry naming no state is open only because a
//! feed of current events still lists it, and is over once it is [`UNSTATED_OPEN_FOR`]
//! old: providers post updates on a live incident every few hours, while a feed that is
//! not a status feed at all (a blog, a changelog) names no state and keeps every entry
//! for months. An entry whose newest update says work goes on (`Investigating`,
//! `Monitoring`, `In progress`) is the provider's own word and lasts longer,
//! [`STATED_OPEN_FOR`], long enough for a multi-day outage or maintenance between
//! updates, short enough that an incident left in `Monitoring` and never closed stops
//! reading degraded. An entry with no date that parses, or a read with no clock, is
//! judged by its state alone.

use chrono::{DateTime, TimeDelta, Utc};

use super::{Health, MAX_COMPONENTS, PageStatus, worse};

/// Bytes of a feed read; its newest entries come first.
const MAX_FEED: usize = 256 * 1024;
/// Entries read from a feed.
const MAX_ENTRIES: usize = 64;
/// Bytes of an entry's text searched for its state; the newest update leads.
const MAX_STATE_TEXT: usize = 2048;
/// How long an entry naming no state stays open after its date.
const UNSTATED_OPEN_FOR: TimeDelta = TimeDelta::hours(72);
/// How long an entry whose newest update says work goes on stays open after its date.
const STATED_OPEN_FOR: TimeDelta = TimeDelta::days(7);
/// Entry elements that date it, the latest update first.
const DATE_ELEMENTS: [&str; 4] = ["updated", "pubDate", "dc:date", "published"];

/// Reads `body` as an RSS or Atom status feed; `None` for any other body. `now`, the
/// time the feed was fetched, ages out open entries; without it none ages out.
pub(super) fn parse(body: &[u8], now: Option<DateTime<Utc>>) -> Option<PageStatus> {
    let body = &body[..body.len().min(MAX_FEED)];
    // A cut may split a character; what precedes it is still read.
    let text = match std::str::from_utf8(body) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&body[..e.valid_up_to()]).ok()?,
    };
    let (open_tag, close_tag) = feed_kind(text)?;
    let mut seen: Vec<String> = Vec::new();
    let mut health = Health::Healthy;
    let mut components = Vec::new();
    let mut first_open: Option<String> = None;
    for entry in entries(text, open_tag, close_tag).take(MAX_ENTRIES) {
        let title = element_text(entry, "title").unwrap_or_default();
        let key = incident_key(&title);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let body_text = ["description", "content", "summary"]
            .iter()
            .find_map(|name| element_text(entry, name))
            .unwrap_or_default();
        // The title's state, unless it only calls the work scheduled: its text then
        // says whether it has begun (Statuspage's "Scheduled maintenance for …"
        // entries, updated "In progress").
        let state = match state_of(&title) {
            Some(State::Planned) => state_of(&body_text).or(Some(State::Planned)),
            None => state_of(&body_text),
            said => said,
        };
        let open_for = match state {
            Some(State::Over | State::Planned) => continue,
            Some(State::Open) => STATED_OPEN_FOR,
            None => UNSTATED_OPEN_FOR,
        };
        // Only the date is read, and only for an entry that would otherwise be open.
        if let Some(now) = now
            && entry_date(entry).is_some_and(|at| now - at > open_for)
        {
            continue;
        }
        let entry_health = out_of_service(&title);
        health = worse(health, entry_health);
        first_open.get_or_insert_with(|| title.clone());
        if components.len() < MAX_COMPONENTS {
            let word = if entry_health == Health::Down {
                "outage"
            } else {
                "open"
            };
            components.push((title, word.to_owned()));
        }
    }
    Some(PageStatus {
        health,
        indicator: if components.is_empty() {
            "no open events".to_owned()
        } else {
            format!("{} open", components.len())
        },
        description: first_open,
        components,
    })
}

/// The entry element of an RSS (`<rss>` with `<item>`s) or Atom (`<feed>` with
/// `<entry>`s) document, judged by its root element; `None` for other markup.
fn feed_kind(text: &str) -> Option<(&'static str, &'static str)> {
    let mut rest = text.trim_start();
    // The XML declaration, comments and processing instructions come before the root.
    while let Some(after) = rest.strip_prefix('<') {
        if after.starts_with(['?', '!']) {
            rest = after[after.find('>')? + 1..].trim_start();
            continue;
        }
        let name_end = after.find(|c: char| c.is_whitespace() || c == '>')?;
        let root_tag = &after[..after.find('>')?];
        return match after[..name_end].rsplit(':').next()? {
            "rss" | "RDF" => Some(("<item", "</item>")),
            // Atom's root names its namespace; another `<feed>` is some other document.
            "feed" if root_tag.contains("http://www.w3.org/2005/Atom") => {
                Some(("<entry", "</entry>"))
            }
            _ => None,
        };
    }
    None
}

/// Each entry's inner markup, in document order.
fn entries<'a>(
    text: &'a str,
    open_tag: &'static str,
    close_tag: &'static str,
) -> impl Iterator<Item = &'a str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        loop {
            let at = rest.find(open_tag)?;
            let after = &rest[at + open_tag.len()..];
            // `<items>` or `<entryType>` is another element.
            if !after.starts_with(['>', ' ', '\t', '\r', '\n']) {
                rest = after;
                continue;
            }
            let end = after.find(close_tag).unwrap_or(after.len());
            rest = &after[end..];
            return Some(&after[..end]);
        }
    })
}

/// The text of the first `<name>` element in `entry`, its CDATA unwrapped and its
/// escaped markup (an Atom `content type="html"`) decoded enough to read words.
fn element_text(entry: &str, name: &str) -> Option<String> {
    let open = format!("<{name}");
    let mut rest = entry;
    let inner = loop {
        let at = rest.find(&open)?;
        let after = &rest[at + open.len()..];
        if !after.starts_with(['>', ' ', '\t', '\r', '\n']) {
            rest = after;
            continue;
        }
        let start = after.find('>')? + 1;
        if after[..start].ends_with("/>") {
            return None;
        }
        let body = &after[start..];
        let end = body.find(&format!("</{name}>")).unwrap_or(body.len());
        break &body[..end];
    };
    let inner = inner.trim();
    let inner = inner
        .strip_prefix("<![CDATA[")
        .map_or(inner, |s| s.strip_suffix("]]>").unwrap_or(s));
    let cut = inner
        .char_indices()
        .nth(MAX_STATE_TEXT)
        .map_or(inner.len(), |(i, _)| i);
    Some(
        inner[..cut]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
            .trim()
            .to_owned(),
    )
}

/// When an entry was last updated, from the first of [`DATE_ELEMENTS`] that parses as
/// RFC 3339 (Atom, `dc:date`) or RFC 2822 (RSS `pubDate`, `Fri, 14 Jan 2022 14:44:00
/// PST`).
fn entry_date(entry: &str) -> Option<DateTime<Utc>> {
    DATE_ELEMENTS.iter().find_map(|name| {
        let text = element_text(entry, name)?;
        DateTime::parse_from_rfc3339(&text)
            .or_else(|_| DateTime::parse_from_rfc2822(&text))
            .ok()
            .map(|t| t.with_timezone(&Utc))
    })
}

/// An incident's name in a title, without the state a provider puts before it:
/// `Informational message: [RESOLVED] Increased API Error Rates` and `Service is
/// operating normally: Increased API Error Rates` are one incident.
fn incident_key(title: &str) -> String {
    let lower = title.to_ascii_lowercase();
    let name = lower.split_once(": ").map_or(lower.as_str(), |(_, n)| n);
    name.replace("[resolved]", "").trim().to_owned()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Resolved, completed, operating normally again.
    Over,
    /// Announced for later, not begun.
    Planned,
    /// Being worked on, or in progress.
    Open,
}

/// Incident-lifecycle words, with the state each names.
const STATE_WORDS: [(&str, State); 14] = [
    ("resolved", State::Over),
    ("completed", State::Over),
    ("operating normally", State::Over),
    ("postmortem", State::Over),
    ("scheduled", State::Planned),
    ("upcoming", State::Planned),
    ("investigating", State::Open),
    ("identified", State::Open),
    ("monitoring", State::Open),
    ("in progress", State::Open),
    ("verifying", State::Open),
    ("update", State::Open),
    ("active", State::Open),
    ("mitigated", State::Over),
];

/// The state named first in `text`: the newest update leads an entry's text.
fn state_of(text: &str) -> Option<State> {
    let lower = text.to_ascii_lowercase();
    let first = STATE_WORDS
        .iter()
        .filter_map(|(word, state)| find_word(&lower, word).map(|at| (at, *state)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, state)| state)?;
    // "Scheduled maintenance in progress": work that was planned and has begun.
    if first == State::Planned && find_word(&lower, "in progress").is_some() {
        return Some(State::Open);
    }
    Some(first)
}

/// Where `word` occurs in `text` as a word of its own (`update` not in `updated`).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return Some(at);
        }
        from = end;
    }
    None
}

/// An open incident is degraded, or down when its title says the service is out.
fn out_of_service(title: &str) -> Health {
    let lower = title.to_ascii_lowercase();
    let down = [
        "service disruption",
        "major outage",
        "full outage",
        "complete outage",
        "is down",
    ]
    .iter()
    .any(|p| lower.contains(p));
    if down { Health::Down } else { Health::Degraded }
}

#[cfg(test)]
mod tests;
