//! Request templates: how a tool's arguments become an upstream HTTP request.
//!
//! `{name}` placeholders are replaced by arguments. The scheme, host and port always
//! come from the dependency's `base_url`: arguments are percent-encoded into the path
//! (so `/`, `?`, `#` and `@` cannot escape their segment), `.`/`..` segments are refused,
//! and the finished URL's origin is compared with the base URL's before any request.
//!
//! `{name*}` (RFC 6570's explode modifier) as a whole query value sends a list as the
//! parameter repeated (`tag=a&tag=b`) and an object as one parameter per member
//! (`color=red&size=m`): OpenAPI's default for query arrays (`style: form, explode:
//! true`), which most APIs expect. `{name}` joins a list with commas (`tag=a,b`).
//!
//! `{+name}` (RFC 6570's reserved expansion) in the path sends a value that is a path
//! of its own, such as Google's resource names (`projects/p/locations/l`), with its `/`
//! kept: each `/`-separated part is encoded as a segment, and empty, `.` and `..` parts
//! are refused, so the value can add segments but never climb out of the tool's path.
//! As a query value it keeps RFC 3986's reserved characters as written (OpenAPI's
//! `allowReserved`), but never `&`, `#` or `%`, which would add a parameter, cut the
//! query short or smuggle either in as an escape (`argument_text::reserved_list`).
//! Anywhere else it reads as `{name}`.
//!
//! Member names a caller chooses (an object spread into the query or a form, an object
//! placed in a JSON body) are compared as lenient servers read them
//! (`template/parameter_names.rs`): none may name a parameter the tool sets, and no two
//! members of a body's object may be read as one; none may reach a JavaScript
//! server's object prototype (`template/prototype_names.rs`).

mod argument_text;
mod decoded_name;
mod dot_segments;
mod form;
mod media_type;
mod multipart;
mod parameter_names;
mod parse;
mod path;
mod prototype_names;
mod render;
mod request;
mod steering_headers;

pub use media_type::{json_media_type, text_media_type};
pub use parameter_names::member_key;
pub use parse::{Part, Template};
pub use render::{MAX_ARGUMENT_BYTES, MAX_BODY_BYTES, MAX_URL_BYTES};
pub use request::{BodyEncoding, FormStyle, RenderError, RenderedRequest, RequestTemplate};
pub use steering_headers::steers_the_request;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod limit_tests;

#[cfg(test)]
mod pollution_tests;

#[cfg(test)]
mod reserved_tests;
