# Sourced by bench/run and bench/instructions: the upstream's reply, the response
# contract it is checked against and the tool's input schema, the same in every row.

# A realistic web-search response: 20 results with title/url/snippet/score/published/tags/source.
gen_results() { # count
  local n=$1 i sep=""
  printf '{"query":"rust tool gateway","total":%d,"next_cursor":"eyJvZmZzZXQiOjIwLCJxIjoicnVzdCB0b29sIGdhdGV3YXkifQ","results":[' "$n"
  for ((i = 1; i <= n; i++)); do
    printf '%s{"title":"Result %d: building reliable tool gateways for AI agents in Rust, part %d","url":"https://docs.example.com/articles/%d/building-reliable-tool-gateways-for-ai-agents-in-rust","snippet":"Result %d. A tool gateway validates every upstream response against a versioned contract, classifies failures by whether a retry can help, and tells the model in one sentence what happened and what to do instead of retrying blindly.","score":0.%04d,"published":"2026-%02d-%02dT12:00:00Z","tags":["rust","mcp","gateway","contracts","reliability"],"source":{"name":"Example Docs","domain":"docs.example.com","rank":%d}}' \
      "$sep" "$i" "$i" "$i" "$i" $(((n - i + 1) * 9999 / n)) $((i % 12 + 1)) $((i % 28 + 1)) "$i"
    sep=","
  done
  printf ']}'
}

# The response contract (same as crates/toolgate-contract/fixtures/search_schema.json).
SCHEMA='{"type":"object","required":["query","results","total"],"properties":{"query":{"type":"string"},"total":{"type":"integer","minimum":0},"next_cursor":{"type":["string","null"]},"results":{"type":"array","items":{"$ref":"#/$defs/result"}}},"$defs":{"result":{"type":"object","required":["title","url","snippet","score"],"properties":{"title":{"type":"string"},"url":{"type":"string"},"snippet":{"type":"string"},"score":{"type":"number","minimum":0,"maximum":1},"published":{"type":["string","null"]},"tags":{"type":"array","items":{"type":"string"}},"source":{"$ref":"#/$defs/source"}}},"source":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"domain":{"type":"string"},"rank":{"type":"integer"}}}}}'
INPUT='{"type":"object","required":["query"],"properties":{"query":{"type":"string","description":"What to search for."}}}'
