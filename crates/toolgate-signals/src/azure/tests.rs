use crate::{Flavour, Headers, read};
use chrono::DateTime;

fn policies(fields: &[(&str, &[u8])], flavour: Flavour) -> Vec<(String, u64)> {
    let now = DateTime::from_timestamp(0, 0).unwrap();
    let mut got: Vec<(String, u64)> = read(429, &Headers::new(fields), now, flavour)
        .quota
        .into_iter()
        .map(|q| (q.policy, q.remaining.unwrap()))
        .collect();
    got.sort();
    got
}

#[test]
fn azure_resource_manager_documented_examples() {
    // Troubleshooting page: one header per policy, the same bucket twice.
    let delete_sample: [(&str, &[u8]); 4] = [
        (
            "x-ms-ratelimit-remaining-resource",
            b"Microsoft.Compute/DeleteVMScaleSet;107",
        ),
        (
            "x-ms-ratelimit-remaining-resource",
            b"Microsoft.Compute/DeleteVMScaleSet;587",
        ),
        (
            "x-ms-ratelimit-remaining-resource",
            b"Microsoft.Compute/VMScaleSetBatchedVMRequests;3704",
        ),
        (
            "x-ms-ratelimit-remaining-resource",
            b"Microsoft.Compute/VmssQueuedVMOperations;4720",
        ),
    ];
    // Azure CLI debug output: two buckets in one field, with the subscription scope.
    let cli_sample: [(&str, &[u8]); 2] = [
        (
            "x-ms-ratelimit-remaining-resource",
            b"Microsoft.Compute/GetVMScaleSet3Min;197,Microsoft.Compute/GetVMScaleSet30Min;1297",
        ),
        ("x-ms-ratelimit-remaining-subscription-reads", b"11999"),
    ];
    let s = |v: &str| v.to_owned();
    type Case<'a> = (&'a [(&'a str, &'a [u8])], Vec<(String, u64)>);
    let cases: Vec<Case<'_>> = vec![
        (
            &delete_sample,
            vec![
                (s("Microsoft.Compute_DeleteVMScaleSet"), 107),
                (s("Microsoft.Compute_VMScaleSetBatchedVMRequests"), 3704),
                (s("Microsoft.Compute_VmssQueuedVMOperations"), 4720),
            ],
        ),
        (
            &cli_sample,
            vec![
                (s("Microsoft.Compute_GetVMScaleSet30Min"), 1297),
                (s("Microsoft.Compute_GetVMScaleSet3Min"), 197),
                (s("subscription-reads"), 11999),
            ],
        ),
        (
            &[
                ("x-ms-ratelimit-remaining-subscription-writes", b"1199"),
                ("x-ms-ratelimit-remaining-tenant-reads", b"11998"),
                ("x-ms-ratelimit-remaining-subscription-global-reads", b"0"),
                ("x-ms-ratelimit-remaining-resource", b"junk, ;5, x;-1"),
            ],
            vec![
                (s("subscription-global-reads"), 0),
                (s("subscription-writes"), 1199),
                (s("tenant-reads"), 11998),
            ],
        ),
    ];
    for (fields, want) in cases {
        assert_eq!(
            policies(fields, Flavour::AzureResourceManager),
            want,
            "{fields:?}"
        );
        assert_eq!(policies(fields, Flavour::Auto), want, "{fields:?}");
    }
}

#[test]
fn a_hostile_resource_header_yields_bounded_policies() {
    let value: String = (0..500)
        .map(|i| format!("P{i}/{};{i}", "n".repeat(100)))
        .collect::<Vec<_>>()
        .join(",");
    let fields: [(&str, &[u8]); 1] = [("x-ms-ratelimit-remaining-resource", value.as_bytes())];
    let got = policies(&fields, Flavour::Auto);
    assert_eq!(got.len(), crate::quota::MAX_POLICIES);
    assert!(
        got.iter()
            .all(|(p, _)| p.len() <= crate::quota::MAX_POLICY_NAME)
    );
    // The most constraining survive: the smallest counts.
    assert!(got.iter().any(|(_, n)| *n == 0));
}
