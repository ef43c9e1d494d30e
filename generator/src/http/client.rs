//! A small HTTP/1.1 client over loopback (hyper's own, with keep-alive),
//! for the load generator and the tests.

use anyhow::{Context, Result};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// A client that keeps its connections open between requests.
#[derive(Clone, Debug)]
pub struct Client {
    inner: HyperClient<HttpConnector, Empty<Bytes>>,
}

impl Default for Client {
    fn default() -> Client {
        Client::new()
    }
}

impl Client {
    /// A new client with its own connection pool.
    pub fn new() -> Client {
        Client {
            inner: HyperClient::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// `GET url`: the status and the body as text.
    ///
    /// # Errors
    ///
    /// If the URL is malformed, the connection fails or the body is not
    /// UTF-8.
    pub async fn get(&self, url: &str) -> Result<(u16, String)> {
        let uri: hyper::Uri = url.parse().with_context(|| format!("URL {url:?}"))?;
        let response = self
            .inner
            .get(uri)
            .await
            .with_context(|| format!("GET {url}"))?;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .with_context(|| format!("reading the body of GET {url}"))?
            .to_bytes();
        let body = String::from_utf8(body.to_vec()).context("a body that is not UTF-8")?;
        Ok((status, body))
    }
}
