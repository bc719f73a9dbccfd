//! A private PostgreSQL cluster for the conformance test: `initdb` into a temporary folder and
//! `postgres` on a free loopback port, run as the `postgres` user when the test runs as root
//! (PostgreSQL refuses to run as root), stopped with `pg_ctl stop -m immediate` and removed
//! when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

/// The server binaries: `LOCKSIM_POSTGRES_BIN`, else the newest `/usr/lib/postgresql/<v>/bin`
/// with an `initdb` (Debian's layout), else `initdb` on `PATH`.
pub fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("LOCKSIM_POSTGRES_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file())
        .collect();
    versions.sort_by_key(|p| {
        let v = p.parent().and_then(|v| v.file_name()).and_then(|v| v.to_str());
        v.and_then(|v| v.parse::<u32>().ok()).unwrap_or(0)
    });
    versions.pop().or_else(|| {
        let found = Command::new("sh").args(["-c", "command -v initdb"]).output().ok()?;
        let path = String::from_utf8(found.stdout).ok()?;
        Path::new(path.trim()).parent().map(Path::to_path_buf)
    })
}

fn is_root() -> bool {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() == 0 }
}

/// A command of the cluster's, as the user that owns it.
fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    pub port: u16,
    child: Child,
}

impl Cluster {
    pub fn start(bin: &Path) -> Cluster {
        let dir = std::env::temp_dir().join(format!("locksim-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the temp folder is writable");
        if is_root() {
            let mut chown = Command::new("chown");
            chown.arg("postgres:").arg(&dir);
            run(chown, "chown of the cluster's folder");
        }
        let data = dir.join("data");
        let mut initdb = as_owner(&bin.join("initdb"));
        initdb
            .arg("-D")
            .arg(&data)
            .args(["-U", "locksim", "-A", "trust", "--no-sync", "-E", "UTF8"]);
        run(initdb, "initdb");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let child = as_owner(&bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .arg("-p")
            .arg(port.to_string())
            .arg("-k")
            .arg(&dir)
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("postgres starts");
        let server = Cluster {
            bin: bin.to_path_buf(),
            dir,
            port,
            child,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Client::connect(&server.params(), NoTls).is_err() {
            assert!(
                Instant::now() < deadline,
                "postgres did not accept connections within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    pub fn params(&self) -> String {
        format!("host=127.0.0.1 port={} user=locksim dbname=postgres", self.port)
    }

    pub fn connect(&self) -> Client {
        Client::connect(&self.params(), NoTls).expect("connect to the test cluster")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let mut stop = as_owner(&self.bin.join("pg_ctl"));
        stop.arg("stop")
            .args(["-m", "immediate", "-D"])
            .arg(self.dir.join("data"));
        let _ = stop.output();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A PgBouncer in transaction pooling mode in front of `cluster`, with one server connection
/// in its pool, on a free loopback port; stopped (by its pid file) and removed when dropped.
pub struct Bouncer {
    dir: PathBuf,
    pub port: u16,
    child: Child,
}

/// `pgbouncer` on `PATH` or in `/usr/sbin` (Debian's place).
pub fn pgbouncer() -> Option<PathBuf> {
    ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

impl Bouncer {
    pub fn start(program: &Path, cluster: &Cluster) -> Bouncer {
        let dir = cluster.dir.join("bouncer");
        std::fs::create_dir_all(&dir).expect("the cluster's folder is writable");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let ini = dir.join("pgbouncer.ini");
        std::fs::write(dir.join("userlist.txt"), "\"locksim\" \"\"\n").expect("write userlist");
        std::fs::write(
            &ini,
            format!(
                "[databases]\npostgres = host=127.0.0.1 port={} dbname=postgres\n\
                 [pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
                 auth_type = trust\nauth_file = {dir}/userlist.txt\npool_mode = transaction\n\
                 default_pool_size = 1\nmax_client_conn = 20\nignore_startup_parameters = extra_float_digits,options\n\
                 logfile = {dir}/pgbouncer.log\npidfile = {dir}/pgbouncer.pid\n",
                cluster.port,
                dir = dir.display()
            ),
        )
        .expect("write pgbouncer.ini");
        if is_root() {
            let mut chown = Command::new("chown");
            chown.args(["-R", "postgres:"]).arg(&dir);
            run(chown, "chown of pgbouncer's folder");
        }
        let child = as_owner(program)
            .arg(&ini)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("pgbouncer starts");
        let bouncer = Bouncer { dir, port, child };
        let deadline = Instant::now() + Duration::from_secs(30);
        while bouncer.try_connect().is_err() {
            assert!(
                Instant::now() < deadline,
                "pgbouncer did not accept connections within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        bouncer
    }

    fn try_connect(&self) -> Result<Client, postgres::Error> {
        let params = format!("host=127.0.0.1 port={} user=locksim dbname=postgres", self.port);
        Client::connect(&params, NoTls)
    }

    pub fn connect(&self) -> Client {
        self.try_connect().expect("connect through pgbouncer")
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        let pid = std::fs::read_to_string(self.dir.join("pgbouncer.pid"));
        if let Some(pid) = pid.ok().and_then(|p| p.trim().parse::<i32>().ok()) {
            // SAFETY: sending a signal to a pid we read from the pooler's own pid file.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let _ = self.child.wait();
    }
}
