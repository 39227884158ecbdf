//! End-to-end tests: real sockets, real upstreams on loopback, real MCP clients.

// A test that cannot set up its sockets should fail loudly, so unwrap is the right tool here.
#![allow(clippy::unwrap_used)]

mod account_hold;
mod arguments;
mod audit;
mod audit_incident;
mod check;
mod client_misuse;
mod console;
mod core;
mod crowded_incidents;
mod demo;
mod fronted_meta;
mod fronting;
mod harness;
mod hostile;
mod hostile_callers;
mod identity;
mod import;
mod isolation;
mod learned;
mod limits;
mod notes;
#[cfg(feature = "otel")]
mod otel;
mod relearn;
mod reload;
mod signals;
mod signals_schema;
mod stolen_tokens;
mod tls;
mod token_exchange;
mod token_exchange_fronted;
mod token_exchange_quota;
mod tool_scopes;
mod transport;
mod watch;
