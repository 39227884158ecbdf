//! What the listener serves: the router, with `/mcp` answered without it.
//!
//! Through axum's router, each MCP call had its path matched, three extensions
//! inserted into its request (none of which the MCP endpoint reads), and the admission
//! middleware's boxed services cloned and called, before its handler ran. `/mcp` is one
//! exact path with one handler for every method, so [`Routes`] gives it the same
//! admission rules ([`Admission::admitted`]) and the handler directly. Every other path,
//! and the one method the router answers differently (`CONNECT`), stays the router's.
//! What the router adds to every response it returns (`Content-Length` when the body's
//! size is known, no body for `HEAD`) is added here the same way, so a client cannot
//! tell which way its request went.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;
use hyper::body::Body as _;
use tower::ServiceExt as _;

use super::admission::Admission;
use crate::mcp::http::Mcp;

/// The path of the streamable HTTP transport.
const MCP_PATH: &str = "/mcp";

/// The router, and the MCP endpoint when it is served directly.
#[derive(Clone)]
pub struct Routes {
    router: Router,
    mcp: Option<DirectMcp>,
}

/// The MCP endpoint behind the admission rules, without the router.
#[derive(Clone)]
struct DirectMcp {
    admission: Arc<Admission>,
    mcp: Arc<Mcp>,
}

impl std::fmt::Debug for Routes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Routes")
            .field("mcp_direct", &self.mcp.is_some())
            .finish_non_exhaustive()
    }
}

impl From<Router> for Routes {
    /// Every request through `router`.
    fn from(router: Router) -> Routes {
        Routes { router, mcp: None }
    }
}

impl Routes {
    /// `router` for every path but `/mcp`, which `admission` and then `mcp` answer. The
    /// router must route `/mcp` to the same handler behind the same admission layer, so
    /// that both ways answer alike.
    pub(crate) fn with_mcp(router: Router, admission: Arc<Admission>, mcp: Arc<Mcp>) -> Routes {
        Routes {
            router,
            mcp: Some(DirectMcp { admission, mcp }),
        }
    }

    /// The response to `request`.
    pub async fn answer(&self, request: Request) -> Response {
        match &self.mcp {
            Some(direct) if DirectMcp::takes(&request) => direct.answer(request).await,
            _ => match self.router.clone().oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            },
        }
    }
}

impl DirectMcp {
    /// Whether `request` is answered here: the MCP path, in any method the router's
    /// route would hand to the handler unchanged.
    fn takes(request: &Request) -> bool {
        request.uri().path() == MCP_PATH && request.method() != Method::CONNECT
    }

    async fn answer(&self, request: Request) -> Response {
        let head = request.method() == Method::HEAD;
        let response = match self.admission.admitted(request).await {
            // Boxed, as the router boxes its handlers: the call's future is large, and
            // the connection's own future stays small when it holds only the box.
            Ok(request) => {
                Box::pin(crate::mcp::http::handle(State(self.mcp.clone()), request)).await
            }
            Err(refused) => refused,
        };
        as_the_router_returns(response, head)
    }
}

/// `response` with what the router adds to every response it returns: `Content-Length`
/// when the body's size is known and the header is absent, and, for `HEAD`, no body.
fn as_the_router_returns(mut response: Response, head: bool) -> Response {
    if !response.headers().contains_key(header::CONTENT_LENGTH)
        && let Some(size) = response.body().size_hint().exact()
    {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    }
    if head {
        *response.body_mut() = Body::empty();
    }
    response
}

/// [`Routes::answer`] as a service, for callers that drive it with `tower`'s helpers.
impl tower::Service<Request> for Routes {
    type Response = Response;
    type Error = Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Response, Infallible>> + Send + 'static>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let routes = self.clone();
        Box::pin(async move { Ok(routes.answer(request).await) })
    }
}

#[cfg(test)]
mod tests;
