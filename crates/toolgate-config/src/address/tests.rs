use super::*;
use AddressKind::*;

/// Each URL, the class of its host, and the host as normalised.
const CASES: &[(&str, AddressKind, &str)] = &[
    // The metadata service, plain and disguised.
    (
        "http://169.254.169.254/latest/meta-data/",
        Metadata,
        "169.254.169.254",
    ),
    (
        "https://127.0.0.1:1@169.254.169.254/v1",
        Metadata,
        "169.254.169.254",
    ),
    ("http://user@169.254.169.254", Metadata, "169.254.169.254"),
    ("http://2852039166", Metadata, "169.254.169.254"),
    ("http://0xa9fea9fe", Metadata, "169.254.169.254"),
    ("http://0xA9.0xFE.0xA9.0xFE", Metadata, "169.254.169.254"),
    ("http://0251.0376.0251.0376", Metadata, "169.254.169.254"),
    ("http://025177524776", Metadata, "169.254.169.254"),
    ("http://169.254.43518", Metadata, "169.254.169.254"),
    ("http://169.16689662", Metadata, "169.254.169.254"),
    (
        "http://[::ffff:169.254.169.254]",
        Metadata,
        "169.254.169.254",
    ),
    ("http://[::ffff:a9fe:a9fe]/", Metadata, "169.254.169.254"),
    ("http://[::169.254.169.254]", Metadata, "169.254.169.254"),
    (
        "http://[64:ff9b::169.254.169.254]",
        Metadata,
        "169.254.169.254",
    ),
    ("http://[2002:a9fe:a9fe::1]", Metadata, "169.254.169.254"),
    ("http://[fd00:ec2::254]/latest", Metadata, "[fd00:ec2::254]"),
    (
        "http://metadata.google.internal/computeMetadata/v1/",
        Metadata,
        "metadata.google.internal",
    ),
    (
        "http://METADATA.GOOGLE.INTERNAL./",
        Metadata,
        "metadata.google.internal.",
    ),
    ("http://metadata", Metadata, "metadata"),
    (
        "http://169.254.170.2/v2/credentials",
        Metadata,
        "169.254.170.2",
    ),
    (
        "http://100.100.100.200/latest/meta-data",
        Metadata,
        "100.100.100.200",
    ),
    (
        "http://instance-data.ec2.internal",
        Metadata,
        "instance-data.ec2.internal",
    ),
    // Link-local.
    ("http://169.254.1.1:8080", LinkLocal, "169.254.1.1"),
    ("http://[fe80::1]", LinkLocal, "[fe80::1]"),
    ("http://[febf::1]", LinkLocal, "[febf::1]"),
    ("http://[::ffff:169.254.0.1]", LinkLocal, "169.254.0.1"),
    // Not a destination.
    ("http://0.0.0.0:8080", Unspecified, "0.0.0.0"),
    ("http://0", Unspecified, "0.0.0.0"),
    ("http://[::]", Unspecified, "[::]"),
    ("http://0.1.2.3", Unspecified, "0.1.2.3"),
    ("http://255.255.255.255", Broadcast, "255.255.255.255"),
    ("http://224.0.0.1", Broadcast, "224.0.0.1"),
    ("http://[ff02::1]", Broadcast, "[ff02::1]"),
    // This machine: accepted, warned about at import.
    ("http://127.0.0.1:3000", Loopback, "127.0.0.1"),
    ("http://127.1", Loopback, "127.0.0.1"),
    ("http://2130706433", Loopback, "127.0.0.1"),
    ("http://0x7f000001", Loopback, "127.0.0.1"),
    ("http://[::1]:8080", Loopback, "[::1]"),
    ("http://[::ffff:127.0.0.1]", Loopback, "127.0.0.1"),
    ("http://localhost:8080", Loopback, "localhost"),
    ("http://api.localhost", Loopback, "api.localhost"),
    // Private networks: accepted, warned about at import.
    ("http://10.0.0.5", Private, "10.0.0.5"),
    ("http://172.16.0.1", Private, "172.16.0.1"),
    ("http://172.31.255.255", Private, "172.31.255.255"),
    ("http://192.168.1.10", Private, "192.168.1.10"),
    ("http://100.64.0.1", Private, "100.64.0.1"),
    ("http://[fd12:3456::1]", Private, "[fd12:3456::1]"),
    ("http://[fec0::1]", Private, "[fec0::1]"),
    ("http://billing.internal", Private, "billing.internal"),
    ("http://printer.local", Private, "printer.local"),
    ("http://240.0.0.1", Reserved, "240.0.0.1"),
    // Public.
    ("https://api.example.com/v1", Public, "api.example.com"),
    ("https://8.8.8.8", Public, "8.8.8.8"),
    ("https://172.32.0.1", Public, "172.32.0.1"),
    ("https://100.128.0.1", Public, "100.128.0.1"),
    (
        "https://[2001:4860:4860::8888]",
        Public,
        "[2001:4860:4860::8888]",
    ),
    (
        "https://169.254.169.254.example.com",
        Public,
        "169.254.169.254.example.com",
    ),
    (
        "https://metadata.example.com",
        Public,
        "metadata.example.com",
    ),
];

#[test]
fn every_form_lands_in_its_class() {
    assert!(CASES.len() >= 25);
    for (url, kind, host) in CASES {
        let c = classify(url).unwrap_or_else(|| panic!("{url} did not parse"));
        assert_eq!((c.kind, c.host.as_str()), (*kind, *host), "{url}");
    }
}

#[test]
fn refused_classes_are_the_ones_without_a_legitimate_server() {
    for kind in [Metadata, LinkLocal, Unspecified, Broadcast] {
        assert!(kind.refused(), "{kind:?}");
    }
    for kind in [Loopback, Private, Reserved, Public] {
        assert!(!kind.refused(), "{kind:?}");
    }
}

#[test]
fn the_explanation_names_the_real_host_of_a_disguise() {
    let url = "https://127.0.0.1:1@169.254.169.254/v1";
    let text = classify(url).unwrap().explain(url);
    assert!(text.contains("points at 169.254.169.254"), "{text}");
    assert!(text.contains("user info"), "{text}");
    let url = "http://2852039166";
    let text = classify(url).unwrap().explain(url);
    assert!(
        text.contains("169.254.169.254, a cloud instance metadata endpoint"),
        "{text}"
    );
    let url = "http://169.254.1.1";
    assert_eq!(
        classify(url).unwrap().explain(url),
        "`http://169.254.1.1` is a link-local address"
    );
}

#[test]
fn what_is_not_a_url_with_a_host_is_not_classified() {
    assert_eq!(classify("not a url"), None);
    assert_eq!(classify("/relative/path"), None);
    assert_eq!(classify("mailto:a@example.com"), None);
}
