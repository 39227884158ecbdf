//! JSON-RPC 2.0 and MCP error codes, by name: the one list every transport, the
//! client and the server use, so a code means the same in each of them.

/// Invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Valid JSON that is not a JSON-RPC request (a bad id, no method, a batch).
pub const INVALID_REQUEST: i64 = -32600;
/// A method the receiver does not implement.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Parameters that do not fit the method (also: a request a client will not serve,
/// such as a sampling question it cannot route).
pub const INVALID_PARAMS: i64 = -32602;
/// Something failed inside the receiver.
pub const INTERNAL_ERROR: i64 = -32603;
/// A server-defined error: at a limit (sessions, server requests in flight); the
/// sender may retry.
pub const SERVER_BUSY: i64 = -32000;
/// MCP: the resource named does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// MCP: the request needs the user to open a URL first (URL-mode elicitation).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;
/// The TypeScript SDK's code for a request that timed out on its side.
pub const REQUEST_TIMEOUT: i64 = -32001;
/// MCP 2026-07-28: an HTTP header (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`)
/// contradicts the body or is missing.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP 2026-07-28: the request needs a client capability it did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// MCP 2026-07-28: the request names a protocol version this server does not speak.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// LSP's code for a request cancelled by its sender, which MCP SDKs use too.
pub const REQUEST_CANCELLED: i64 = -32800;
