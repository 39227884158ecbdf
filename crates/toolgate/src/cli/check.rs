//! `toolgate check`: validates a config the way `serve` would load it, and says what
//! each MCP server has pinned.

use std::path::Path;
use std::process::ExitCode;

use toolgate_config as config;

pub(super) fn check(path: &Path) -> ExitCode {
    match config::load(path) {
        Ok(c) if !crate::build::missing(&c).is_empty() => {
            for missing in crate::build::missing(&c) {
                eprintln!("error: {missing}");
            }
            ExitCode::FAILURE
        }
        Ok(c) => {
            let apis = c.dependencies.len() - c.mcp_servers.len();
            let servers = if c.mcp_servers.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} MCP server{}",
                    c.mcp_servers.len(),
                    if c.mcp_servers.len() == 1 { "" } else { "s" }
                )
            };
            say!(
                "{}: ok — {} dependenc{}, {} tool{}{servers}",
                path.display(),
                apis,
                if apis == 1 { "y" } else { "ies" },
                c.tools.len(),
                if c.tools.len() == 1 { "" } else { "s" }
            );
            let mut ok = true;
            for (name, server) in &c.mcp_servers {
                match toolgate_contract::Lockfile::read(&server.lock) {
                    Ok(Some(ref l)) if let Some(p) = l.server(name) => say!(
                        "  MCP server {name}: {} pinned in {}",
                        super::lock::counted(
                            p.tools.len(),
                            p.prompts.len(),
                            p.resource_templates.len()
                        ),
                        server.lock.display()
                    ),
                    Ok(_) => say!(
                        "  MCP server {name}: no pins in {} yet — `toolgate serve` pins what it first sees; run `toolgate lock -c {}` to pin them now",
                        server.lock.display(),
                        path.display()
                    ),
                    Err(e) => {
                        eprintln!("error: MCP server {name}: {e}");
                        ok = false;
                    }
                }
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(errors) => {
            eprintln!("{errors}");
            ExitCode::FAILURE
        }
    }
}
