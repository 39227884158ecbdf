//! End-to-end tests: real sockets, real upstreams on loopback, real MCP clients.

mod check;
mod core;
mod harness;
