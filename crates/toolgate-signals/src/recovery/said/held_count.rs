//! A count of things the account may hold is full: instances, vCPUs, addresses, buckets,
//! users or seats, projects, repositories, hooks, keys, a namespace's pods, the space it
//! stores in. Retrying never helps, and no window renews it: only the owner raising the
//! limit (often on request) or freeing room lets the same call pass, so it is the
//! account's. A quota counted per second, minute or hour, or one that counts what is
//! done (requests, calls, queries, throughput) rather than what is held, is a
//! throttle's: those words are ruled out before these rules are asked.

use super::{OTHERS, Words};

/// Things an account holds, each counted against a limit of the account's (or of a
/// region, a namespace, a plan).
const HELD: [&str; 85] = [
    "instance",
    "instances",
    "vcpu",
    "vcpus",
    "cpu",
    "cpus",
    "gpu",
    "gpus",
    "core",
    "cores",
    "address",
    "addresses",
    "ip",
    "ips",
    "vpc",
    "vpcs",
    "volume",
    "volumes",
    "bucket",
    "buckets",
    "user",
    "users",
    "member",
    "members",
    "seat",
    "seats",
    "license",
    "licenses",
    "project",
    "projects",
    "repository",
    "repositories",
    "repos",
    "hook",
    "hooks",
    "webhooks",
    "key",
    "keys",
    "stacks",
    "tables",
    "functions",
    "cluster",
    "clusters",
    "pods",
    "services",
    "namespaces",
    "databases",
    "domains",
    "apps",
    "applications",
    "devices",
    "nodes",
    "resources",
    "snapshots",
    "certificates",
    "workspaces",
    "groups",
    "storage",
    "space",
    "gateway",
    "gateways",
    "network",
    "networks",
    "subnets",
    "vms",
    "server",
    "servers",
    "routers",
    "balancers",
    "disks",
    "images",
    "topics",
    "queues",
    "environments",
    "sites",
    "mailboxes",
    "channels",
    "bots",
    "indexes",
    "indices",
    "collections",
    "pipelines",
    "runners",
    "secrets",
    "zones",
];

/// What is done, not held: a limit of these is a rate, or a request's own size.
const DONE: [&str; 20] = [
    "rate",
    "requests",
    "calls",
    "query",
    "queries",
    "throughput",
    "throttled",
    "throttling",
    "bandwidth",
    "concurrent",
    "concurrency",
    "operations",
    "searches",
    "transactions",
    "tokens",
    "size",
    "payload",
    "body",
    "length",
    "pull",
];

/// Limits named for what is not held: a period's allowance (read by the period rules), a
/// usage, a spend or a credit, a time.
const UNHELD_LIMITS: [&str; 12] = [
    "usage", "api", "daily", "monthly", "hourly", "spending", "spend", "credit", "time", "memory",
    "upload", "download",
];

/// What makes a count one of a single request's (items on a page, entries in a batch):
/// a smaller request passes.
const IN_ONE_REQUEST: [&str; 9] = [
    "batch",
    "array",
    "list",
    "items",
    "entries",
    "single",
    "once",
    "email",
    "recipients",
];

/// What a count may be kept per when it is the holder's: "tables … per account per
/// region", "Total services per region". Per anything else ("16 vCPUs per sandbox", "100
/// items per page") it caps one object or one request: a smaller one passes.
const HOLDER_SCOPES: [&str; 11] = [
    "account",
    "user",
    "region",
    "project",
    "subscription",
    "organization",
    "organisation",
    "namespace",
    "tenant",
    "workspace",
    "zone",
];

/// A cap on one object or one request: "per" before anything but a holder's scope.
fn per_object(w: &Words<'_>) -> bool {
    w.w.windows(2)
        .any(|p| p[0] == "per" && !HOLDER_SCOPES.contains(&p[1].as_str()))
}

/// Words that say a limit or quota was passed or would be.
const PASSED: [&str; 9] = [
    "exceeded",
    "exceeds",
    "exceed",
    "exceeding",
    "reached",
    "reach",
    "full",
    "more",
    "maximum",
];

/// Names of a limit.
const LIMITS: [&str; 7] = [
    "limit", "limits", "quota", "quotas", "maximum", "max", "count",
];

/// Where a held count is kept, named beside its quota: "in region us-central1",
/// "globally", "on namespace".
const SCOPES: [&str; 5] = ["region", "regional", "globally", "zone", "namespace"];

/// A count of things the account holds is full, or a request would pass it.
pub(super) fn full(w: &Words<'_>) -> bool {
    if w.any_of(&IN_ONE_REQUEST) || w.any_of(&OTHERS) {
        return false;
    }
    let limit = w.any_of(&LIMITS);
    // What is in use beside its limit: a cluster's "exceeded quota: …, requested:
    // requests.cpu=20, used: …, limited: …", "Maximum allowed: 4, Current in use: 4",
    // "Current Usage: 8", "already used 10 of 10 instances", "without additional
    // quota": held, whatever the names of what it counts.
    let in_use = limit
        && (w.phrase(&["in", "use"])
            || w.phrase(&["current", "usage"])
            || w.phrase(&["already", "used"])
            || (w.has("used") && w.has("limited")));
    let additional = w.phrase(&["additional", "quota"]) || w.near(&["insufficient"], &["quota"], 2);
    if in_use || additional {
        return true;
    }
    if w.any_of(&DONE) || per_object(w) {
        return false;
    }
    let passed = w.any_of(&PASSED);
    // "vCPU limit exceeded", "the limit of private repositories", "Quota exceeded for
    // instances", "Bucket quota exceeded": a limit named with what it counts.
    let named = limit && passed && w.near(&LIMITS, &HELD, 4);
    // "Max spot instance count exceeded", "the maximum number of addresses has been
    // reached": a count, however its thing is called.
    let counted = w.phrase(&["count", "exceeded"])
        || (w.phrase(&["maximum", "number", "of"]) && w.near(&["number"], &HELD, 4));
    // "will exceed your droplet limit", "exceeded your project quota": the account's own
    // limit of something, named by the thing, with nothing done or windowed beside it.
    let yours = (0..w.w.len().saturating_sub(3)).any(|i| {
        w.w[i].starts_with("exceed")
            && w.w[i + 1] == "your"
            && matches!(w.w[i + 3].as_str(), "limit" | "quota")
            && !UNHELD_LIMITS.contains(&w.w[i + 2].as_str())
    });
    // "Record quota exceeded, change plan or delete records", "remove some of the
    // relevant resources": room freed by deleting what is held.
    let frees_room = limit && passed && w.any_of(&["delete", "remove"]);
    // "Cannot create more than 10 public IP addresses", "more buckets than allowed",
    // "cannot have more than 20 hooks", "Only 2500 tables can be created".
    let creating = w.phrase(&["create", "more"])
        || w.phrase(&["than", "allowed"])
        || w.phrase(&["than", "your", "current"])
        || (w.phrase(&["have", "more", "than"]) && w.near(&["than"], &HELD, 3))
        || w.phrase(&["can", "be", "created"]);
    // "Quota 'CPUS' exceeded. Limit: 24.0 in region us-central1", "Quota has been exceeded
    // on namespace": a quota kept per region or namespace, not per window.
    let scoped = limit && passed && w.any_of(&SCOPES);
    // "TooManyBuckets", "too many domains": a count of held things, however short.
    let too_many =
        w.w.windows(3)
            .any(|p| p[0] == "too" && p[1] == "many" && HELD.contains(&p[2].as_str()));
    // "The queue number you created exceeded the allowed limit": what the account made,
    // counted against its limit, whatever the thing is called.
    let made =
        (w.phrase(&["you", "created"]) || w.phrase(&["you", "have", "created"])) && limit && passed;
    named || counted || yours || frees_room || creating || scoped || too_many || made
}

/// A limit raised only when its owner asks: "Request a service limit increase", "request
/// an adjustment to this limit", "Your project limit is 10 projects! Please contact your
/// administrator to increase it". Waiting does not raise it.
pub(super) fn raised_on_request(w: &Words<'_>) -> bool {
    const RAISED: [&str; 3] = ["increase", "adjustment", "raise"];
    let asked = w.near(&["limit", "limits"], &RAISED, 3)
        || (w.near(&["limit", "limits"], &HELD, 2) && w.any_of(&RAISED));
    asked && !w.any_of(&DONE) && !w.any_of(&IN_ONE_REQUEST)
}
