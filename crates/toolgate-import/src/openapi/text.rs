//! Text taken from a description into what a model reads: HTML markup read as the text
//! it stands for, whitespace collapsed, cut short.
//!
//! Vendors write descriptions in CommonMark, in HTML (`<p>`, `<br/>`, `<a href>`;
//! AWS's are DocBook-flavoured HTML: `<note>`, `<replaceable>`), or both. Tags and
//! entities cost the model tokens and say nothing to it, so the known elements are
//! taken out and the common entities decoded; anything else in angle brackets is text,
//! because descriptions also write placeholders (`Bearer <token>`), generic types
//! (`List<String>`) and CommonMark autolinks (`<https://…>`) that way.

/// Collapses whitespace and cuts at a word boundary near `max` characters, after
/// reading HTML markup as text ([`plain`]).
pub fn trim_text(text: &str, max: usize) -> String {
    cut(&plain(text), max)
}

/// Collapses whitespace and cuts at a word boundary near `max` characters; the text is
/// taken as it is.
pub fn cut(text: &str, max: usize) -> String {
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let cut: String = collapsed.chars().take(max).collect();
    let at = cut.rfind(' ').filter(|i| *i > max / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([',', '.', ';', ':']))
}

/// The most of a description read: every caller keeps at most a thousand characters,
/// and markup rarely triples a text, so the rest of a longer one is never shown.
const MAX_READ: usize = 64 << 10;

/// The longest tag read as markup (`<a href="…">` with a long address); a `<` without
/// a `>` this close is text.
const MAX_TAG: usize = 1024;

/// Elements that separate what is around them (a paragraph, a list item, a line break,
/// a table cell): replaced by a space, so words on both sides stay apart.
const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "important",
    "li",
    "main",
    "nav",
    "note",
    "ol",
    "p",
    "para",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "xhtml",
    "zonbook",
];

/// Elements inside a run of text (`<b>`, `<a>`): removed, their content kept as it is.
const INLINE: &[&str] = &[
    "a",
    "abbr",
    "b",
    "big",
    "cite",
    "del",
    "dfn",
    "em",
    "font",
    "i",
    "img",
    "ins",
    "kbd",
    "mark",
    "nobr",
    "q",
    "replaceable",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "sup",
    "tt",
    "u",
    "wbr",
];

/// Named entities decoded; any other `&name;` is left as written.
const ENTITIES: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", " "),
    ("ndash", "–"),
    ("mdash", "—"),
    ("hellip", "…"),
    ("lsquo", "‘"),
    ("rsquo", "’"),
    ("ldquo", "“"),
    ("rdquo", "”"),
    ("laquo", "«"),
    ("raquo", "»"),
    ("bull", "•"),
    ("middot", "·"),
    ("copy", "©"),
    ("reg", "®"),
    ("trade", "™"),
    ("deg", "°"),
    ("times", "×"),
    ("euro", "€"),
];

/// `text` with HTML elements taken out (a block element leaves a space, `<code>` becomes
/// a CommonMark code span, a comment goes) and entities decoded, in one pass, so an
/// encoded `&lt;p&gt;` stays the text `<p>`. CommonMark is left as written. At most
/// [`MAX_READ`] bytes are read.
pub fn plain(text: &str) -> String {
    if !text.contains(['<', '&']) {
        return text.to_string();
    }
    let mut end = text.len().min(MAX_READ);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let text = &text[..end];
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Where the next `>` and `<` after `i` are: found once and moved forward, so a text
    // of many `<` is still read in one pass.
    let mut next_gt = 0;
    let mut next_lt = 0;
    let mut next_close = 0;
    while let Some(off) = text[i..].find(['<', '&']) {
        out.push_str(&text[i..i + off]);
        i += off;
        let rest = &text[i..];
        if rest.starts_with('&') {
            match entity(rest) {
                Some((decoded, len)) => {
                    out.push_str(&decoded);
                    i += len;
                }
                None => {
                    out.push('&');
                    i += 1;
                }
            }
            continue;
        }
        if rest.starts_with("<!--") {
            if next_close <= i {
                next_close = text[i + 4..].find("-->").map_or(text.len(), |o| i + 4 + o);
            }
            if next_close < text.len() {
                i = next_close + 3;
                out.push(' ');
                continue;
            }
        }
        if next_gt <= i {
            next_gt = text[i..].find('>').map_or(text.len(), |o| i + o);
        }
        if next_lt <= i {
            next_lt = text[i + 1..].find('<').map_or(text.len(), |o| i + 1 + o);
        }
        let tag = (next_gt < text.len() && next_gt < next_lt && next_gt - i <= MAX_TAG)
            .then(|| element(&text[i..=next_gt]))
            .flatten();
        match tag {
            Some(Element::Block) => out.push(' '),
            Some(Element::Inline) => {}
            Some(Element::Code) => out.push('`'),
            None => {
                out.push('<');
                i += 1;
                continue;
            }
        }
        i = next_gt + 1;
    }
    out.push_str(&text[i..]);
    out
}

/// What a known tag stands for in the text.
enum Element {
    Block,
    Inline,
    Code,
}

/// `<p>`, `</p>`, `<br/>`, `<a href="…">`: the element, when `tag` (from `<` to `>`)
/// is one of the known ones.
fn element(tag: &str) -> Option<Element> {
    let inner = tag.strip_prefix('<')?.strip_suffix('>')?;
    let inner = inner.strip_prefix('/').unwrap_or(inner);
    let name_len = inner
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(inner.len());
    let (name, after) = inner.split_at(name_len);
    // `<p>`, `<br/>`, `<a href=…>`: the name ends the tag or a space or `/` follows;
    // `<https://…>` and `<user:pass>` are not tags.
    if !name.starts_with(|c: char| c.is_ascii_alphabetic())
        || !(after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || c == '/'))
    {
        return None;
    }
    let name = name.to_ascii_lowercase();
    if name == "code" {
        Some(Element::Code)
    } else if BLOCK.contains(&name.as_str()) {
        Some(Element::Block)
    } else if INLINE.contains(&name.as_str()) {
        Some(Element::Inline)
    } else {
        None
    }
}

/// `&amp;`, `&#39;`, `&#x27;` at the start of `text`: what it stands for and its length.
fn entity(text: &str) -> Option<(String, usize)> {
    // The longest entity decoded is `&#x10FFFF;`.
    let semi = text.bytes().take(12).position(|b| b == b';')?;
    let name = &text[1..semi];
    let decoded = if let Some(num) = name.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16),
            None => (num, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let code = u32::from_str_radix(digits, radix).ok()?;
        // A control character or NUL written as an entity is no text to show.
        char::from_u32(code)
            .filter(|c| !c.is_control() || c.is_whitespace())?
            .to_string()
    } else {
        ENTITIES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())?
    };
    Some((decoded, semi + 1))
}

#[cfg(test)]
mod tests;
