//! A template string (`/v3/items/{id}`) read into literal text and placeholders, apart
//! from rendering: the compiler reads templates to check the arguments they name, long
//! before any call renders one.

/// One piece of a template string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text from the config.
    Lit(String),
    /// An argument placeholder.
    Arg(String),
    /// `{name*}`: an argument exploded, one query parameter per list item or object
    /// member; anywhere else it reads as `{name}`.
    Each(String),
    /// `{+name}`: an argument whose `/` separate path segments; in a query value one
    /// whose reserved characters are sent as written; anywhere else it reads as `{name}`.
    Segments(String),
}

/// A parsed template string such as `/v3/items/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Template(pub Vec<Part>);

impl Template {
    /// Parses `{name}`, `{name*}` and `{+name}` placeholders; `{{` and `}}` are a literal
    /// `{` and `}`; anything else is literal.
    pub fn parse(text: &str) -> Template {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            lit.push_str(&rest[..at]);
            let here = &rest[at..];
            if here.starts_with("{{") || here.starts_with("}}") {
                lit.push_str(&here[..1]);
                rest = &here[2..];
                continue;
            }
            let after = &here[1..];
            let inner = after.find('}').map(|c| &after[..c]);
            let part = inner.filter(|_| here.starts_with('{')).and_then(|n| {
                let (part, name): (fn(String) -> Part, &str) =
                    if let Some(each) = n.strip_suffix('*') {
                        (Part::Each, each)
                    } else if let Some(segments) = n.strip_prefix('+') {
                        (Part::Segments, segments)
                    } else {
                        (Part::Arg, n)
                    };
                is_identifier(name).then(|| (part(name.to_string()), n.len()))
            });
            match part {
                Some((part, len)) => {
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(part);
                    rest = &after[len + 1..];
                }
                None => {
                    lit.push_str(&here[..1]);
                    rest = after;
                }
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Template(parts)
    }

    /// `text` written so that [`Template::parse`] reads it back as literal text: a value
    /// taken from elsewhere (an API description) never becomes a placeholder.
    pub fn escape(text: &str) -> String {
        text.replace('{', "{{").replace('}', "}}")
    }

    /// Names of the arguments this template uses.
    pub fn arguments(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Part::Arg(n) | Part::Each(n) | Part::Segments(n) => Some(n.as_str()),
            Part::Lit(_) => None,
        })
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `"{name}"` exactly → `Some("name")`.
pub(super) fn whole_placeholder(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    is_identifier(inner).then_some(inner)
}
