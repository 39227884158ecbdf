use super::*;

fn health(body: &str) -> Option<Health> {
    parse(body.as_bytes(), None).map(|p| p.health)
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
    let p = parse(both.as_bytes(), None).unwrap();
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
    assert!(parse(&cut, None).is_some());
    let p = parse(
        rss(&"<item><title>Open thing</title></item>".repeat(MAX_ENTRIES * 4)).as_bytes(),
        None,
    )
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

fn at(t: &str) -> Option<DateTime<Utc>> {
    Some(DateTime::parse_from_rfc3339(t).unwrap().with_timezone(&Utc))
}

fn health_at(body: &str, now: &str) -> Option<Health> {
    parse(body.as_bytes(), at(now)).map(|p| p.health)
}

/// An Azure status item as the feed prints a current event: no lifecycle word.
fn azure_item(date: &str) -> String {
    format!(
        "<item><title>Azure Front Door - Connectivity issues</title><description>Starting at 10:30 UTC on 01 Jun 2025, customers using Azure Front Door may experience intermittent connectivity errors.</description><pubDate>{date}</pubDate></item>"
    )
}

#[test]
fn an_entry_naming_no_state_is_over_after_72_hours() {
    let feed = rss(&azure_item("Sun, 01 Jun 2025 10:30:00 Z"));
    assert_eq!(
        health_at(&feed, "2025-06-01T12:00:00Z"),
        Some(Health::Degraded)
    );
    assert_eq!(
        health_at(&feed, "2025-06-04T10:00:00Z"),
        Some(Health::Degraded)
    );
    assert_eq!(
        health_at(&feed, "2025-06-04T11:00:00Z"),
        Some(Health::Healthy)
    );
    // A feed that is no status feed, a product blog's posts, names no state either.
    let blog = rss(
        "<item><title>Introducing faster cold starts</title><description>Functions now start up to 40% faster.</description><pubDate>Tue, 11 Mar 2025 16:00:00 +0000</pubDate></item>\
         <item><title>New regions in Asia</title><description>Two new regions are available.</description><pubDate>Thu, 20 Feb 2025 09:00:00 +0000</pubDate></item>",
    );
    let p = parse(blog.as_bytes(), at("2025-06-01T12:00:00Z")).unwrap();
    assert_eq!(p.health, Health::Healthy);
    assert!(p.components.is_empty());
    assert_eq!(p.description, None);
}

#[test]
fn an_entry_saying_work_goes_on_is_over_after_seven_days() {
    // A Statuspage history.atom incident left in Investigating: `<updated>` is the
    // newest update, `<published>` when the incident was opened.
    let entry = |published: &str, updated: &str| {
        atom(&format!(
            "<entry><published>{published}</published><updated>{updated}</updated><title>Elevated API latency</title><content type=\"html\">&lt;strong&gt;Investigating&lt;/strong&gt; - We are looking into elevated latency.</content></entry>"
        ))
    };
    let stale = entry("2025-05-20T10:00:00Z", "2025-05-30T10:00:00Z");
    // Four days after its last update: past the bound for an entry naming no state,
    // within the one for a stated open state.
    assert_eq!(
        health_at(&stale, "2025-06-03T10:00:00Z"),
        Some(Health::Degraded)
    );
    assert_eq!(
        health_at(&stale, "2025-06-06T11:00:00Z"),
        Some(Health::Healthy)
    );
    // Opened weeks ago and updated an hour ago: the update counts.
    let long_running = entry("2025-05-01T10:00:00Z", "2025-06-01T11:00:00Z");
    assert_eq!(
        health_at(&long_running, "2025-06-01T12:00:00Z"),
        Some(Health::Degraded)
    );
}

#[test]
fn an_rss_date_in_a_named_zone_is_read() {
    // The AWS Health Dashboard dates its items in US time zones.
    let feed = rss(
        "<item><title><![CDATA[Service disruption: Increased API Error Rates]]></title><description><![CDATA[We are investigating increased error rates.]]></description><pubDate>Fri, 14 Jan 2022 09:02:00 PST</pubDate></item>",
    );
    // 09:02 PST is 17:02 UTC.
    assert_eq!(health_at(&feed, "2022-01-14T17:30:00Z"), Some(Health::Down));
    assert_eq!(
        health_at(&feed, "2022-01-21T17:03:00Z"),
        Some(Health::Healthy)
    );
}

#[test]
fn an_old_open_entry_leaves_the_fresh_one_to_speak() {
    let feed = rss(&format!(
        "<item><title>Azure SQL - Login failures</title><description>Customers may see login failures.</description><pubDate>Sun, 01 Jun 2025 11:00:00 +0000</pubDate></item>{}",
        azure_item("Wed, 21 May 2025 10:30:00 +0000")
    ));
    let p = parse(feed.as_bytes(), at("2025-06-01T12:00:00Z")).unwrap();
    assert_eq!(p.health, Health::Degraded);
    assert_eq!(p.description.as_deref(), Some("Azure SQL - Login failures"));
    assert_eq!(p.components.len(), 1);
}

#[test]
fn an_entry_without_a_readable_date_is_judged_by_its_state_alone() {
    for item in [
        "<item><title>Azure Front Door - Connectivity issues</title></item>",
        "<item><title>Azure Front Door - Connectivity issues</title><pubDate>yesterday</pubDate></item>",
        "<item><title>Azure Front Door - Connectivity issues</title><pubDate></pubDate></item>",
        "<item><title>Azure Front Door - Connectivity issues</title><pubDate/></item>",
    ] {
        let feed = rss(item);
        assert_eq!(
            health_at(&feed, "2030-01-01T00:00:00Z"),
            Some(Health::Degraded),
            "{item}"
        );
    }
    // A date ahead of the clock (a skewed feed) is not old.
    let ahead = rss(&azure_item("Mon, 02 Jun 2025 10:30:00 +0000"));
    assert_eq!(
        health_at(&ahead, "2025-06-01T12:00:00Z"),
        Some(Health::Degraded)
    );
    // Read with no clock, a dated entry never ages out.
    let old = rss(&azure_item("Sun, 01 Jun 2025 10:30:00 Z"));
    assert_eq!(health(&old), Some(Health::Degraded));
}

#[test]
fn the_status_page_reader_dates_a_feed_at_the_time_given() {
    let feed = rss(&azure_item("Sun, 01 Jun 2025 10:30:00 Z"));
    let later = at("2025-06-10T00:00:00Z").unwrap();
    let p = crate::status_page::read_response_at(200, feed.as_bytes(), later).unwrap();
    assert_eq!(p.health, Health::Healthy);
    assert_eq!(p.indicator, "no open events");
    let p = crate::status_page::read_response(200, feed.as_bytes()).unwrap();
    assert_eq!(p.health, Health::Degraded);
}
