//! Which fronted server a resource URI belongs to, as far as toolgate has seen: the
//! servers that listed it and, as a weaker claim, the tool results that linked to it. Resource URIs are not
//! renamed per server as tools are, so this is what routes a read (see
//! `passthrough::owner_of`), and what lets toolgate see two servers claim one URI.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use toolgate_mcp_client::codes;

use super::Fronted;
use crate::sync::lock as guard;
use crate::upstream::mcp::RpcError;

/// Which servers listed which resource URI (learnt from lists, used to route reads).
///
/// Bounded: servers list what they like, new URIs on every list included, and every
/// agent's lists add to it. It is a hint, not a record — a read of a URI it no longer
/// holds is routed by the servers' pinned URI templates, else asks each server that
/// offers resources until one knows it — so when it is full it is emptied and learnt
/// again from the next lists.
#[derive(Debug, Default)]
pub struct ResourceIndex(Mutex<Indexed>, OverlapWarnings);

/// When an overlap of two servers' resources was last logged as a warning: agents'
/// requests cause them, so at most one a minute reaches the log (the rest at debug).
#[derive(Debug, Default)]
struct OverlapWarnings(Mutex<Option<tokio::time::Instant>>);

impl OverlapWarnings {
    fn log(&self, uri: &str, servers: &str, what: &str) {
        let uri = loggable_uri(uri);
        let now = tokio::time::Instant::now();
        let mut last = guard(&self.0);
        if last.is_some_and(|at| now.duration_since(at) < std::time::Duration::from_secs(60)) {
            tracing::debug!(%uri, %servers, "{what}");
            return;
        }
        *last = Some(now);
        tracing::warn!(%uri, %servers, "{what} (logged at most once a minute)");
    }
}

#[derive(Debug, Default)]
struct Indexed {
    /// Each URI's claims, in the order they were made (rarely more than one).
    claims: BTreeMap<String, Vec<Claim>>,
    /// The URIs' bytes.
    bytes: usize,
    /// Numbers the lists as they start.
    lists_started: u64,
    /// Per server, the number of the latest list of it read whole on a session every
    /// agent shares: what it did not list then, it no longer lists.
    whole_lists: BTreeMap<String, u64>,
    /// Per server, when it was last listed on demand (before a link alone was
    /// trusted); only those within [`RELIST_ON_DEMAND_AFTER`], so at most one per
    /// configured server.
    listed_on_demand: BTreeMap<String, Instant>,
}

/// One server's claim to a URI.
#[derive(Debug)]
struct Claim {
    server: String,
    /// The latest list that named it (`None`: a tool result linked to it, which no list
    /// takes back).
    listed_in: Option<u64>,
}

/// How long after a server was listed on demand, without the list being read whole (it
/// failed, was cut, or was the caller's own), reads do not list it on demand again: a
/// server whose list keeps failing is not asked on every read an agent makes.
pub const RELIST_ON_DEMAND_AFTER: Duration = Duration::from_secs(30);

/// URIs the resource index holds at most.
pub const MAX_INDEXED: usize = 100_000;
/// The bytes of the URIs the resource index holds, at most.
pub const MAX_INDEXED_BYTES: usize = 16 << 20;

/// A list of one server being read into the index ([`ResourceIndex::start_list`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Listing(u64);

impl ResourceIndex {
    /// A list of a server starts: what it names is learnt with
    /// [`learn_listed`](Self::learn_listed).
    pub(crate) fn start_list(&self) -> Listing {
        let mut index = guard(&self.0);
        index.lists_started += 1;
        Listing(index.lists_started)
    }

    /// `listing` of `server` was read whole, on a session every agent shares: URIs the
    /// server listed before but not in it are its no longer (a server that once listed
    /// another's URI and stopped does not keep it refused).
    pub(crate) fn finish_list(&self, server: &str, listing: Listing) {
        let mut index = guard(&self.0);
        let latest = index.whole_lists.entry(server.to_owned()).or_default();
        *latest = (*latest).max(listing.0);
    }

    /// Notes that `server` listed `uri` in `listing`.
    pub(crate) fn learn_listed(&self, uri: &str, server: &str, listing: Listing) {
        self.claim(uri, server, Some(listing.0));
    }

    /// Notes that `server`'s tool result linked to `uri`.
    pub(crate) fn learn(&self, uri: &str, server: &str) {
        self.claim(uri, server, None);
    }

    fn claim(&self, uri: &str, server: &str, listed_in: Option<u64>) {
        let mut index = guard(&self.0);
        if let Some(claims) = index.claims.get_mut(uri) {
            // Bounded by the configured servers.
            match claims.iter_mut().find(|c| c.server == server) {
                Some(claim) => {
                    // A list is the stronger claim: a server that lists a URI it also
                    // linked to is its lister (and loses the claim when it stops
                    // listing it, like any lister).
                    claim.listed_in = match (claim.listed_in, listed_in) {
                        (Some(was), Some(now)) => Some(was.max(now)),
                        (was, now) => was.or(now),
                    };
                }
                None => claims.push(Claim {
                    server: server.to_owned(),
                    listed_in,
                }),
            }
            return;
        }
        if index.claims.len() >= MAX_INDEXED || index.bytes + uri.len() > MAX_INDEXED_BYTES {
            tracing::debug!(
                uris = index.claims.len(),
                "the resource index is full; emptied, to be learnt again from the next lists"
            );
            let whole_lists = std::mem::take(&mut index.whole_lists);
            let listed_on_demand = std::mem::take(&mut index.listed_on_demand);
            let lists_started = index.lists_started;
            *index = Indexed {
                whole_lists,
                listed_on_demand,
                lists_started,
                ..Indexed::default()
            };
        }
        index.bytes += uri.len();
        let claim = Claim {
            server: server.to_owned(),
            listed_in,
        };
        index.claims.insert(uri.to_owned(), vec![claim]);
    }

    /// Notes the resources a fronted server's tool result links to or embeds
    /// (`resource_link` and `resource` content blocks) as that server's: an agent reads
    /// them next, often without listing, and the read must go to the server that named
    /// them — not to every server in turn, which would hand the URI to all of them.
    pub fn learn_from_result(&self, server: &str, result: &[u8]) {
        /// Links taken from one result, at most.
        const MAX_LINKS: usize = 1_000;
        /// What of a result is read: its content blocks' types and URIs; the rest (a
        /// text block's text, `structuredContent`) is skipped without being kept.
        #[derive(serde::Deserialize)]
        struct Result<'a> {
            #[serde(default, borrow)]
            content: Vec<Block<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Block<'a> {
            #[serde(rename = "type", borrow)]
            kind: Cow<'a, str>,
            #[serde(default, borrow)]
            uri: Option<Cow<'a, str>>,
            #[serde(default, borrow)]
            resource: Option<Embedded<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Embedded<'a> {
            #[serde(default, borrow)]
            uri: Option<Cow<'a, str>>,
        }
        // Most results link to nothing: they are not parsed.
        if memchr::memmem::find(result, b"\"resource").is_none() {
            return;
        }
        let Ok(result) = serde_json::from_slice::<Result<'_>>(result) else {
            return;
        };
        let uris = result
            .content
            .iter()
            .filter_map(|block| match &*block.kind {
                "resource_link" => block.uri.as_deref(),
                "resource" => block.resource.as_ref()?.uri.as_deref(),
                _ => None,
            });
        for uri in uris.take(MAX_LINKS) {
            self.learn(uri, server);
        }
    }

    /// The refusal of a request about `uri`, which several servers claim (`how`: "is
    /// listed by", …), logged for the operator (at most once a minute) with every
    /// claimant; the caller is told only of those `shown` to it, and not how many
    /// others there are.
    pub(crate) fn overlap<'f>(
        &self,
        uri: &str,
        how: &str,
        servers: impl Iterator<Item = &'f Fronted>,
        shown: impl Fn(&Fronted) -> bool,
    ) -> RpcError {
        let servers: Vec<&Fronted> = servers.collect();
        let names = |keep: &dyn Fn(&Fronted) -> bool| {
            let names: Vec<&str> = servers
                .iter()
                .filter(|s| keep(s))
                .map(|s| s.spec().name.as_str())
                .collect();
            names.join(", ")
        };
        let text = crate::explain::upstream_text(uri, &Default::default(), 200);
        self.1.log(
            &text,
            &names(&|_| true),
            &format!("a resource URI {how} several MCP servers; requests about it are refused"),
        );
        let told = names(&shown);
        RpcError {
            code: codes::INVALID_PARAMS,
            message: format!(
                "resource {text} {how} more than one MCP server (among them {told}); toolgate does not choose between them, since either could answer for the other — the operator can remove the overlap"
            ),
            data: None,
        }
    }

    /// The servers that list `uri`, as far as the index still holds: those that listed
    /// it and have not been listed whole without it since.
    pub(crate) fn listers(&self, uri: &str) -> Vec<String> {
        let index = guard(&self.0);
        let Some(claims) = index.claims.get(uri) else {
            return Vec::new();
        };
        claims
            .iter()
            .filter(|c| {
                c.listed_in.is_some_and(|listed| {
                    index
                        .whole_lists
                        .get(&c.server)
                        .is_none_or(|whole| *whole <= listed)
                })
            })
            .map(|c| c.server.clone())
            .collect()
    }

    /// The servers whose tool results linked to `uri`. A link is a weaker claim than a
    /// list: a server may link to any URI, another server's too.
    pub(crate) fn linkers(&self, uri: &str) -> Vec<String> {
        guard(&self.0)
            .claims
            .get(uri)
            .map(|claims| {
                claims
                    .iter()
                    .filter(|c| c.listed_in.is_none())
                    .map(|c| c.server.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `server`'s resources were ever read whole into the index.
    pub(crate) fn listed_whole(&self, server: &str) -> bool {
        guard(&self.0).whole_lists.contains_key(server)
    }

    /// Whether `server` may be listed on demand now: not within
    /// [`RELIST_ON_DEMAND_AFTER`] of the last time. A yes counts as that time, so reads
    /// arriving together list it once.
    pub(crate) fn may_list_on_demand(&self, server: &str) -> bool {
        let now = Instant::now();
        let mut index = guard(&self.0);
        index
            .listed_on_demand
            .retain(|_, at| now.saturating_duration_since(*at) < RELIST_ON_DEMAND_AFTER);
        if index.listed_on_demand.contains_key(server) {
            return false;
        }
        index.listed_on_demand.insert(server.to_owned(), now);
        true
    }

    /// How many URIs the index holds.
    pub fn len(&self) -> usize {
        guard(&self.0).claims.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A resource URI as it may be logged: without its query, fragment or credentials,
/// where signed URIs carry their secrets (`…?token=`, `https://user:key@host/`).
pub(crate) fn loggable_uri(uri: &str) -> String {
    let uri = uri.split(['?', '#']).next().unwrap_or_default();
    match uri.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let rest = match rest[..authority_end].rfind('@') {
                Some(at) => &rest[at + 1..],
                None => rest,
            };
            format!("{scheme}://{rest}")
        }
        None => uri.to_owned(),
    }
}
