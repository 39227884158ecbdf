//! The `gateway:` section: where toolgate listens and keeps its state, what it reads
//! and sends at most, how long it waits, and how it serves.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::{Compiler, limits};
use crate::model::*;
use crate::raw::*;
use crate::units::parse_bytes;

/// `gateway.serving_threads` at most.
const MAX_SERVING_THREADS: usize = 1024;

impl Compiler<'_> {
    /// The `gateway:` section. Its sizes, its stores and its timeouts are read by the
    /// helpers below; the counts in place.
    pub(super) fn gateway(&mut self, raw: RawGateway) -> GatewayConfig {
        let listen = self.listen(raw.listen);
        let auth_token = self.token_env(
            "gateway.auth_token_env",
            raw.auth_token_env,
            "the bearer token clients must send",
        );
        let metrics_token = self.token_env(
            "gateway.metrics_token_env",
            raw.metrics_token_env,
            "the bearer token scrapers of /metrics must send",
        );
        let auth = raw.auth.and_then(|a| self.auth(a));
        let (max_response_bytes, max_buffered_response_bytes) =
            self.response_sizes(raw.max_response_bytes, raw.max_buffered_response_bytes);
        let (state, postgres, shared) = self.stores(raw.state, raw.shared);
        let replica = raw.replica.map(|r| self.expand("gateway.replica", &r));
        self.schema_roots(raw.schema_roots.unwrap_or_default());
        let max_request_bytes = self.max_request_bytes(raw.max_request_bytes.as_deref());
        let count = |n: Option<u32>, default: usize| n.map_or(default, |n| n as usize);
        GatewayConfig {
            allowed_origins: raw.allowed_origins.unwrap_or_default(),
            max_connections: count(raw.max_connections, 1024),
            serving_threads: self.serving_threads(raw.serving_threads),
            header_timeout: self.gateway_secs("header_timeout", raw.header_timeout.as_ref(), 10, 0),
            idle_timeout: self.gateway_secs("idle_timeout", raw.idle_timeout.as_ref(), 60, 0),
            // Below a second a connection would be cut for a scheduling hiccup.
            body_timeout: self.gateway_secs("body_timeout", raw.body_timeout.as_ref(), 30, 1),
            send_timeout: self.gateway_secs("send_timeout", raw.send_timeout.as_ref(), 30, 1),
            account_hold: self.account_hold(
                "gateway.account_hold".into(),
                raw.account_hold.as_ref(),
                limits::DEFAULT_ACCOUNT_HOLD,
            ),
            max_request_bytes,
            max_sessions: count(raw.max_sessions, 10_000),
            session_share: self.share(
                "gateway.session_share",
                "the session table",
                "every session",
                raw.session_share,
            ),
            reply_share: self.share(
                "gateway.reply_share",
                "the reply memory",
                "every reply",
                raw.reply_share,
            ),
            server_request_share: self.share(
                "gateway.server_request_share",
                "a server's max_server_requests",
                "every slot",
                raw.server_request_share,
            ),
            session_idle: self.gateway_secs("session_idle", raw.session_idle.as_ref(), 600, 0),
            session_keys: self.session_keys(
                raw.session_key_env.as_deref(),
                raw.session_key_previous_env.as_deref(),
            ),
            session_lifetime: self
                .session_lifetime(raw.session_lifetime.as_ref(), raw.session_key_env.is_some()),
            replica_url: self
                .replica_url(raw.replica_url.as_deref(), raw.session_key_env.is_some()),
            drain: self.gateway_secs("drain", raw.drain.as_ref(), 30, 0),
            shutdown_delay: self.gateway_secs("shutdown_delay", raw.shutdown_delay.as_ref(), 5, 0),
            reload_watch: raw.reload_watch.unwrap_or(false),
            listen,
            state,
            postgres,
            shared,
            replica,
            auth_token,
            metrics_token,
            auth,
            allowed_hosts: raw.allowed_hosts.unwrap_or_default(),
            deadline: self.duration_min(
                "gateway.deadline".into(),
                raw.deadline.as_ref(),
                Duration::from_secs(30),
                limits::MIN_DEADLINE,
            ),
            max_response_bytes,
            max_buffered_response_bytes,
            notes: self.notes_mode(
                "gateway.notes".into(),
                raw.notes.as_deref(),
                NotesMode::default(),
            ),
            structured_content: raw.structured_content.unwrap_or(true),
            mcp_server_limits: self.tool_limits(
                "gateway.mcp_server_limits",
                raw.mcp_server_limits.as_ref(),
                ServerLimits::default(),
            ),
            learn: self.learn("gateway.learn", raw.learn.as_ref(), Some(Learn::default())),
            lockfile: self.lock_default.clone(),
            audit: self.audit(raw.audit.as_ref()),
        }
    }

    /// `gateway.<field>`, a duration: `default_s` seconds when unset, at least `min_s`.
    fn gateway_secs(
        &mut self,
        field: &str,
        text: Option<&String>,
        default_s: u64,
        min_s: u64,
    ) -> Duration {
        self.duration_min(
            format!("gateway.{field}"),
            text,
            Duration::from_secs(default_s),
            Duration::from_secs(min_s),
        )
    }

    /// `gateway.max_request_bytes`, 4 MiB when unset.
    fn max_request_bytes(&mut self, raw: Option<&str>) -> usize {
        const DEFAULT: usize = 4 << 20;
        match raw.map(parse_bytes) {
            None => DEFAULT,
            Some(Ok(n)) => n,
            Some(Err(msg)) => {
                self.err("gateway.max_request_bytes", msg, "write a size like `4MiB`");
                DEFAULT
            }
        }
    }

    /// One caller's share of something every caller uses (`gateway.session_share`,
    /// `gateway.reply_share`, `gateway.server_request_share`), 0.5 when unset: above 0, at most 1.
    fn share(&mut self, field: &str, of: &str, all: &str, raw: Option<f64>) -> f64 {
        const DEFAULT: f64 = 0.5;
        match raw {
            None => DEFAULT,
            Some(f) if f > 0.0 && f <= 1.0 => f,
            Some(f) => {
                self.err(
                    field,
                    format!("{f} is not a fraction of {of}"),
                    &format!(
                        "write a number above 0 and at most 1, e.g. `0.5` (1 lets one caller hold {all})"
                    ),
                );
                DEFAULT
            }
        }
    }

    /// `gateway.listen`, `127.0.0.1:8765` when unset.
    fn listen(&mut self, raw: Option<String>) -> SocketAddr {
        let listen_text = raw.unwrap_or_else(|| "127.0.0.1:8765".into());
        listen_text.parse::<SocketAddr>().unwrap_or_else(|_| {
            self.err(
                "gateway.listen",
                format!("`{listen_text}` is not an address"),
                "write it like `127.0.0.1:8765`",
            );
            SocketAddr::from(([127, 0, 0, 1], 8765))
        })
    }

    /// A static bearer token named by a `*_token_env` field (`what`: who sends it).
    fn token_env(&mut self, field: &str, var: Option<String>, what: &str) -> Option<Secret> {
        let var = var?;
        match (self.env)(&var) {
            Some(v) if !v.is_empty() => Some(Secret(v)),
            _ => {
                self.unset_variable(field, &var, &format!("export {var} with {what}"));
                None
            }
        }
    }

    /// `max_response_bytes` and `max_buffered_response_bytes`: the second must hold a
    /// reply of the first's size, or such a reply could never be read.
    fn response_sizes(
        &mut self,
        raw_max: Option<RawSize>,
        raw_buffered: Option<RawSize>,
    ) -> (usize, usize) {
        let max_response_bytes = self.size(
            "gateway.max_response_bytes",
            raw_max,
            8 << 20,
            "use at least 1KiB, e.g. `8MiB`",
        );
        let max_response_bytes = if max_response_bytes < limits::MIN_RESPONSE_BYTES {
            self.err(
                "gateway.max_response_bytes",
                format!(
                    "max_response_bytes is {max_response_bytes} bytes, so every upstream response would be refused"
                ),
                "use at least 1KiB, e.g. `8MiB`",
            );
            8 << 20
        } else {
            max_response_bytes
        };
        let buffered_default = (128 << 20).max(max_response_bytes);
        let max_buffered_response_bytes = self.size(
            "gateway.max_buffered_response_bytes",
            raw_buffered,
            buffered_default,
            "e.g. `128MiB`",
        );
        let max_buffered_response_bytes = if max_buffered_response_bytes < max_response_bytes {
            self.err(
                "gateway.max_buffered_response_bytes",
                format!(
                    "max_buffered_response_bytes ({max_buffered_response_bytes} bytes) is less than \
                     max_response_bytes ({max_response_bytes} bytes), so a reply of the allowed size could never be read"
                ),
                "make it at least max_response_bytes, e.g. 16 times it",
            );
            buffered_default
        } else {
            max_buffered_response_bytes
        };
        (max_response_bytes, max_buffered_response_bytes)
    }

    /// `gateway.state` (a SQLite path or a PostgreSQL URL) and `gateway.shared` (Redis).
    fn stores(
        &mut self,
        raw_state: Option<String>,
        raw_shared: Option<String>,
    ) -> (PathBuf, Option<Secret>, Option<Secret>) {
        let (state, postgres) = match raw_state {
            Some(text) if text.starts_with("postgres://") || text.starts_with("postgresql://") => {
                let url = self.expand("gateway.state", &text);
                (PathBuf::from(".toolgate/state.db"), Some(Secret(url)))
            }
            other => (self.state_path(other), None),
        };
        let shared = raw_shared.map(|text| {
            let url = self.expand("gateway.shared", &text);
            if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
                self.err(
                    "gateway.shared",
                    "`shared` must be a redis:// or rediss:// URL",
                    "e.g. `shared: redis://cache.internal:6379/0`",
                );
            }
            Secret(url)
        });
        (state, postgres, shared)
    }

    /// `gateway.serving_threads`: a thread each is a runtime and a stack; past
    /// [`MAX_SERVING_THREADS`] that is a typo, not a machine.
    fn serving_threads(&mut self, raw: Option<u32>) -> Option<usize> {
        let n = raw? as usize;
        if n > MAX_SERVING_THREADS {
            self.err(
                "gateway.serving_threads",
                format!("{n} threads: at most {MAX_SERVING_THREADS}"),
                "leave it out for one thread per core",
            );
            return None;
        }
        Some(n)
    }

    /// A size setting (`8MiB` or a number of bytes), `default` when unset or unreadable
    /// (reported at `path`).
    fn size(&mut self, path: &str, raw: Option<RawSize>, default: usize, example: &str) -> usize {
        let Some(raw) = raw else {
            return default;
        };
        let parsed = match raw {
            RawSize::Bytes(n) => usize::try_from(n).map_err(|_| format!("`{n}` is too large")),
            RawSize::Text(text) => parse_bytes(&text),
        };
        match parsed {
            Ok(n) => n,
            Err(msg) => {
                self.err(path, msg, &format!("write a size like `8MiB`; {example}"));
                default
            }
        }
    }
}
