//! The client's two connections: RESP to Redis, a line protocol to the fenced resource. Each
//! is opened on first use and dropped on any error or timeout (a late reply on a connection
//! whose request timed out would answer the next request), so the next call reconnects.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use locksim_clock::Clock;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A RESP2 reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    Error(String),
    Int(i64),
    Nil,
    Bulk(Vec<u8>),
}

/// Why a call got no reply.
#[derive(Debug)]
pub enum CallError {
    Io(std::io::Error),
    Timeout,
    Protocol(String),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Io(e) => write!(f, "{e}"),
            CallError::Timeout => f.write_str("timed out"),
            CallError::Protocol(p) => write!(f, "protocol error: {p}"),
        }
    }
}

impl From<std::io::Error> for CallError {
    fn from(e: std::io::Error) -> Self {
        CallError::Io(e)
    }
}

/// A connection opened on demand.
pub struct Conn {
    addr: SocketAddr,
    stream: Option<BufReader<TcpStream>>,
}

impl Conn {
    pub fn new(addr: SocketAddr) -> Self {
        Conn { addr, stream: None }
    }

    /// Sends `request` and reads one reply with `read`, within `timeout` on `clock`; any
    /// failure drops the connection.
    async fn call<C: Clock, T>(
        &mut self,
        clock: &C,
        timeout: Duration,
        request: &[u8],
        read: impl AsyncFnOnce(&mut BufReader<TcpStream>) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let addr = self.addr;
        let slot = &mut self.stream;
        let attempt = async {
            if slot.is_none() {
                *slot = Some(BufReader::new(TcpStream::connect(addr).await?));
            }
            let stream = slot.as_mut().expect("connected above");
            stream.get_mut().write_all(request).await?;
            // madsim's TcpStream sends only on flush, and so does a buffered real one.
            stream.get_mut().flush().await?;
            read(stream).await
        };
        // A reply that is there wins over a timeout that is also due (a process resuming from
        // a pause finds both): the reply came first.
        let result = tokio::select! {
            biased;
            r = attempt => r,
            _ = clock.sleep(timeout) => Err(CallError::Timeout),
        };
        if result.is_err() {
            self.stream = None;
        }
        result
    }

    /// One Redis command.
    pub async fn redis<C: Clock>(&mut self, clock: &C, timeout: Duration, args: &[&[u8]]) -> Result<Reply, CallError> {
        let mut request = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            request.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            request.extend_from_slice(a);
            request.extend_from_slice(b"\r\n");
        }
        self.call(clock, timeout, &request, read_reply).await
    }

    /// One line to the resource, one line back.
    pub async fn line<C: Clock>(&mut self, clock: &C, timeout: Duration, request: &str) -> Result<String, CallError> {
        let request = format!("{request}\n");
        self.call(
            clock,
            timeout,
            request.as_bytes(),
            async |s: &mut BufReader<TcpStream>| {
                let mut line = String::new();
                if s.read_line(&mut line).await? == 0 {
                    return Err(CallError::Protocol("connection closed".into()));
                }
                Ok(line.trim_end().to_string())
            },
        )
        .await
    }
}

async fn read_line(s: &mut BufReader<TcpStream>) -> Result<String, CallError> {
    let mut line = String::new();
    if s.read_line(&mut line).await? == 0 {
        return Err(CallError::Protocol("connection closed".into()));
    }
    Ok(line.trim_end_matches("\r\n").to_string())
}

async fn read_reply(s: &mut BufReader<TcpStream>) -> Result<Reply, CallError> {
    let line = read_line(s).await?;
    let bad = || CallError::Protocol(format!("unexpected reply {line:?}"));
    let (kind, rest) = line.split_at_checked(1).ok_or_else(bad)?;
    match kind {
        "+" => Ok(Reply::Simple(rest.to_string())),
        "-" => Ok(Reply::Error(rest.to_string())),
        ":" => rest.parse().map(Reply::Int).map_err(|_| bad()),
        "$" if rest == "-1" => Ok(Reply::Nil),
        "$" => {
            let len: usize = rest.parse().map_err(|_| bad())?;
            let mut bytes = vec![0; len + 2];
            s.read_exact(&mut bytes).await?;
            bytes.truncate(len);
            Ok(Reply::Bulk(bytes))
        }
        _ => Err(bad()),
    }
}
