//! Upstream kinds behind one interface: an [`Upstream`] turns a call's validated
//! arguments into a request once ([`Upstream::prepare`]) and makes one attempt with it
//! at a time ([`Upstream::attempt`]), reporting what happened on the wire — a reply
//! (status, headers, body bytes, latency) or a transport failure. It never retries,
//! classifies or parses: the pipeline does that the same way for every kind.
//!
//! HTTP tools are the first kind ([`HttpUpstream`]).

mod client;
mod http;

use std::future::Future;
use std::time::Duration;

use serde_json::{Map, Value};

pub use client::{SendError, UpstreamClient, UpstreamResponse};
pub use http::HttpUpstream;

/// One kind of upstream a tool can call.
pub trait Upstream: Send + Sync + std::fmt::Debug {
    /// A prepared request, built once per call and reused by every attempt.
    type Request: Send + Sync;

    /// Builds the request from arguments that passed the tool's input schema. An error
    /// is a request toolgate cannot form (the model's to fix): nothing is sent.
    fn prepare(&self, args: &Map<String, Value>) -> Result<Self::Request, String>;

    /// One attempt, answered (or failed) within `timeout`.
    fn attempt(
        &self,
        request: &Self::Request,
        timeout: Duration,
    ) -> impl Future<Output = Result<UpstreamResponse, SendError>> + Send;
}
