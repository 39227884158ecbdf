//! A throwaway PostgreSQL server for tests: `initdb` in a temporary directory, started
//! with `pg_ctl` on a free loopback port, stopped and removed on drop. As root, the
//! server runs as the `postgres` user (PostgreSQL refuses to run as root).
//!
//! `TOOLGATE_TEST_POSTGRES=postgres://…` points the tests at an existing server instead;
//! each [`TestPostgres`] then gets a database of its own there.
//!
//! Used by the store's and the engine's unit tests and by the e2e tests.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// A running server (or a database on an existing one).
#[derive(Debug)]
pub struct TestPostgres {
    /// `postgres://…` for the test's own database.
    pub url: String,
    local: Option<Local>,
    external: Option<(String, String)>,
}

#[derive(Debug)]
struct Local {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
    /// The server options it was started with (port, socket directory, …).
    options: String,
}

static N: AtomicU64 = AtomicU64::new(0);

impl TestPostgres {
    /// A server for one test: the one `TOOLGATE_TEST_POSTGRES` names, else a local one.
    pub fn start() -> TestPostgres {
        match std::env::var("TOOLGATE_TEST_POSTGRES") {
            Ok(url) if !url.is_empty() => TestPostgres::external(&url),
            _ => TestPostgres::start_local(),
        }
    }

    /// Always a local server of this test's own (for tests that restart it).
    pub fn start_local() -> TestPostgres {
        let bin = find_bin().unwrap_or_else(|| {
            panic!(
                "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: \
                 install the Debian package `postgresql` (apt-get install -y postgresql), or set \
                 TOOLGATE_TEST_POSTGRES=postgres://… to an existing server"
            )
        });
        let as_postgres = is_root();
        let dir = std::env::temp_dir().join(format!(
            "toolgate-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if as_postgres {
            run(Command::new("chown").arg("postgres:").arg(&dir), "chown");
        }
        let mut local = Local {
            dir,
            bin,
            as_postgres,
            options: String::new(),
        };
        let data = local.dir.join("data");
        local.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ],
        );
        // A free port can be taken between choosing and binding it: try a few.
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            let options = format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off",
                local.dir.display()
            );
            let log = local.dir.join("server.log");
            let out = local.command(
                "pg_ctl",
                &[
                    "-D",
                    data.to_str().unwrap(),
                    "-l",
                    log.to_str().unwrap(),
                    "-o",
                    &options,
                    "-w",
                    "-t",
                    "60",
                    "start",
                ],
            );
            if out.status.success() {
                local.options = options;
                return TestPostgres {
                    url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
                    local: Some(local),
                    external: None,
                };
            }
            last = format!(
                "{}{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        panic!("could not start a test PostgreSQL: {last}");
    }

    fn external(admin: &str) -> TestPostgres {
        let db = format!(
            "toolgate_test_{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        admin_sql(admin, &format!("CREATE DATABASE {db}"));
        let mut url = url::Url::parse(admin).expect("TOOLGATE_TEST_POSTGRES is not a URL");
        url.set_path(&format!("/{db}"));
        TestPostgres {
            url: url.to_string(),
            local: None,
            external: Some((admin.to_string(), db)),
        }
    }

    /// `pg_ctl restart` (fast shutdown: clients are disconnected), waiting until it is up.
    ///
    /// # Panics
    ///
    /// On a server this helper did not start.
    pub fn restart(&self) {
        let local = self
            .local
            .as_ref()
            .expect("only a local test server can be restarted");
        let data = local.dir.join("data");
        // With a log file: otherwise the new server writes to (and holds open) the pipe
        // this helper reads pg_ctl's output from, and reading never ends.
        let log = local.dir.join("server.log");
        let out = local.command(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-m",
                "fast",
                "-w",
                "-t",
                "60",
                "restart",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl restart failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `pg_ctl stop` (fast shutdown: clients are disconnected).
    ///
    /// # Panics
    ///
    /// On a server this helper did not start.
    pub fn stop(&self) {
        let local = self
            .local
            .as_ref()
            .expect("only a local test server can be stopped");
        let data = local.dir.join("data");
        let out = local.command(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                "fast",
                "-w",
                "-t",
                "60",
                "stop",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Starts a stopped server again, on the same port, waiting until it is up.
    ///
    /// # Panics
    ///
    /// On a server this helper did not start.
    pub fn start_again(&self) {
        let local = self
            .local
            .as_ref()
            .expect("only a local test server can be started again");
        let data = local.dir.join("data");
        let log = local.dir.join("server.log");
        let out = local.command(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-o",
                &local.options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs SQL on the test's database (from a thread of its own, so it works inside and
    /// outside a runtime).
    pub fn sql(&self, sql: &str) {
        admin_sql(&self.url, sql);
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        if let Some(local) = &self.local {
            let data = local.dir.join("data");
            let _ = local.command(
                "pg_ctl",
                &["-D", data.to_str().unwrap_or(""), "-m", "immediate", "stop"],
            );
            let _ = std::fs::remove_dir_all(&local.dir);
        }
        if let Some((admin, db)) = &self.external {
            admin_sql(admin, &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
        }
    }
}

impl Local {
    fn command(&self, tool: &str, args: &[&str]) -> std::process::Output {
        let exe = self.bin.join(tool);
        let mut c = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        c.args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let out = self.command(tool, args);
        assert!(
            out.status.success(),
            "{tool} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn run(c: &mut Command, what: &str) {
    let status = c
        .status()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(status.success(), "{what} failed");
}

/// The newest `/usr/lib/postgresql/<version>/bin` that has `initdb` and `pg_ctl`.
fn find_bin() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").exists() && bin.join("pg_ctl").exists()).then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn admin_sql(url: &str, sql: &str) {
    let (url, sql) = (url.to_string(), sql.to_string());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap_or_else(|e| panic!("cannot connect to the test PostgreSQL: {e}"));
            tokio::spawn(conn);
            client
                .batch_execute(&sql)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        });
    })
    .join()
    .unwrap();
}
