//! Learned contracts: the shape of a tool's successful responses, learned from the
//! responses themselves when nobody declared one, and written out as a JSON Schema that
//! [`crate::ResponseContract`] enforces like any other — so drift against it gets the
//! same rename-aware diff (`results[].snippet` missing, `results[].excerpt` new, same
//! type → probably a rename).
//!
//! What is learned, per path (`results[].snippet`):
//! - the types seen; several make a union (`string | number`); a path seen only as
//!   `null` says nothing about its type and stays unconstrained (a `next_page: null` on
//!   every page so far must not make the first real link "drift");
//! - `null`: once any response carried a `null` anywhere, every path below the top
//!   typed as a string, number or boolean accepts `null` too — an upstream that writes
//!   absent values as `null` does so for any such field, not only those that happened
//!   to be empty while learning; objects and lists accept it too only once some object
//!   or list was seen `null` (see [`Nullable`]);
//! - numbers are `number`, whole or not: whole numbers alone are no evidence of an
//!   integer (`10` today is `10.5` tomorrow, and writers drop a `.0`);
//! - every element of an array merged into one element shape;
//! - a field is required only when it was present in every object seen at that path,
//!   and objects were seen at that path in at least [`REQUIRE_AFTER`] responses (or in
//!   as many as were learned from, if fewer); next-page links and tokens (`nextLink`,
//!   `NextToken`) are never required, since the last page leaves them out, nor is a
//!   field seen only as
//!   `null` (`"deleted_at": null` in every response says "nothing here", which an
//!   upstream may as well say by leaving the field out);
//! - objects whose keys are ids (numeric, UUIDs, hashes, dates, random tokens such as
//!   `cus_NffrFeUfNV2Hib`), or that carry more than [`MAP_KEYS`] keys of one kind of
//!   value, are maps: their values are merged into one shape (`additionalProperties`),
//!   instead of one field per id.
//!
//! Memory is bounded: at most `max_paths` fields are learned per contract. At the cap,
//! new fields are no longer learned — they stay unconstrained, the paths learned so far
//! are still enforced — and [`Learner::capped`] says so. Arrays are read up to
//! [`crate::MAX_ITEMS`] elements, nesting up to [`crate::MAX_DEPTH`] levels, keys up to
//! [`MAX_KEY_BYTES`]. Pure: no clock, no I/O; the caller decides when it has seen enough.

use crate::types::Types;
use crate::walk::{MAX_DEPTH, MAX_ITEMS};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Fields learned per contract unless configured otherwise.
pub const DEFAULT_MAX_PATHS: usize = 1_000;
/// Responses learned from before a learned contract is enforced, unless configured.
pub const DEFAULT_ENFORCE_AFTER: u64 = 20;
/// Longer keys are not learned as fields (they are data, not names).
pub const MAX_KEY_BYTES: usize = 256;
/// An object with more keys than this, all holding one kind of value, is a map.
pub const MAP_KEYS: usize = 64;
/// Responses that must have held an object at a place before a field present in all of
/// its objects is required there (fewer when fewer responses were learned from: a place
/// in every response is as well known as the responses are). Responses, not objects: the
/// items of one list come from one query, and a field an upstream sends only for a while
/// is in all of them or in none, so nine items of three responses say little more than
/// three objects would. A field of an object seen twice, inside an
/// optional field, says little about whether it is always sent; eight are enough
/// because a required field's absence is held back until it lasts (see
/// `crate::Absences`): a field left out of one object in ten is in all of eight 43 % of
/// the time, and must then be missing from three responses in a row before it ever comes
/// back. Twenty left renames inside optional parents unreported (on generated responses
/// of 150 operations, 78 of 100 injected renames, removals and type changes were
/// reported; 89 with eight, with no more valid responses reported as drift).
pub const REQUIRE_AFTER: u64 = 8;

/// The learned shape of one place in the responses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Node {
    /// Types seen here, `null` apart.
    types: Types,
    /// `null` was seen here.
    null: bool,
    /// Objects seen here (a field is required when it was seen this many times).
    objects: u64,
    /// Responses that held a value (not `null`) here: the objects of one response (the
    /// items of one list) come and go together, so a field is known to be always sent
    /// only once enough responses, not objects, reached its place.
    responses: u64,
    /// The last response that held a value here (counted once in `responses`).
    last_response: u64,
    /// Fields by name, when this is a record.
    fields: BTreeMap<String, Field>,
    /// The merged value shape, when this is a map.
    map: Option<Box<Node>>,
    /// Every key seen here so far looks like an id.
    id_keys: IdKeys,
    /// The merged element shape of the arrays seen here.
    items: Option<Box<Node>>,
    /// Whether its fields' requiredness is decided by responses checked after the
    /// contract was enforced (too few learned responses reached it).
    late: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Field {
    node: Node,
    /// Objects this field was present in.
    seen: u64,
}

/// What the keys of an object seen so far look like.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
enum IdKeys {
    /// Nothing seen yet.
    #[default]
    Unknown,
    /// Every key is an unmistakable id: a number, UUID, hash or date.
    Strict,
    /// Every key is an id, some of them random tokens (`cus_NffrFeUfNV2Hib`).
    Loose,
    /// Some key is a name.
    No,
}

impl IdKeys {
    fn and(self, key: &str) -> IdKeys {
        let this = id_like(key);
        match (self, this) {
            (IdKeys::No, _) | (_, IdKeys::No) => IdKeys::No,
            (IdKeys::Loose, _) | (_, IdKeys::Loose) => IdKeys::Loose,
            _ => IdKeys::Strict,
        }
    }
}

/// Learns a contract from successful responses. See the module documentation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Learner {
    root: Node,
    samples: u64,
    paths: usize,
    max_paths: usize,
    capped: bool,
    /// Some response carried a `null` somewhere: the upstream writes absent values as
    /// `null`, so any field may be `null`.
    nulls: bool,
}

impl Learner {
    /// A learner that keeps at most `max_paths` fields (at least 1).
    pub fn new(max_paths: usize) -> Learner {
        Learner {
            root: Node::default(),
            samples: 0,
            paths: 0,
            max_paths: max_paths.max(1),
            capped: false,
            nulls: false,
        }
    }

    /// Learns from one successful response.
    pub fn observe(&mut self, body: &Value) {
        self.samples += 1;
        let mut budget = Budget {
            response: self.samples,
            paths: &mut self.paths,
            max: self.max_paths,
            capped: &mut self.capped,
            nulls: &mut self.nulls,
        };
        observe(&mut self.root, body, 0, &mut budget);
    }

    /// Learns from one response body's bytes; false (and nothing learned) when they are
    /// not one JSON document.
    pub fn observe_bytes(&mut self, body: &[u8]) -> bool {
        match serde_json::from_slice::<Value>(body) {
            Ok(v) => {
                self.observe(&v);
                true
            }
            Err(_) => false,
        }
    }

    /// Responses learned from.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Fields learned.
    pub fn paths(&self) -> usize {
        self.paths
    }

    /// Whether some field was left unlearned because of the path cap.
    pub fn capped(&self) -> bool {
        self.capped
    }

    /// The learned shape as a JSON Schema (2020-12) that [`crate::ResponseContract`]
    /// compiles: open objects (new fields are allowed and reported as new), `required`
    /// for the fields present in every sample.
    pub fn schema(&self) -> Value {
        let nullable = if !self.nulls {
            Nullable::Nowhere
        } else if self.root.null_for_container() {
            Nullable::Anywhere
        } else {
            Nullable::Plain
        };
        let how = Emit {
            require_after: self.samples.min(REQUIRE_AFTER),
            nullable,
        };
        schema_of(&self.root, &how, true)
    }

    /// Constrains the places this learner's contract left open with what `later` learned
    /// from the responses checked since it was enforced ([`crate::LateLearning`] keeps
    /// `later`); whether anything changed. What was enforced is never loosened: a type
    /// learned stays the only one accepted, a required field stays required. Only:
    /// - a place never reached (a list empty in every response learned from, an
    ///   optional member never sent) takes the shape `later` learned there, once it held
    ///   a value in [`LATE_PLACE_AFTER`] of the later responses;
    /// - a place reached in too few responses to know which of its fields are always sent
    ///   (fewer than [`REQUIRE_AFTER`]) counts the later responses too, so a field sent
    ///   in every one of its objects, then as now, becomes required once enough reached it;
    /// - a field first sent after the contract was enforced is learned with its type,
    ///   and required only where its place was known that little.
    ///
    /// The path cap holds: a place that would pass it is left open.
    pub fn graft(&mut self, later: &Learner) -> bool {
        let mut budget = Graft {
            require_after: self.samples.min(REQUIRE_AFTER),
            paths: &mut self.paths,
            max: self.max_paths,
            capped: &mut self.capped,
        };
        graft(&mut self.root, &later.root, 0, &mut budget)
    }

    /// Fields learned at most.
    pub fn max_paths(&self) -> usize {
        self.max_paths
    }

    /// Resumes learning from a schema this module wrote (a pinned learned contract) and
    /// the number of responses it was learned from: every field it requires counts as
    /// seen in every one of them, every other field as seen in none.
    pub fn from_schema(schema: &Value, samples: u64, max_paths: usize) -> Learner {
        let mut paths = 0;
        let mut nulls = false;
        let root = node_of(schema, samples, 0, &mut paths, &mut nulls);
        Learner {
            root,
            samples,
            paths,
            max_paths: max_paths.max(1),
            capped: paths > max_paths,
            nulls,
        }
    }
}

impl Learner {
    /// What this learner knows, counts included, as text another replica can
    /// [`Learner::restore`]: a fleet's replicas hold one learned contract, merged from
    /// all their responses. Bounded by `max_paths`.
    pub fn save(&self) -> String {
        // Plain data with string keys: it always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A learner [`Learner::save`] wrote, held to this replica's `max_paths`; `None` for
    /// anything else: text longer than [`MAX_SAVED_BYTES`], not a learner, nested deeper
    /// than a learner can be, or holding more fields than `max_paths` (a state written by
    /// a replica configured otherwise is not taken as it is).
    pub fn restore(text: &str, max_paths: usize) -> Option<Learner> {
        if text.len() > MAX_SAVED_BYTES {
            return None;
        }
        // serde_json refuses nesting past 128 levels before it recurses further.
        let mut learner: Learner = serde_json::from_str(text).ok()?;
        if !within_depth(&learner.root, 0) {
            return None;
        }
        let paths = count_node(&learner.root);
        if paths > max_paths.max(1) {
            return None;
        }
        learner.paths = paths;
        learner.max_paths = max_paths.max(1);
        Some(learner)
    }
}

/// The longest text [`Learner::restore`] reads: far above what `max_paths` fields write
/// (a few hundred bytes each), far below what would weigh on a replica.
pub const MAX_SAVED_BYTES: usize = 4 << 20;

/// Whether a restored tree is no deeper than learning makes one.
fn within_depth(node: &Node, depth: usize) -> bool {
    depth <= MAX_DEPTH + 1
        && node
            .fields
            .values()
            .all(|f| within_depth(&f.node, depth + 1))
        && node
            .map
            .as_deref()
            .is_none_or(|m| within_depth(m, depth + 1))
        && node
            .items
            .as_deref()
            .is_none_or(|i| within_depth(i, depth + 1))
}

/// How unlikely it must be that a field is left out at times, and yet was sent in every
/// object seen, before it is required at a place whose requiredness is decided by the
/// responses checked after enforcement (a place too few learned responses reached). A
/// field of such a place is doubted by its siblings: where a share `q` of the fields are
/// left out of some objects, one more may be too, and one sent in 4 of 5 objects is in
/// all of 12 objects 7 % of the time. So it is required only once the place held
/// `ln(0.005) / ln(1 − q)` objects (11 when 2 fields of 5 are left out at times, 24 when
/// 1 of 5), and after [`REQUIRE_AFTER`] responses as before where no field of the place
/// was ever left out. On generated responses of 600 operations (four sets of 150), this
/// took one operation's valid responses out of the reports (a field sent in about 4 of
/// 5 objects, required after 8 responses) and left every one of the 400 injected drifts
/// reported as before.
pub const LATE_REQUIRED_CHANCE: f64 = 0.005;

/// Later responses a place first reached after enforcement must hold a value in before
/// its shape is enforced: one value's type is too little to hold an upstream to.
pub const LATE_PLACE_AFTER: u64 = 3;

struct Graft<'a> {
    require_after: u64,
    paths: &'a mut usize,
    max: usize,
    capped: &'a mut bool,
}

impl Graft<'_> {
    /// Spends the paths of a new subtree; false (and capped) when they do not fit.
    fn spend(&mut self, added: usize) -> bool {
        if *self.paths + added > self.max {
            *self.capped = true;
            return false;
        }
        *self.paths += added;
        true
    }
}

/// See [`Learner::graft`]. Bounded by both trees, which `max_paths` bounds.
fn graft(frozen: &mut Node, later: &Node, depth: usize, budget: &mut Graft<'_>) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if frozen.types.is_empty() {
        if later.types.is_empty()
            || later.responses < LATE_PLACE_AFTER
            || !budget.spend(count_node(later))
        {
            return false;
        }
        let null = frozen.null;
        *frozen = later.clone();
        frozen.null |= null;
        return true;
    }
    let mut changed = false;
    let record = frozen.types.contains(Types::OBJECT) && frozen.map.is_none();
    if record && later.map.is_none() && later.objects > 0 {
        // As many later responses as learned ones: requiring a field there only after more
        // (12, 20) left more drift unreported for no fewer valid responses reported, on
        // generated responses of 450 operations (with 20: 13 drifts of 300 fewer caught,
        // one valid response fewer reported).
        let sparse = frozen.undecided(budget.require_after);
        if sparse {
            frozen.late = true;
            frozen.objects += later.objects;
            frozen.responses += later.responses;
            for (key, field) in frozen.fields.iter_mut() {
                field.seen += later.fields.get(key).map_or(0, |f| f.seen);
            }
            changed = true;
        }
        for (key, late) in &later.fields {
            if let Some(field) = frozen.fields.get_mut(key) {
                changed |= graft(&mut field.node, &late.node, depth + 1, budget);
            } else if !late.node.types.is_empty()
                && late.node.responses >= LATE_PLACE_AFTER
                && budget.spend(count(late))
            {
                // At a place known well, the objects learned from lacked it: never
                // required.
                let seen = if sparse { late.seen } else { 0 };
                frozen.fields.insert(
                    key.clone(),
                    Field {
                        node: late.node.clone(),
                        seen,
                    },
                );
                changed = true;
            }
        }
    }
    if let (Some(map), Some(late)) = (frozen.map.as_deref_mut(), later.map.as_deref()) {
        changed |= graft(map, late, depth + 1, budget);
    }
    if let Some(late) = later.items.as_deref() {
        let items = frozen.items.get_or_insert_with(Box::default);
        changed |= graft(items, late, depth + 1, budget);
    }
    changed
}

struct Budget<'a> {
    /// The response being learned from (1 for the first).
    response: u64,
    paths: &'a mut usize,
    max: usize,
    capped: &'a mut bool,
    nulls: &'a mut bool,
}

/// How a learned node is written as a schema.
struct Emit {
    /// Objects a place must have held for its always-present fields to be required.
    require_after: u64,
    /// Which typed fields accept `null` too.
    nullable: Nullable,
}

/// Where an upstream that wrote `null` somewhere may write one. An upstream that writes
/// absent values as `null` does so for its plain values; an object or a list turning
/// `null` is a different payload, expected only of an upstream seen doing it somewhere
/// (API descriptions declare plain values nullable about twice as often as objects and
/// four times as often as lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nullable {
    /// No `null` was seen: none is accepted where none was seen.
    Nowhere,
    /// A `null` was seen only where plain values were: strings, numbers and booleans may
    /// be `null` anywhere, objects and lists only where one was seen.
    Plain,
    /// A `null` was seen where an object or a list was: any field may be `null`.
    Anywhere,
}

impl Nullable {
    fn accepts(self, types: Types) -> bool {
        match self {
            Nullable::Nowhere => false,
            Nullable::Anywhere => true,
            Nullable::Plain => [Types::BOOLEAN, Types::INTEGER, Types::NUMBER, Types::STRING]
                .into_iter()
                .any(|t| types.contains(t)),
        }
    }
}

fn observe(node: &mut Node, value: &Value, depth: usize, budget: &mut Budget<'_>) {
    if !value.is_null() && node.last_response != budget.response {
        node.last_response = budget.response;
        node.responses += 1;
    }
    match value {
        Value::Null => {
            node.null = true;
            *budget.nulls = true;
        }
        Value::Object(members) => {
            node.types = node.types.union(Types::OBJECT);
            node.objects += 1;
            if depth >= MAX_DEPTH {
                return;
            }
            if node.map.is_none() {
                node.id_keys = members.keys().fold(node.id_keys, |k, key| k.and(key));
                let new_keys = members
                    .keys()
                    .filter(|k| !node.fields.contains_key(*k))
                    .count();
                // Decided before the members are learned: a map of 10,000 ids must not
                // spend the path cap on them first.
                let kinds = node
                    .fields
                    .values()
                    .map(|f| f.node.types)
                    .chain(members.values().map(Types::of));
                if is_map(node.id_keys, node.fields.len() + new_keys) && one_kind(kinds) {
                    become_map(node, budget);
                }
            }
            if let Some(map) = node.map.as_deref_mut() {
                for v in members.values().take(MAX_ITEMS) {
                    observe(map, v, depth + 1, budget);
                }
                return;
            }
            for (key, v) in members {
                if let Some(field) = node.fields.get_mut(key) {
                    field.seen += 1;
                    observe(&mut field.node, v, depth + 1, budget);
                } else if key.len() <= MAX_KEY_BYTES && *budget.paths < budget.max {
                    *budget.paths += 1;
                    let mut field = Field {
                        node: Node::default(),
                        seen: 1,
                    };
                    observe(&mut field.node, v, depth + 1, budget);
                    node.fields.insert(key.clone(), field);
                } else if key.len() <= MAX_KEY_BYTES {
                    *budget.capped = true;
                }
            }
        }
        Value::Array(elements) => {
            node.types = node.types.union(Types::ARRAY);
            if depth >= MAX_DEPTH {
                return;
            }
            let items = node.items.get_or_insert_with(Box::default);
            for v in elements.iter().take(MAX_ITEMS) {
                observe(items, v, depth + 1, budget);
            }
        }
        other => node.types = node.types.union(Types::of(other)),
    }
}

/// Whether an object with `keys` distinct keys of this kind is a map rather than a record.
fn is_map(id_keys: IdKeys, keys: usize) -> bool {
    let by_keys = match id_keys {
        IdKeys::Strict => keys >= 1,
        IdKeys::Loose => keys >= 2,
        IdKeys::Unknown | IdKeys::No => false,
    };
    by_keys || keys > MAP_KEYS
}

/// The values hold one kind of thing (integers and numbers count as one; nulls aside).
fn one_kind(types: impl Iterator<Item = Types>) -> bool {
    let seen = types.fold(Types::NONE, Types::union);
    let numeric = seen.contains(Types::NUMBER) || seen.contains(Types::INTEGER);
    let kinds = [Types::OBJECT, Types::ARRAY, Types::STRING, Types::BOOLEAN]
        .into_iter()
        .filter(|t| seen.contains(*t))
        .count()
        + usize::from(numeric);
    kinds <= 1
}

/// Turns a record into a map: its fields' shapes merged into one value shape.
fn become_map(node: &mut Node, budget: &mut Budget<'_>) {
    let fields = std::mem::take(&mut node.fields);
    *budget.paths = budget
        .paths
        .saturating_sub(fields.values().map(count).sum());
    let mut value = Node::default();
    for (_, f) in fields {
        value = merge(value, f.node);
    }
    // The value shape's own fields stay counted against the cap.
    *budget.paths += count_node(&value);
    node.map = Some(Box::new(value));
}

/// Fields in a field's subtree, itself included.
fn count(field: &Field) -> usize {
    1 + count_node(&field.node)
}

fn count_node(node: &Node) -> usize {
    node.fields.values().map(count).sum::<usize>()
        + node.map.as_deref().map_or(0, count_node)
        + node.items.as_deref().map_or(0, count_node)
}

/// One shape describing what `a` and `b` each describe.
fn merge(a: Node, b: Node) -> Node {
    let mut fields = a.fields;
    for (k, fb) in b.fields {
        match fields.remove(&k) {
            Some(fa) => {
                fields.insert(
                    k,
                    Field {
                        node: merge(fa.node, fb.node),
                        seen: fa.seen + fb.seen,
                    },
                );
            }
            None => {
                fields.insert(k, fb);
            }
        }
    }
    let boxed = |x: Option<Box<Node>>, y: Option<Box<Node>>| match (x, y) {
        (Some(x), Some(y)) => Some(Box::new(merge(*x, *y))),
        (x, y) => x.or(y),
    };
    let id_keys = match (a.id_keys, b.id_keys) {
        (IdKeys::Unknown, k) | (k, IdKeys::Unknown) => k,
        (IdKeys::No, _) | (_, IdKeys::No) => IdKeys::No,
        (IdKeys::Loose, _) | (_, IdKeys::Loose) => IdKeys::Loose,
        _ => IdKeys::Strict,
    };
    let mut out = Node {
        types: a.types.union(b.types),
        null: a.null || b.null,
        objects: a.objects + b.objects,
        // The shapes merged may have been seen in the same responses: counting each
        // response once at most keeps requiredness on the safe side.
        responses: a.responses.max(b.responses),
        last_response: a.last_response.max(b.last_response),
        fields,
        map: boxed(a.map, b.map),
        id_keys,
        items: boxed(a.items, b.items),
        late: a.late || b.late,
    };
    if let Some(map) = out.map.take() {
        // A record merged with a map is a map: its fields are entries too.
        let mut value = *map;
        for (_, f) in std::mem::take(&mut out.fields) {
            value = merge(value, f.node);
        }
        out.map = Some(Box::new(value));
    }
    out
}

/// Whether a key is an id rather than a name.
fn id_like(key: &str) -> IdKeys {
    let b = key.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    if b.is_empty() {
        return IdKeys::No;
    }
    // 42, -7
    let unsigned = key.strip_prefix('-').unwrap_or(key);
    if !unsigned.is_empty() && unsigned.bytes().all(|c| c.is_ascii_digit()) {
        return IdKeys::Strict;
    }
    // 2024-01-31, 2024-01-31T10:00:00Z, 10:30
    if digits >= 4
        && digits * 2 >= b.len()
        && b.iter()
            .all(|c| c.is_ascii_digit() || b"-:.TZ+ /".contains(c))
    {
        return IdKeys::Strict;
    }
    // UUIDs and hashes: hex with a digit, 8 characters or more (dashes allowed).
    let hex = b.iter().filter(|c| **c != b'-').count();
    if hex >= 8 && digits > 0 && b.iter().all(|c| c.is_ascii_hexdigit() || *c == b'-') {
        return IdKeys::Strict;
    }
    // A random token, often behind a type prefix: cus_NffrFeUfNV2Hib, -Nh5cX2mQ3b7Y_Lk9aBc.
    let last = key.split(['_', '-']).max_by_key(|s| s.len()).unwrap_or(key);
    let lb = last.as_bytes();
    if lb.len() >= 8 && lb.iter().all(u8::is_ascii_alphanumeric) {
        let d = lb.iter().filter(|c| c.is_ascii_digit()).count();
        let upper = lb.iter().any(u8::is_ascii_uppercase);
        let lower = lb.iter().any(u8::is_ascii_lowercase);
        if (upper && lower && d > 0) || (d >= 3 && d < lb.len()) {
            return IdKeys::Loose;
        }
    }
    IdKeys::No
}

/// The JSON Schema of a learned node.
fn schema_of(node: &Node, how: &Emit, root: bool) -> Value {
    let mut s = Map::new();
    let mut names: Vec<&str> = Vec::new();
    // An object that always named itself by a string id or link may be sent as that
    // string too: the reference it expands (`"customer": "cus_1"` unless expanded, a
    // link written as `{"href": …}` or as its address).
    let types = if node.names_itself() {
        node.types.union(Types::STRING)
    } else {
        node.types
    };
    for (t, name) in [
        (Types::OBJECT, "object"),
        (Types::ARRAY, "array"),
        (Types::STRING, "string"),
        (Types::BOOLEAN, "boolean"),
    ] {
        if types.contains(t) {
            names.push(name);
        }
    }
    // Whole numbers alone are still `number`: a price of 10 today is 10.5 tomorrow, and
    // JSON writers drop a `.0`, so twenty whole numbers are no evidence of an integer.
    if node.types.contains(Types::NUMBER) || node.types.contains(Types::INTEGER) {
        names.push("number");
    }
    if names.is_empty() {
        // Only `null`, or nothing: no evidence of a type.
        return json!({});
    }
    if node.null || (!root && how.nullable.accepts(node.types)) {
        names.push("null");
    }
    s.insert(
        "type".into(),
        match names.as_slice() {
            [one] => json!(one),
            many => json!(many),
        },
    );
    if node.types.contains(Types::OBJECT) {
        if let Some(map) = &node.map {
            s.insert("additionalProperties".into(), schema_of(map, how, false));
        } else {
            let props: Map<String, Value> = node
                .fields
                .iter()
                .map(|(k, f)| (k.clone(), schema_of(&f.node, how, false)))
                .collect();
            let known = !node.undecided(how.require_after);
            let required: Vec<&String> = node
                .fields
                .iter()
                .filter(|(k, f)| {
                    known && f.seen >= node.objects && !next_page(k) && !f.node.types.is_empty()
                })
                .map(|(k, _)| k)
                .collect();
            s.insert("properties".into(), Value::Object(props));
            if !required.is_empty() {
                s.insert("required".into(), json!(required));
            }
        }
    }
    if let Some(items) = node.items.as_deref().filter(|i| i.seen_anything()) {
        s.insert("items".into(), schema_of(items, how, false));
    }
    Value::Object(s)
}

/// Whether a field names the next page of a listing (`nextLink`, `next_page_token`,
/// `NextToken`, `@odata.nextLink`, `LastEvaluatedKey`): every page carries it but the
/// last, so twenty pages with it say nothing about the twenty-first.
fn next_page(key: &str) -> bool {
    const NAMES: [&str; 12] = [
        "next",
        "nextlink",
        "nextpage",
        "nextpagelink",
        "nextpagetoken",
        "nextpageurl",
        "nexttoken",
        "nextcursor",
        "nextmarker",
        "nexturl",
        "continuationtoken",
        "lastevaluatedkey",
    ];
    if key.len() > 32 {
        return false;
    }
    let mut folded = [0u8; 32];
    let mut n = 0;
    for c in key.bytes().filter(u8::is_ascii_alphanumeric) {
        folded[n] = c.to_ascii_lowercase();
        n += 1;
    }
    let folded = &folded[..n];
    let folded = folded.strip_prefix(b"odata").unwrap_or(folded);
    NAMES.iter().any(|name| name.as_bytes() == folded)
}

impl Node {
    /// Objects a place whose fields' requiredness is decided late must have held before
    /// a field sent in all of them is required there; 0 when no field of it was ever
    /// left out. See [`LATE_REQUIRED_CHANCE`].
    fn late_objects_needed(&self) -> u64 {
        let typed = || self.fields.values().filter(|f| !f.node.types.is_empty());
        let members = typed().count();
        let left_out = typed().filter(|f| f.seen < self.objects).count();
        if left_out == 0 || left_out >= members {
            // Nothing left out: nothing to doubt. Everything left out: nothing required.
            return 0;
        }
        let q = left_out as f64 / members as f64;
        // ln(chance) / ln(1 − q), at most a few hundred: q ≤ (members − 1) / members.
        (LATE_REQUIRED_CHANCE.ln() / (1.0 - q).ln()).ceil() as u64
    }

    /// Whether which fields are always sent here is still undecided: too few responses
    /// reached it, or, decided late, too few objects for how often its fields are left
    /// out.
    fn undecided(&self, require_after: u64) -> bool {
        self.responses < require_after || (self.late && self.objects < self.late_objects_needed())
    }

    fn seen_anything(&self) -> bool {
        !self.types.is_empty() || self.null
    }

    /// Whether every object here was a record carrying a string id, `href`, `url` or
    /// `uri`, and nothing but objects was seen here.
    fn names_itself(&self) -> bool {
        self.types == Types::OBJECT
            && self.map.is_none()
            && crate::absence::NAMING_MEMBERS.iter().any(|m| {
                self.fields
                    .get(*m)
                    .is_some_and(|f| f.seen >= self.objects && f.node.types == Types::STRING)
            })
    }

    /// Whether some place here held both `null` and an object or a list. Bounded by the
    /// learned tree, which `max_paths` bounds; read when the schema is written, never
    /// per call.
    fn null_for_container(&self) -> bool {
        (self.null && (self.types.contains(Types::OBJECT) || self.types.contains(Types::ARRAY)))
            || self.fields.values().any(|f| f.node.null_for_container())
            || self.map.as_deref().is_some_and(Node::null_for_container)
            || self.items.as_deref().is_some_and(Node::null_for_container)
    }
}

/// Brings a pinned learned schema written by an earlier build up to what this one writes,
/// in place; whether anything changed. Earlier builds required a member seen only as
/// `null` (written as `{}`: no type learned), so a restart from such a pin would hold
/// every response that leaves it out as an absence until the owner relearned; such a
/// member is no longer required (`"deleted_at": null` in every response says "nothing
/// here", which the upstream may as well say by leaving it out). Nothing else is touched.
/// Bounded by the schema's nesting up to [`MAX_DEPTH`].
pub fn upgrade_pinned_schema(schema: &mut Value) -> bool {
    upgrade(schema, 0)
}

fn upgrade(schema: &mut Value, depth: usize) -> bool {
    let Some(node) = schema.as_object_mut() else {
        return false;
    };
    if depth > MAX_DEPTH {
        return false;
    }
    let mut changed = false;
    let untyped: Vec<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter(|(_, p)| p.get("type").is_none())
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Array(required)) = node.get_mut("required") {
        let before = required.len();
        required.retain(|r| r.as_str().is_none_or(|r| !untyped.iter().any(|u| u == r)));
        changed |= required.len() != before;
        if required.is_empty() {
            node.remove("required");
        }
    }
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        for p in props.values_mut() {
            changed |= upgrade(p, depth + 1);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = node.get_mut(key) {
            changed |= upgrade(child, depth + 1);
        }
    }
    changed
}

/// A node from a schema [`schema_of`] wrote, as if learned from `samples` responses.
fn node_of(
    schema: &Value,
    samples: u64,
    depth: usize,
    paths: &mut usize,
    nulls: &mut bool,
) -> Node {
    let mut node = Node::default();
    if depth > MAX_DEPTH {
        return node;
    }
    let names: Vec<&str> = match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for name in names {
        match name {
            "null" => {
                node.null = true;
                *nulls = true;
            }
            other => {
                if let Some(t) = Types::from_name(other) {
                    node.types = node.types.union(t);
                }
            }
        }
    }
    if !node.types.is_empty() {
        node.responses = samples;
    }
    if node.types.contains(Types::OBJECT) {
        node.objects = samples;
        if let Some(value) = schema.get("additionalProperties").filter(|v| v.is_object()) {
            node.map = Some(Box::new(node_of(value, samples, depth + 1, paths, nulls)));
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            node.id_keys = IdKeys::No;
            for (k, v) in props {
                *paths += 1;
                let seen = if required.contains(&k.as_str()) {
                    samples
                } else {
                    0
                };
                node.fields.insert(
                    k.clone(),
                    Field {
                        node: node_of(v, samples, depth + 1, paths, nulls),
                        seen,
                    },
                );
            }
        }
    }
    if let Some(items) = schema.get("items").filter(|v| v.is_object()) {
        node.items = Some(Box::new(node_of(items, samples, depth + 1, paths, nulls)));
    }
    node
}

#[cfg(test)]
#[path = "learn_tests.rs"]
mod tests;
