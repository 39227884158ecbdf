//! `/ui/definitions`: the pinned tool definitions of each upstream MCP server, and the
//! changes pending against them as `toolgate lock --dry-run` shows them (the server is
//! listed now), each with an Approve button that re-pins that tool exactly as
//! `toolgate lock --server S --tool T` does. The running gateway takes the new pin at
//! once: a tool withheld under `on_change: block` is served again, without a restart.
//! Upstream text is shown here to people on purpose, escaped.

use std::fmt::Write as _;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use serde_json::json;

use super::diff;
use super::layout::{ConsoleUser, cross_site, error, esc, page, who};
use toolgate_contract::DefinitionKind;
use toolgate_engine::fronting::lock::{Pick, approve as approve_change, pending};

/// `GET /ui/definitions`.
pub async fn show(super::Serving(gateway): super::Serving) -> Response {
    let fronting = gateway.fronting();
    let mut out = String::from("<h1>Definitions</h1>");
    if fronting.is_empty() {
        out.push_str("<p class=\"muted\">No upstream MCP servers are configured (<code>mcp_servers:</code>).</p>");
        return page("Definitions", "/ui/definitions", "", &out);
    }
    let report = match pending(fronting).await {
        Ok(r) => r,
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, &e.to_string()),
    };
    for locked in &report {
        let server = esc(&locked.server);
        let _ = write!(
            out,
            "<section data-id=\"server-{server}\"><h2>{server}</h2><p class=\"muted\">lockfile <code>{}</code></p>",
            esc(&locked.path.display().to_string())
        );
        if let Err(e) = &locked.result {
            let _ = write!(
                out,
                "<p class=\"s-bad\">Could not be listed: {}. Its pins stay in force.</p>",
                esc(e)
            );
        } else if locked.first {
            let _ = write!(
                out,
                "<p class=\"notice\">Never locked: the definitions it serves now are pinned in memory only.</p>\
                 <form method=\"post\" action=\"/ui/definitions/approve\"><input type=\"hidden\" name=\"server\" value=\"{server}\">\
                 <button type=\"submit\" class=\"primary\">Pin all {n} definitions</button></form>",
                n = locked.result.as_ref().map_or(0, |n| *n)
                    + locked.prompts
                    + locked.resource_templates
            );
        } else if locked.changes.is_empty() {
            out.push_str(
                "<p class=\"s-ok\">No pending changes: the live definitions match the pins.</p>",
            );
        }
        if !locked.first {
            for change in &locked.changes {
                let tool = esc(change.tool());
                let _ = write!(
                    out,
                    "<div class=\"change\" data-id=\"change-{server}-{tool}\"><h3><code>{tool}</code> {kind}{breaking}</h3>{diff}\
                     <form method=\"post\" action=\"/ui/definitions/approve\" class=\"actions\">\
                     <input type=\"hidden\" name=\"server\" value=\"{server}\"><input type=\"hidden\" name=\"tool\" value=\"{tool}\"><input type=\"hidden\" name=\"kind\" value=\"{kind_field}\">\
                     <button type=\"submit\" class=\"primary\">Approve (re-pin {tool})</button></form></div>",
                    kind = esc(change.kind()),
                    kind_field = change.definition_kind().key(),
                    breaking = change.label().map_or(String::new(), |label| format!(
                        " <span class=\"badge s-bad\">{}</span>",
                        esc(&label)
                    )),
                    diff = diff::render(
                        &json!({ "summary": change.summary(), "changes": [change.to_json()] })
                    ),
                );
            }
        }
        out.push_str(&pinned(&locked.path, &locked.server));
        out.push_str("</section>");
    }
    page("Definitions", "/ui/definitions", "", &out)
}

/// The pinned definitions of `server`, from its lockfile.
fn pinned(path: &std::path::Path, server: &str) -> String {
    let Ok(Some(file)) = toolgate_contract::Lockfile::read(path) else {
        return String::new();
    };
    let Some(pins) = file.server(server) else {
        return String::new();
    };
    let mut out = format!(
        "<details><summary>{} pinned definitions (locked {})</summary><table><thead><tr><th>Definition</th><th>Description</th></tr></thead><tbody>",
        pins.tools.len() + pins.prompts.len() + pins.resource_templates.len(),
        esc(&pins.locked_at)
    );
    let tools = pins
        .tools
        .iter()
        .map(|t| (t.name.as_str(), "", t.description.as_deref()));
    let prompts = pins.prompts.iter().map(|p| {
        (
            p.name.as_str(),
            " <span class=\"badge\">prompt</span>",
            p.description.as_deref(),
        )
    });
    let templates = pins.resource_templates.iter().map(|t| {
        (
            t.uri_template.as_str(),
            " <span class=\"badge\">resource template</span>",
            t.description.as_deref(),
        )
    });
    for (name, badge, description) in tools.chain(prompts).chain(templates) {
        let _ = write!(
            out,
            "<tr><td><code>{}</code>{badge}</td><td>{}</td></tr>",
            esc(name),
            esc(description.unwrap_or(""))
        );
    }
    out.push_str("</tbody></table></details>");
    out
}

/// The Approve form.
#[derive(Debug, serde::Deserialize)]
pub struct Approve {
    /// The server.
    pub server: String,
    /// The tool or prompt (upstream or exposed name) or resource template (its URI
    /// template); every pending change when absent.
    pub tool: Option<String>,
    /// `prompt` or `resource_template` when `tool` names one; a tool otherwise. A prompt
    /// may share a tool's name, and approving one must not approve the other.
    pub kind: Option<String>,
}

/// `POST /ui/definitions/approve`: re-pins, then shows the page again.
pub async fn approve(
    super::Serving(gateway): super::Serving,
    headers: HeaderMap,
    identity: Option<Extension<toolgate_auth::Identity>>,
    user: Option<Extension<ConsoleUser>>,
    Form(form): Form<Approve>,
) -> Response {
    if let Some(refused) = cross_site(&headers, true) {
        return refused;
    }
    let who = who(identity.as_deref(), user.as_deref());
    let pick = match (
        form.tool.as_deref().filter(|t| !t.is_empty()),
        form.kind.as_deref(),
    ) {
        (None, _) => None,
        (Some(t), None) => Some(Pick::tool(t)),
        (Some(name), Some(kind)) => match DefinitionKind::from_key(kind) {
            Some(kind) => Some(Pick { kind, name }),
            None => {
                return error(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "`kind` must be `tool`, `prompt` or `resource_template`, not `{kind}`; nothing was approved"
                    ),
                );
            }
        },
    };
    match approve_change(gateway.fronting(), gateway.as_ref(), &form.server, pick).await {
        Ok(locked) => {
            tracing::info!(server = %form.server, ?pick, %who, changes = locked.changes.len(), "definition change approved in the console");
            let target = match pick {
                Some(Pick {
                    kind: DefinitionKind::Tool,
                    name,
                }) => format!("{}/{name}", form.server),
                Some(Pick { kind, name }) => format!("{}/{name} ({})", form.server, kind.noun()),
                None => form.server.clone(),
            };
            toolgate_engine::audit::action::log(
                gateway.audit(),
                &who,
                toolgate_engine::audit::action::Action::Approve,
                &target,
                None,
            );
            (
                StatusCode::SEE_OTHER,
                [(header::LOCATION, "/ui/definitions")],
            )
                .into_response()
        }
        Err(e) => error(StatusCode::BAD_REQUEST, &format!("{e:#}")),
    }
}
