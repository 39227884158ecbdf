//! The on-call console at `/ui`, over HTTP: what an upstream or a config wrote is
//! escaped on every page, lists are paginated and searchable, acknowledge and resolve
//! are recorded with who (and guarded by the admin credential and the same-origin
//! rule), and Approve re-pins a changed MCP definition so a withheld tool comes back
//! without a restart.

use serde_json::{Value, json};
use toolgate_engine::fronting::lock::{Options, lock};
use toolgate_store::{IncidentKind, NewIncident};

use crate::fronting::{
    config, pinned_description, pinned_prompt_description, recheck, start_fixture, yaml,
};
use crate::harness::{
    Toolgate, core_config, serve_config, start_toolgate, start_upstream, temp_dir,
};

const HOSTILE: &str = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn get(tg: &Toolgate, path: &str) -> (u16, String) {
    let r = client()
        .get(format!("{}{path}", tg.base))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// A form POST as the console's own page sends it.
async fn post_form(tg: &Toolgate, path: &str, body: &str) -> reqwest::Response {
    client()
        .post(format!("{}{path}", tg.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", &tg.base)
        .header("sec-fetch-site", "same-origin")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

fn incident(tool: &str, title: &str) -> NewIncident {
    NewIncident {
        kind: IncidentKind::ContractDrift,
        tool: tool.to_string(),
        dependency: "search_api".into(),
        owner: "alice@example.com".into(),
        fingerprint: format!("fp-{tool}"),
        title: title.to_string(),
        detail: json!({"summary": title, "changes": [
            {"kind": "renamed", "from": "results[].snippet", "to": format!("results[].{HOSTILE}"), "type_name": "string", "why": "same type"}
        ]}),
        contract_version: Some("3.1".into()),
    }
}

async fn core(name: &str) -> Toolgate {
    let upstream = start_upstream().await;
    let dir = temp_dir(name);
    start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_incident_text_is_escaped_on_every_page() {
    let tg = core("console-escape").await;
    let id = tg
        .gateway
        .store()
        .record_incident(incident("web_search", &format!("drift {HOSTILE}")))
        .await
        .unwrap()
        .id;
    for path in [
        "/ui".to_string(),
        "/ui/incidents".to_string(),
        format!("/ui/incidents/{id}"),
        "/ui/tools".to_string(),
        format!("/ui/incidents?q={}", "%3Cscript%3E"),
    ] {
        let (status, html) = get(&tg, &path).await;
        assert_eq!(status, 200, "{path}: {html}");
        assert!(
            !html.contains("<script>alert") && !html.contains("<img src=x"),
            "{path}: {html}"
        );
        assert!(
            !html.contains("<script>") || html.matches("<script").count() == 1,
            "{path}: only the console's own script"
        );
    }
    let (_, detail) = get(&tg, &format!("/ui/incidents/{id}")).await;
    assert!(
        detail.contains("drift &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"),
        "{detail}"
    );
    assert!(detail.contains("results[].snippet: string"), "{detail}");
    // The search box echoes the query escaped.
    let (_, list) = get(&tg, "/ui/incidents?q=%22%3E%3Cb%3E").await;
    assert!(list.contains("value=\"&quot;&gt;&lt;b&gt;\""), "{list}");
    let (status, _) = get(&tg, "/ui/incidents/999999").await;
    assert_eq!(status, 404);
    let (status, _) = get(&tg, "/ui/incidents/not-a-number").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_incidents_are_paginated_and_searchable() {
    let tg = core("console-pages").await;
    for n in 0..200 {
        tg.gateway
            .store()
            .record_incident(incident(
                &format!("tool_{n:03}"),
                &format!("drift of tool_{n:03}"),
            ))
            .await
            .unwrap();
    }
    let rows = |html: &str| html.matches("<tr data-id=\"incident-").count();
    let (_, first) = get(&tg, "/ui/incidents").await;
    assert_eq!(rows(&first), 50, "{first}");
    assert!(first.contains("page 1 of 4") && first.contains("open (200)"));
    assert!(first.contains("drift of tool_199"), "newest first");
    let (_, last) = get(&tg, "/ui/incidents?state=open&page=4").await;
    assert_eq!(rows(&last), 50);
    assert!(last.contains("drift of tool_000") && last.contains("page 4 of 4"));
    let (_, beyond) = get(&tg, "/ui/incidents?page=99").await;
    assert!(beyond.contains("page 4 of 4"), "clamped");
    let (_, found) = get(&tg, "/ui/incidents?q=TOOL_12").await;
    assert_eq!(rows(&found), 10, "tool_120..tool_129: {found}");
    let (_, resolved) = get(&tg, "/ui/incidents?state=resolved").await;
    assert_eq!(rows(&resolved), 0);
}

/// The admin API pages like the console: a client follows `Link: rel="next"` (or counts
/// pages until an empty one) and never receives the whole store at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_incident_list_is_paged_with_links_and_a_total() {
    let tg = core("admin-pages").await;
    for n in 0..250 {
        tg.gateway
            .store()
            .record_incident(incident(
                &format!("tool_{n:03}"),
                &format!("drift of tool_{n:03}"),
            ))
            .await
            .unwrap();
    }
    let fetch = |path: String| {
        let url = format!("{}{path}", tg.base);
        async move {
            let r = client().get(url).send().await.unwrap();
            let status = r.status().as_u16();
            let total = r
                .headers()
                .get("x-total-count")
                .map(|v| v.to_str().unwrap().to_string());
            let link = r
                .headers()
                .get("link")
                .map(|v| v.to_str().unwrap().to_string());
            let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap_or(Value::Null);
            (status, total, link, body)
        }
    };
    let titles = |body: &Value| -> Vec<String> {
        body.as_array()
            .unwrap()
            .iter()
            .map(|i| i["title"].as_str().unwrap().to_string())
            .collect()
    };

    // The default page is 100 incidents, newest first, with the total and the next page.
    let (status, total, link, first) = fetch("/admin/incidents".into()).await;
    assert_eq!(status, 200);
    assert_eq!(total.as_deref(), Some("250"));
    assert_eq!(first.as_array().unwrap().len(), 100);
    assert_eq!(titles(&first)[0], "drift of tool_249");
    let link = link.expect("a next page");
    assert!(
        link.contains("</admin/incidents?page=2&per_page=100>; rel=\"next\""),
        "{link}"
    );

    // Following `next` to the end visits every incident once.
    let mut seen = Vec::new();
    let mut next = Some("/admin/incidents?per_page=60".to_string());
    while let Some(path) = next.take() {
        let (_, _, link, body) = fetch(path).await;
        seen.extend(titles(&body));
        next = link.as_deref().and_then(|l| {
            l.split(", ")
                .find(|p| p.ends_with("rel=\"next\""))
                .map(|p| p[1..p.find('>').unwrap()].to_string())
        });
    }
    assert_eq!(seen.len(), 250);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 250, "no incident twice");

    // Filters travel in the links; a page past the last is empty, not the last again.
    let (_, total, link, found) =
        fetch("/admin/incidents?q=tool_1&per_page=5&status=open".into()).await;
    assert_eq!(total.as_deref(), Some("100"), "tool_100..tool_199: {found}");
    assert!(link.unwrap().contains("status=open&q=tool_1"));
    let (_, _, _, beyond) = fetch("/admin/incidents?page=99".into()).await;
    assert_eq!(beyond, json!([]));
    let (status, _, _, _) = fetch("/admin/incidents?status=closed".into()).await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledge_and_resolve_record_who_behind_the_admin_credential() {
    let upstream = start_upstream().await;
    let dir = temp_dir("console-ack");
    let yaml = core_config(upstream.addr, &dir.join("state.db")).replacen(
        "gateway:\n",
        "gateway:\n  auth_token_env: TG_TOKEN\n",
        1,
    );
    let env = |k: &str| (k == "TG_TOKEN").then(|| "s3cret-token".to_string());
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &env,
    )
    .unwrap();
    let tg = serve_config(config).await;
    let id = tg
        .gateway
        .store()
        .record_incident(incident("web_search", "drift"))
        .await
        .unwrap()
        .id;
    let http = client();
    // Without the credential: a Basic challenge, so a browser asks for it.
    let r = http.get(format!("{}/ui", tg.base)).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic realm=\"toolgate console\"")
    );
    let r = http
        .get(format!("{}/ui", tg.base))
        .basic_auth("alice", Some("wrong"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = http
        .get(format!("{}/ui/incidents/{id}", tg.base))
        .basic_auth("alice", Some("s3cret-token"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("Acknowledge"));

    let ack = format!("{}/ui/incidents/{id}/ack", tg.base);
    // A cross-site form POST, even with the credential, changes nothing.
    for (k, v) in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "http://evil.example"),
    ] {
        let r = http
            .post(&ack)
            .basic_auth("mallory", Some("s3cret-token"))
            .header(k, v)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{k}: {v}");
    }
    let r = http
        .post(&ack)
        .basic_auth("mallory", Some("s3cret-token"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        403,
        "a form POST that says nothing of where it comes from"
    );
    let r = http
        .post(&ack)
        .basic_auth("alice", Some("s3cret-token"))
        .header("origin", &tg.base)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers()["location"],
        format!("/ui/incidents/{id}").as_str()
    );
    let stored = tg.gateway.store().incident(id).await.unwrap().unwrap();
    assert_eq!(stored.acked_by.as_deref(), Some("alice"));
    assert!(stored.acked_at.is_some());
    assert_eq!(stored.status, "open");

    // The JSON API: the bearer token; the first acknowledgement stays.
    let api = |what: &str| format!("{}/admin/incidents/{id}/{what}", tg.base);
    assert_eq!(
        http.post(api("resolve")).send().await.unwrap().status(),
        401
    );
    let again: Value = http
        .post(api("ack"))
        .bearer_auth("s3cret-token")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(again["acked_by"], "alice");
    let resolved: Value = http
        .post(api("resolve"))
        .bearer_auth("s3cret-token")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(resolved["status"], "resolved", "{resolved}");
    assert_eq!(resolved["resolved_by"], "admin");
    assert!(resolved["resolved_at"].is_string());
    let missing = http
        .post(format!("{}/admin/incidents/424242/ack", tg.base))
        .bearer_auth("s3cret-token")
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let (_, page) = {
        let r = http
            .get(format!("{}/ui/incidents/{id}", tg.base))
            .basic_auth("alice", Some("s3cret-token"))
            .send()
            .await
            .unwrap();
        (r.status(), r.text().await.unwrap())
    };
    assert!(
        page.contains("by alice at ") && page.contains("by admin at "),
        "{page}"
    );
    assert!(
        !page.contains("id=\"resolve\""),
        "a resolved incident has no buttons"
    );

    // A reload through the admin API is an action too (refused here: no config file).
    let reload = http
        .post(format!("{}/admin/reload", tg.base))
        .bearer_auth("s3cret-token")
        .send()
        .await
        .unwrap();
    assert_eq!(reload.status(), 422);
    // Every action is in the audit trail, with who: the second acknowledgement changed
    // nothing and is not there.
    let log = tg.gateway.audit().cloned().expect("audit is on");
    assert!(log.flush(std::time::Duration::from_secs(10)).await);
    let records = tg
        .gateway
        .store()
        .audit(toolgate_store::AuditQuery {
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    let actions: Vec<(&str, &str, &str, Option<i64>)> = records
        .iter()
        .rev()
        .map(|r| {
            (
                r.agent.as_str(),
                r.outcome.as_str(),
                r.tool.as_str(),
                r.incident_id,
            )
        })
        .collect();
    assert_eq!(
        actions,
        vec![
            ("alice", "acknowledged", "web_search", Some(id)),
            ("admin", "resolved", "web_search", Some(id)),
            ("admin", "reload_rejected", "config", None),
        ]
    );
    assert!(
        records
            .iter()
            .all(|r| r.attempts == 0 && r.args_sha256.len() == 64)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incident_page_names_the_agents_that_hit_it_and_its_webhook_deliveries() {
    let tg = core("console-activity").await;
    let store = tg.gateway.store();
    let id = store
        .record_sightings_by(
            incident("web_search", "drift"),
            4,
            vec![("reporting-bot".into(), 3), ("<b>bot</b>".into(), 1)],
            2,
        )
        .await
        .unwrap()
        .id;
    store
        .record_delivery(
            id,
            "opened",
            "https://hooks.example/services/…".into(),
            1,
            None,
        )
        .await
        .unwrap();
    store
        .record_delivery(
            id,
            "updated",
            "https://hooks.example/services/…".into(),
            3,
            Some("HTTP 503".into()),
        )
        .await
        .unwrap();
    let (status, html) = get(&tg, &format!("/ui/incidents/{id}")).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("reporting-bot (3), &lt;b&gt;bot&lt;/b&gt; (1), 2 sightings by other agents"),
        "{html}"
    );
    assert_eq!(html.matches("<tr data-delivery=").count(), 2, "{html}");
    assert!(html.contains("dead letter</span>: HTTP 503"), "{html}");
    let (_, list) = get(&tg, "/admin/incidents").await;
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(
        list[0]["agents"][0],
        json!({"agent": "reporting-bot", "sightings": 3})
    );
    assert_eq!(list[0]["agents_unlisted"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resolving_by_hand_lets_the_same_breakage_open_a_new_incident() {
    let tg = core("console-reopen").await;
    tg.gateway
        .incidents()
        .raise(incident("web_search", "drift"));
    let open = tg.incidents(false).await;
    assert_eq!(open.len(), 1);
    let r = post_form(&tg, &format!("/ui/incidents/{}/resolve", open[0].id), "").await;
    assert_eq!(r.status(), 303);
    assert!(tg.incidents(false).await.is_empty());
    // Still broken: the next sighting is a new incident, not a count on the resolved one.
    tg.gateway
        .incidents()
        .raise(incident("web_search", "drift"));
    let all = tg.incidents(true).await;
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0].status, "open");
    assert_eq!(all[1].resolved_by.as_deref(), Some("admin"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approving_a_changed_definition_repins_and_serves_the_withheld_tool() {
    let dir = temp_dir("console-approve");
    let (url, fixture) = start_fixture().await;
    const ENTITY: &str = "memory://entities/{name}";
    fixture.templates.lock().unwrap().push(json!({
        "uriTemplate": ENTITY, "name": "entity", "description": "One entity."
    }));
    let yaml = yaml(&dir, &[("memory", &url, "    on_change: block\n")]);
    lock(&config(&yaml), &Options::default()).await.unwrap();
    let tg = start_toolgate(&yaml).await;
    let changed = format!("Create entities. {HOSTILE}");
    fixture.describe("create_entities", &changed);
    recheck(&tg, "memory").await;
    assert!(
        tg.gateway.route("memory__create_entities").is_none(),
        "withheld under on_change: block"
    );

    let (status, html) = get(&tg, "/ui/definitions").await;
    assert_eq!(status, 200);
    assert!(
        !html.contains("<script>alert") && !html.contains("<img src=x"),
        "{html}"
    );
    assert!(
        html.contains("Create entities. &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
        "the live text, escaped: {html}"
    );
    assert!(html.contains("Approve (re-pin create_entities)"), "{html}");

    let r = post_form(
        &tg,
        "/ui/definitions/approve",
        "server=memory&tool=create_entities",
    )
    .await;
    assert_eq!(r.status(), 303, "{:?}", r.text().await);
    assert_eq!(
        pinned_description(&dir, "memory", "create_entities").as_deref(),
        Some(changed.as_str()),
        "re-pinned as `toolgate lock --server memory --tool create_entities` would"
    );
    assert!(
        tg.gateway.route("memory__create_entities").is_some(),
        "served again, without a restart"
    );
    let (_, after) = get(&tg, "/ui/definitions").await;
    assert!(after.contains("No pending changes"), "{after}");
    // A prompt named like a tool, both changed: approving the prompt's change (the
    // form names its kind) leaves the tool's pending, and the tool withheld.
    fixture.prompts.lock().unwrap().push(json!({
        "name": "read_graph", "description": "Summarise the graph."
    }));
    lock(&config(&yaml), &Options::default()).await.unwrap();
    recheck(&tg, "memory").await;
    fixture.describe("read_graph", &format!("Read it. {HOSTILE}"));
    fixture.describe_prompt("read_graph", "Summarise the graph, briefly.");
    recheck(&tg, "memory").await;
    let (_, html) = get(&tg, "/ui/definitions").await;
    assert!(
        html.contains("name=\"kind\" value=\"prompt\"")
            && html.contains("name=\"kind\" value=\"tool\""),
        "{html}"
    );
    let r = post_form(
        &tg,
        "/ui/definitions/approve",
        "server=memory&tool=read_graph&kind=resource",
    )
    .await;
    assert_eq!(r.status(), 400, "an unknown kind approves nothing");
    let r = post_form(
        &tg,
        "/ui/definitions/approve",
        "server=memory&tool=read_graph&kind=prompt",
    )
    .await;
    assert_eq!(r.status(), 303, "{:?}", r.text().await);
    assert_eq!(
        pinned_prompt_description(&dir, "memory", "read_graph").as_deref(),
        Some("Summarise the graph, briefly.")
    );
    assert_eq!(
        pinned_description(&dir, "memory", "read_graph").as_deref(),
        Some("Read the whole knowledge graph."),
        "the tool's change was not approved with the prompt's"
    );
    assert!(
        tg.gateway.route("memory__read_graph").is_none(),
        "the tool stays withheld"
    );
    // A resource template's change, approved by its URI template and its kind.
    let template = format!("One entity. {HOSTILE}");
    fixture.templates.lock().unwrap()[0]["description"] = json!(template);
    recheck(&tg, "memory").await;
    let (_, html) = get(&tg, "/ui/definitions").await;
    assert!(
        html.contains("name=\"kind\" value=\"resource_template\""),
        "{html}"
    );
    let r = post_form(
        &tg,
        "/ui/definitions/approve",
        "server=memory&tool=memory%3A%2F%2Fentities%2F%7Bname%7D&kind=resource_template",
    )
    .await;
    assert_eq!(r.status(), 303, "{:?}", r.text().await);
    let pins = toolgate_contract::Lockfile::read(&dir.join("toolgate.lock.json"))
        .unwrap()
        .unwrap();
    assert_eq!(
        pins.servers["memory"].resource_templates[0]
            .description
            .as_deref(),
        Some(template.as_str()),
        "re-pinned as `toolgate lock --resource-template` would"
    );
    let r = post_form(&tg, "/ui/definitions/approve", "server=nope&tool=x").await;
    assert_eq!(r.status(), 400);
    // The approval is in the audit trail, who and what; the refused one is not.
    let log = tg.gateway.audit().cloned().expect("audit is on");
    assert!(log.flush(std::time::Duration::from_secs(10)).await);
    let approved = tg
        .gateway
        .store()
        .audit(toolgate_store::AuditQuery {
            outcome: Some("approved".into()),
            limit: 10,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(approved.len(), 3, "{approved:?}");
    let mut targets: Vec<(&str, &str)> = approved
        .iter()
        .map(|a| (a.agent.as_str(), a.tool.as_str()))
        .collect();
    targets.sort();
    assert_eq!(
        targets,
        [
            ("admin", "memory/create_entities"),
            (
                "admin",
                "memory/memory://entities/{name} (resource template)"
            ),
            ("admin", "memory/read_graph (prompt)")
        ]
    );
}

/// Reads the event stream until `what` arrived (true) or the stream ended (false).
async fn read_until(stream: &mut reqwest::Response, seen: &mut String, what: &str) -> bool {
    while !seen.contains(what) {
        match stream.chunk().await.unwrap() {
            Some(bytes) => seen.push_str(&String::from_utf8_lossy(&bytes)),
            None => return false,
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_says_when_an_incident_opens_and_ends_at_shutdown() {
    let tg = core("console-events").await;
    let mut stream = reqwest::get(format!("{}/ui/events", tg.base))
        .await
        .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let mut seen = String::new();
    assert!(read_until(&mut stream, &mut seen, "event: ready").await);
    tg.gateway
        .incidents()
        .raise(incident("web_search", "drift"));
    assert!(read_until(&mut stream, &mut seen, "event: incidents").await);
    assert!(seen.contains("\"open\":1"), "{seen}");
    // Shutdown ends the stream (a console tab does not hold up the drain).
    drop(tg);
    while stream.chunk().await.unwrap().is_some() {}
}
