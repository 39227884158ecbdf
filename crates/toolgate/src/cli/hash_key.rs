//! `toolgate hash-key`: the SHA-256 an agent's API key is stored as in the config
//! (`agents.<name>.api_key_sha256`), of a key read from stdin or newly generated.

use std::process::ExitCode;

pub(super) fn hash_key(generate: bool) -> anyhow::Result<ExitCode> {
    if generate {
        let key = toolgate_auth::generate_key().map_err(anyhow::Error::msg)?;
        say!("key:            {key}");
        say!(
            "api_key_sha256: {}",
            toolgate_auth::sha256_hex(key.as_bytes())
        );
    } else {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        let key = line.trim_end_matches(['\r', '\n']);
        anyhow::ensure!(!key.is_empty(), "no key on stdin (or use --generate)");
        say!("{}", toolgate_auth::sha256_hex(key.as_bytes()));
    }
    Ok(ExitCode::SUCCESS)
}
