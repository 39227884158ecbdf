//! A dependency's admitted link origins: only bare origins, on addresses `check`
//! accepts, each read for the owner or for the model too.

use std::path::Path;

fn compile(extra: &str) -> Result<crate::Config, String> {
    let text = format!(
        "dependencies:\n  d:\n    base_url: https://api.example.com/v2\n{extra}tools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
    );
    crate::parse(Path::new("t.yaml"), &text, Path::new("."), &|_| None).map_err(|e| e.to_string())
}

fn origin(text: &str) -> url::Origin {
    url::Url::parse(text)
        .expect("a test origin parses")
        .origin()
}

#[test]
fn an_owner_admitted_origin_is_the_owners_and_a_model_admitted_one_is_both() {
    let config = compile(
        "    link_origins: ['https://docs.example.com']\n    model_link_origins: ['https://status.example.com:8443']\n",
    )
    .unwrap();
    let admitted = &config.dependencies["d"].link_origins;
    let docs = origin("https://docs.example.com/deprecations/v2");
    let status = origin("https://status.example.com:8443/x");
    assert!(admitted.for_owner(&docs) && !admitted.for_model(&docs));
    assert!(admitted.for_owner(&status) && admitted.for_model(&status));
    // Another scheme or port is another origin.
    assert!(!admitted.for_owner(&origin("http://docs.example.com/")));
    assert!(!admitted.for_owner(&origin("https://status.example.com/")));
}

#[test]
fn an_admitted_origin_with_a_path_a_query_user_information_or_another_scheme_is_refused() {
    for written in [
        "https://docs.example.com/deprecations",
        "https://docs.example.com/?page=1",
        "https://docs.example.com/#v2",
        "https://user@docs.example.com",
        "ftp://docs.example.com",
        "docs.example.com",
    ] {
        let err = compile(&format!("    link_origins: ['{written}']\n")).unwrap_err();
        assert!(
            err.contains("dependencies.d.link_origins.0"),
            "{written}: {err}"
        );
    }
}

#[test]
fn an_admitted_origin_on_a_metadata_address_is_refused_as_the_base_url_would_be() {
    let err = compile("    model_link_origins: ['http://169.254.169.254']\n").unwrap_err();
    assert!(
        err.contains("dependencies.d.model_link_origins.0") && err.contains("metadata"),
        "{err}"
    );
}
