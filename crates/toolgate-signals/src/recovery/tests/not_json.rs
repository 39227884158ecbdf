//! Failed replies whose body is not JSON: XML whose codes and messages are attributes or
//! element names, a WebDAV error's condition, SOAP addressing faults, HTML error pages'
//! titles and headings, and the words such bodies use for who must act.

use super::{Recovery, read_refusal, said};

#[test]
fn codes_and_messages_written_as_attributes_are_read_and_a_records_are_not() {
    for (body, want) in [
        (
            r#"<?xml version="1.0" encoding="utf-8" ?><rsp stat="fail"><err code="98" msg="Invalid auth token" /></rsp>"#,
            Recovery::Credentials,
        ),
        (
            r#"<subsonic-response status="failed" version="1.16.1"><error code="70" message="The requested data was not found."/></subsonic-response>"#,
            Recovery::Request,
        ),
        // An element named for the failure it reports holds its message.
        (
            r#"<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationFailure code="INVALID_REQUEST">'service' and 'ticket' parameters are both required</cas:authenticationFailure></cas:serviceResponse>"#,
            Recovery::Request,
        ),
        // A status code's URI, by its last part, beside its message.
        (
            r#"<samlp:Response><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder"/><samlp:StatusMessage>Authentication failed</samlp:StatusMessage></samlp:Status></samlp:Response>"#,
            Recovery::Credentials,
        ),
    ] {
        assert_eq!(said(body), Some(want), "{body}");
    }
    // Attributes that are a record's data say nothing.
    for body in [
        r#"<rsp stat="ok"><photo id="2733" title="Invalid auth token sign"/></rsp>"#,
        r#"<items><item sku="ACCESS-DENIED" colour="red"/></items>"#,
    ] {
        assert_eq!(said(body), None, "{body}");
    }
}

#[test]
fn a_webdav_condition_is_the_requests_and_a_missing_privilege_the_credentials() {
    for body in [
        r#"<?xml version="1.0" encoding="utf-8" ?><D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><C:valid-calendar-data/></D:error>"#,
        r#"<D:error xmlns:D="DAV:"><D:cannot-modify-protected-property/></D:error>"#,
        r#"<d:error xmlns:d='DAV:' xmlns:cr="urn:ietf:params:xml:ns:carddav"><cr:max-resource-size/></d:error>"#,
    ] {
        assert_eq!(
            read_refusal(403, body.as_bytes()),
            Some(Recovery::Request),
            "{body}"
        );
    }
    let lacking = r#"<D:error xmlns:D="DAV:"><D:need-privileges><D:resource><D:href>/a/b/</D:href><D:privilege><D:unbind/></D:privilege></D:resource></D:need-privileges></D:error>"#;
    assert_eq!(
        read_refusal(403, lacking.as_bytes()),
        Some(Recovery::Credentials)
    );
    // The account's storage quota is the account's; the server's disk is the server's.
    let quota = r#"<D:error xmlns:D="DAV:"><D:quota-not-exceeded/></D:error>"#;
    assert_eq!(read_refusal(507, quota.as_bytes()), Some(Recovery::Account));
    let disk = r#"<D:error xmlns:D="DAV:"><D:sufficient-disk-space/></D:error>"#;
    assert_eq!(read_refusal(507, disk.as_bytes()), None);
    // Hyphenated names outside a WebDAV error are not conditions.
    let other = r#"<error><line-item>42</line-item></error>"#;
    assert_eq!(read_refusal(403, other.as_bytes()), None);
}

#[test]
fn an_addressing_fault_names_an_action_the_endpoint_lacks_or_a_passing_state() {
    let fault = |code: &str| {
        format!(
            r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode xmlns:a="http://www.w3.org/2005/08/addressing">a:{code}</faultcode><faultstring>The message could not be processed.</faultstring></s:Fault></s:Body></s:Envelope>"#
        )
    };
    assert_eq!(
        said(&fault("ActionNotSupported")),
        Some(Recovery::Unsupported)
    );
    assert_eq!(
        said(&fault("EndpointUnavailable")),
        Some(Recovery::Transient)
    );
    assert_eq!(
        said(&fault("MessageAddressingHeaderRequired")),
        Some(Recovery::Request)
    );
}

#[test]
fn an_html_error_page_is_read_by_its_title_and_headings() {
    let page = |title: &str, heading: &str| {
        format!(
            "<!DOCTYPE html><html><head><title>{title}</title><style>h1{{color:red}}</style></head><body><h2>{heading}</h2><p>Running text about a password that expired is not read.</p></body></html>"
        )
    };
    assert_eq!(
        read_refusal(419, page("Page Expired", "").as_bytes()),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        read_refusal(
            500,
            page(
                "Service Unavailable",
                "HTTP Error 503. The service is unavailable."
            )
            .as_bytes()
        ),
        Some(Recovery::Transient)
    );
    // The page's running text is for people.
    assert_eq!(
        read_refusal(400, page("Bad Request", "Oops").as_bytes()),
        None
    );
}

#[test]
fn who_must_act_in_the_words_these_bodies_use() {
    for (body, want) in [
        // A form's session token expired.
        ("CSRF token mismatch.", Recovery::Credentials),
        // A one-time code that stands for a grant.
        (
            r#"{"error":"bad_verification_code","error_description":"The code passed is incorrect or expired."}"#,
            Recovery::Credentials,
        ),
        (
            "Insufficient permissions. Method requires delete privileges; read granted.",
            Recovery::Credentials,
        ),
        (
            "The trial period for the server is over. Please upgrade to Premium.",
            Recovery::Account,
        ),
        (
            "The specified account is in the process of being created.",
            Recovery::Transient,
        ),
        ("Service currently unavailable", Recovery::Transient),
        ("Required parameter is missing.", Recovery::Request),
        ("Security header is not valid", Recovery::Credentials),
        ("Forbidden: Bucket size quota is reached", Recovery::Account),
    ] {
        assert_eq!(said(body), Some(want), "{body}");
    }
    // A missing key is the credentials', not a missing input.
    assert_eq!(
        said("Missing API key parameter"),
        Some(Recovery::Credentials)
    );
}

#[test]
fn a_locked_period_refused_under_a_403_is_the_requests() {
    for body in [
        r#"{"error":{"code":"PERIOD_LOCKED","message":"Cannot modify a locked period."}}"#,
        r#"<problem xmlns="urn:ietf:rfc:7807"><title>Period closed</title><detail>Cannot modify a locked period: entries dated 2025-03-31 are in a closed fiscal period.</detail></problem>"#,
    ] {
        assert_eq!(
            read_refusal(403, body.as_bytes()),
            Some(Recovery::Request),
            "{body}"
        );
    }
    // A user locked out is still no request's.
    assert_ne!(
        read_refusal(403, br#"{"message":"User account is locked."}"#),
        Some(Recovery::Request)
    );
}
