//! A real standalone ZooKeeper for the conformance test, and a minimal client for its wire
//! protocol (jute records over TCP, each frame prefixed by its length).
//!
//! Why not a crate: the test must *stop pinging* one session while its socket stays open, so
//! the server expires it on its own clock, and it must see every watch notification as it
//! arrives — a full client (`zookeeper-client`, on tokio) pings from its own task and turns
//! notifications into callbacks. The handful of records the lock recipe uses (connect, create2,
//! delete, exists, getChildren, ping, and the notification) fit in a couple of hundred lines
//! over `std::net::TcpStream`, in the style of `redis_wire` and `etcd_wire`; jute's encoding is
//! big-endian ints and longs, a one-byte bool, and length-prefixed strings, buffers and vectors.

#![allow(dead_code)] // not every helper is used by every test that includes this module

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The ZooKeeper jar Debian's `zookeeper` package installs (`zookeeperd` runs it as a service;
/// the test never uses that one). Its manifest names the jars it needs.
pub const ZOOKEEPER_JAR: &str = "/usr/share/java/zookeeper.jar";
/// A log4j configuration the package ships, on the class path so the server logs quietly.
pub const ZOOKEEPER_CONF: &str = "/etc/zookeeper/conf_example";

/// The server's `tickTime` in the tests: sessions may last from 2 to 20 ticks.
pub const TICK_MS: u64 = 500;

/// `java` and the jar, if both are there.
pub fn find_zookeeper() -> Option<PathBuf> {
    let java = ["/usr/bin/java", "/usr/local/bin/java"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())?;
    Path::new(ZOOKEEPER_JAR).is_file().then_some(java)
}

/// A standalone ZooKeeper on a free loopback port, with its data in a temporary folder; killed
/// and removed on drop.
pub struct ZkServer {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port())
}

impl ZkServer {
    pub fn start(java: &Path, name: &str) -> Result<ZkServer, String> {
        let port = free_port().map_err(|e| format!("no free port: {e}"))?;
        let dir = std::env::temp_dir().join(format!("locksim-zk-{}-{name}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let cfg = format!(
            "tickTime={TICK_MS}\ndataDir={}\nclientPort={port}\nclientPortAddress=127.0.0.1\n\
             admin.enableServer=false\n4lw.commands.whitelist=\n",
            dir.join("data").display()
        );
        let cfg_path = dir.join("zoo.cfg");
        std::fs::write(&cfg_path, cfg).map_err(|e| format!("{}: {e}", cfg_path.display()))?;
        let log = std::fs::File::create(dir.join("server.log")).map_err(|e| e.to_string())?;
        let child = Command::new(java)
            .arg("-cp")
            .arg(format!("{ZOOKEEPER_JAR}:{ZOOKEEPER_CONF}"))
            .arg("org.apache.zookeeper.server.ZooKeeperServerMain")
            .arg(&cfg_path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{}: {e}", java.display()))?;
        let mut server = ZkServer { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            // A plain TCP connection: a session would be a transaction, and take a zxid.
            if TcpStream::connect((Ipv4Addr::LOCALHOST, server.port)).is_ok() {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("zookeeper exited ({status}); see {}", server.dir.display()));
            }
            if Instant::now() > deadline {
                return Err("zookeeper did not answer within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for ZkServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

// ---------------------------------------------------------------------------------------------
// jute

#[derive(Default)]
struct Out(Vec<u8>);

impl Out {
    fn int(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn long(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn bool(&mut self, v: bool) -> &mut Self {
        self.0.push(u8::from(v));
        self
    }
    fn buf(&mut self, v: &[u8]) -> &mut Self {
        self.int(v.len() as i32);
        self.0.extend_from_slice(v);
        self
    }
    fn str(&mut self, v: &str) -> &mut Self {
        self.buf(v.as_bytes())
    }
}

struct In<'a>(&'a [u8]);

impl In<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.0.len() < n {
            return Err(format!("record cut short: {} bytes left, {n} wanted", self.0.len()));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }
    fn int(&mut self) -> Result<i32, String> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn long(&mut self) -> Result<i64, String> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn buf(&mut self) -> Result<Vec<u8>, String> {
        let n = self.int()?;
        if n < 0 {
            return Ok(Vec::new());
        }
        Ok(self.take(n as usize)?.to_vec())
    }
    fn str(&mut self) -> Result<String, String> {
        String::from_utf8(self.buf()?).map_err(|e| e.to_string())
    }
}

/// The `Stat` fields, in jute order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub czxid: i64,
    pub mzxid: i64,
    pub version: i32,
    pub cversion: i32,
    pub ephemeral_owner: i64,
    pub data_length: i32,
    pub num_children: i32,
    pub pzxid: i64,
}

fn stat(r: &mut In<'_>) -> Result<Stat, String> {
    let czxid = r.long()?;
    let mzxid = r.long()?;
    let _ctime = r.long()?;
    let _mtime = r.long()?;
    let version = r.int()?;
    let cversion = r.int()?;
    let _aversion = r.int()?;
    let ephemeral_owner = r.long()?;
    let data_length = r.int()?;
    let num_children = r.int()?;
    let pzxid = r.long()?;
    Ok(Stat {
        czxid,
        mzxid,
        version,
        cversion,
        ephemeral_owner,
        data_length,
        num_children,
        pzxid,
    })
}

/// A watch notification: ZooKeeper's event type number and the path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Notification {
    pub kind: i32,
    pub path: String,
}

/// A reply: the zxid the server stamped it with, its error code (0: ok) and its body.
pub struct Reply {
    pub zxid: i64,
    pub err: i32,
    body: Vec<u8>,
}

pub const OP_DELETE: i32 = 2;
pub const OP_EXISTS: i32 = 3;
pub const OP_GET_CHILDREN: i32 = 8;
pub const OP_PING: i32 = 11;
pub const OP_CREATE2: i32 = 15;

/// One session's connection.
pub struct Conn {
    sock: TcpStream,
    pub session: i64,
    pub passwd: Vec<u8>,
    pub timeout_ms: i32,
    xid: i32,
    /// Notifications read while waiting for a reply, oldest first.
    pub pending: Vec<Notification>,
}

fn write_frame(sock: &mut TcpStream, body: &[u8]) -> io::Result<()> {
    let mut frame = (body.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(body);
    sock.write_all(&frame)
}

fn read_frame(sock: &mut TcpStream) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    sock.read_exact(&mut len)?;
    let mut body = vec![0u8; i32::from_be_bytes(len).max(0) as usize];
    sock.read_exact(&mut body)?;
    Ok(body)
}

impl Conn {
    /// Connects with a new session asking for `timeout_ms`, or to `resume` (id, password).
    /// A session the server no longer knows comes back with timeout 0 (then it hangs up):
    /// that is `Expired`, as the Java client reports it.
    pub fn open(port: u16, timeout_ms: i32, resume: Option<(i64, &[u8])>) -> Result<Conn, String> {
        // The server listens a moment before it serves, and hangs up on a connection then:
        // that takes no transaction, so try again.
        let mut tries = 0;
        loop {
            match Conn::try_open(port, timeout_ms, resume) {
                Err(e) if tries < 20 && resume.is_none() => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(250));
                    if tries == 20 {
                        return Err(e);
                    }
                }
                other => return other,
            }
        }
    }

    fn try_open(port: u16, timeout_ms: i32, resume: Option<(i64, &[u8])>) -> Result<Conn, String> {
        let mut sock = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).map_err(|e| e.to_string())?;
        sock.set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        sock.set_nodelay(true).map_err(|e| e.to_string())?;
        let (session, passwd) = resume.unwrap_or((0, &[0u8; 16]));
        let mut req = Out::default();
        req.int(0).long(0).int(timeout_ms).long(session).buf(passwd).bool(false);
        write_frame(&mut sock, &req.0).map_err(|e| e.to_string())?;
        let body = read_frame(&mut sock).map_err(|e| format!("connect: {e}"))?;
        let mut r = In(&body);
        let _version = r.int()?;
        let timeout_ms = r.int()?;
        let session = r.long()?;
        let passwd = r.buf()?;
        Ok(Conn {
            sock,
            session,
            passwd,
            timeout_ms,
            xid: 0,
            pending: Vec::new(),
        })
    }

    fn call(&mut self, op: i32, body: &[u8]) -> Result<Reply, String> {
        self.xid += 1;
        let xid = if op == OP_PING { -2 } else { self.xid };
        let mut req = Out::default();
        req.int(xid).int(op);
        req.0.extend_from_slice(body);
        write_frame(&mut self.sock, &req.0).map_err(|e| e.to_string())?;
        loop {
            let frame = read_frame(&mut self.sock).map_err(|e| format!("reply to op {op}: {e}"))?;
            let mut r = In(&frame);
            let got = r.int()?;
            let zxid = r.long()?;
            let err = r.int()?;
            if got == -1 {
                self.pending.push(notification(&mut r)?);
                continue;
            }
            if got != xid {
                return Err(format!("reply for xid {got}, expected {xid}"));
            }
            return Ok(Reply {
                zxid,
                err,
                body: r.0.to_vec(),
            });
        }
    }

    pub fn ping(&mut self) -> Result<(), String> {
        self.call(OP_PING, &[]).map(|_| ())
    }

    /// `create2`, open ACL: the created path and its stat, or the error code.
    pub fn create(&mut self, path: &str, data: &[u8], flags: i32) -> Result<Result<(String, Stat), i32>, String> {
        let mut req = Out::default();
        req.str(path)
            .buf(data)
            .int(1)
            .int(31)
            .str("world")
            .str("anyone")
            .int(flags);
        let reply = self.call(OP_CREATE2, &req.0)?;
        if reply.err != 0 {
            return Ok(Err(reply.err));
        }
        let mut r = In(&reply.body);
        let path = r.str()?;
        Ok(Ok((path, stat(&mut r)?)))
    }

    pub fn delete(&mut self, path: &str) -> Result<i32, String> {
        let mut req = Out::default();
        req.str(path).int(-1);
        Ok(self.call(OP_DELETE, &req.0)?.err)
    }

    pub fn exists(&mut self, path: &str, watch: bool) -> Result<Option<Stat>, String> {
        let mut req = Out::default();
        req.str(path).bool(watch);
        let reply = self.call(OP_EXISTS, &req.0)?;
        if reply.err != 0 {
            return Ok(None);
        }
        Ok(Some(stat(&mut In(&reply.body))?))
    }

    /// `getChildren`, sorted (the server's order is a hash set's).
    pub fn children(&mut self, path: &str, watch: bool) -> Result<Result<Vec<String>, i32>, String> {
        let mut req = Out::default();
        req.str(path).bool(watch);
        let reply = self.call(OP_GET_CHILDREN, &req.0)?;
        if reply.err != 0 {
            return Ok(Err(reply.err));
        }
        let mut r = In(&reply.body);
        let n = r.int()?;
        let mut names = (0..n).map(|_| r.str()).collect::<Result<Vec<_>, _>>()?;
        names.sort();
        Ok(Ok(names))
    }

    /// Every notification that has arrived, waiting up to `wait` for the first.
    pub fn drain(&mut self, wait: Duration) -> Result<Vec<Notification>, String> {
        self.sock.set_read_timeout(Some(wait)).map_err(|e| e.to_string())?;
        loop {
            match read_frame(&mut self.sock) {
                Ok(frame) => {
                    let mut r = In(&frame);
                    let xid = r.int()?;
                    let _zxid = r.long()?;
                    let _err = r.int()?;
                    if xid == -1 {
                        self.pending.push(notification(&mut r)?);
                    }
                    self.sock
                        .set_read_timeout(Some(Duration::from_millis(20)))
                        .map_err(|e| e.to_string())?;
                }
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => break,
                Err(e) => return Err(format!("reading notifications: {e}")),
            }
        }
        self.sock
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        Ok(std::mem::take(&mut self.pending))
    }
}

fn notification(r: &mut In<'_>) -> Result<Notification, String> {
    let kind = r.int()?;
    let _state = r.int()?;
    let path = r.str()?;
    Ok(Notification { kind, path })
}
