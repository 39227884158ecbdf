//! What a call produced, before it is put into MCP terms.

use std::time::Duration;

use serde_json::{Value, json};
use toolgate_contract::{Drift, EscapeSites};
use toolgate_resilience::ErrorClass;

/// What a tool call produced, before it is put into MCP terms.
#[derive(Debug)]
pub struct CallOutcome {
    /// `Ok(structuredContent)` or the failure.
    pub result: Result<Structured, Failure>,
    /// One-line notes for the model (without the `toolgate:` prefix).
    pub notes: Vec<String>,
    /// Machine-readable signals for `_meta["dev.toolgate/signals"]`.
    pub signals: super::CallSignals,
}

impl CallOutcome {
    /// A call whose arguments cannot be sent as the client wrote them (`problem` says
    /// why): refused before anything was sent, told to the model like any argument that
    /// does not fit the input schema.
    pub fn invalid_arguments(tool: &str, problem: &str) -> CallOutcome {
        CallOutcome::unsent(
            tool,
            "",
            ErrorClass::ClientError,
            crate::explain::invalid_arguments(tool, problem),
        )
    }

    /// A call of a fronted tool withheld (`on_change: block`) until its changed definition
    /// is reviewed by `owner`: refused before anything was sent, told to the model as a
    /// failed tool result like any other refusal.
    pub fn withheld(tool: &str, owner: &str) -> CallOutcome {
        CallOutcome::unsent(
            tool,
            "pinned",
            ErrorClass::ContractDrift,
            crate::explain::withheld(tool, owner),
        )
    }

    /// A call refused before anything was sent: a failure of `class` the model may not
    /// retry as it is, with `message`.
    fn unsent(tool: &str, contract: &str, class: ErrorClass, message: String) -> CallOutcome {
        let mut signals = super::CallSignals::new(tool, contract, 0);
        signals.error_class = Some(class.as_str().to_string());
        signals.retryable = Some(false);
        CallOutcome {
            result: Err(Failure::new(class, message)),
            notes: Vec::new(),
            signals,
        }
    }
}

/// A body that satisfied its contract, kept as the bytes it arrived in. The answer
/// carries these bytes as they are (as `structuredContent` and as the text block), so a
/// successful call never builds a JSON tree of the body; see `ResponseContract::check_bytes`.
#[derive(Debug, Clone)]
pub struct Structured {
    /// The body: one JSON document (`null` for an empty body).
    json: bytes::Bytes,
    /// The contract's schema is not an object: the body goes out as `{"result": …}`.
    wrapped: bool,
    /// Where the body needs escaping inside a JSON string, when the check noted it.
    escapes: Option<EscapeSites>,
    /// The bytes are an upstream MCP server's whole `tools/call` result (content blocks,
    /// `structuredContent`, `_meta`), passed on as it came, notes added.
    mcp_result: bool,
}

impl Structured {
    /// A checked body. `json` must be one JSON document (the contract check parsed it).
    pub fn new(json: bytes::Bytes, wrapped: bool) -> Structured {
        Structured {
            json,
            wrapped,
            escapes: None,
            mcp_result: false,
        }
    }

    /// A checked body, with where it needs escaping when its check noted that.
    pub fn checked(json: bytes::Bytes, escapes: Option<EscapeSites>, wrapped: bool) -> Structured {
        Structured {
            json,
            wrapped,
            escapes,
            mcp_result: false,
        }
    }

    /// An upstream MCP server's result (one JSON object, checked by the call path).
    pub fn mcp_result(json: bytes::Bytes) -> Structured {
        Structured {
            json,
            wrapped: false,
            escapes: None,
            mcp_result: true,
        }
    }

    /// Whether this is an upstream MCP server's whole result.
    pub fn is_mcp_result(&self) -> bool {
        self.mcp_result
    }

    /// The body's JSON, as received.
    pub fn body(&self) -> &[u8] {
        &self.json
    }

    /// Where the body's bytes need escaping inside a JSON string, when the contract's
    /// check noted that on its way (see `upstream::CheckedBody`).
    pub fn escapes(&self) -> Option<&EscapeSites> {
        self.escapes.as_ref()
    }

    /// Whether the structured content is `{"result": body}` rather than the body.
    pub fn is_wrapped(&self) -> bool {
        self.wrapped
    }

    /// The structured content as JSON text: the body, or `{"result":<body>}`.
    pub fn text(&self) -> String {
        // Parsed JSON is UTF-8 throughout (serde_json checks strings; the rest is ASCII).
        let body = String::from_utf8_lossy(&self.json);
        if self.wrapped {
            format!("{{\"result\":{body}}}")
        } else {
            body.into_owned()
        }
    }

    /// The structured content as a `Value` (parses; for the rmcp answer and tests).
    pub fn to_value(&self) -> Value {
        let body = serde_json::from_slice(&self.json).unwrap_or(Value::Null);
        if self.wrapped {
            json!({ "result": body })
        } else {
            body
        }
    }
}

/// A failed call.
#[derive(Debug)]
pub struct Failure {
    /// The class of the last failed attempt (or of the refusal).
    pub class: ErrorClass,
    /// The complete message for the model.
    pub message: String,
    /// The contract diff, for drift.
    pub drift: Option<Box<Drift>>,
    /// The wait the upstream asked for, when the call failed with one toolgate did not
    /// (or could not) wait out.
    pub retry_after: Option<Duration>,
    /// For `contract_drift` without a diff: what broke (see `Detail::drift_cause`).
    pub drift_cause: Option<&'static str>,
    /// For `tool_error`: the upstream MCP server's result, passed to the model as it came.
    pub passthrough: Option<bytes::Bytes>,
    /// The upstream's reply said a retry will not help (`x-should-retry: false`).
    pub retry_advised_against: bool,
    /// The upstream's last reply said a retry is safe and may succeed
    /// (`x-should-retry: true`), which toolgate's own retries followed.
    pub retry_vouched: bool,
}

impl Failure {
    /// A failure with no diff and no known wait.
    pub fn new(class: ErrorClass, message: String) -> Failure {
        Failure {
            class,
            message,
            drift: None,
            retry_after: None,
            drift_cause: None,
            passthrough: None,
            retry_advised_against: false,
            retry_vouched: false,
        }
    }

    /// Whether calling again may succeed, as `_meta` tells the client: what the class
    /// allows for a tool this safe to repeat, widened by a reply that vouched for a
    /// retry and narrowed by one that advised against it — the same rule toolgate's own
    /// retries followed.
    pub fn retryable(&self, idempotent: bool) -> bool {
        !self.retry_advised_against
            && (self.class.retryable(idempotent)
                || self.retry_vouched && self.class.retryable_when_vouched())
    }
}

/// Who made a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// An agent over MCP.
    Agent,
    /// A scheduled or manual contract probe.
    Probe,
}
