//! A TCP proxy a test can cut: a one-sided network partition, where the
//! connections a process holds go silent (nothing forwarded, nothing
//! closed, never again) while the server stays reachable for everyone
//! else.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A TCP proxy to `target` that a test can cut. While cut, nothing is
/// forwarded on the connections that were open, and connections opened
/// meanwhile are accepted and left silent; neither ever forwards again
/// (their packets are lost for good), nothing is closed. Connections
/// opened after the cut ends work.
pub struct Proxy {
    addr: SocketAddr,
    cut: Arc<AtomicBool>,
    /// Bumped at each cut: a connection of an earlier generation is dead.
    generation: Arc<AtomicU64>,
}

impl Proxy {
    /// Starts it on a free port of 127.0.0.1, forwarding to `target`.
    ///
    /// # Panics
    /// If it cannot bind a port.
    pub async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("proxy address");
        let cut = Arc::new(AtomicBool::new(false));
        let generation = Arc::new(AtomicU64::new(0));
        let (accept_cut, accept_generation) = (cut.clone(), generation.clone());
        tokio::spawn(async move {
            // Connections accepted during a cut, kept open and silent.
            let mut silent = Vec::new();
            while let Ok((client, _)) = listener.accept().await {
                if accept_cut.load(Ordering::SeqCst) {
                    silent.push(client);
                    continue;
                }
                let born = accept_generation.load(Ordering::SeqCst);
                let generation = accept_generation.clone();
                tokio::spawn(async move {
                    let Ok(upstream) = TcpStream::connect(target).await else {
                        return;
                    };
                    let (cr, cw) = client.into_split();
                    let (ur, uw) = upstream.into_split();
                    tokio::join!(
                        pump(cr, uw, born, generation.clone()),
                        pump(ur, cw, born, generation)
                    );
                });
            }
        });
        Proxy {
            addr,
            cut,
            generation,
        }
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Cuts every connection open now for good, and leaves connections
    /// opened from now on silent, until [`heal`](Self::heal).
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// Lets connections opened from now on through again (those cut stay
    /// silent).
    pub fn heal(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

/// The server `url` names (`postgres://user:pw@host:port/db`), and `url`
/// with its host and port replaced by `addr` once known.
///
/// # Panics
/// If `url` names no address that resolves.
pub fn server_of(url: &str) -> (SocketAddr, impl Fn(SocketAddr) -> String) {
    use std::net::ToSocketAddrs as _;
    let start = url
        .rfind('@')
        .map_or_else(|| url.find("//").expect("a URL") + 2, |i| i + 1);
    let end = url[start..].find('/').map_or(url.len(), |i| start + i);
    let target = url[start..end]
        .to_socket_addrs()
        .expect("the server's address")
        .next()
        .expect("an address");
    let (before, after) = (url[..start].to_owned(), url[end..].to_owned());
    (target, move |addr| format!("{before}{addr}{after}"))
}

/// Forwards `from` to `to` until either closes, or for ever silently once
/// the proxy was cut after the connection was born.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    born: u64,
    generation: Arc<AtomicU64>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if generation.load(Ordering::SeqCst) != born {
            // Lost on the way; the halves stay open.
            std::future::pending::<()>().await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
