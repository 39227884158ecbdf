//! toolgate's MCP server: how clients reach the engine.
//!
//! [`mcp`] holds the protocol: JSON-RPC framing, dispatch of each method, the answer
//! writer, messages to the calling client, and the two transports (streamable HTTP in
//! both protocol eras, stdio). [`server`] is the HTTP listener: `/mcp`, the health and
//! admin endpoints, and admission (body limits, Host/Origin, the bearer token).
//! [`console`] is the on-call console at `/ui`.

pub mod console;
pub mod mcp;
pub mod server;
