//! A real `redis-server` for the conformance test, and a minimal RESP2 client to talk to it.
//!
//! Why not the `redis` crate: even with `default-features = false` it brings 36 crates new to
//! this workspace (`url` and its `idna`/`icu_*` tree, `combine`, `socket2`, ...) and about a
//! minute of cold build on the 2-core CI machine, for a test that sends a dozen kinds of
//! command and reads five kinds of reply. RESP2 is small: a command is an array of bulk strings,
//! a reply is one of `+status`, `-error`, `:integer`, `$bulk` (or `$-1`, nil) and `*array`.
//! This client keeps every reply's RESP type as Redis sent it — which a conformance test wants
//! anyway (`SETNX` answers an integer, `SET NX` a status or nil) — and adds no dependency.

#![allow(dead_code)] // not every helper is used by every test that includes this module

use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A reply as Redis sent it (RESP2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resp {
    Status(String),
    Error(String),
    Int(i64),
    /// `None` is the nil bulk string (`$-1`).
    Bulk(Option<Vec<u8>>),
    /// `None` is the nil array (`*-1`).
    Array(Option<Vec<Resp>>),
}

impl fmt::Display for Resp {
    /// As `redis-cli` shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resp::Status(s) => f.write_str(s),
            Resp::Error(e) => write!(f, "(error) {e}"),
            Resp::Int(i) => write!(f, "(integer) {i}"),
            Resp::Bulk(None) | Resp::Array(None) => f.write_str("(nil)"),
            Resp::Bulk(Some(b)) => write!(f, "{:?}", String::from_utf8_lossy(b)),
            Resp::Array(Some(items)) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// One connection; one command at a time, waiting for its reply.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    pub fn connect(addr: SocketAddr) -> io::Result<Conn> {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        stream.set_nodelay(true)?;
        // A reply that never comes fails the test instead of hanging it.
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(Conn {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Sends `args` as one command and reads its reply.
    pub fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<Resp> {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            let arg = arg.as_ref();
            out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            out.extend_from_slice(arg);
            out.extend_from_slice(b"\r\n");
        }
        self.writer.write_all(&out)?;
        read_reply(&mut self.reader)
    }
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

fn read_line(r: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line)?;
    if !line.ends_with(b"\r\n") {
        return Err(bad(format!(
            "RESP line not ended by CRLF: {:?}",
            String::from_utf8_lossy(&line)
        )));
    }
    line.truncate(line.len() - 2);
    String::from_utf8(line).map_err(|_| bad("RESP line is not UTF-8"))
}

fn read_len(s: &str) -> io::Result<Option<usize>> {
    let n: i64 = s.parse().map_err(|_| bad(format!("bad RESP length {s:?}")))?;
    Ok(usize::try_from(n).ok()) // -1: nil
}

fn read_reply(r: &mut impl BufRead) -> io::Result<Resp> {
    let line = read_line(r)?;
    let (kind, rest) = line.split_at_checked(1).ok_or_else(|| bad("empty RESP line"))?;
    Ok(match kind {
        "+" => Resp::Status(rest.to_owned()),
        "-" => Resp::Error(rest.to_owned()),
        ":" => Resp::Int(rest.parse().map_err(|_| bad(format!("bad RESP integer {rest:?}")))?),
        "$" => match read_len(rest)? {
            None => Resp::Bulk(None),
            Some(n) => {
                let mut body = vec![0; n + 2];
                r.read_exact(&mut body)?;
                if !body.ends_with(b"\r\n") {
                    return Err(bad("RESP bulk string not ended by CRLF"));
                }
                body.truncate(n);
                Resp::Bulk(Some(body))
            }
        },
        "*" => match read_len(rest)? {
            None => Resp::Array(None),
            Some(n) => Resp::Array(Some((0..n).map(|_| read_reply(r)).collect::<io::Result<_>>()?)),
        },
        _ => return Err(bad(format!("unknown RESP type in {line:?}"))),
    })
}

/// The `redis-server` binary: the first on `PATH`, else Debian's `/usr/bin/redis-server`.
pub fn find_redis_server() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|dir| dir.join("redis-server"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/bin/redis-server")])
        .find(|p| p.is_file())
}

/// A private `redis-server` on a free loopback port, without persistence. Dropping it kills
/// the process (also when the test panics) and removes its working directory.
pub struct RedisServer {
    child: Child,
    pub addr: SocketAddr,
    dir: PathBuf,
    pub version: String,
}

impl RedisServer {
    /// Starts `bin` and waits until it answers `PING`. A port taken between choosing it and
    /// the server binding it makes the server exit: then it tries another port, a few times.
    pub fn start(bin: &Path) -> Result<RedisServer, String> {
        let version = Command::new(bin)
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .map_err(|e| format!("{} --version: {e}", bin.display()))?;
        let mut last_error = String::new();
        for _ in 0..3 {
            match Self::try_start(bin, &version) {
                Ok(server) => return Ok(server),
                Err(e) => last_error = e,
            }
        }
        Err(last_error)
    }

    fn try_start(bin: &Path, version: &str) -> Result<RedisServer, String> {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free loopback port: {e}"))?
            .port();
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let dir = std::env::temp_dir().join(format!("locksim-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let log = dir.join("redis.log");
        let child = Command::new(bin)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(&dir)
            .arg("--logfile")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        // From here on the guard owns the process: any early return kills it.
        let mut server = RedisServer {
            child,
            addr,
            dir,
            version: version.to_owned(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                return Err(format!(
                    "redis-server on port {port} exited at start ({status}); its log:\n{log}"
                ));
            }
            if let Ok(mut conn) = Conn::connect(addr)
                && matches!(conn.call(&["PING"]), Ok(Resp::Status(ref s)) if s == "PONG")
            {
                return Ok(server);
            }
            if Instant::now() > deadline {
                return Err(format!("redis-server on port {port} did not answer PING within 10 s"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn connect(&self) -> io::Result<Conn> {
        Conn::connect(self.addr)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
