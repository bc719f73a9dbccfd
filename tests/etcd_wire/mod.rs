//! A real single-member `etcd` for the conformance test, and a minimal client for its v3 API.
//!
//! etcd 3.4 serves the v3 API as JSON over HTTP too (its gRPC gateway): `POST /v3/kv/put`,
//! `/v3/kv/range`, `/v3/kv/deleterange`, `/v3/kv/txn`, `/v3/lease/grant`, `/v3/lease/revoke`,
//! `/v3/lease/timetolive`, with the protobuf messages in proto3's JSON mapping: field names as in
//! `rpc.proto` (`range_end`, `max_create_revision`, `request_put`, ...), bytes (keys, values) in
//! base64, int64 as JSON strings, enums by name (`"CREATE"`, `"DESCEND"`), and every field at
//! its zero value left out of a reply (`"deleted"`, `"succeeded"`, `"kvs"`, a key's `"lease"`).
//!
//! Why not a crate: the Rust etcd clients speak gRPC (`tonic`, `prost`, `tokio`, `hyper`: dozens
//! of crates new to this workspace and minutes of cold build on the CI machine), and shelling out
//! to `etcdctl` would test its flag parsing and output format as much as the server. One HTTP/1.1
//! `POST` per request over `std::net::TcpStream` (`Connection: close`, the reply read to the
//! end, `Content-Length` or chunked), `serde_json` (already a dependency of this package) and a
//! dozen lines of base64 cover it.
//!
//! Beware: the 3.4 gateway ignores JSON fields it does not know (a misspelt `"max_create_rev"`
//! is silently no filter), though it refuses an unknown enum name. So every request field the
//! test sends is one whose effect some case observes.

#![allow(dead_code)] // not every helper is used by every test that includes this module

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// base64 (RFC 4648, with padding), as protobuf's JSON mapping writes `bytes`.

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn b64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard or URL-safe base64, padded or not.
pub fn unb64(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(format!("not base64: {text:?}")),
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// A base64 `bytes` field of a reply as text (absent: empty).
pub fn text_field(v: &Value, name: &str) -> Result<String, String> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => {
            String::from_utf8(unb64(s)?).map_err(|_| format!("field {name:?} is not UTF-8 once decoded: {s:?}"))
        }
        Some(other) => Err(format!("field {name:?} is not a base64 string: {other}")),
    }
}

/// An int64 field of a reply: a JSON string (or number), absent when zero.
pub fn int_field(v: &Value, name: &str) -> Result<i64, String> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(s)) => s.parse().map_err(|_| format!("field {name:?} is not an int64: {s:?}")),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| format!("field {name:?} is not an int64: {n}")),
        Some(other) => Err(format!("field {name:?} is not an int64: {other}")),
    }
}

/// A bool field of a reply, absent when false.
pub fn bool_field(v: &Value, name: &str) -> Result<bool, String> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("field {name:?} is not a bool: {other}")),
    }
}

/// `header.revision` of a reply.
pub fn header_revision(v: &Value) -> Result<i64, String> {
    let header = v.get("header").ok_or_else(|| format!("no header in {v}"))?;
    int_field(header, "revision")
}

/// The end of the range of every key starting with `prefix`, as clientv3's `GetPrefixRangeEnd`
/// computes it: the prefix with its last byte below 0xff incremented and what follows dropped;
/// `[0]` (to the end of the keyspace) when there is no such byte.
pub fn prefix_range_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

// ---------------------------------------------------------------------------------------------
// HTTP.

/// A reply: its HTTP status and its JSON body.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    /// The gateway's error message (`{"error": ..., "code": ..., "message": ...}`), if any.
    pub fn error(&self) -> Option<String> {
        if let Some(msg) = self.body.get("message").or_else(|| self.body.get("error")) {
            return Some(msg.as_str().map_or_else(|| msg.to_string(), str::to_owned));
        }
        (self.status != 200).then(|| format!("HTTP {}: {}", self.status, self.body))
    }
}

/// `POST path` with `body` as JSON, on a connection of its own.
pub fn post(addr: SocketAddr, path: &str, body: &Value) -> io::Result<Reply> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    stream.set_nodelay(true)?;
    // A reply that never comes fails the test instead of hanging it.
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let body = body.to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse_response(&raw)
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

fn parse_response(raw: &[u8]) -> io::Result<Reply> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad(format!("no end of HTTP headers in {:?}", String::from_utf8_lossy(raw))))?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(format!("bad HTTP status line {status_line:?}")))?;
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    };
    let rest = &raw[split + 4..];
    let body = if header("Transfer-Encoding").is_some_and(|te| te.eq_ignore_ascii_case("chunked")) {
        dechunk(rest)?
    } else if let Some(len) = header("Content-Length") {
        let len: usize = len.parse().map_err(|_| bad(format!("bad Content-Length {len:?}")))?;
        rest.get(..len)
            .ok_or_else(|| bad(format!("body shorter than its Content-Length {len}")))?
            .to_vec()
    } else {
        rest.to_vec()
    };
    let body = serde_json::from_slice(&body).map_err(|e| {
        bad(format!(
            "HTTP {status} with a body that is not JSON ({e}): {:?}",
            String::from_utf8_lossy(&body)
        ))
    })?;
    Ok(Reply { status, body })
}

fn dechunk(mut rest: &[u8]) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let eol = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| bad("chunk size line not ended by CRLF"))?;
        let size_text = String::from_utf8_lossy(&rest[..eol]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| bad(format!("bad chunk size {size_text:?}")))?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = rest.get(..size).ok_or_else(|| bad("chunk shorter than its size"))?;
        body.extend_from_slice(chunk);
        rest = rest.get(size + 2..).ok_or_else(|| bad("chunk not ended by CRLF"))?;
    }
}

// ---------------------------------------------------------------------------------------------
// The server.

/// The `etcd` binary: the first on `PATH`, else Debian's `/usr/bin/etcd`.
pub fn find_etcd() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|dir| dir.join("etcd"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/bin/etcd")])
        .find(|p| p.is_file())
}

/// `etcd --version`'s first line (`etcd Version: 3.4.23`).
pub fn etcd_version(bin: &Path) -> Result<String, String> {
    let out = Command::new(bin)
        .arg("--version")
        .output()
        .map_err(|e| format!("{} --version: {e}", bin.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned())
}

/// A private single-member etcd on free loopback ports (client and peer), with a temporary data
/// dir. Dropping it kills the process (also when the test panics) and removes the directory.
pub struct EtcdServer {
    child: Child,
    /// The client URL's address.
    pub addr: SocketAddr,
    dir: PathBuf,
    peer_port: u16,
    /// Flags beyond the ports and the data dir (`--election-timeout` ...).
    extra: Vec<String>,
}

impl EtcdServer {
    /// Starts `bin` and waits until it serves a linearizable read (it has elected itself
    /// leader). A port taken between choosing it and etcd binding it makes etcd exit: then it
    /// tries other ports, a few times.
    pub fn start(bin: &Path) -> Result<EtcdServer, String> {
        Self::start_with(bin, &[])
    }

    /// [`EtcdServer::start`] with more flags.
    pub fn start_with(bin: &Path, extra: &[&str]) -> Result<EtcdServer, String> {
        let mut last_error = String::new();
        for _ in 0..3 {
            match Self::try_start(bin, extra) {
                Ok(server) => return Ok(server),
                Err(e) => last_error = e,
            }
        }
        Err(last_error)
    }

    fn try_start(bin: &Path, extra: &[&str]) -> Result<EtcdServer, String> {
        // Both listeners at once, so the two ports differ.
        let (client_port, peer_port) = {
            let free =
                || TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("no free loopback port: {e}"));
            let (a, b) = (free()?, free()?);
            let port = |l: &TcpListener| l.local_addr().map(|a| a.port()).map_err(|e| e.to_string());
            (port(&a)?, port(&b)?)
        };
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, client_port));
        let dir = std::env::temp_dir().join(format!("locksim-etcd-{}-{client_port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let extra: Vec<String> = extra.iter().map(|a| a.to_string()).collect();
        let child = Self::spawn(bin, &dir, client_port, peer_port, &extra)?;
        // From here on the guard owns the process: any early return kills it.
        let mut server = EtcdServer {
            child,
            addr,
            dir,
            peer_port,
            extra,
        };
        server.await_serving()?;
        Ok(server)
    }

    /// Stops etcd (SIGKILL: nothing is flushed that its WAL did not already have) and starts it
    /// again on the same ports and data dir; waits until it serves a linearizable read again.
    pub fn restart(&mut self, bin: &Path) -> Result<(), String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = Self::spawn(bin, &self.dir, self.addr.port(), self.peer_port, &self.extra)?;
        self.await_serving()
    }

    fn spawn(bin: &Path, dir: &Path, client_port: u16, peer_port: u16, extra: &[String]) -> Result<Child, String> {
        let log_path = dir.join("etcd.log");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| format!("{}: {e}", log_path.display()))?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let client_url = format!("http://127.0.0.1:{client_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        let mut cmd = Command::new(bin);
        // etcd reads its flags from `ETCD_*` variables too: none from the environment.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("ETCD") {
                cmd.env_remove(name);
            }
        }
        cmd.args(["--name", "t"])
            .arg("--data-dir")
            .arg(dir.join("data"))
            .args([
                "--listen-client-urls",
                &client_url,
                "--advertise-client-urls",
                &client_url,
            ])
            .args([
                "--listen-peer-urls",
                &peer_url,
                "--initial-advertise-peer-urls",
                &peer_url,
            ])
            .args(["--initial-cluster", &format!("t={peer_url}")])
            .args(["--initial-cluster-state", "new"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))
    }

    fn await_serving(&mut self) -> Result<(), String> {
        let (client_port, peer_port) = (self.addr.port(), self.peer_port);
        let deadline = Instant::now() + Duration::from_secs(20);
        let probe = json!({ "key": b64(b"locksim-probe") });
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "etcd on ports {client_port}/{peer_port} exited at start ({status}); the end of its log:\n{}",
                    self.log_tail()
                ));
            }
            if let Ok(reply) = self.post("/v3/kv/range", &probe)
                && reply.status == 200
                && reply.body.get("header").is_some()
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "etcd on ports {client_port}/{peer_port} did not serve a read within 20 s; the end of its log:\n{}",
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn post(&self, path: &str, body: &Value) -> io::Result<Reply> {
        post(self.addr, path, body)
    }

    /// The last lines of etcd's own log.
    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("etcd.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for EtcdServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn base64_round_trips() {
    for (plain, coded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("/lock/l/7a1", "L2xvY2svbC83YTE="),
    ] {
        assert_eq!(b64(plain.as_bytes()), coded);
        assert_eq!(unb64(coded).unwrap(), plain.as_bytes());
    }
    assert_eq!(b64(&[0xff, 0xfe, 0x00]), "//4A");
    assert_eq!(unb64("//4A").unwrap(), [0xff, 0xfe, 0x00]);
}

#[test]
fn prefix_range_end_is_etcds() {
    assert_eq!(prefix_range_end(b"/lock/l/"), b"/lock/l0");
    assert_eq!(prefix_range_end(b"a\xff"), b"b");
    assert_eq!(prefix_range_end(b"\xff\xff"), b"\0");
    assert_eq!(prefix_range_end(b""), b"\0");
}
