//! Every Prometheus metric toolgate exports, registered in one place.
//!
//! Metric names are part of the interface (docs/operations.md lists them; alert rules
//! and dashboards depend on them). Label values are bounded: tool and dependency names
//! come from the config, classes and outcomes are enums — never arguments or raw
//! error text.

use std::fmt::Write as _;
use std::sync::Arc;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use toolgate_resilience::ErrorClass;

use toolgate_signals::Quota;

mod series;
pub use series::{DependencySeries, OutcomeCounters, RouteSeries};

/// What a dependency's gauges show, read from a snapshot of its state (the dependency
/// builds it, so these counters need not know its state's shape).
#[derive(Debug)]
pub struct DependencyReading<'a> {
    /// The quotas its replies announced.
    pub quotas: &'a [Quota],
    /// `toolgate_circuit_state`: 0 closed, 1 open, 2 half-open.
    pub circuit: i64,
    /// Whether its latency is in brownout.
    pub brownout: bool,
    /// Whether its account is held (a spent plan or an unpaid account).
    pub account_held: bool,
}

/// An error class as a label value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Class(pub ErrorClass);

impl EncodeLabelValue for Class {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(self.0.as_str())
    }
}

/// The result label of a tool call: `ok` or an error class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResultLabel(pub Option<ErrorClass>);

impl EncodeLabelValue for ResultLabel {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(self.0.map_or("ok", ErrorClass::as_str))
    }
}

/// What one token exchange (RFC 8693) came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub enum ExchangeResult {
    /// The authorization server issued a token.
    issued,
    /// The authorization server refused (a 4xx).
    refused,
    /// The authorization server could not be reached, failed, or answered no token.
    failed,
    /// The caller had no access token to exchange; nothing was asked.
    no_token,
}

/// `{dependency, result}` of token exchanges.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ExchangeLabels {
    /// Dependency name (configured: bounded).
    pub dependency: String,
    /// What the exchange came to.
    pub result: ExchangeResult,
}

/// How a call that needed a retry ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub enum SequenceOutcome {
    /// A retry succeeded.
    recovered,
    /// Every attempt failed.
    exhausted,
    /// The retry budget refused a retry.
    budget_denied,
    /// The next wait did not fit in the call's deadline.
    deadline,
}

impl From<toolgate_resilience::Sequence> for SequenceOutcome {
    fn from(s: toolgate_resilience::Sequence) -> SequenceOutcome {
        use toolgate_resilience::Sequence;
        match s {
            Sequence::Recovered => SequenceOutcome::recovered,
            Sequence::Exhausted => SequenceOutcome::exhausted,
            Sequence::BudgetDenied => SequenceOutcome::budget_denied,
            Sequence::Deadline => SequenceOutcome::deadline,
        }
    }
}

/// `{tool, outcome}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct CallLabels {
    /// Tool name.
    pub tool: Arc<str>,
    /// `ok` or an error class.
    pub outcome: ResultLabel,
}

/// `{agent, outcome}`: the agent is a configured name or `anonymous`, so the label's
/// values are bounded by the config.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct AgentLabels {
    /// Agent name.
    pub agent: String,
    /// `ok` or an error class.
    pub outcome: ResultLabel,
}

/// `{dependency, tool, status}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct UpstreamLabels {
    /// Dependency name.
    pub dependency: Arc<str>,
    /// Tool name.
    pub tool: Arc<str>,
    /// HTTP status code, or `timeout` / `connect` when no response arrived.
    pub status: StatusLabel,
}

/// An HTTP status or a transport failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatusLabel {
    /// A response arrived with this status.
    Code(u16),
    /// No response before the deadline.
    Timeout,
    /// Could not connect, or the connection broke.
    Connect,
    /// An MCP server broke the protocol.
    Protocol,
}

impl EncodeLabelValue for StatusLabel {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        match self {
            StatusLabel::Code(c) => write!(encoder, "{c}"),
            StatusLabel::Timeout => encoder.write_str("timeout"),
            StatusLabel::Connect => encoder.write_str("connect"),
            StatusLabel::Protocol => encoder.write_str("protocol"),
        }
    }
}

/// `{tool, error_class}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct RetryLabels {
    /// Tool name.
    pub tool: Arc<str>,
    /// Class of the failure that was retried.
    pub error_class: Class,
}

/// `{tool, error_class, outcome}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct SequenceLabels {
    /// Tool name.
    pub tool: Arc<str>,
    /// Class of the failure that triggered the first retry.
    pub error_class: Class,
    /// How the sequence ended.
    pub outcome: SequenceOutcome,
}

/// `{tool}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ToolLabel {
    /// Tool name.
    pub tool: Arc<str>,
}

/// `{origin}`: where tools' contracts come from (`declared`, `imported`, `pinned`,
/// `learned_enforced`, `learning`, `none`) — a fixed set of values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct OriginLabel {
    /// The origin.
    pub origin: &'static str,
}

/// `{server}`: an upstream MCP server's configured name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ServerLabel {
    /// The server's name under `mcp_servers:`.
    pub server: String,
}

/// `{result}` of a config reload: `ok` or `rejected`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ReloadLabel {
    /// `ok` or `rejected`.
    pub result: &'static str,
}

/// `{dependency}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct DependencyLabel {
    /// Dependency name.
    pub dependency: Arc<str>,
}

/// `{dependency, policy}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct QuotaLabels {
    /// Dependency name.
    pub dependency: Arc<str>,
    /// Policy name as advertised (`default` when unnamed).
    pub policy: String,
}

/// `{dependency, header}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct UnreadLabels {
    /// Dependency name.
    pub dependency: Arc<str>,
    /// The header's lower-cased name; `other` past [`MAX_UNREAD_SERIES`].
    pub header: String,
}

/// Distinct `{dependency, header}` series of `toolgate_unread_signal_headers_total`:
/// header names come from upstreams, so past this many every new one counts as `other`.
pub const MAX_UNREAD_SERIES: usize = 64;

/// `{tool, owner, dependency}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct OwnerLabels {
    /// Tool name.
    pub tool: Arc<str>,
    /// Owner from the config.
    pub owner: String,
    /// Dependency name.
    pub dependency: String,
}

/// All metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// `toolgate_tool_calls_total{tool,outcome}`.
    pub tool_calls: Family<CallLabels, Counter>,
    /// `toolgate_upstream_requests_total{dependency,tool,status}`.
    pub upstream_requests: Family<UpstreamLabels, Counter>,
    /// `toolgate_retries_total{tool,error_class}`.
    pub retries: Family<RetryLabels, Counter>,
    /// `toolgate_retry_sequences_total{tool,error_class,outcome}`.
    pub retry_sequences: Family<SequenceLabels, Counter>,
    /// `toolgate_contract_drift_total{tool}`.
    pub contract_drift: Family<ToolLabel, Counter>,
    /// `toolgate_upstream_latency_seconds{dependency}`.
    pub upstream_latency: Family<DependencyLabel, Histogram>,
    /// `toolgate_quota_remaining{dependency,policy}`.
    pub quota_remaining: Family<QuotaLabels, Gauge>,
    /// `toolgate_quota_limit{dependency,policy}`.
    pub quota_limit: Family<QuotaLabels, Gauge>,
    /// `toolgate_circuit_state{dependency}`: 0 closed, 1 open, 2 half-open.
    pub circuit_state: Family<DependencyLabel, Gauge>,
    /// `toolgate_brownout{dependency}`: 1 during a brownout.
    pub brownout: Family<DependencyLabel, Gauge>,
    /// `toolgate_account_held{dependency}`: 1 while calls are held back because the
    /// account behind them was refused.
    pub account_held: Family<DependencyLabel, Gauge>,
    /// `toolgate_sunset_timestamp_seconds{tool}`.
    pub sunset_timestamp: Family<ToolLabel, Gauge>,
    /// `toolgate_probe_success{tool}`: 1 when the last contract probe passed.
    pub probe_success: Family<ToolLabel, Gauge>,
    /// `toolgate_tool_owner_info{tool,owner,dependency}`: always 1; joins owners into alerts.
    pub tool_owner_info: Family<OwnerLabels, Gauge>,
    /// `toolgate_shared_state_up`: 1 while the replicas' shared state (Redis,
    /// `gateway.shared`) is reachable, 0 while this replica runs on its local state;
    /// not exported when no shared state is configured.
    pub shared_state_up: Gauge,
    /// `toolgate_fleet_view{dependency}`: 1 when the dependency's breaker, hold and
    /// quota gauges show the fleet's shared state as of the last scrape, 0 when they
    /// show this replica's own (Redis down or slow to answer); exported only with
    /// shared state configured.
    pub fleet_view: Family<DependencyLabel, Gauge>,
    /// `toolgate_unread_signal_headers_total{dependency,header}`.
    pub unread_headers: Family<UnreadLabels, Counter>,
    /// The series of `unread_headers` so far, to bound them.
    unread_series: std::sync::Mutex<std::collections::HashSet<UnreadLabels>>,
    /// The anonymous caller's `toolgate_agent_calls_total` series, kept from their
    /// first count (a named agent keeps its own with its state).
    anonymous_calls: OutcomeCounters,
    /// `toolgate_agent_calls_total{agent,outcome}`.
    pub agent_calls: Family<AgentLabels, Counter>,
    /// `toolgate_agent_quota_local_total`: agents' quota decisions made on a replica's
    /// own state because the fleet's Redis was unreachable.
    pub agent_quota_local: Counter,
    /// `toolgate_token_exchanges_total{dependency,result}`: exchanges of callers'
    /// access tokens at the authorization server (cache hits not counted).
    pub token_exchanges: Family<ExchangeLabels, Counter>,
    /// `toolgate_token_exchange_cache_hits_total{dependency}`: calls that reused an
    /// exchanged token, or shared another call's exchange.
    pub token_exchange_cache_hits: Family<DependencyLabel, Counter>,
    /// `toolgate_tool_contracts{origin}`: tools by where their contract comes from.
    pub tool_contracts: Family<OriginLabel, Gauge>,
    /// `toolgate_learned_samples_dropped_total`: successful responses not learned from
    /// because the learner was behind (its queue was full).
    pub learned_samples_dropped: Counter,
    /// `toolgate_audit_records_dropped_total`: calls not recorded in the audit trail
    /// because its writer was behind (its queue was full).
    pub audit_records_dropped: Counter,
    /// `toolgate_mcp_server_up{server}`: 1 while a session with the upstream MCP server
    /// is established, 0 while it cannot be reached.
    pub mcp_server_up: Family<ServerLabel, Gauge>,
    /// `toolgate_mcp_definition_changes_pending{server}`: tool definitions that differ
    /// from their pins and await review (`toolgate lock`).
    pub mcp_definition_changes_pending: Family<ServerLabel, Gauge>,
    /// `toolgate_mcp_resource_subscriptions{server}`: resources of the upstream MCP
    /// server that client sessions follow through toolgate (each subscribed to once).
    pub mcp_resource_subscriptions: Family<ServerLabel, Gauge>,
    /// `toolgate_config_generation`: 1 at start-up, one more for each accepted reload.
    pub config_generation: Gauge,
    /// `toolgate_reply_bytes_held`: upstream reply bytes held in memory now, over every
    /// call (read when scraped).
    pub reply_bytes_held: Gauge,
    /// `toolgate_reply_bytes_limit`: `gateway.max_buffered_response_bytes`.
    pub reply_bytes_limit: Gauge,
    /// `toolgate_config_reloads_total{result}`.
    pub config_reloads: Family<ReloadLabel, Counter>,
    /// `toolgate_config_last_reload_success_timestamp_seconds`: when the config in force
    /// was loaded (start-up or the last accepted reload).
    pub config_last_reload_success: Gauge,
    /// `toolgate_config_last_reload_successful`: 0 while the last reload was rejected
    /// (the config file is not what serves), 1 otherwise.
    pub config_last_reload_successful: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Creates and registers every metric, for a replica without shared state:
    /// `toolgate_shared_state_up` is not exported, so "not configured" never reads as
    /// "down".
    pub fn new() -> Metrics {
        Self::build(false)
    }

    /// Creates and registers every metric, `toolgate_shared_state_up` included (a
    /// replica with `gateway.shared`).
    pub fn with_shared_state() -> Metrics {
        Self::build(true)
    }

    fn build(shared_state: bool) -> Metrics {
        let mut metrics = Metrics::unregistered();
        // Registration order is the order of the exposition.
        metrics.register_calls();
        metrics.register_dependency_state();
        if shared_state {
            metrics.register_shared_state();
        }
        metrics.register_agents_and_queues();
        metrics.register_mcp_servers();
        metrics.register_config();
        metrics
    }

    /// Every metric at its value at start-up, none registered yet.
    fn unregistered() -> Metrics {
        let config_reloads = Family::<ReloadLabel, Counter>::default();
        // Both results exist at 0 from start-up: `increase()` over a series that first
        // appears at 1 reads 0, so the first rejected reload would otherwise raise no alert.
        for result in ["ok", "rejected"] {
            config_reloads
                .get_or_create(&ReloadLabel { result })
                .inc_by(0);
        }
        let config_last_reload_successful = Gauge::default();
        config_last_reload_successful.set(1);
        Metrics {
            registry: Registry::with_prefix("toolgate"),
            tool_calls: Family::default(),
            upstream_requests: Family::default(),
            retries: Family::default(),
            retry_sequences: Family::default(),
            contract_drift: Family::default(),
            upstream_latency: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.001, 2.0, 16))
            }),
            quota_remaining: Family::default(),
            quota_limit: Family::default(),
            circuit_state: Family::default(),
            brownout: Family::default(),
            account_held: Family::default(),
            sunset_timestamp: Family::default(),
            probe_success: Family::default(),
            tool_owner_info: Family::default(),
            shared_state_up: Gauge::default(),
            fleet_view: Family::default(),
            unread_headers: Family::default(),
            unread_series: Default::default(),
            anonymous_calls: OutcomeCounters::default(),
            agent_calls: Family::default(),
            agent_quota_local: Counter::default(),
            token_exchanges: Family::default(),
            token_exchange_cache_hits: Family::default(),
            tool_contracts: Family::default(),
            learned_samples_dropped: Counter::default(),
            audit_records_dropped: Counter::default(),
            mcp_server_up: Family::default(),
            mcp_definition_changes_pending: Family::default(),
            mcp_resource_subscriptions: Family::default(),
            config_generation: Gauge::default(),
            reply_bytes_held: Gauge::default(),
            reply_bytes_limit: Gauge::default(),
            config_reloads,
            config_last_reload_success: Gauge::default(),
            config_last_reload_successful,
        }
    }

    /// Registers calls and the upstream attempts they made.
    fn register_calls(&mut self) {
        self.registry.register(
            "tool_calls",
            "Tool calls by outcome (ok or error class)",
            self.tool_calls.clone(),
        );
        self.registry.register(
            "upstream_requests",
            "Requests sent upstream, by response status",
            self.upstream_requests.clone(),
        );
        self.registry.register(
            "retries",
            "Retries made, by the class of the failure retried",
            self.retries.clone(),
        );
        self.registry.register(
            "retry_sequences",
            "Calls that needed a retry, by first retried class and how they ended; recovery rate = recovered / all",
            self.retry_sequences.clone(),
        );
        self.registry.register(
            "contract_drift",
            "Responses that broke their tool's contract",
            self.contract_drift.clone(),
        );
        self.registry.register(
            "upstream_latency_seconds",
            "Latency of upstream attempts",
            self.upstream_latency.clone(),
        );
    }

    /// Registers what is known of each dependency and tool: quotas, breaker,
    /// brownout, hold, sunset, probes, owners.
    fn register_dependency_state(&mut self) {
        self.registry.register(
            "quota_remaining",
            "Requests left in the current quota window, as last advertised",
            self.quota_remaining.clone(),
        );
        self.registry.register(
            "quota_limit",
            "Requests per quota window, as last advertised",
            self.quota_limit.clone(),
        );
        self.registry.register(
            "circuit_state",
            "Circuit breaker state: 0 closed, 1 open, 2 half-open",
            self.circuit_state.clone(),
        );
        self.registry.register(
            "brownout",
            "1 while the dependency's latency is well above its baseline",
            self.brownout.clone(),
        );
        self.registry.register(
            "account_held",
            "1 while calls are held back because the upstream refused the account behind them",
            self.account_held.clone(),
        );
        self.registry.register(
            "sunset_timestamp_seconds",
            "Announced sunset of the tool's upstream endpoint (Unix time)",
            self.sunset_timestamp.clone(),
        );
        self.registry.register(
            "probe_success",
            "1 when the tool's last contract probe passed, 0 when it failed",
            self.probe_success.clone(),
        );
        self.registry.register(
            "tool_owner_info",
            "Owner and dependency of each tool (value is always 1)",
            self.tool_owner_info.clone(),
        );
    }

    /// Registers the replicas' shared state; only registered when one is configured.
    fn register_shared_state(&mut self) {
        self.registry.register(
            "shared_state_up",
            "1 while the shared state of the replicas (Redis) is reachable, 0 otherwise",
            self.shared_state_up.clone(),
        );
        self.registry.register(
            "fleet_view",
            "1 when the dependency's breaker, hold and quota gauges show the fleet's shared state as of this scrape, 0 when this replica's own",
            self.fleet_view.clone(),
        );
    }

    /// Registers unread signals, agents, token exchange, contracts, and the queues
    /// that drop work when behind.
    fn register_agents_and_queues(&mut self) {
        self.registry.register(
            "unread_signal_headers",
            "Responses with a header that looks like a rate-limit, wait or deprecation signal that toolgate could not read",
            self.unread_headers.clone(),
        );
        self.registry.register(
            "agent_calls",
            "Tool calls by agent (a configured name or anonymous) and outcome (ok or error class)",
            self.agent_calls.clone(),
        );
        self.registry.register(
            "agent_quota_local",
            "Agents' quota decisions made on this replica's own state because the fleet's shared state (Redis) was unreachable",
            self.agent_quota_local.clone(),
        );
        self.registry.register(
            "token_exchanges",
            "Exchanges of callers' access tokens for dependencies' tokens (RFC 8693), by dependency and result (issued, refused, failed, no_token)",
            self.token_exchanges.clone(),
        );
        self.registry.register(
            "token_exchange_cache_hits",
            "Calls that reused an exchanged token (or shared another call's exchange), by dependency",
            self.token_exchange_cache_hits.clone(),
        );
        self.registry.register(
            "tool_contracts",
            "Tools by where their contract comes from: declared, imported, pinned, learned_enforced, learning, none",
            self.tool_contracts.clone(),
        );
        self.registry.register(
            "learned_samples_dropped",
            "Successful responses not learned from because the learner's queue was full",
            self.learned_samples_dropped.clone(),
        );
        self.registry.register(
            "audit_records_dropped",
            "Calls not recorded in the audit trail because its writer's queue was full",
            self.audit_records_dropped.clone(),
        );
    }

    /// Registers upstream MCP servers.
    fn register_mcp_servers(&mut self) {
        self.registry.register(
            "mcp_server_up",
            "1 while a session with the upstream MCP server is established, 0 while it cannot be reached",
            self.mcp_server_up.clone(),
        );
        self.registry.register(
            "mcp_definition_changes_pending",
            "Tool definitions of the upstream MCP server that differ from their pins and await review",
            self.mcp_definition_changes_pending.clone(),
        );
        self.registry.register(
            "mcp_resource_subscriptions",
            "Resources of the upstream MCP server that client sessions follow through toolgate",
            self.mcp_resource_subscriptions.clone(),
        );
    }

    /// Registers the config in force, its reloads and the reply memory it bounds.
    fn register_config(&mut self) {
        self.registry.register(
            "config_generation",
            "The config in force: 1 at start-up, one more for each accepted reload",
            self.config_generation.clone(),
        );
        self.registry.register(
            "reply_bytes_held",
            "Upstream reply bytes held in memory now, over every call in flight",
            self.reply_bytes_held.clone(),
        );
        self.registry.register(
            "reply_bytes_limit",
            "gateway.max_buffered_response_bytes: at this, replies are not read further and no call is sent",
            self.reply_bytes_limit.clone(),
        );
        self.registry.register(
            "config_reloads",
            "Config reloads by result: ok, or rejected (the old config keeps serving)",
            self.config_reloads.clone(),
        );
        self.registry.register(
            "config_last_reload_success_timestamp_seconds",
            "When the config in force was loaded (Unix time): start-up or the last accepted reload",
            self.config_last_reload_success.clone(),
        );
        self.registry.register(
            "config_last_reload_successful",
            "0 while the last config reload was rejected (the file on disk is not what serves), 1 otherwise",
            self.config_last_reload_successful.clone(),
        );
    }

    /// Counts a signal-like header nothing could read; bounded to
    /// [`MAX_UNREAD_SERIES`] series, the rest as `header="other"`.
    pub fn record_unread_header(&self, dependency: &str, header: &str) {
        let mut labels = UnreadLabels {
            dependency: Arc::from(dependency),
            header: header.to_ascii_lowercase(),
        };
        {
            let mut seen = self
                .unread_series
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !seen.contains(&labels) {
                if seen.len() < MAX_UNREAD_SERIES {
                    seen.insert(labels.clone());
                } else {
                    labels.header = "other".to_string();
                }
            }
        }
        self.unread_headers.get_or_create(&labels).inc();
    }

    /// Updates the gauges of the dependency `name` from a reading of its state. The
    /// three gauges every reading sets are kept in `kept` (the state's) from their
    /// first use; the quotas' series, named by the policies replies announce, are
    /// looked up.
    pub fn record_dependency(&self, name: &str, kept: &DependencySeries, r: &DependencyReading) {
        if !r.quotas.is_empty() {
            let dependency: Arc<str> = Arc::from(name);
            for q in r.quotas {
                let labels = QuotaLabels {
                    dependency: dependency.clone(),
                    policy: q.policy.clone(),
                };
                if let Some(r) = q.remaining {
                    self.quota_remaining
                        .get_or_create(&labels)
                        .set(i64::try_from(r).unwrap_or(i64::MAX));
                }
                if let Some(l) = q.limit {
                    self.quota_limit
                        .get_or_create(&labels)
                        .set(i64::try_from(l).unwrap_or(i64::MAX));
                }
            }
        }
        kept_gauge(&self.circuit_state, &kept.circuit, name).set(r.circuit);
        kept_gauge(&self.brownout, &kept.brownout, name).set(i64::from(r.brownout));
        kept_gauge(&self.account_held, &kept.account_held, name).set(i64::from(r.account_held));
    }

    /// Records an announced sunset.
    pub fn record_sunset(&self, tool: &str, unix_seconds: i64) {
        self.sunset_timestamp
            .get_or_create(&ToolLabel {
                tool: Arc::from(tool),
            })
            .set(unix_seconds);
    }

    /// Drops a tool's announced sunset (the upstream withdrew its deprecation).
    pub fn forget_sunset(&self, tool: &str) {
        self.sunset_timestamp.remove(&ToolLabel {
            tool: Arc::from(tool),
        });
    }

    /// Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}

/// The gauge kept in `slot`, found in `family` under `dependency` the first time.
fn kept_gauge<'a>(
    family: &Family<DependencyLabel, Gauge>,
    slot: &'a std::sync::OnceLock<Gauge>,
    dependency: &str,
) -> &'a Gauge {
    slot.get_or_init(|| {
        family
            .get_or_create(&DependencyLabel {
                dependency: Arc::from(dependency),
            })
            .clone()
    })
}
