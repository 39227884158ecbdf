use super::*;

#[test]
fn credential_names_are_told_from_ambiguous_ones() {
    for name in [
        "api_key",
        "apiKey",
        "X-API-Key",
        "access_token",
        "Authorization",
        "Ocp-Apim-Subscription-Key",
        "PRIVATE-TOKEN",
        "key",
        "token",
    ] {
        assert!(credential_word(name), "{name}");
    }
    for name in [
        "keyword",
        "tokens",
        "page_token",
        "id",
        "monkey",
        "api",
        "next",
    ] {
        assert!(!credential_word(name), "{name}");
    }
    assert!(says_credential("Your registered API key."));
    assert!(says_credential(
        "<a href=\"https://trello.com/app-key\">Generate your application key</a>"
    ));
    assert!(!says_credential("The project key."));
    assert!(!says_credential("A key for identifying the cache."));
}

fn found(name: &str, operations: usize, required: bool) -> Found {
    Found {
        name: name.into(),
        location: "query".into(),
        operations,
        required,
        said: true,
    }
}

#[test]
fn required_credentials_are_all_sent_optional_ones_are_alternatives() {
    let required = [found("id", 9, true), found("secret", 9, true)];
    assert_eq!(chosen(&required).len(), 2);
    let optional = [found("key", 9, false), found("access_token", 9, false)];
    assert_eq!(chosen(&optional), vec![&optional[0]]);
    let many: Vec<Found> = (0..10).map(|i| found(&format!("k{i}"), 1, true)).collect();
    assert_eq!(chosen(&many).len(), MAX_SENT);
    let header = Found {
        location: "header".into(),
        ..found("X-Api-Key", 1, true)
    };
    assert!(header.is("x-api-key", "header"));
    assert!(!header.is("x-api-key", "query"));
    assert!(found("key", 1, true).is("key", "query"));
    assert!(!found("key", 1, true).is("Key", "query"));
}
