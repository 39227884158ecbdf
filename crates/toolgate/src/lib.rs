//! toolgate: an agent-aware tool gateway.
//!
//! The call path is assembled in one place, [`pipeline`]; everything else is a part it
//! uses (config, upstream kinds, dependency and tool state, incidents, metrics) or a
//! way in (MCP, CLI, HTTP). `docs/architecture.md` draws the layers.

pub mod alerts;
pub mod background;
pub mod cli;
pub mod config;
pub mod demo;
pub mod dependency;
pub mod explain;
pub mod fronting;
pub mod gateway;
pub mod health;
pub mod import;
pub mod mcp;
pub mod metrics;
pub mod notes;
pub mod pipeline;
pub mod server;
pub mod shared;
pub mod status;
pub mod store;
pub mod sync;
pub mod telemetry;
pub mod tool_state;
pub mod upstream;
pub mod watch;
