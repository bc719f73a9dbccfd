//! The hosted Redis server's wire: RESP2 requests (arrays of bulk strings, as every client
//! library sends them) read into the native model's [`Cmd`], and its [`Reply`] written back.
//!
//! Keys: the native model has two, so the server accepts the key names `lock` and `fence`
//! only (anything else is answered `-ERR`). Values: a lock value is stored as the id
//! [`lease_id`] gives its bytes — the same id the client's `acquired` report is matched by —
//! and a `GET` returns the bytes. Scripts: `EVAL` is matched by its text, with all whitespace
//! removed and `'` read as `"`, against the two scripts of the Redis documentation's
//! distributed-lock page ([`RELEASE_SCRIPT`], [`RENEW_SCRIPT`]); `EVALSHA` is not served.

use std::collections::BTreeMap;
use std::io;

use locksim_protocols::redis::cmd::{Cmd, Key, Reply, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// Compare-and-delete: "Distributed Locks with Redis", section "Correct Implementation with a
/// Single Instance" (https://redis.io/docs/latest/develop/use/patterns/distributed-locks/).
pub const RELEASE_SCRIPT: &str = r#"if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end"#;

/// Compare-and-`PEXPIRE`: the same page's "extending the lock" done as its release is.
pub const RENEW_SCRIPT: &str = r#"if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end"#;

/// The most arguments and the longest argument a request may have: a bound on what a
/// broken client can make the server allocate.
const MAX_ARGS: usize = 64;
const MAX_ARG_BYTES: usize = 64 * 1024;

/// The id of a lock value, shared by the server's facts and the client's reports: FNV-1a of
/// its bytes, never 0 (0 means "no lease" to the checkers).
pub fn lease_id(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h | 1
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R) -> io::Result<Option<String>> {
    let mut line = String::new();
    if r.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    if !line.ends_with("\r\n") {
        return Err(bad("a RESP line must end with CRLF"));
    }
    line.truncate(line.len() - 2);
    Ok(Some(line))
}

fn count(line: &str, prefix: char, max: usize) -> io::Result<usize> {
    line.strip_prefix(prefix)
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n <= max)
        .ok_or_else(|| bad(format!("expected {prefix}<count up to {max}>, got {line:?}")))
}

/// Reads one request; `None` when the client closed the connection.
pub async fn read_request<R: AsyncBufRead + Unpin>(r: &mut R) -> io::Result<Option<Vec<Vec<u8>>>> {
    let Some(head) = read_line(r).await? else {
        return Ok(None);
    };
    let n = count(&head, '*', MAX_ARGS)?;
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        let line = read_line(r)
            .await?
            .ok_or_else(|| bad("connection closed inside a request"))?;
        let len = count(&line, '$', MAX_ARG_BYTES)?;
        let mut arg = vec![0; len + 2];
        r.read_exact(&mut arg).await?;
        if !arg.ends_with(b"\r\n") {
            return Err(bad("a bulk string must end with CRLF"));
        }
        arg.truncate(len);
        args.push(arg);
    }
    Ok(Some(args))
}

/// Writes a request as a client library does: an array of bulk strings.
pub fn encode_request(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn key(arg: &[u8]) -> Result<Key, String> {
    match arg {
        b"lock" => Ok(Key::Lock),
        b"fence" => Ok(Key::Fence),
        other => Err(format!(
            "ERR locksim hosts the keys 'lock' and 'fence' only, not '{}'",
            String::from_utf8_lossy(other)
        )),
    }
}

fn int(arg: &[u8]) -> Result<u64, String> {
    std::str::from_utf8(arg)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| "ERR value is not an integer or out of range".to_string())
}

fn lease(arg: &[u8], leases: &mut BTreeMap<u64, Vec<u8>>) -> Value {
    let id = lease_id(arg);
    leases.entry(id).or_insert_with(|| arg.to_vec());
    Value::Lease(id)
}

/// A script's text as the server compares it.
fn script_shape(text: &[u8]) -> Vec<u8> {
    text.iter()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|&b| if b == b'\'' { b'"' } else { b })
        .collect()
}

/// The native command a request stands for, or the error line to answer.
pub fn to_cmd(args: &[Vec<u8>], leases: &mut BTreeMap<u64, Vec<u8>>) -> Result<Cmd, String> {
    let name = args.first().map(|a| a.to_ascii_uppercase()).unwrap_or_default();
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "ERR wrong number of arguments for '{}' command",
                String::from_utf8_lossy(&name).to_lowercase()
            ))
        }
    };
    match name.as_slice() {
        b"SET" => {
            if args.len() < 3 {
                arity(3)?;
            }
            let (k, value) = (key(&args[1])?, lease(&args[2], leases));
            let opts: Vec<Vec<u8>> = args[3..].iter().map(|a| a.to_ascii_uppercase()).collect();
            match opts.as_slice() {
                [nx] if nx == b"NX" => Ok(Cmd::SetNx { key: k, value }),
                [nx, px, ms] | [px, ms, nx] if nx == b"NX" && px == b"PX" => Ok(Cmd::SetNxPx {
                    key: k,
                    value,
                    px_ms: int(ms)?,
                }),
                _ => Err("ERR locksim serves SET key value NX [PX ms] only".into()),
            }
        }
        b"GET" => arity(2).and(Ok(Cmd::Get { key: key(&args[1])? })),
        b"DEL" => arity(2).and(Ok(Cmd::Del { key: key(&args[1])? })),
        b"INCR" => arity(2).and(Ok(Cmd::Incr { key: key(&args[1])? })),
        b"PTTL" => arity(2).and(Ok(Cmd::Pttl { key: key(&args[1])? })),
        b"PEXPIRE" => arity(3).and(Ok(Cmd::PExpire {
            key: key(&args[1])?,
            ms: int(&args[2])?,
        })),
        b"EVAL" => {
            let shape = args.get(1).map(|s| script_shape(s)).unwrap_or_default();
            if shape == script_shape(RELEASE_SCRIPT.as_bytes()) {
                arity(5)?;
                Ok(Cmd::DelIfEq {
                    key: key(&args[3])?,
                    value: lease(&args[4], leases),
                })
            } else if shape == script_shape(RENEW_SCRIPT.as_bytes()) {
                arity(6)?;
                Ok(Cmd::PExpireIfEq {
                    key: key(&args[3])?,
                    value: lease(&args[4], leases),
                    ms: int(&args[5])?,
                })
            } else {
                Err("ERR locksim serves the Redis documentation's release and renew scripts only".into())
            }
        }
        other => Err(format!(
            "ERR unknown command '{}' (locksim's hosted Redis serves SET NX, GET, DEL, INCR, PTTL, PEXPIRE, EVAL)",
            String::from_utf8_lossy(other)
        )),
    }
}

/// A reply in RESP2.
pub fn encode_reply(reply: &Reply, leases: &BTreeMap<u64, Vec<u8>>) -> Vec<u8> {
    match reply {
        Reply::Ok => b"+OK\r\n".to_vec(),
        Reply::Nil => b"$-1\r\n".to_vec(),
        Reply::Int(i) => format!(":{i}\r\n").into_bytes(),
        Reply::Error(e) => format!("-{e}\r\n").into_bytes(),
        Reply::Bulk(v) => {
            let bytes = match v {
                Value::Lease(l) => leases.get(l).cloned().unwrap_or_default(),
                Value::Int(i) => i.to_string().into_bytes(),
            };
            let mut out = format!("${}\r\n", bytes.len()).into_bytes();
            out.extend_from_slice(&bytes);
            out.extend_from_slice(b"\r\n");
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn requests_map_to_the_native_commands() {
        let mut leases = BTreeMap::new();
        let set = to_cmd(&args(&["set", "lock", "abc", "NX", "PX", "10000"]), &mut leases);
        let value = Value::Lease(lease_id(b"abc"));
        assert_eq!(
            set,
            Ok(Cmd::SetNxPx {
                key: Key::Lock,
                value,
                px_ms: 10_000
            })
        );
        assert_eq!(leases.get(&lease_id(b"abc")).map(Vec::as_slice), Some(&b"abc"[..]));
        // The documentation's script, written with other whitespace and quotes.
        let script =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
        let del = to_cmd(&args(&["EVAL", script, "1", "lock", "abc"]), &mut leases);
        assert_eq!(del, Ok(Cmd::DelIfEq { key: Key::Lock, value }));
        assert!(
            to_cmd(&args(&["GET", "other"]), &mut leases)
                .unwrap_err()
                .contains("'other'")
        );
        assert!(to_cmd(&args(&["EVAL", "return 1", "0"]), &mut leases).is_err());
        assert!(to_cmd(&args(&["SET", "lock", "v"]), &mut leases).is_err());
    }

    #[test]
    fn a_bulk_reply_gives_back_the_bytes_stored() {
        let mut leases = BTreeMap::new();
        let Ok(Cmd::SetNx { value, .. }) = to_cmd(&args(&["SET", "lock", "token-7", "NX"]), &mut leases) else {
            panic!("SET NX")
        };
        assert_eq!(encode_reply(&Reply::Bulk(value), &leases), b"$7\r\ntoken-7\r\n");
        assert_eq!(encode_reply(&Reply::Nil, &leases), b"$-1\r\n");
        assert_eq!(encode_reply(&Reply::Int(3), &leases), b":3\r\n");
    }
}
