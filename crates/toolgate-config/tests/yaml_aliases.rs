//! YAML aliases in a config: read as copies of their anchors, within a bound.

use std::path::Path;

fn compile(text: &str) -> Result<toolgate_config::Config, toolgate_config::ConfigErrors> {
    let env = |_: &str| None;
    toolgate_config::parse(Path::new("t.yaml"), text, Path::new("."), &env)
}

#[test]
fn a_billion_laughs_config_is_refused_with_what_to_do() {
    // Nine levels of nine aliases each: 9^9 copies of `lol` from 10 lines.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..=9 {
        let p = level - 1;
        text.push_str(&format!(
            "a{level}: &a{level} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("dependencies:\n  d: {base_url: 'https://api.example.com', extra: *a9}\n");
    let errors = compile(&text).expect_err("refused").to_string();
    assert!(
        errors.contains("aliases (`*name`) repeat their anchors"),
        "{errors}"
    );
    assert!(errors.contains("write the repeated part out"), "{errors}");
}

#[test]
fn an_input_definition_shared_through_an_anchor_is_read_in_each_tool() {
    let text = "dependencies:\n  d: {base_url: 'https://api.example.com'}\ntools:\n  \
        a:\n    dependency: d\n    owner: o@example.com\n    request: {path: /a}\n    \
        input_schema: {type: object, properties: {n: &name {type: string, maxLength: 3}}}\n  \
        b:\n    dependency: d\n    owner: o@example.com\n    request: {path: /b}\n    \
        input_schema: {type: object, properties: {n: *name}}\n";
    let config = compile(text).expect("valid");
    let b = config.tools["b"].input_schema["properties"]["n"].clone();
    assert_eq!(b, serde_json::json!({"type": "string", "maxLength": 3}));
}

/// A config whose tool's input schema names `anchor` (one property per entry, each
/// with an 80-byte description) and whose `extra` field aliases it `uses` times.
fn fan_out(props: usize, uses: usize) -> String {
    let big: Vec<String> = (0..props)
        .map(|i| format!("p{i}: {{type: string, description: '{}'}}", "x".repeat(80)))
        .collect();
    format!(
        "dependencies:\n  d: {{base_url: 'https://api.example.com'}}\ntools:\n  t:\n    \
         dependency: d\n    owner: o@example.com\n    request: {{path: /t}}\n    \
         input_schema: {{type: object, properties: &big {{{}}}}}\n    extra: [{}]\n",
        big.join(", "),
        vec!["*big"; uses].join(", ")
    )
}

#[test]
fn one_large_anchor_aliased_thousands_of_times_is_refused_naming_where_and_what_to_write() {
    // A 10 KB anchor aliased 8,000 times: few alias jumps for the parser's own guard (one
    // per alias), 80 MB once copied.
    let errors = compile(&fan_out(100, 8_000))
        .expect_err("refused")
        .to_string();
    assert!(errors.contains("more than 64 MiB"), "{errors}");
    assert!(errors.contains("passed at `tools.t.extra["), "{errors}");
    assert!(errors.contains("toolgate:schemas/"), "{errors}");
    // The same shape within the bound reads (and reports the stray field, not the size).
    let errors = compile(&fan_out(100, 20))
        .expect_err("extra is unknown")
        .to_string();
    assert!(!errors.contains("MiB"), "{errors}");
    assert!(errors.contains("unknown field `extra`"), "{errors}");
}

#[test]
fn merge_keys_repeating_their_anchors_are_bounded_like_aliases() {
    let mut text = String::from("m0: &m0 {k: v}\n");
    for l in 1..=9 {
        let p = l - 1;
        text.push_str(&format!(
            "m{l}: &m{l} {{<<: [*m{p}, *m{p}, *m{p}, *m{p}, *m{p}, *m{p}, *m{p}, *m{p}, *m{p}], k{l}: v}}\n"
        ));
    }
    text.push_str("dependencies:\n  d: {base_url: 'https://api.example.com'}\n");
    let errors = compile(&text).expect_err("refused").to_string();
    assert!(errors.contains("more than 64 MiB"), "{errors}");
}

/// Plain text with braces and apostrophes, as a large imported config holds in its
/// descriptions, is read: the nesting scan for API descriptions counts every reading of
/// an apostrophe and would call this a hundred levels deep.
#[test]
fn a_long_config_with_braces_and_apostrophes_in_plain_text_is_read() {
    let mut text =
        String::from("dependencies:\n  d: {base_url: 'https://api.example.com'}\ntools:\n");
    for i in 0..150 {
        text.push_str(&format!(
            "  t{i}:\n    dependency: d\n    description: lists the {{owner 's}} repos, owner's'\n    request: {{method: GET, path: /repos/{{owner}}}}\n"
        ));
    }
    assert!(
        toolgate_config::yaml::nesting::check(&text, toolgate_config::yaml::MAX_DEPTH).is_err(),
        "the scan over-reads this text"
    );
    let errors = compile(&text).map(|_| ()).map_err(|e| e.to_string());
    assert!(
        !errors.as_ref().is_err_and(|e| e.contains("nested")),
        "{errors:?}"
    );
}

#[test]
fn deep_nesting_in_a_config_is_refused_with_the_readers_limit() {
    let text = format!(
        "dependencies:\n  d: {{base_url: 'https://api.example.com', extra: {}{}}}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    let errors = compile(&text).expect_err("refused").to_string();
    assert!(errors.contains("recursion limit"), "{errors}");
}

/// A fresh file path under the system's temporary folder.
fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-yaml-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join("toolgate.yaml")
}

#[test]
fn a_config_file_is_read_only_when_regular_small_enough_and_utf8() {
    const VALID: &str = "dependencies:\n  d: {base_url: 'https://api.example.com'}\n";
    // Larger than 64 MiB: refused by its size, not read whole (sparse: no disk used).
    let big = temp("big");
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(65 << 20).expect("set_len");
    let e = toolgate_config::load(&big)
        .expect_err("refused")
        .to_string();
    assert!(e.contains("larger than 64 MiB"), "{e}");
    // A folder is not a config.
    let e = toolgate_config::load(big.parent().expect("parent"))
        .expect_err("refused")
        .to_string();
    assert!(e.contains("not a regular file"), "{e}");
    // UTF-16 (what some Windows editors save) is named, with the fix.
    let wide = temp("utf16");
    let bytes: Vec<u8> = std::iter::once(0xFEFF_u16)
        .chain(VALID.encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect();
    std::fs::write(&wide, bytes).expect("write");
    let e = toolgate_config::load(&wide)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("UTF-16") && e.contains("save it as UTF-8"),
        "{e}"
    );
    // A UTF-8 byte order mark is no error.
    let marked = temp("bom");
    std::fs::write(&marked, format!("\u{FEFF}{VALID}")).expect("write");
    if let Err(e) = toolgate_config::load(&marked) {
        let e = e.to_string();
        assert!(!e.contains("YAML") && !e.contains("UTF"), "{e}");
    }
    for p in [big, wide, marked] {
        let _ = std::fs::remove_dir_all(p.parent().expect("parent"));
    }
}

#[test]
fn a_file_read_beside_a_config_gets_the_configs_bounds() {
    // The config an import merges into and the schema `toolgate diff` reads go through
    // `read_text_file`: a folder, a 65 MiB file and UTF-16 are refused, each saying why.
    let big = temp("beside-big");
    std::fs::File::create(&big)
        .expect("create")
        .set_len(65 << 20)
        .expect("set_len");
    let e = toolgate_config::read_text_file(&big).expect_err("refused");
    assert!(e.contains("larger than 64 MiB"), "{e}");
    let e = toolgate_config::read_text_file(big.parent().expect("parent")).expect_err("refused");
    assert!(e.contains("not a regular file"), "{e}");
    let wide = temp("beside-utf16");
    let bytes: Vec<u8> = std::iter::once(0xFEFF_u16)
        .chain("type: object\n".encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect();
    std::fs::write(&wide, bytes).expect("write");
    let e = toolgate_config::read_text_file(&wide).expect_err("refused");
    assert!(
        e.contains("UTF-16") && e.contains("save it as UTF-8"),
        "{e}"
    );
    for p in [big, wide] {
        let _ = std::fs::remove_dir_all(p.parent().expect("parent"));
    }
}

#[test]
fn tools_with_one_input_schema_share_one_compiled_validator() {
    // Three tools, two distinct input schemas (the first two alike through an alias,
    // as an import writes a definition several tools share): two compilations.
    let text = "dependencies:\n  d: {base_url: 'https://api.example.com'}\ntools:\n".to_string()
        + &["a", "b", "c"]
            .iter()
            .map(|t| {
                let schema = match *t {
                    "a" => "&body {type: object, properties: {q: {type: string, maxLength: 9}}}",
                    "b" => "*body",
                    _ => "{type: object, properties: {n: {type: integer}}}",
                };
                format!(
                    "  {t}:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {{path: /x}}\n    input_schema: {schema}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
                )
            })
            .collect::<String>();
    let config = compile(&text).expect("compiles");
    let validators: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|t| config.tools[*t].input_validator.clone())
        .collect();
    let mut compiled = validators.clone();
    compiled.dedup_by(|x, y| std::sync::Arc::ptr_eq(x, y));
    assert_eq!(
        compiled.len(),
        2,
        "one compilation per distinct input schema"
    );
    assert!(std::sync::Arc::ptr_eq(&validators[0], &validators[1]));
    // Shared, each still checks what its schema says.
    assert!(!validators[1].is_valid(&serde_json::json!({"q": "far too long"})));
    assert!(!validators[2].is_valid(&serde_json::json!({"n": "x"})));
}
