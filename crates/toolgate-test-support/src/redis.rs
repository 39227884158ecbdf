//! A real `redis-server` for tests: on a free loopback port, in a temp dir, with no
//! persistence; killable and restartable on the same port. Used by the unit tests of
//! the fleet state and by the fleet e2e test.

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
    password: Option<String>,
}

impl RedisServer {
    /// Starts one on a free port; panics (failing the test) when the binary is missing.
    pub fn start() -> RedisServer {
        RedisServer::start_with(None)
    }

    /// Starts one that requires `password` (`--requirepass`).
    pub fn start_with_password(password: &str) -> RedisServer {
        RedisServer::start_with(Some(password.to_string()))
    }

    fn start_with(password: Option<String>) -> RedisServer {
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
            password,
        };
        server.restart();
        server
    }

    /// `redis://127.0.0.1:PORT/`, with the password if there is one.
    pub fn url(&self) -> String {
        match &self.password {
            Some(p) => format!("redis://:{p}@127.0.0.1:{}/", self.port),
            None => format!("redis://127.0.0.1:{}/", self.port),
        }
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
        let mut command = Command::new("redis-server");
        command.args(["--port", &self.port.to_string()]).args([
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]);
        if let Some(p) = &self.password {
            command.args(["--requirepass", p]);
        }
        let child = command
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
        self.connect()
            .and_then(|mut s| {
                s.write_all(b"PING\r\n").ok()?;
                let mut buf = [0u8; 7];
                s.read_exact(&mut buf).ok()?;
                (&buf == b"+PONG\r\n").then_some(())
            })
            .is_some()
    }

    /// A connection, authenticated when the server has a password.
    fn connect(&self) -> Option<TcpStream> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(1))).ok()?;
        if let Some(p) = &self.password {
            s.write_all(format!("AUTH {p}\r\n").as_bytes()).ok()?;
            let mut buf = [0u8; 5];
            s.read_exact(&mut buf).ok()?;
            if &buf != b"+OK\r\n" {
                return None;
            }
        }
        Some(s)
    }

    /// Runs one command (inline protocol) and returns the raw reply, for assertions.
    pub fn command(&self, line: &str) -> String {
        let mut s = self.connect().expect("connect to redis");
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
