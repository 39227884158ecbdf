//! toolgate's command line and what only the binary needs: the built-in demo and the
//! generated alerting rules and dashboard. Everything a call goes through is in
//! `toolgate-engine`; the MCP transports are in `toolgate-server`; `docs/architecture.md`
//! draws the layers.

pub mod alerts;
pub mod build;
pub mod cli;
pub mod demo;
