//! HTTPS upstreams through the TLS stack toolgate ships (rustls with ring): a dependency
//! whose certificate chains to a trusted root answers; one whose root is not trusted is
//! refused before any request is sent. The certificates are made here with the
//! `openssl` command line; the trusted roots come from `SSL_CERT_FILE`, as on any host.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::check::Serving;
use crate::harness::{Era, call, rmcp_client, temp_dir, text};

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the `openssl` command line is needed (Debian package openssl; scripts/test installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A root `ca` (ca.pem) and, signed by it, a server certificate for 127.0.0.1
/// (server.pem, server.key); and an unrelated root (other.pem).
fn certificates(dir: &Path) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    for (name, subject) in [
        ("ca", "/CN=toolgate test root"),
        ("other", "/CN=another root"),
    ] {
        let (key, pem) = (format!("{name}.key"), format!("{name}.pem"));
        let mut args = vec!["req", "-x509"];
        args.extend(ec);
        args.extend([
            "-keyout", &key, "-out", &pem, "-days", "2", "-subj", subject,
        ]);
        openssl(dir, &args);
    }
    let mut args = vec!["req"];
    args.extend(ec);
    args.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    openssl(dir, &args);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    );
}

/// An HTTPS server on loopback answering every request with `{"greeting":"hello"}`;
/// counts the requests that got through the handshake.
async fn https_upstream(dir: &Path) -> (String, Arc<AtomicUsize>) {
    let certs = CertificateDer::pem_file_iter(dir.join("server.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, count) = (acceptor.clone(), count.clone());
            tokio::spawn(async move {
                // A client that refuses the certificate ends here.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                count.fetch_add(1, Ordering::SeqCst);
                let body = r#"{"greeting":"hello"}"#;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(response.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (format!("https://127.0.0.1:{port}"), served)
}

/// `toolgate serve` with `roots` as the trusted certificates; returns it and its MCP URL.
fn serve(dir: &Path, base_url: &str, roots: &str) -> (Serving, String) {
    let config = format!(
        r#"gateway:
  listen: 127.0.0.1:0
  state: {state}
dependencies:
  secure_api:
    base_url: {base_url}
    timeout: 10s
    retry: {{ max_attempts: 1 }}
tools:
  hello:
    dependency: secure_api
    owner: api-team@example.com
    request: {{ path: /hello }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [greeting], properties: {{ greeting: {{ type: string }} }} }} }}
"#,
        state = dir.join(format!("{roots}.db")).display()
    );
    let file = dir.join(format!("{roots}.yaml"));
    std::fs::write(&file, config).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    cmd.args(["--log-format", "json", "serve", "--config"])
        .arg(&file)
        .env("SSL_CERT_FILE", dir.join(roots))
        .env_remove("SSL_CERT_DIR")
        .env_remove("TOOLGATE_CONFIG");
    let mut serving = Serving::start(cmd);
    let line = serving.wait_for("toolgate is serving");
    let log: serde_json::Value = serde_json::from_str(&line).unwrap();
    let url = log["fields"]["mcp"].as_str().unwrap().to_string();
    (serving, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_upstream_answers_when_its_root_is_trusted_and_is_refused_when_not() {
    let dir = temp_dir("tls");
    certificates(&dir);
    let (base_url, served) = https_upstream(&dir).await;

    let (_trusting, url) = serve(&dir, &base_url, "ca.pem");
    let client = rmcp_client(&url, Era::Stateless).await;
    let ok = call(&client, "hello", json!({})).await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    assert!(text(&ok).contains("hello"), "{}", text(&ok));
    assert_eq!(served.load(Ordering::SeqCst), 1);

    let (_distrusting, url) = serve(&dir, &base_url, "other.pem");
    let client = rmcp_client(&url, Era::Stateless).await;
    let refused = call(&client, "hello", json!({})).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert_eq!(
        served.load(Ordering::SeqCst),
        1,
        "no request may reach a server whose certificate was refused"
    );
}
