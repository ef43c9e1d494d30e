//! A small HTTP/1.1 client over loopback (hyper's own, with keep-alive),
//! for the load generator and the tests.

use anyhow::{Context, Result};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// A client that keeps its connections open between requests.
#[derive(Clone, Debug)]
pub struct Client {
    inner: HyperClient<HttpConnector, Full<Bytes>>,
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
        self.send(hyper::Method::GET, url, Bytes::new()).await
    }

    /// `POST url` with a JSON body: the status and the body as text.
    ///
    /// # Errors
    ///
    /// As [`get`](Client::get).
    pub async fn post_json(&self, url: &str, json: &str) -> Result<(u16, String)> {
        self.send(hyper::Method::POST, url, Bytes::from(json.to_owned()))
            .await
    }

    async fn send(&self, method: hyper::Method, url: &str, body: Bytes) -> Result<(u16, String)> {
        let uri: hyper::Uri = url.parse().with_context(|| format!("URL {url:?}"))?;
        let mut request = hyper::Request::builder().method(method.clone()).uri(uri);
        if !body.is_empty() {
            request = request.header(hyper::header::CONTENT_TYPE, "application/json");
        }
        let request = request
            .body(Full::new(body))
            .with_context(|| format!("{method} {url}"))?;
        let response = self
            .inner
            .request(request)
            .await
            .with_context(|| format!("{method} {url}"))?;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .with_context(|| format!("reading the body of {method} {url}"))?
            .to_bytes();
        let body = String::from_utf8(body.to_vec()).context("a body that is not UTF-8")?;
        Ok((status, body))
    }
}
