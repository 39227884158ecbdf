use super::same_origin;

/// URLs that differ in each part an origin is made of (scheme, host's spelling and
/// kind, explicit and default ports) and in the parts it is not (user, path, query).
const URLS: &[&str] = &[
    "http://api.example.com/v1",
    "http://API.example.com:80/other?q=1",
    "http://user:secret@api.example.com/v1",
    "http://api.example.com:8080/v1",
    "https://api.example.com/v1",
    "https://api.example.com:443/v1",
    "https://api.example.com:8443/v1",
    "http://127.0.0.1/v1",
    "http://127.0.0.1:80/v1",
    "http://[::1]/v1",
    "http://[0:0::1]:80/v1",
    "http://api.example.com./v1",
    "ws://api.example.com/v1",
    "ftp://api.example.com/",
    "file:///tmp/x",
    "data:text/plain,x",
    "custom://api.example.com/v1",
];

#[test]
fn urls_are_of_one_origin_exactly_when_their_origins_compare_equal() {
    for base in URLS {
        let base = url::Url::parse(base).unwrap();
        for other in URLS {
            let other = url::Url::parse(other).unwrap();
            assert_eq!(
                same_origin(&base, &other),
                base.origin() == other.origin(),
                "{base} against {other}"
            );
        }
    }
}
