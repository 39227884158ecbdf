//! What a caller is told of a tool's configured successor (`tools.<name>.successor`):
//! its name only when the caller may call it. A deprecation note, the `_meta`
//! signals and a retired endpoint's sentence all point the model at the successor;
//! naming one the agent may not call would tell it about a tool its policy hides
//! (and send it to a call that is answered as for a tool that does not exist), so it
//! is told instead that there is one its operator must grant.

use toolgate_config::AgentSpec;

/// A tool's successor, as one reader may learn it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Successor<'a> {
    /// None is configured.
    None,
    /// One the reader may call.
    Named(&'a str),
    /// One the reader may not call: there is one, and it must be granted.
    Withheld,
}

impl<'a> Successor<'a> {
    /// The `configured` successor as `reader` (`None`: a caller with no agent policy,
    /// who may call every tool) may learn it.
    pub fn for_reader(configured: Option<&'a str>, reader: Option<&AgentSpec>) -> Self {
        match configured {
            None => Successor::None,
            Some(s) if reader.is_none_or(|a| a.may_call(s)) => Successor::Named(s),
            Some(_) => Successor::Withheld,
        }
    }

    /// The name the reader may be given.
    pub fn name(self) -> Option<&'a str> {
        match self {
            Successor::Named(s) => Some(s),
            Successor::None | Successor::Withheld => None,
        }
    }
}
