//! The console's stylesheet and script, embedded in the binary and served under a
//! name that carries a hash of their content: a page always names the assets of the
//! binary that rendered it, so they can be cached for a year without ever being stale.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("assets/console.css");
const JS: &str = include_str!("assets/console.js");
const ICON: &str = include_str!("assets/favicon.svg");

/// `/ui/assets/console.<hash>.css`.
pub static CSS_PATH: LazyLock<String> =
    LazyLock::new(|| format!("/ui/assets/console.{:016x}.css", fnv1a(CSS)));

/// `/ui/assets/console.<hash>.js`.
pub static JS_PATH: LazyLock<String> =
    LazyLock::new(|| format!("/ui/assets/console.{:016x}.js", fnv1a(JS)));

/// `/ui/assets/favicon.<hash>.svg` (without it a browser asks for `/favicon.ico`).
pub static ICON_PATH: LazyLock<String> =
    LazyLock::new(|| format!("/ui/assets/favicon.{:016x}.svg", fnv1a(ICON)));

/// 64-bit FNV-1a: a content hash for cache busting, not for security.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `GET /ui/assets/{name}`.
pub async fn serve(Path(name): Path<String>) -> Response {
    let path = format!("/ui/assets/{name}");
    let (body, kind) = if path == *CSS_PATH {
        (CSS, "text/css; charset=utf-8")
    } else if path == *JS_PATH {
        (JS, "text/javascript; charset=utf-8")
    } else if path == *ICON_PATH {
        (ICON, "image/svg+xml")
    } else {
        return (StatusCode::NOT_FOUND, "no such asset").into_response();
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}
