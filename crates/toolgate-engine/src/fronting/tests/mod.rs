//! Fronting a server: coalesced checks, the limits, refused look-alike names, and
//! pinned prompts and resource templates (withheld under `block`, served from their
//! pins, new ones unserved), and what passes through: prompts and templates listed from
//! their pins, resource lists bounded and cleaned, upstream errors cleaned.

mod limits;
mod names;
mod passthrough;
mod pins;
mod resource_index;
mod setup;
mod subscriptions;
mod watcher;
