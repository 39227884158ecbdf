//! Where a URL's host points: the public internet, or a range a gateway should not be
//! sent to without someone saying so.
//!
//! A dependency's base URL comes from a config, and a config is often generated from an
//! API description written by someone else. A URL that names the cloud metadata service
//! (`http://169.254.169.254`) turns every tool of that dependency into a way to read the
//! instance's credentials. The host is classified after the URL parser has normalised
//! it, so the disguises (`http://2852039166`, `http://0xa9fea9fe`, octal,
//! `https://127.0.0.1:1@169.254.169.254/`, `[::ffff:169.254.169.254]`) land in the same
//! class as the plain form. Names are not resolved: a name that resolves to a private
//! address is not caught here (network policy is the place for that).

use std::net::{Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// The kind of destination a host is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressKind {
    /// A cloud instance metadata endpoint (AWS, GCP, Azure, Alibaba, ECS): it hands
    /// out the instance's credentials to whoever asks.
    Metadata,
    /// Link-local (169.254.0.0/16, fe80::/10): only reachable on the machine's own
    /// network segment; where metadata services and other host-local agents listen.
    LinkLocal,
    /// 0.0.0.0/8 or `::`: not a destination; connecting to it reaches this machine.
    Unspecified,
    /// Broadcast or multicast: not a server.
    Broadcast,
    /// This machine (127.0.0.0/8, `::1`, `localhost`).
    Loopback,
    /// A private network (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, and names
    /// under `.internal`, `.local`, `.lan`, `.home.arpa`).
    Private,
    /// Reserved for future use (240.0.0.0/4): not routed.
    Reserved,
    /// Anything else.
    Public,
}

impl AddressKind {
    /// Whether `check` refuses it unless the dependency sets `allow_link_local: true`.
    /// Loopback and private addresses are where internal APIs and sidecars live, so
    /// they are accepted; the classes refused are those where nothing but the host's
    /// own agents (metadata, credentials) can answer, or nothing at all.
    pub fn refused(self) -> bool {
        matches!(
            self,
            AddressKind::Metadata
                | AddressKind::LinkLocal
                | AddressKind::Unspecified
                | AddressKind::Broadcast
        )
    }

    /// A phrase for messages: "a link-local address".
    pub fn describe(self) -> &'static str {
        match self {
            AddressKind::Metadata => "a cloud instance metadata endpoint",
            AddressKind::LinkLocal => "a link-local address",
            AddressKind::Unspecified => "the unspecified address (it reaches this machine)",
            AddressKind::Broadcast => "a broadcast or multicast address",
            AddressKind::Loopback => "a loopback address (this machine)",
            AddressKind::Private => "a private-network address",
            AddressKind::Reserved => "a reserved address",
            AddressKind::Public => "a public address",
        }
    }
}

/// A classified URL host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// The class.
    pub kind: AddressKind,
    /// The host as the URL parser normalised it (`169.254.169.254` for `2852039166`).
    pub host: String,
    /// User info before the host (`127.0.0.1:1@`), which a reader may take for the host.
    pub userinfo: bool,
}

impl Classified {
    /// One sentence: "`http://2852039166` is 169.254.169.254, a cloud instance metadata endpoint".
    pub fn explain(&self, url: &str) -> String {
        let mut s = format!("`{url}` is {}", self.kind.describe());
        if !url.contains(self.host.as_str()) || self.userinfo {
            s = format!("`{url}` points at {}, {}", self.host, self.kind.describe());
        }
        if self.userinfo {
            s.push_str(" (the part before `@` is user info, not the host)");
        }
        s
    }
}

/// Classifies the host of `url`; `None` for a URL without a host.
pub fn classify_url(url: &Url) -> Option<Classified> {
    let host = url.host()?;
    Some(Classified {
        kind: classify_host(&host),
        // An IPv4 address inside an IPv6 one is shown as the IPv4 address it reaches.
        host: match &host {
            Host::Ipv6(a) => embedded_v4(*a).map_or_else(|| host.to_string(), |v4| v4.to_string()),
            other => other.to_string(),
        },
        userinfo: !url.username().is_empty() || url.password().is_some(),
    })
}

/// Parses `text` as a URL and classifies its host; `None` when it is not a URL with a host.
pub fn classify(text: &str) -> Option<Classified> {
    classify_url(&Url::parse(text).ok()?)
}

/// The class of one host.
pub fn classify_host(host: &Host<&str>) -> AddressKind {
    match host {
        Host::Ipv4(a) => classify_v4(*a),
        Host::Ipv6(a) => classify_v6(*a),
        Host::Domain(d) => classify_name(d),
    }
}

/// Metadata endpoints by address: AWS/GCP/Azure/OCI (169.254.169.254), ECS task
/// metadata (169.254.170.2, .23), Alibaba Cloud (100.100.100.200).
const METADATA_V4: &[Ipv4Addr] = &[
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(169, 254, 170, 23),
    Ipv4Addr::new(100, 100, 100, 200),
];

/// AWS's IPv6 instance metadata endpoint (inside the unique-local range).
const METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);

/// Names that resolve to a metadata endpoint inside a cloud.
const METADATA_NAMES: &[&str] = &[
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "metadata.azure.internal",
    "instance-data",
    "instance-data.ec2.internal",
];

/// Suffixes of names only a private resolver answers for.
const PRIVATE_SUFFIXES: &[&str] = &[".internal", ".local", ".localdomain", ".lan", ".home.arpa"];

fn classify_v4(a: Ipv4Addr) -> AddressKind {
    let [o0, o1, ..] = a.octets();
    if METADATA_V4.contains(&a) {
        AddressKind::Metadata
    } else if a.is_link_local() {
        AddressKind::LinkLocal
    } else if o0 == 0 {
        AddressKind::Unspecified
    } else if a.is_broadcast() || a.is_multicast() {
        AddressKind::Broadcast
    } else if a.is_loopback() {
        AddressKind::Loopback
    } else if a.is_private() || (o0 == 100 && (64..128).contains(&o1)) {
        // 100.64.0.0/10 is carrier-grade NAT space, used inside clouds and tailnets.
        AddressKind::Private
    } else if o0 >= 240 {
        AddressKind::Reserved
    } else {
        AddressKind::Public
    }
}

fn classify_v6(a: Ipv6Addr) -> AddressKind {
    if a == METADATA_V6 {
        return AddressKind::Metadata;
    }
    // An IPv4 address inside an IPv6 one goes where the IPv4 one does: mapped
    // (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48)
    // and 6to4 (2002:AABB:CCDD::/48).
    if let Some(v4) = embedded_v4(a) {
        return classify_v4(v4);
    }
    let s = a.segments();
    if a.is_unspecified() {
        AddressKind::Unspecified
    } else if a.is_loopback() {
        AddressKind::Loopback
    } else if s[0] & 0xffc0 == 0xfe80 {
        AddressKind::LinkLocal
    } else if s[0] & 0xff00 == 0xff00 {
        AddressKind::Broadcast
    } else if s[0] & 0xfe00 == 0xfc00 || s[0] & 0xffc0 == 0xfec0 {
        // Unique local (fc00::/7) and the deprecated site-local (fec0::/10).
        AddressKind::Private
    } else {
        AddressKind::Public
    }
}

fn embedded_v4(a: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = a.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = a.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    // ::a.b.c.d, but not :: or ::1 themselves.
    if s[..6].iter().all(|x| *x == 0) && s[6] != 0 {
        return Some(low);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) {
        return Some(low);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

fn classify_name(name: &str) -> AddressKind {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if METADATA_NAMES.contains(&name.as_str()) {
        AddressKind::Metadata
    } else if name == "localhost" || name.ends_with(".localhost") {
        AddressKind::Loopback
    } else if PRIVATE_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        AddressKind::Private
    } else {
        AddressKind::Public
    }
}

#[cfg(test)]
mod tests;
