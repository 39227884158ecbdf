//! Where notes travel: a `toolgate` member spliced into `structuredContent` (declared in
//! every `outputSchema`), a text block, or both; the upstream's own bytes untouched.

use axum::Router;
use axum::http::{HeaderMap, HeaderValue};
use axum::routing::get;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::harness::*;

/// Bodies with whitespace, key order and escapes that a re-serialisation would change.
const SPACED: &str = "{ \"b\" : 1,\"a\":\"caf\\u00e9 \\\"q\\\"\" ,\"nested\":{\"toolgate\":1}\n}\n";
const CLASH: &str = r#"{"toolgate":"the upstream's own","x":1}"#;
const ESCAPED_CLASH: &str = r#"{"x":1,"tool\u0067ate":2}"#;
const LIST: &str = "[1, 2]";
const EMPTY: &str = "{}";

fn deprecated(body: &'static str) -> (HeaderMap, &'static str) {
    let mut h = HeaderMap::new();
    h.insert("content-type", HeaderValue::from_static("application/json"));
    h.insert("deprecation", HeaderValue::from_static("@1767225600"));
    h.insert(
        "sunset",
        HeaderValue::from_static("Fri, 15 Jan 2027 00:00:00 GMT"),
    );
    (h, body)
}

async fn start_api() -> std::net::SocketAddr {
    let app = Router::new()
        .route("/spaced", get(|| async { deprecated(SPACED) }))
        .route("/clash", get(|| async { deprecated(CLASH) }))
        .route("/escaped", get(|| async { deprecated(ESCAPED_CLASH) }))
        .route("/list", get(|| async { deprecated(LIST) }))
        .route("/empty", get(|| async { deprecated(EMPTY) }))
        .route(
            "/quiet",
            get(|| async { ([("content-type", "application/json")], SPACED) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

fn config(addr: std::net::SocketAddr, dir: &std::path::Path, gateway_notes: &str) -> String {
    let tool = |name: &str, path: &str, schema: &str, notes: &str| {
        format!(
            "  {name}:\n    dependency: api\n    owner: dana@example.com\n    request: {{ path: {path} }}\n    \
             annotations: {{ readOnlyHint: true }}\n{notes}    contract: {{ version: \"1.0\", response_schema: {schema} }}\n"
        )
    };
    let closed = "{ type: object, additionalProperties: false, properties: { a: { type: string }, b: { type: integer }, nested: { type: object } } }";
    let open = "{ type: object }";
    let declares =
        "{ type: object, properties: { toolgate: { type: string }, x: { type: integer } } }";
    let declares_both =
        "{ type: object, properties: { toolgate: { type: string }, _toolgate: { type: string } } }";
    let array = "{ type: array, items: { type: integer } }";
    format!(
        "gateway:\n  state: {state}\n{gateway_notes}dependencies:\n  api:\n    base_url: http://{addr}\n    \
         retry: {{ max_attempts: 1 }}\ntools:\n{}{}{}{}{}{}{}{}{}{}{}{}",
        tool("spaced", "/spaced", closed, ""),
        tool("spaced_both", "/spaced", closed, "    notes: both\n"),
        tool("spaced_text", "/spaced", closed, "    notes: text\n"),
        tool(
            "spaced_structured",
            "/spaced",
            closed,
            "    notes: structured\n"
        ),
        tool("quiet", "/quiet", closed, ""),
        tool("clash", "/clash", open, "    notes: structured\n"),
        tool("escaped", "/escaped", open, "    notes: structured\n"),
        tool("declared", "/clash", declares, ""),
        tool(
            "declared_both",
            "/clash",
            declares_both,
            "    notes: structured\n"
        ),
        tool("list", "/list", array, ""),
        tool("empty", "/empty", open, ""),
        tool(
            "drifting",
            "/clash",
            "{ type: object, required: [missing] }",
            ""
        ),
        state = dir.join("s.db").display(),
    )
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The answer as raw text, so `structuredContent` can be compared byte for byte.
#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    result: RawResult<'a>,
}

#[derive(Deserialize)]
struct RawResult<'a> {
    content: Vec<Value>,
    #[serde(borrow, rename = "structuredContent")]
    structured: Option<&'a RawValue>,
}

async fn post(url: &str, method: &str, name: &str, params: &str) -> String {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if !name.is_empty() {
        request = request.header("mcp-name", name);
    }
    request
        .body(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}{META}}}}}"#
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// (structuredContent as sent, the text blocks).
async fn call_raw(url: &str, tool: &str) -> (Option<String>, Vec<String>) {
    let text = post(
        url,
        "tools/call",
        tool,
        &format!(r#""name":"{tool}","arguments":{{}},"#),
    )
    .await;
    let raw: Raw<'_> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let texts = raw
        .result
        .content
        .iter()
        .filter_map(|c| c["text"].as_str().map(str::to_owned))
        .collect();
    (raw.result.structured.map(|r| r.get().to_owned()), texts)
}

const NOTE: &str = "is deprecated";

fn member(name: &str, structured: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(structured).unwrap();
    v[name]["notes"]
        .as_array()
        .unwrap_or_else(|| panic!("no {name}.notes in {structured}"))
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn notes_are_spliced_into_structured_content_leaving_the_upstream_bytes_as_they_were() {
    let addr = start_api().await;
    let dir = temp_dir("notes");
    let tg = start_toolgate(&config(addr, &dir, "")).await;

    // Default `inline`: the member, the notes inside the one text block after the body
    // and a blank line, and the body's own bytes verbatim.
    let (structured, texts) = call_raw(&tg.url, "spaced").await;
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].starts_with(SPACED),
        "the body comes first, unchanged: {texts:?}"
    );
    let lines = &texts[0][SPACED.len()..];
    assert!(
        lines.starts_with("\n\ntoolgate: ") && lines.contains(NOTE),
        "{texts:?}"
    );
    assert!(member("toolgate", structured.as_deref().unwrap())[0].contains(NOTE));

    // `both`: the member and a text block of its own.
    let (structured, texts) = call_raw(&tg.url, "spaced_both").await;
    let structured = structured.unwrap();
    let close = SPACED.rfind('}').unwrap();
    let notes = member("toolgate", &structured);
    assert!(notes.iter().any(|n| n.contains(NOTE)), "{notes:?}");
    // (A raw JSON value ends at its closing brace: the body's trailing newline follows it.)
    let expected = format!(
        "{},\"toolgate\":{}}}",
        &SPACED[..close],
        serde_json::json!({ "notes": notes }),
    );
    assert_eq!(structured, expected, "only the member is added");
    assert_eq!(
        texts[0], SPACED,
        "the first text block is the upstream body"
    );
    assert!(
        texts[1].starts_with("toolgate: ") && texts[1].contains(NOTE),
        "{texts:?}"
    );

    // `text`: no member, the structured content is the body byte for byte.
    let (structured, texts) = call_raw(&tg.url, "spaced_text").await;
    assert_eq!(structured.as_deref(), Some(SPACED.trim_end()));
    assert!(texts.len() == 2 && texts[1].contains(NOTE), "{texts:?}");

    // `structured`: the member only; the text is the body alone.
    let (structured, texts) = call_raw(&tg.url, "spaced_structured").await;
    assert!(member("toolgate", &structured.unwrap())[0].contains(NOTE));
    assert_eq!(texts, vec![SPACED.to_string()]);

    // No notes: nothing is added anywhere.
    let (structured, texts) = call_raw(&tg.url, "quiet").await;
    assert_eq!(structured.as_deref(), Some(SPACED.trim_end()));
    assert_eq!(texts.len(), 1);

    // A wrapped body gets the member next to `result`; an empty object gets no comma.
    let (structured, _) = call_raw(&tg.url, "list").await;
    let structured = structured.unwrap();
    assert!(
        structured.starts_with("{\"result\":[1, 2],\"toolgate\":{\"notes\":["),
        "{structured}"
    );
    let (structured, _) = call_raw(&tg.url, "empty").await;
    let structured = structured.unwrap();
    assert!(
        structured.starts_with("{\"toolgate\":{\"notes\":["),
        "{structured}"
    );
    assert!(member("toolgate", &structured)[0].contains(NOTE));
}

#[tokio::test]
async fn an_upstream_toolgate_field_is_never_overwritten_and_the_note_still_arrives() {
    let addr = start_api().await;
    let dir = temp_dir("notes-clash");
    let tg = start_toolgate(&config(addr, &dir, "")).await;

    // The body has a top-level `toolgate` the schema does not declare: the body goes out
    // untouched and the note travels as text, even though the tool asked for `structured`.
    for (tool, body) in [("clash", CLASH), ("escaped", ESCAPED_CLASH)] {
        let (structured, texts) = call_raw(&tg.url, tool).await;
        assert_eq!(structured.as_deref(), Some(body), "{tool}");
        assert!(
            texts.len() == 2 && texts[1].starts_with("toolgate: ") && texts[1].contains(NOTE),
            "{tool}: {texts:?}"
        );
    }

    // The schema declares `toolgate`: the member is `_toolgate`, and is declared.
    let (structured, _) = call_raw(&tg.url, "declared").await;
    let structured = structured.unwrap();
    assert!(
        structured.starts_with(&CLASH[..CLASH.len() - 1]),
        "{structured}"
    );
    assert!(member("_toolgate", &structured)[0].contains(NOTE));
    // The schema declares both names: notes are text only.
    let (structured, texts) = call_raw(&tg.url, "declared_both").await;
    assert_eq!(structured.as_deref(), Some(CLASH));
    assert!(texts[1].contains(NOTE), "{texts:?}");

    let list = post(&tg.url, "tools/list", "", "").await;
    let list: Value = serde_json::from_str(&list).unwrap();
    let schema = |name: &str| {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"))["outputSchema"]
            .clone()
    };
    let declared = schema("declared");
    assert_eq!(declared["properties"]["toolgate"]["type"], "string");
    assert!(declared["properties"]["_toolgate"]["description"].is_string());
    assert!(
        schema("declared_both")["properties"]
            .get("_toolgate")
            .unwrap()["type"]
            == "string"
    );
}

#[tokio::test]
async fn every_output_schema_declares_the_notes_member_and_still_validates_what_is_sent() {
    let addr = start_api().await;
    let dir = temp_dir("notes-schema");
    let tg = start_toolgate(&config(addr, &dir, "")).await;
    let list = post(&tg.url, "tools/list", "", "").await;
    let list: Value = serde_json::from_str(&list).unwrap();
    let tools = list["result"]["tools"].as_array().unwrap();
    for tool in tools
        .iter()
        .filter(|t| t["name"] != "dependency_health" && t["name"] != "drifting")
    {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["outputSchema"];
        let member = ["toolgate", "_toolgate"]
            .into_iter()
            .find(|m| schema["properties"][m]["description"].is_string());
        let text_only = name == "spaced_text" || name == "declared_both";
        assert_eq!(member.is_some(), !text_only, "{name}: {schema}");
        // The member's shape is declared only where the upstream cannot send that name.
        let closed = name.starts_with("spaced") || name == "quiet" || name == "list";
        if let Some(m) = member {
            assert_eq!(
                schema["properties"][m]["properties"]["notes"]["type"] == "array",
                closed,
                "{name}: {schema}"
            );
        }
        // What is sent validates against what is advertised (`additionalProperties: false` included).
        let (structured, _) = call_raw(&tg.url, name).await;
        let instance: Value = serde_json::from_str(&structured.unwrap()).unwrap();
        let validator = jsonschema::validator_for(schema).unwrap();
        assert!(
            validator.is_valid(&instance),
            "{name}: {instance} against {schema}"
        );
        assert!(
            !schema["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|n| n == "toolgate" || n == "_toolgate")),
            "the member is optional: {name}"
        );
    }

    // `gateway.notes: text` is the default for every tool that does not say otherwise.
    let dir = temp_dir("notes-gateway");
    let tg = start_toolgate(&config(addr, &dir, "  notes: text\n")).await;
    let (structured, texts) = call_raw(&tg.url, "spaced").await;
    assert_eq!(structured.as_deref(), Some(SPACED.trim_end()));
    assert!(texts[1].contains(NOTE), "{texts:?}");
    let (structured, _) = call_raw(&tg.url, "spaced_structured").await;
    assert!(member("toolgate", &structured.unwrap())[0].contains(NOTE));
}

#[tokio::test]
async fn a_failure_has_no_structured_content_and_its_meta_opens_with_the_failure_text() {
    let addr = start_api().await;
    let dir = temp_dir("notes-failure");
    let tg = start_toolgate(&config(addr, &dir, "")).await;
    let raw = post(
        &tg.url,
        "tools/call",
        "drifting",
        r#""name":"drifting","arguments":{},"#,
    )
    .await;
    let answer: Value = serde_json::from_str(&raw).unwrap();
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{raw}");
    assert!(result.get("structuredContent").is_none(), "{raw}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("drifting failed: "), "{text}");
    // The notes still arrive, as text: after the failure sentence, in its block.
    assert_eq!(result["content"].as_array().map(Vec::len), Some(1), "{raw}");
    let (failure, lines) = text.split_once("\n\ntoolgate: ").expect("the notes follow");
    assert!(lines.contains(NOTE), "{raw}");
    // A client that dumps the whole result (meta first) shows the failure first.
    assert!(
        raw.contains(&format!(
            r#""_meta":{{"dev.toolgate/error":{},"dev.toolgate/signals":"#,
            serde_json::to_string(failure).unwrap()
        )),
        "{raw}"
    );
    assert_eq!(
        result["_meta"]["dev.toolgate/signals"]["error_class"],
        "contract_drift"
    );
}

#[tokio::test]
async fn inline_notes_end_the_first_text_block_and_add_no_block() {
    let addr = start_api().await;
    let dir = temp_dir("notes-inline");
    let tg = start_toolgate(&config(addr, &dir, "  notes: inline\n")).await;

    // A success: one text block, the body's text, a blank line, then the note lines;
    // the structured member as with `both`, and the body's bytes untouched.
    let (structured, texts) = call_raw(&tg.url, "spaced").await;
    assert_eq!(texts.len(), 1, "{texts:?}");
    let (body, lines) = texts[0]
        .split_once("\n\ntoolgate: ")
        .unwrap_or_else(|| panic!("no note after a blank line: {:?}", texts[0]));
    assert_eq!(body, SPACED, "the body's text comes first, as it came");
    assert!(lines.contains(NOTE), "{lines}");
    assert!(member("toolgate", &structured.unwrap())[0].contains(NOTE));

    // A call with nothing to say: the text block is the body alone.
    let (_, texts) = call_raw(&tg.url, "quiet").await;
    assert_eq!(texts, vec![SPACED.to_string()]);

    // A failure: its sentence first, the notes after it, still one block.
    let raw = post(
        &tg.url,
        "tools/call",
        "drifting",
        r#""name":"drifting","arguments":{},"#,
    )
    .await;
    let answer: Value = serde_json::from_str(&raw).unwrap();
    let content = answer["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "{raw}");
    let text = content[0]["text"].as_str().unwrap();
    assert!(text.starts_with("drifting failed: "), "{text}");
    assert!(
        text.contains("\n\ntoolgate: ") && text.contains(NOTE),
        "{text}"
    );
}

/// `gateway.structured_content: false`: tools list no `outputSchema`, and an answer is
/// the text block alone — the body once, the notes after it whatever their mode — so a
/// framework that hands the model the whole result shows it the body once; a tool may
/// turn it back on.
#[tokio::test]
async fn without_structured_content_the_body_travels_once_with_its_notes() {
    let addr = start_api().await;
    let dir = temp_dir("notes-text-only");
    let mut yaml = config(addr, &dir, "  structured_content: false\n");
    yaml = yaml.replace(
        "  spaced_both:\n",
        "  spaced_both:\n    structured_content: true\n",
    );
    let tg = start_toolgate(&yaml).await;

    let listed: Value = serde_json::from_str(&post(&tg.url, "tools/list", "", "").await).unwrap();
    let tools = listed["result"]["tools"].as_array().unwrap();
    let schema_of = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"))
            .get("outputSchema")
            .cloned()
    };
    assert_eq!(schema_of("spaced"), None);
    assert_eq!(schema_of("spaced_structured"), None);
    assert!(
        schema_of("spaced_both").is_some(),
        "a tool turns it back on"
    );

    for tool in ["spaced", "spaced_structured", "spaced_text"] {
        let (structured, texts) = call_raw(&tg.url, tool).await;
        assert_eq!(structured, None, "{tool}");
        let all = texts.join("\n");
        assert_eq!(
            all.matches("\"nested\"").count(),
            1,
            "{tool}: the body once: {texts:?}"
        );
        assert!(texts[0].starts_with(SPACED.trim_end()), "{tool}: {texts:?}");
        assert!(
            all.contains(NOTE),
            "{tool}: the note in the text: {texts:?}"
        );
    }
    let (structured, _) = call_raw(&tg.url, "spaced_both").await;
    let structured = structured.expect("structuredContent for the tool that asks for it");
    assert!(
        member("toolgate", &structured)[0].contains(NOTE),
        "{structured}"
    );
}
