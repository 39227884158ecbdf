use super::*;

fn collect(fields: &[(&str, &[u8])]) -> Vec<Quota> {
    let mut out = Collector::default();
    read(
        &Headers::new(fields),
        DateTime::from_timestamp(1_609_844_000, 0).unwrap(),
        &mut out,
    );
    out.quotas
}

fn q(policy: &str, l: Option<u64>, r: Option<u64>, t: Option<u64>, w: Option<u64>) -> Quota {
    Quota {
        policy: policy.to_owned(),
        limit: l,
        remaining: r,
        reset_after: t.map(Duration::from_secs),
        window: w.map(Duration::from_secs),
    }
}

#[test]
fn generation_table() {
    type Case<'a> = (&'a [(&'a str, &'a [u8])], Vec<Quota>);
    let cases: Vec<Case<'_>> = vec![
        // drafts 00–06
        (
            &[
                ("RateLimit-Limit", b"100"),
                ("RateLimit-Remaining", b"50"),
                ("RateLimit-Reset", b"30"),
                ("RateLimit-Policy", b"100;w=60"),
            ],
            vec![q("default", Some(100), Some(50), Some(30), Some(60))],
        ),
        // early drafts: policies inside RateLimit-Limit
        (
            &[
                ("RateLimit-Limit", b"10, 10;w=1, 50;w=60"),
                ("RateLimit-Remaining", b"9"),
            ],
            vec![q("default", Some(10), Some(9), None, Some(1))],
        ),
        // GitLab's documented example: epoch reset in RateLimit-Reset
        (
            &[
                ("RateLimit-Limit", b"60"),
                ("RateLimit-Remaining", b"0"),
                ("RateLimit-Reset", b"1609844400"),
            ],
            vec![q("default", Some(60), Some(0), Some(400), None)],
        ),
        // draft 07
        (
            &[
                ("RateLimit", b"limit=100, remaining=50, reset=30"),
                ("RateLimit-Policy", b"100;w=60"),
            ],
            vec![q("default", Some(100), Some(50), Some(30), Some(60))],
        ),
        // draft 08+ (strings), two policies across two field lines
        (
            &[
                ("RateLimit-Policy", br#""burst";q=100;w=60"#),
                ("RateLimit-Policy", br#""daily";q=1000;w=86400"#),
                ("RateLimit", br#""burst";r=50;t=30, "daily";r=900;t=3600"#),
            ],
            vec![
                q("burst", Some(100), Some(50), Some(30), Some(60)),
                q("daily", Some(1000), Some(900), Some(3600), Some(86400)),
            ],
        ),
        // draft 08 (tokens); a policy with no current state is still reported
        (
            &[
                (
                    "RateLimit-Policy",
                    b"default;q=100;w=60, daily;q=5000;w=86400",
                ),
                ("RateLimit", b"default;r=0;t=7"),
            ],
            vec![
                q("default", Some(100), Some(0), Some(7), Some(60)),
                q("daily", Some(5000), None, None, Some(86400)),
            ],
        ),
        // junk and negative values are ignored, never errors
        (
            &[("RateLimit", b"limit=-5, remaining=\"x\", reset=-3")],
            vec![q("default", None, None, Some(0), None)],
        ),
        (
            &[("RateLimit", b"((("), ("RateLimit-Policy", b";;;")],
            vec![],
        ),
    ];
    for (fields, want) in cases {
        assert_eq!(collect(fields), want, "{fields:?}");
    }
}

#[test]
fn atlassian_beta_fields() {
    // As logged from Jira Cloud (community.developer.atlassian.com, 2026 points-based limits).
    let fields: [(&str, &[u8]); 2] = [
        (
            "Beta-Ratelimit-Policy",
            br#""tenant-app-quota";q=100100;w=3600"#,
        ),
        ("Beta-Ratelimit", br#""tenant-app-quota";r=17842;t=2107"#),
    ];
    let mut out = Collector::default();
    read_beta(&Headers::new(&fields), &mut out);
    assert_eq!(
        out.quotas,
        vec![q(
            "tenant-app-quota",
            Some(100_100),
            Some(17_842),
            Some(2107),
            Some(3600)
        )]
    );
}

#[test]
fn a_policy_naming_its_window_kind_before_its_name_is_read_by_that_name() {
    // Hugging Face's Hub: `"fixed window"` before the policy's name, which no
    // structured-field parser accepts.
    let got = collect(&[
        ("RateLimit", b"\"api\";r=489;t=189"),
        ("RateLimit-Policy", b"\"fixed window\";\"api\";q=500;w=300"),
    ]);
    assert_eq!(
        got,
        vec![q("api", Some(500), Some(489), Some(189), Some(300))]
    );
}
