use super::*;

fn health(body: &str) -> Option<Health> {
    parse(body.as_bytes()).map(|p| p.health)
}

fn rss(items: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>Status</title>{items}</channel></rss>"
    )
}

fn atom(entries: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><feed xml:lang=\"en-US\" xmlns=\"http://www.w3.org/2005/Atom\"><title>Status - Incident History</title>{entries}</feed>"
    )
}

#[test]
fn a_later_resolved_item_closes_the_same_incident() {
    // AWS posts each update as a new item, newest first.
    let body = rss(
        "<item><title><![CDATA[Service is operating normally: [RESOLVED] Increased API Error Rates]]></title><description><![CDATA[Between 9:12 AM and 10:03 AM PDT we experienced increased error rates. The issue has been resolved.]]></description></item>\
         <item><title><![CDATA[Informational message: Increased API Error Rates]]></title><description><![CDATA[We are investigating increased error rates for the API.]]></description></item>",
    );
    assert_eq!(health(&body), Some(Health::Healthy));
}

#[test]
fn an_item_naming_no_end_is_open() {
    let open = rss(
        "<item><title>Increased API Error Rates</title><description>We are investigating increased error rates in US-EAST-1.</description></item>",
    );
    assert_eq!(health(&open), Some(Health::Degraded));
    let out = rss(
        "<item><title>Service disruption: Elevated launch failures</title><description>We are investigating.</description></item>",
    );
    assert_eq!(health(&out), Some(Health::Down));
    // A feed of current events with nothing in it.
    assert_eq!(health(&rss("")), Some(Health::Healthy));
}

#[test]
fn statuspage_history_atom_reads_the_newest_update_of_each_incident() {
    let entry = |title: &str, updates: &str| {
        format!(
            "<entry><id>tag:status.example.com,2005:Incident/1</id><published>2025-05-30T10:00:00Z</published><title>{title}</title><content type=\"html\">&lt;p&gt;&lt;small&gt;May &lt;var data-var='date'&gt;30&lt;/var&gt;, 10:00 UTC&lt;/small&gt;&lt;br&gt;{updates}&lt;/p&gt;</content></entry>"
        )
    };
    let resolved = entry(
        "Degraded machine creation",
        "&lt;strong&gt;Resolved&lt;/strong&gt; - This incident has been resolved.&lt;/p&gt;&lt;p&gt;&lt;strong&gt;Investigating&lt;/strong&gt; - We are investigating.",
    );
    let investigating = entry(
        "Elevated API latency",
        "&lt;strong&gt;Investigating&lt;/strong&gt; - We are looking into elevated latency.",
    );
    assert_eq!(health(&atom(&resolved)), Some(Health::Healthy));
    let both = atom(&format!("{investigating}{resolved}"));
    let p = parse(both.as_bytes()).unwrap();
    assert_eq!(p.health, Health::Degraded);
    assert_eq!(p.description.as_deref(), Some("Elevated API latency"));
    let planned = entry(
        "Scheduled maintenance for the database",
        "&lt;strong&gt;Scheduled&lt;/strong&gt; - We will be undergoing scheduled maintenance.",
    );
    assert_eq!(health(&atom(&planned)), Some(Health::Healthy));
    let begun = entry(
        "Scheduled maintenance for the database",
        "&lt;strong&gt;In progress&lt;/strong&gt; - Scheduled maintenance is currently in progress.",
    );
    assert_eq!(health(&atom(&begun)), Some(Health::Degraded));
}

#[test]
fn a_state_before_the_title_decides() {
    // Google Cloud's feed.atom: `RESOLVED:` and `UPDATE:` lead the titles.
    let body = atom(
        "<entry><title>RESOLVED: Incident 24015 - Cloud Run deployments failing</title><content type=\"html\">The issue has been resolved.</content></entry>\
         <entry><title>UPDATE: Incident 24015 - Cloud Run deployments failing</title><content type=\"html\">Mitigation work is underway.</content></entry>",
    );
    assert_eq!(health(&body), Some(Health::Healthy));
    let open = atom(
        "<entry><title>UPDATE: Incident 24016 - Cloud SQL connectivity</title><content type=\"html\">We are investigating.</content></entry>",
    );
    assert_eq!(health(&open), Some(Health::Degraded));
}

#[test]
fn other_markup_is_not_a_feed() {
    for body in [
        "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body/></s:Envelope>",
        "<!DOCTYPE html><html><body><item>Investigating</item></body></html>",
        "<feed><entry><title>Investigating</title></entry></feed>",
        // The namespace only further down, not on the root.
        "<feed><entry><title>Investigating</title><link href=\"http://www.w3.org/2005/Atom\"/></entry></feed>",
        "<rsslike><item><title>x</title></item></rsslike>",
        "OK",
        "",
    ] {
        assert_eq!(health(body), None, "{body}");
    }
}

#[test]
fn bad_input_stays_bounded() {
    // Unclosed elements, a cut character, and far more items than are read.
    let many = rss(&"<item><title>Investigating outage".repeat(20_000));
    assert_eq!(health(&many), Some(Health::Degraded));
    let mut cut = rss("<item><title>Investigating é</title></item>").into_bytes();
    cut.truncate(cut.len() - 30);
    assert!(parse(&cut).is_some());
    let p =
        parse(rss(&"<item><title>Open thing</title></item>".repeat(MAX_ENTRIES * 4)).as_bytes())
            .unwrap();
    assert!(p.components.len() <= MAX_COMPONENTS);
}

#[test]
fn a_status_page_answering_with_a_feed_is_read() {
    // Through the reader the status-page watcher calls: a feed was unreadable before.
    let body = rss(
        "<item><title>Azure Front Door - Connectivity issues</title><description>Engineers are investigating.</description></item>",
    );
    let p = crate::status_page::read_response(200, body.as_bytes()).unwrap();
    assert_eq!(p.health, Health::Degraded);
    assert_eq!(p.components.len(), 1);
}
