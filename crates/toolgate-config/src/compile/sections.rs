//! Reading the document's top level: each section, and each entry of a section, is
//! deserialized on its own, so one broken entry is one error and hides nothing else.

use std::collections::{BTreeMap, BTreeSet};

use super::{Compiler, known};
use crate::raw::*;

/// The raw sections, and every name written under `dependencies:`, `mcp_servers:` and
/// `tools:` whether or not its entry deserialized.
#[derive(Default)]
pub(super) struct Sections {
    pub gateway: Option<RawGateway>,
    pub alerts: Option<RawAlerts>,
    pub telemetry: Option<RawTelemetry>,
    pub dependencies: BTreeMap<String, RawDependency>,
    pub tools: BTreeMap<String, RawTool>,
    pub mcp_servers: BTreeMap<String, RawMcpServer>,
    pub agents: BTreeMap<String, RawAgent>,
    pub schemas: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
    pub defined: Defined,
}

/// The names written under `dependencies:` and `tools:`, whether or not their entry
/// compiled: a reference to an entry that has its own error is not a second error.
#[derive(Default)]
pub(super) struct Defined {
    pub dependencies: BTreeSet<String>,
    pub tools: BTreeSet<String>,
}

impl Compiler<'_> {
    /// A section of named entries (`tools:`, `dependencies:`, …), by name. A mapping
    /// with text keys, as every valid section is, is taken apart where it lies: read
    /// as a copy, a section of large schemas would be held twice for the whole read.
    fn named_entries(
        &mut self,
        key: &str,
        value: yaml_serde::Value,
    ) -> Option<BTreeMap<String, yaml_serde::Value>> {
        match value {
            yaml_serde::Value::Mapping(map) if map.keys().all(yaml_serde::Value::is_string) => {
                Some(
                    map.into_iter()
                        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v)))
                        .collect(),
                )
            }
            other => self.entry(key, "", other),
        }
    }

    /// The top-level mapping's sections; an unknown one is an error naming the nearest.
    pub(super) fn sections(&mut self, top: yaml_serde::Mapping) -> Sections {
        let mut s = Sections::default();
        for (key, value) in top {
            let Some(key) = key.as_str().map(str::to_string) else {
                self.err("", "top-level keys must be strings", "");
                continue;
            };
            match key.as_str() {
                "gateway" => {
                    s.gateway = self.entry::<RawGateway>("gateway", "/properties/gateway", value)
                }
                "alerts" => {
                    s.alerts = self.entry::<RawAlerts>("alerts", "/properties/alerts", value)
                }
                "telemetry" => {
                    s.telemetry =
                        self.entry::<RawTelemetry>("telemetry", "/properties/telemetry", value)
                }
                "agents" => {
                    let Some(map) = self.named_entries(&key, value) else {
                        continue;
                    };
                    for (name, v) in map {
                        let path = format!("agents.{name}");
                        let schema = "/properties/agents/additionalProperties";
                        if let Some(a) = self.entry::<RawAgent>(&path, schema, v) {
                            s.agents.insert(name, a);
                        }
                    }
                }
                "mcp_servers" => {
                    let Some(map) = self.named_entries(&key, value) else {
                        continue;
                    };
                    for (name, v) in map {
                        let path = format!("mcp_servers.{name}");
                        s.defined.dependencies.insert(name.clone());
                        let schema = "/properties/mcp_servers/additionalProperties";
                        if let Some(server) = self.entry::<RawMcpServer>(&path, schema, v) {
                            s.mcp_servers.insert(name, server);
                        }
                    }
                }
                "schemas" => {
                    if let Some(sets) = self.entry("schemas", "", value) {
                        s.schemas = sets;
                    }
                }
                "dependencies" | "tools" => {
                    let Some(map) = self.named_entries(&key, value) else {
                        continue;
                    };
                    let schema = format!("/properties/{key}/additionalProperties");
                    for (name, v) in map {
                        let path = format!("{key}.{name}");
                        if key == "tools" {
                            s.defined.tools.insert(name.clone());
                            if let Some(t) = self.entry::<RawTool>(&path, &schema, v) {
                                s.tools.insert(name, t);
                            }
                        } else {
                            s.defined.dependencies.insert(name.clone());
                            if let Some(d) = self.entry::<RawDependency>(&path, &schema, v) {
                                s.dependencies.insert(name, d);
                            }
                        }
                    }
                }
                other => {
                    const SECTIONS: [&str; 8] = [
                        "gateway",
                        "schemas",
                        "agents",
                        "alerts",
                        "dependencies",
                        "tools",
                        "mcp_servers",
                        "telemetry",
                    ];
                    let help = match known::did_you_mean(other, SECTIONS) {
                        Some(best) => format!("did you mean `{best}`?"),
                        None => {
                            "the sections are gateway, alerts, dependencies, schemas, tools, mcp_servers, telemetry and agents"
                                .into()
                        }
                    };
                    self.err(other, format!("unknown top-level section `{other}`"), &help)
                }
            }
        }
        s
    }
}
