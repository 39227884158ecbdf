use super::*;
use serde_json::json;

const V: ProtocolVersion = ProtocolVersion::V_2025_11_25;
const NOW: u64 = 1_800_000_000;
const KEY_A: &[u8] = b"0123456789abcdef0123456789abcdef";
const KEY_B: &[u8] = b"fedcba9876543210fedcba9876543210";

fn sealer(keys: &[&[u8]]) -> Sealer {
    Sealer::new(keys, Duration::from_secs(3600)).unwrap()
}

#[test]
fn base64url_round_trips_and_refuses_other_spellings() {
    for len in 0..40 {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
        let mut s = String::new();
        b64::encode(&bytes, &mut s);
        assert!(
            s.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
        assert_eq!(b64::decode(&s), Some(bytes));
    }
    assert_eq!(b64::decode("QQ"), Some(b"A".to_vec()));
    assert_eq!(b64::decode("QR"), None, "non-zero trailing bits");
    assert_eq!(b64::decode("Q"), None);
    assert_eq!(b64::decode("Q+=="), None);
}

#[test]
fn an_id_sealed_by_one_replica_opens_on_another_with_the_same_key() {
    let caps = json!({"sampling": {}, "elicitation": {"form": {}}, "experimental": {"x": "y"}});
    let id = sealer(&[KEY_A]).seal(&V, Some(&caps), &Owner::default(), NOW);
    assert!(id.starts_with("tg1.") && id.bytes().all(|c| (0x21..=0x7e).contains(&c)));
    let other = sealer(&[KEY_A]);
    let opened = other.open(&id, NOW + 10).unwrap();
    assert_eq!(opened.version, V);
    assert_eq!(opened.expires, NOW + 3600);
    assert_eq!(
        opened.capabilities,
        Some(json!({"sampling": {}, "elicitation": {"form": {}}})),
        "only what toolgate reads travels"
    );
    assert_ne!(
        id,
        sealer(&[KEY_A]).seal(&V, Some(&caps), &Owner::default(), NOW),
        "a nonce tells sessions apart"
    );
}

#[test]
fn forged_altered_foreign_and_expired_ids_are_refused() {
    let s = sealer(&[KEY_A]);
    let id = s.seal(&V, None, &Owner::default(), NOW);
    assert_eq!(
        sealer(&[KEY_B]).open(&id, NOW),
        Err(Refused::Signature),
        "another fleet's key"
    );
    // Every single-character change of the id is refused.
    for i in 0..id.len() {
        let mut bytes = id.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(bytes).unwrap();
        if altered != id {
            assert!(s.open(&altered, NOW).is_err(), "{altered}");
        }
    }
    // A payload rewritten to live longer, with the old tag, is refused.
    let (_, tag) = id.rsplit_once('.').unwrap();
    let mut longer = String::from("tg1.");
    b64::encode(
        br#"{"v":"2025-11-25","i":1800000000,"e":99999999999,"n":"0"}"#,
        &mut longer,
    );
    assert_eq!(
        s.open(&format!("{longer}.{tag}"), NOW),
        Err(Refused::Signature)
    );
    assert_eq!(s.open(&id, NOW + 3599).map(|o| o.version), Ok(V));
    assert_eq!(s.open(&id, NOW + 3600), Err(Refused::Expired));
    assert_eq!(
        s.open(&id, NOW - 301),
        Err(Refused::Expired),
        "issued in the future"
    );
    assert_eq!(
        s.open("0123456789abcdef0123456789abcdef", NOW),
        Err(Refused::Malformed)
    );
    assert_eq!(s.open(&"tg1.".repeat(2000), NOW), Err(Refused::Malformed));
    assert_eq!(s.open("tg1..", NOW), Err(Refused::Signature));
    let stateless = s.seal(&ProtocolVersion::V_2026_07_28, None, &Owner::default(), NOW);
    assert_eq!(s.open(&stateless, NOW), Err(Refused::Version));
}

#[test]
fn a_rotated_key_still_opens_ids_of_the_previous_one() {
    let old = sealer(&[KEY_A]).seal(&V, None, &Owner::default(), NOW);
    let rotated = sealer(&[KEY_B, KEY_A]);
    assert!(rotated.open(&old, NOW).is_ok());
    let new = rotated.seal(&V, None, &Owner::default(), NOW);
    assert!(
        sealer(&[KEY_B]).open(&new, NOW).is_ok(),
        "the new key signs"
    );
    assert_eq!(
        sealer(&[KEY_B]).open(&old, NOW),
        Err(Refused::Signature),
        "once the old key is dropped"
    );
}

#[test]
fn large_capabilities_keep_their_names_only() {
    let caps = json!({"sampling": {"big": "x".repeat(5000)}, "roots": {"listChanged": true}});
    let id = sealer(&[KEY_A]).seal(&V, Some(&caps), &Owner::default(), NOW);
    assert!(id.len() < 300, "{}", id.len());
    let opened = sealer(&[KEY_A]).open(&id, NOW).unwrap();
    assert_eq!(
        opened.capabilities,
        Some(json!({"sampling": {}, "roots": {}}))
    );
}
