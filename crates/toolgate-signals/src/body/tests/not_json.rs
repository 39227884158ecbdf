//! Bodies that are not JSON: form fields, XML answers that say by their tags that they
//! failed, and HTML error pages whose headings state a throttle.

use super::*;

fn at() -> DateTime<Utc> {
    DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default()
}

#[test]
fn form_fields_that_report_an_error_make_a_200_an_error_envelope() {
    for body in [
        "error=bad_verification_code&error_description=The+code+passed+is+incorrect+or+expired.",
        "TIMESTAMP=2025%2d06%2d01T12%3a00%3a00Z&ACK=Failure&L_ERRORCODE0=10002&L_LONGMESSAGE0=Security%20header%20is%20not%20valid",
    ] {
        assert!(worth_reading(200, body.as_bytes()), "{body}");
    }
    // A token granted, and a success in the same encoding, are answers.
    for body in [
        "access_token=gho_16C7e42F292c6912E7710c838347Ae178B4a&scope=repo%2Cgist&token_type=bearer",
        "TOKEN=EC%2d8BV12345&ACK=Success&VERSION=124%2e0",
    ] {
        assert!(!worth_reading(200, body.as_bytes()), "{body}");
    }
}

#[test]
fn a_form_encoded_throttle_is_read_as_one() {
    let body = b"oauth_problem=rate%20limit%20exceeded&oauth_problem_advice=please%20wait%20before%20retrying";
    assert!(read(503, body, at()).rate_limited);
    let slow_down = b"error=slow_down&error_description=Too+many+requests+have+been+made+in+the+same+timeframe.&interval=10";
    assert!(read(200, slow_down, at()).rate_limited);
}

#[test]
fn an_xml_answer_that_says_by_its_tags_that_it_failed_is_an_error_envelope_and_data_is_not() {
    for body in [
        // A root whose status attribute says failure.
        r#"<?xml version="1.0" encoding="utf-8" ?><rsp stat="fail"><err code="98" msg="Invalid auth token" /></rsp>"#,
        r#"<subsonic-response xmlns="http://subsonic.org/restapi" status="failed" version="1.16.1"><error code="40" message="Wrong username or password"/></subsonic-response>"#,
        // A root that is an error, and a first element named for a failure.
        "<?xml version=\"1.0\"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>",
        r#"<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationFailure code="INVALID_TICKET">Ticket not recognized</cas:authenticationFailure></cas:serviceResponse>"#,
        // A SAML status other than success.
        r#"<samlp:Response ID="_1" Version="2.0"><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Requester"/></samlp:Status></samlp:Response>"#,
    ] {
        assert!(worth_reading(200, body.as_bytes()), "{body}");
    }
    // Answers whose tags only hold data, a record's status and an empty error included.
    for body in [
        r#"<rsp stat="ok"><photo id="2733" title="Invalid auth token sign" /></rsp>"#,
        r#"<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas"><cas:authenticationSuccess><cas:user>alice</cas:user></cas:authenticationSuccess></cas:serviceResponse>"#,
        r#"<samlp:Response><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:Response>"#,
        r#"<items><item><code>ACCESS-DENIED-SIGN</code><status>failed</status></item></items>"#,
        r#"<response><error/><data>42</data></response>"#,
        r#"<rss version="2.0"><channel><title>Incidents</title><item><title>Error</title></item></channel></rss>"#,
    ] {
        assert!(!worth_reading(200, body.as_bytes()), "{body}");
    }
}

#[test]
fn a_throttle_stated_in_a_page_heading_marks_the_reply_throttled() {
    let page = "<!DOCTYPE html><html><head><title>403 - Forbidden: Access is denied.</title></head><body><h2>403.502 - Forbidden: Too many requests from the same client IP; Dynamic IP Restriction Maximum request rate limit reached.</h2></body></html>";
    assert!(read(403, page.as_bytes(), at()).rate_limited);
    // The same words in the page's running text do not decide it.
    let text = "<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><p>Too many requests from the same client IP.</p></body></html>";
    assert!(!read(403, text.as_bytes(), at()).rate_limited);
}
