//! A real `redis-server` for tests: on a free loopback port, in a temp dir, with no
//! persistence; killable and restartable on the same port. Used by the unit tests of
//! the shared state and (through `#[path]`) by the fleet e2e test.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running (or killed) redis-server.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts one on a free port; panics (failing the test) when the binary is missing.
    pub fn start() -> RedisServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        let dir =
            std::env::temp_dir().join(format!("toolgate-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir for redis-server");
        let mut server = RedisServer {
            port,
            dir,
            child: None,
        };
        server.restart();
        server
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server (SIGKILL: a crash, not a shutdown) and waits for it to exit.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// (Re)starts the server on the same port and waits until it answers PING.
    pub fn restart(&mut self) {
        self.kill();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .current_dir(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run redis-server ({e}): install the Debian package redis-server \
                     (apt-get install -y redis-server)"
                )
            });
        self.child = Some(child);
        // About 20 s of tries, however slow the machine.
        for _ in 0..1000 {
            if self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not answer PING on port {}", self.port);
    }

    fn ping(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
        if s.write_all(b"PING\r\n").is_err() {
            return false;
        }
        let mut buf = [0u8; 7];
        s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
    }

    /// Runs one command (inline protocol) and returns the raw reply, for assertions.
    pub fn command(&self, line: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to redis");
        let _ = s.set_read_timeout(Some(Duration::from_millis(300)));
        s.write_all(format!("{line}\r\n").as_bytes())
            .expect("write to redis");
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
            if out.ends_with(b"\r\n") {
                break;
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
