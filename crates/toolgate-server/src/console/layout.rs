//! What every console page shares: the one HTML escaper, the page shell with its nav
//! bar, pagination and the search box, and who an action is recorded as.
//!
//! Every value written into a page goes through [`esc`] (or [`Html::text`]): tool
//! names, titles and diffs are upstream-written or config-written text, and a page that
//! renders one unescaped is a script injection into the on-call person's browser.

use std::fmt::Write as _;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Escapes text for an HTML element's content or a double- or single-quoted attribute
/// value: `&`, `<`, `>`, `"` and `'`. Invisible format characters (zero-width, bidi
/// overrides, tag characters) are written as `\u{…}`. Control characters other than tab and newline
/// become U+FFFD, so nothing an upstream wrote can confuse a parser.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            // Shown, not rendered: the on-call person must see a hidden instruction.
            c if toolgate_contract::is_invisible(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Percent-encodes a value for a query string (`q=`): everything but unreserved
/// characters.
pub fn url_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The pages, in the nav bar's order: (path, label, shortcut key after `g`).
const NAV: [(&str, &str, char); 5] = [
    ("/ui", "Now", 'n'),
    ("/ui/incidents", "Incidents", 'i'),
    ("/ui/tools", "Tools", 't'),
    ("/ui/definitions", "Definitions", 'd'),
    ("/ui/agents", "Agents", 'a'),
];

/// A whole page: the shell, the nav bar with `current` marked, and `body` (already
/// escaped HTML). `live` names what the page's script refreshes on (the server-sent
/// event kinds), empty for none.
pub fn page(title: &str, current: &str, live: &str, body: &str) -> Response {
    let mut nav = String::new();
    for (path, label, key) in NAV {
        let here = if path == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        let _ = write!(
            nav,
            "<a href=\"{path}\"{here} data-key=\"{key}\">{label}</a>"
        );
    }
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · toolgate</title>\
         <link rel=\"icon\" href=\"{icon}\"><link rel=\"stylesheet\" href=\"{css}\">\
         <script src=\"{js}\" defer></script></head>\
         <body data-live=\"{live}\"><header><span class=\"brand\">toolgate</span><nav>{nav}</nav>\
         <span class=\"live\" id=\"live\" role=\"status\" aria-live=\"polite\"></span></header>\
         <main id=\"main\">{body}</main>\
         <footer>Keys: <kbd>g</kbd> then <kbd>n</kbd> now, <kbd>i</kbd> incidents, <kbd>t</kbd> tools, \
         <kbd>d</kbd> definitions, <kbd>a</kbd> agents; <kbd>/</kbd> search.</footer></body></html>\n",
        title = esc(title),
        live = esc(live),
        css = super::assets::CSS_PATH.as_str(),
        icon = super::assets::ICON_PATH.as_str(),
        js = super::assets::JS_PATH.as_str(),
    );
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                 connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "same-origin"),
        ],
        html,
    )
        .into_response()
}

/// A plain error page (not found, refused).
pub fn error(status: StatusCode, message: &str) -> Response {
    let mut r = page(
        "Error",
        "",
        "",
        &format!("<h1>{}</h1><p>{}</p>", status.as_u16(), esc(message)),
    );
    *r.status_mut() = status;
    r
}

/// The query a list page takes: `q` (search), `page` (from 1), and `state`.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ListQuery {
    /// Case-insensitive substring.
    pub q: Option<String>,
    /// 1-based page number.
    pub page: Option<usize>,
    /// `open`, `resolved` or `all` (incidents).
    pub state: Option<String>,
}

impl ListQuery {
    /// The search, trimmed and lower-cased; empty: none. Bounded: a search longer
    /// than 200 characters is cut.
    pub fn needle(&self) -> String {
        self.q
            .as_deref()
            .unwrap_or("")
            .trim()
            .chars()
            .take(200)
            .collect::<String>()
            .to_lowercase()
    }

    /// Whether any of `fields` contains the search.
    pub fn matches(&self, needle: &str, fields: &[&str]) -> bool {
        needle.is_empty() || fields.iter().any(|f| f.to_lowercase().contains(needle))
    }
}

/// One page of `items`: the slice and the page number actually shown (clamped).
pub fn paginate<T>(items: &[T], page: Option<usize>, per_page: usize) -> (&[T], usize, usize) {
    let pages = items.len().div_ceil(per_page).max(1);
    let page = page.unwrap_or(1).clamp(1, pages);
    let start = (page - 1) * per_page;
    let end = (start + per_page).min(items.len());
    (&items[start.min(items.len())..end], page, pages)
}

/// The search form and the page links of a list: `base` is the page's path, `extra`
/// further query parameters (already encoded, each starting with `&`).
pub fn search_and_pages(
    base: &str,
    needle: &str,
    extra: &str,
    page: usize,
    pages: usize,
    total: usize,
    hidden: &[(&str, &str)],
) -> (String, String) {
    let mut form = format!(
        "<form class=\"search\" method=\"get\" action=\"{base}\" role=\"search\">\
         <label for=\"q\">Search</label> <input id=\"q\" name=\"q\" type=\"search\" value=\"{}\" \
         data-search> <button type=\"submit\">Search</button>",
        esc(needle)
    );
    for (name, value) in hidden {
        let _ = write!(
            form,
            "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
            esc(name),
            esc(value)
        );
    }
    let _ = write!(form, " <span class=\"count\">{total} found</span></form>");
    let q = if needle.is_empty() {
        String::new()
    } else {
        format!("&q={}", url_component(needle))
    };
    let mut nav = String::from("<nav class=\"pages\" aria-label=\"pages\">");
    if page > 1 {
        let _ = write!(
            nav,
            "<a rel=\"prev\" href=\"{base}?page={}{extra}{q}\">‹ previous</a> ",
            page - 1
        );
    }
    let _ = write!(nav, "<span>page {page} of {pages}</span>");
    if page < pages {
        let _ = write!(
            nav,
            " <a rel=\"next\" href=\"{base}?page={}{extra}{q}\">next ›</a>",
            page + 1
        );
    }
    nav.push_str("</nav>");
    (form, nav)
}

/// Who an action is recorded as: the admitted agent's name, else the user name the
/// browser sent with the admin credential, else `admin`.
pub fn who(identity: Option<&toolgate_auth::Identity>, user: Option<&ConsoleUser>) -> String {
    if let Some(agent) = identity.and_then(|i| i.agent.as_deref()) {
        return agent.name.clone();
    }
    match user {
        Some(u) if !u.0.trim().is_empty() => u.0.trim().chars().take(64).collect(),
        _ => "admin".to_string(),
    }
}

/// The user name of a console request that came with HTTP Basic credentials (the
/// password is the admin credential; the name is what actions are recorded as).
#[derive(Debug, Clone)]
pub struct ConsoleUser(pub String);

/// The defence against cross-site request forgery on every state-changing request
/// (`POST /ui/...`, `POST /admin/...`): a browser says where a request comes from, in
/// `Sec-Fetch-Site` (every current browser) or `Origin`; a request another site's page
/// made is refused. `require` (the console's forms) also refuses a POST that says
/// neither — browsers always send one of them with a form POST; the admin JSON API
/// accepts one without both (curl, scripts), which no browser can send cross-site.
/// Returns the refusal, or `None` to go on.
pub fn cross_site(headers: &HeaderMap, require: bool) -> Option<Response> {
    let refuse = |why: &str| {
        Some(error(
            StatusCode::FORBIDDEN,
            &format!("Forbidden: {why} (cross-site request refused)"),
        ))
    };
    if let Some(site) = headers.get("sec-fetch-site") {
        return match site.to_str().unwrap_or("") {
            "same-origin" | "none" => None,
            _ => refuse("Sec-Fetch-Site is not same-origin"),
        };
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let origin = origin.to_str().unwrap_or("");
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        return if !host.is_empty() && authority.is_some_and(|a| a.eq_ignore_ascii_case(host)) {
            None
        } else {
            refuse("Origin is not this server")
        };
    }
    if require {
        return refuse("a form POST must carry Origin or Sec-Fetch-Site");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_escaped_everywhere_it_can_break_out() {
        let hostile = [
            (
                "<script>alert(1)</script>",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            (
                "\"><img src=x onerror=alert(1)>",
                "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;",
            ),
            ("' onmouseover='x", "&#39; onmouseover=&#39;x"),
            ("a & b &amp;", "a &amp; b &amp;amp;"),
            (
                "</textarea><svg/onload=1>",
                "&lt;/textarea&gt;&lt;svg/onload=1&gt;",
            ),
            (
                "nul\u{0}bell\u{7}esc\u{1b}",
                "nul\u{FFFD}bell\u{FFFD}esc\u{FFFD}",
            ),
            ("tab\tline\nok é 名前", "tab\tline\nok é 名前"),
        ];
        for (raw, want) in hostile {
            let got = esc(raw);
            assert_eq!(got, want, "{raw:?}");
            assert!(!got.contains('<') && !got.contains('"') && !got.contains('\''));
        }
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(url_component("a b&c=d/<x>"), "a%20b%26c%3Dd%2F%3Cx%3E");
        assert_eq!(url_component("é"), "%C3%A9");
    }

    #[test]
    fn pages_are_clamped() {
        let items: Vec<u32> = (0..1000).collect();
        let (slice, page, pages) = paginate(&items, Some(3), 100);
        assert_eq!((slice[0], slice.len(), page, pages), (200, 100, 3, 10));
        let (slice, page, _) = paginate(&items, Some(99), 100);
        assert_eq!((slice[0], page), (900, 10));
        let (slice, page, pages) = paginate::<u32>(&[], Some(0), 50);
        assert_eq!((slice.len(), page, pages), (0, 1, 1));
    }

    #[test]
    fn cross_site_posts_are_refused() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:8765".parse().unwrap());
        assert!(
            cross_site(&h, true).is_some(),
            "a form POST says where it is from"
        );
        assert!(cross_site(&h, false).is_none(), "curl on the admin API");
        h.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(cross_site(&h, false).is_some());
        h.insert(header::ORIGIN, "http://127.0.0.1:8765".parse().unwrap());
        assert!(cross_site(&h, true).is_none());
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(cross_site(&h, true).is_some(), "Sec-Fetch-Site wins");
        h.insert("sec-fetch-site", "same-origin".parse().unwrap());
        assert!(cross_site(&h, true).is_none());
    }
}
