//! `toolgate serve --demo`: a demo upstream on loopback and a config pointing at it.

mod upstream;

pub use upstream::{DemoState, router};

/// The demo config, with the demo upstream at `base_url`.
pub fn config_yaml(base_url: &str, listen: &str) -> String {
    format!(
        r#"# The built-in demo (toolgate serve --demo).
gateway:
  listen: {listen}
  state: .toolgate/demo.db
dependencies:
  demo_api:
    base_url: {base_url}
    timeout: 5s
    retry: {{ max_attempts: 3, base_delay: 50ms, max_delay: 1s }}
tools:
  web_search:
    dependency: demo_api
    owner: search-team@example.com
    description: Search the web. Returns results with a title, url and snippet.
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}", limit: "{{limit}}" }} }}
    annotations: {{ readOnlyHint: true, idempotentHint: true }}
    input_schema:
      type: object
      required: [query]
      properties:
        query: {{ type: string, description: What to search for. }}
        limit: {{ type: integer, minimum: 1, maximum: 10 }}
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          query: {{ type: string }}
          total: {{ type: integer }}
          results:
            type: array
            items:
              type: object
              required: [title, url, snippet]
              properties:
                title: {{ type: string }}
                url: {{ type: string }}
                snippet: {{ type: string }}
                score: {{ type: number }}
    probe: {{ every: 1h, arguments: {{ query: contract probe, limit: 1 }} }}
  flaky_status:
    dependency: demo_api
    owner: platform@example.com
    description: Reports service status. The demo upstream fails every other call with 503, which toolgate retries.
    request: {{ method: GET, path: /flaky }}
    annotations: {{ readOnlyHint: true }}
    contract:
      version: "1.0"
      response_schema:
        type: object
        required: [status]
        properties: {{ status: {{ type: string }}, call: {{ type: integer }} }}
  demo_control:
    dependency: demo_api
    owner: demo@example.com
    description: "Demo only: switch the demo upstream's behaviour. search_field=excerpt renames the search API's snippet field (contract drift); snippet switches it back."
    request: {{ method: POST, path: /control, body: {{ search_field: "{{search_field}}" }} }}
    input_schema:
      type: object
      properties:
        search_field: {{ type: string, enum: [snippet, excerpt] }}
    contract:
      version: "1.0"
      response_schema: {{ type: object, required: [search_field], properties: {{ search_field: {{ type: string }} }} }}
"#
    )
}
