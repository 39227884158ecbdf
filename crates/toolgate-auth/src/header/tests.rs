use super::*;

fn token(value: &[u8]) -> Result<&str, Refusal> {
    let presented = read(Some(value))?;
    match presented.malformed {
        Some(refusal) => Err(refusal),
        None => Ok(presented.token),
    }
}

fn status(value: &[u8]) -> u16 {
    token(value).map_or_else(|r| r.status(), |_| 200)
}

#[test]
fn well_formed_bearer_credentials_are_read_with_the_scheme_in_any_case() {
    for (value, expected) in [
        (&b"Bearer abc"[..], "abc"),
        (b"bearer abc", "abc"),
        (b"BEARER abc", "abc"),
        (b"bEaReR   abc ", "abc"),
        (b"Bearer  a.b-c_d~e+f/g==", "a.b-c_d~e+f/g=="),
        (b"  Bearer eyJ.eyJ.sig\t", "eyJ.eyJ.sig"),
    ] {
        assert_eq!(token(value), Ok(expected), "{value:?}");
    }
}

#[test]
fn unreadable_bytes_are_an_invalid_token_and_never_repeated() {
    for value in [
        "Bearer tökén".as_bytes(),
        b"Bearer abc\xff",
        b"Bearer \x80\x81",
        b"Bearer abc\x00def",
        b"Bearer abc\x7f",
        b"\xc3\xa9 abc",
    ] {
        let refusal = token(value).unwrap_err();
        assert!(matches!(refusal, Refusal::Invalid(_)), "{value:?}");
        assert_eq!(refusal.status(), 401);
        assert!(refusal.message().contains("printable ASCII"), "{value:?}");
        assert!(!refusal.message().contains("abc"));
    }
}

#[test]
fn a_bearer_scheme_without_a_token_or_with_a_tab_is_a_malformed_request() {
    for value in [
        &b"Bearer"[..],
        b"Bearer ",
        b"bearer    ",
        b"Bearer,",
        b"Bearer\tabc",
        b"",
        b"   ",
    ] {
        assert_eq!(status(value), 400, "{value:?}");
    }
    assert!(token(b"Bearer\tabc").unwrap_err().message().contains("tab"));
    assert!(token(b"Bearer").unwrap_err().message().contains("no token"));
}

#[test]
fn characters_outside_the_b64token_alphabet_are_an_invalid_token() {
    for value in [
        &b"Bearer abc\"def"[..],
        b"Bearer ab@cd",
        b"Bearer abc=def",
        b"Bearer ===",
        b"Bearer a\\b",
        b"Bearer {json}",
        b"Bearer abc;def",
    ] {
        let refusal = token(value).unwrap_err();
        assert_eq!(refusal.status(), 401, "{value:?}");
        assert!(refusal.message().contains("b64token"), "{value:?}");
    }
}

#[test]
fn a_second_credential_or_inner_whitespace_is_a_malformed_request() {
    for value in [
        &b"Bearer abc, Basic dXNlcjpwdw=="[..],
        b"Bearer abc,Bearer def",
        b"Bearer abc def",
        b"Bearer abc\tdef",
    ] {
        assert_eq!(status(value), 400, "{value:?}");
    }
    assert!(
        token(b"Bearer abc, Bearer def")
            .unwrap_err()
            .message()
            .contains("more than one credential")
    );
}

#[test]
fn another_scheme_is_named_only_when_it_is_a_registered_one() {
    assert_eq!(
        read(Some(b"Basic dXNlcjpwdw==")),
        Err(Refusal::OtherScheme(Some("Basic")))
    );
    assert_eq!(
        read(Some(b"dpop abc")),
        Err(Refusal::OtherScheme(Some("DPoP")))
    );
    // A token sent without a scheme sits where the scheme goes: never repeated.
    let bare = read(Some(b"eyJhbGciOiJFUzI1NiJ9.e30.c2ln")).unwrap_err();
    assert_eq!(bare, Refusal::OtherScheme(None));
    assert!(!bare.message().contains("eyJ"));
    assert_eq!(bare.status(), 401);
    assert!(
        Refusal::OtherScheme(Some("Basic"))
            .message()
            .contains("Basic")
    );
}
