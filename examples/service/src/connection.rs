//! Connections as the service accepts them: hyper's own refusals answered
//! with the service's JSON error body, and closed without losing the
//! answer.
//!
//! hyper refuses some requests before they reach the router, answering
//! with an empty body: a request head it cannot parse (400), a URI longer
//! than [`MAX_URI_BYTES`] (414, the most the `http` crate's `Uri` holds),
//! and a request line and headers over [`MAX_HEAD_BYTES`] or with more
//! than [`MAX_HEADERS`] headers (431). hyper has no hook for these
//! answers, so [`JsonRefusals`] wraps each accepted connection: when hyper
//! writes such an answer (its status with `content-length: 0`, which no
//! route of the service sends), the client gets the same status with
//! `{"error": …, "field": …, "value": null}` naming the limit instead.
//!
//! A server that closes a connection while the client is still sending
//! (the rest of a 1 MB header, a body over the limit) makes the kernel
//! reset it, and the client may lose the answer already sent. So a
//! connection, once hyper is done with it, is closed the way web servers
//! do it ("lingering close"): shut down for writing, then what the client
//! still sends is read and dropped for up to [`LINGER`].

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::serve::Listener;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use crate::error::ErrorBody;

/// The longest URI hyper accepts (the `http` crate's limit).
pub const MAX_URI_BYTES: usize = 65_534;
/// The largest request line and headers hyper reads (its default buffer).
pub const MAX_HEAD_BYTES: usize = 8192 + 4096 * 100;
/// The most headers hyper reads.
pub const MAX_HEADERS: usize = 100;
/// How long a closing connection reads and drops what the client still
/// sends.
pub const LINGER: Duration = Duration::from_secs(2);

/// A TCP listener whose connections answer hyper's refusals with JSON.
#[derive(Debug)]
pub struct JsonRefusals(pub TcpListener);

impl Listener for JsonRefusals {
    type Io = Connection;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Connection, std::net::SocketAddr) {
        let (stream, addr) = Listener::accept(&mut self.0).await;
        (
            Connection {
                stream: Some(stream),
                pending: Vec::new(),
            },
            addr,
        )
    }

    fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.0.local_addr()
    }
}

/// An accepted connection (see the module docs).
#[derive(Debug)]
pub struct Connection {
    /// Taken by `Drop` for the lingering close.
    stream: Option<TcpStream>,
    /// The JSON answer that replaces one of hyper's, still to be sent.
    pending: Vec<u8>,
}

impl Connection {
    fn stream(&mut self) -> io::Result<&mut TcpStream> {
        self.stream
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "connection closed"))
    }

    /// Sends what is pending.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            let written = match Pin::new(self.stream()?).poll_write(cx, &pending) {
                Poll::Ready(Ok(n)) => n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    self.pending = pending;
                    return Poll::Pending;
                }
            };
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending = pending[written..].to_vec();
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(self.stream()?).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if let Some(answer) = json_refusal(buf) {
            self.pending = answer;
            // hyper's bytes are taken; the answer goes out now or at the
            // next write, flush or shutdown.
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(self.stream()?).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(self.stream()?).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(self.stream()?).poll_shutdown(cx)
    }

    // Not vectored: hyper then writes each response head in one buffer,
    // which `json_refusal` recognises.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        let Some(mut stream) = self.stream.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let pending = std::mem::take(&mut self.pending);
        runtime.spawn(async move {
            let _ = tokio::time::timeout(LINGER, async {
                if !pending.is_empty() {
                    stream.write_all(&pending).await?;
                }
                stream.shutdown().await?;
                let mut sink = [0_u8; 16 * 1024];
                while stream.read(&mut sink).await? > 0 {}
                Ok::<(), io::Error>(())
            })
            .await;
        });
    }
}

/// The JSON answer that replaces hyper's own refusal in `written`, if
/// `written` is one: a whole response head with status 400, 414 or 431
/// and `content-length: 0`.
fn json_refusal(written: &[u8]) -> Option<Vec<u8>> {
    let head = std::str::from_utf8(written).ok()?;
    if !head.ends_with("\r\n\r\n") {
        return None;
    }
    let status_line = head.lines().next()?;
    let status: u16 = status_line
        .strip_prefix("HTTP/1.1 ")?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    let empty = head
        .lines()
        .skip(1)
        .any(|l| l.eq_ignore_ascii_case("content-length: 0"));
    if !empty {
        return None;
    }
    let (error, field) = match status {
        400 => ("the request is not valid HTTP/1.1".to_owned(), None),
        414 => (
            format!("the URI is longer than {MAX_URI_BYTES} bytes"),
            Some("uri"),
        ),
        431 => (
            format!(
                "the request line and headers are larger than {MAX_HEAD_BYTES} bytes, or there \
                 are more than {MAX_HEADERS} headers"
            ),
            Some("headers"),
        ),
        _ => return None,
    };
    tracing::warn!(status, %error, "request refused before routing");
    let body = serde_json::to_vec(&ErrorBody {
        error,
        field: field.map(str::to_owned),
        value: None,
    })
    .ok()?;
    let mut answer = format!(
        "{status_line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend(body);
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_refusals_become_json() {
        let answer = json_refusal(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n",
        )
        .expect("a refusal");
        let text = String::from_utf8(answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["field"], "headers");
        assert!(json["error"].as_str().unwrap().contains("417792"));
        assert_eq!(json["value"], serde_json::Value::Null);

        let uri = json_refusal(b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n")
            .expect("a refusal");
        assert!(
            String::from_utf8(uri)
                .unwrap()
                .contains("\"field\":\"uri\"")
        );
    }

    #[test]
    fn answers_of_the_routes_pass_through() {
        // A JSON error of the service: it has a body.
        assert_eq!(
            json_refusal(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 52\r\n\r\n{}"),
            None
        );
        assert_eq!(json_refusal(b"HTTP/1.1 204 No Content\r\n\r\n"), None);
        assert_eq!(
            json_refusal(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"),
            None
        );
        // Body bytes.
        assert_eq!(json_refusal(b"{\"teams\": []}"), None);
    }
}
