//! A server URL whose path the operation paths repeat. Published descriptions write
//! `servers: [{url: https://dev.to/api}]` with paths `/api/articles` (Ticketmaster:
//! `…/discovery/v2` and `/discovery/v2/events`), where the API answers at `/api/articles`:
//! joined as the standard says, every call would go to `/api/api/articles`. When every
//! operation repeats the server's trailing segments, the description plainly means them
//! once, and the base URL loses them; when only some do, the import cannot tell and says
//! so.

/// Trailing segments of the base URL's path that operation paths start with again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeated {
    /// The repeated segments as a path: `/api`, `/discovery/v2`.
    pub prefix: String,
    /// Operations whose path starts with `prefix`.
    pub operations: usize,
    /// Operations considered.
    pub of: usize,
}

impl Repeated {
    /// Whether every operation repeats the prefix.
    pub fn everywhere(&self) -> bool {
        self.operations == self.of
    }
}

/// Where the path of `base_url` starts: after the scheme and authority of an absolute
/// URL, at the start of a relative one.
fn path_start(base_url: &str) -> usize {
    match base_url.find("://") {
        Some(i) => base_url[i + 3..]
            .find('/')
            .map_or(base_url.len(), |j| i + 3 + j),
        None => 0,
    }
}

fn segments(path: &str) -> Vec<&str> {
    path.split(['?', '#'])
        .next()
        .unwrap_or("")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect()
}

/// The longest trailing run of the base URL's path segments that every operation path
/// starts with; failing that, the run most of them (at least half) start with.
pub fn find(base_url: &str, paths: &[&str]) -> Option<Repeated> {
    let base = segments(&base_url[path_start(base_url)..]);
    if base.is_empty() || paths.is_empty() {
        return None;
    }
    let ops: Vec<Vec<&str>> = paths.iter().map(|p| segments(p)).collect();
    let mut best: Option<Repeated> = None;
    for n in (1..=base.len()).rev() {
        let tail = &base[base.len() - n..];
        let operations = ops.iter().filter(|o| o.starts_with(tail)).count();
        let found = Repeated {
            prefix: format!("/{}", tail.join("/")),
            operations,
            of: ops.len(),
        };
        if found.everywhere() {
            return Some(found);
        }
        if operations * 2 >= ops.len() && best.as_ref().is_none_or(|b| b.operations < operations) {
            best = Some(found);
        }
    }
    best
}

/// `base_url` without the repeated `prefix` at its end (`https://dev.to/api` →
/// `https://dev.to`).
pub fn strip(base_url: &str, prefix: &str) -> String {
    let trimmed = base_url.trim_end_matches('/');
    match trimmed.strip_suffix(prefix) {
        Some(rest) if rest.len() >= path_start(trimmed) => rest.to_string(),
        _ => base_url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_every_path_repeats_is_found_and_stripped_once() {
        let r = find("https://dev.to/api", &["/api/articles", "/api/users/{id}"]).unwrap();
        assert_eq!(r.prefix, "/api");
        assert!(r.everywhere());
        assert_eq!(strip("https://dev.to/api", &r.prefix), "https://dev.to");
        let r = find(
            "https://www.example.com/discovery/v2",
            &["/discovery/v2/events", "/discovery/v2/venues"],
        )
        .unwrap();
        assert_eq!(r.prefix, "/discovery/v2");
        assert_eq!(
            strip("https://www.example.com/discovery/v2/", &r.prefix),
            "https://www.example.com"
        );
        // Only the tail repeated: `/v1` of `/api/v1`.
        let r = find("https://x.example.com/api/v1", &["/v1/a", "/v1/b"]).unwrap();
        assert_eq!(r.prefix, "/v1");
        assert_eq!(
            strip("https://x.example.com/api/v1", &r.prefix),
            "https://x.example.com/api"
        );
        // A relative server URL.
        let r = find("/api", &["/api/a"]).unwrap();
        assert_eq!(strip("/api", &r.prefix), "");
    }

    #[test]
    fn a_prefix_some_paths_repeat_is_reported_not_stripped() {
        let r = find("https://x.example.com/v1", &["/v1/a", "/v1/b", "/c"]).unwrap();
        assert_eq!((r.operations, r.of), (2, 3));
        assert!(!r.everywhere());
        // A segment only a few paths start with is no sign of anything.
        assert_eq!(
            find("https://x.example.com/v2", &["/v2/a", "/b", "/c", "/d"]),
            None
        );
    }

    #[test]
    fn no_path_or_no_repetition_is_nothing() {
        assert_eq!(find("https://x.example.com", &["/a"]), None);
        assert_eq!(find("https://x.example.com/api", &["/apis/a"]), None);
        assert_eq!(find("https://x.example.com/api", &[]), None);
        assert_eq!(find("https://api.example.com:8443/", &["/api/x"]), None);
    }
}
