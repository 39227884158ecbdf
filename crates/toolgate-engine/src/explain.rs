//! What the model is told when a call fails: what failed, the error class, whether
//! retrying can help and when, and what to do instead. One function per situation so
//! the wording stays consistent; the texts never contain URLs, headers or secrets.

mod answer;
mod contract_drift;
mod definition;
mod excerpt;
mod failure;
mod refusal;
mod secrets;
mod words;

pub use answer::Detail;
pub use contract_drift::{contract_drift_incident, names_a_field};
pub use definition::{all_new, definition_change, definition_incident};
pub use excerpt::{excerpt, link, quoted, upstream_text};
pub use failure::{Failed, failure};
pub use refusal::{
    account_held, agent_concurrency, agent_quota, circuit_open, forbidden, invalid_arguments,
    no_room_for_agent_replies, no_room_for_replies, quota_exhausted, saturated, withheld,
    wrapper_outdated,
};
pub use secrets::Secrets;
pub use words::{at, contract_name, human};

#[cfg(test)]
mod tests;
