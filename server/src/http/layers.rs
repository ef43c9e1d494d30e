//! The layers [`router`](super::routes::router) puts around every route, the page
//! engineer's future routes included, outermost first:
//!
//! 1. `X-Content-Type-Options: nosniff` on every answer (tower-http).
//! 2. `same_site`: writes (every method but GET, HEAD and OPTIONS) and
//!    WebSocket upgrades from another site are refused — a write must be
//!    JSON (`Content-Type: application/json`, which a page of another site
//!    cannot send without a preflight this server never grants), an
//!    `Origin` must be this server's own (`http://` + the `Host` asked
//!    for), `Sec-Fetch-Site: cross-site` is refused, and a server on
//!    loopback answers only loopback `Host` names (no DNS rebinding).
//! 3. `write_rate`: writes per client address, a token bucket.
//! 4. `read_body`: the body is read whole (at most
//!    [`MAX_BODY_BYTES`]) within
//!    [`ServerLimits::body_read`](super::limits::ServerLimits::body_read), before
//!    the request takes a slot, so a slow sender holds a connection (which
//!    is capped) but no request slot; into a buffer of its own, its room
//!    taken first from the bodies' bytes over all connections
//!    ([`ServerLimits::body_bytes`](super::limits::ServerLimits::body_bytes)).
//!
//! Every refusal made before the body was read whole (2–4) says
//! `Connection: close`.
//! 5. Load shedding: at most
//!    [`ServerLimits::in_flight`](super::limits::ServerLimits::in_flight) requests
//!    at once, and the next is answered 503 with the error object at once.
//! 6. `deadline`: a request still running after
//!    [`ServerLimits::request_time`](super::limits::ServerLimits::request_time) is
//!    dropped (which stops its searches) and answered 503 with the error
//!    object.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use solvedb_lookup::ErrorKind;

use super::error::ApiError;
use super::limits::MAX_BODY_BYTES;
use super::state::AppState;

/// Whether a request writes: every method but the reading ones.
fn writes(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn is_websocket(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// The client's address, as the transport put it in the request (an
/// unspecified address for a request that came some other way).
pub(super) fn client_of(request: &Request) -> IpAddr {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

fn refused(message: impl Into<String>) -> Response {
    closing(
        ApiError {
            kind: ErrorKind::Request,
            message: message.into(),
        }
        .into_response(),
    )
}

/// `answer` with `Connection: close`: for an answer sent before the
/// request's body was read whole, after which the connection cannot carry
/// another request (the rest of the body would be read as one). Saying so
/// lets the client open a new connection rather than wait on this one.
fn closing(mut answer: Response) -> Response {
    answer.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    answer
}

/// The host part of a `Host` value (without its port).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn is_loopback_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Why a write or an upgrade with these headers comes from another site,
/// if it does.
pub(super) fn cross_site(
    headers: &HeaderMap,
    needs_json: bool,
    on_loopback: bool,
) -> Option<String> {
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    if needs_json {
        let json = text(header::CONTENT_TYPE).is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        });
        if !json {
            return Some("a write must be sent as Content-Type: application/json".into());
        }
    }
    let Some(host) = text(header::HOST) else {
        return Some("a write needs a Host header".into());
    };
    if on_loopback && !is_loopback_name(host_name(host)) {
        return Some(format!(
            "this server answers writes for its loopback address only, not for Host {host:?}"
        ));
    }
    if text(header::HeaderName::from_static("sec-fetch-site")) == Some("cross-site") {
        return Some("writes from another site are refused".into());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let same = ["http://", "https://"].iter().any(|scheme| {
            origin
                .strip_prefix(scheme)
                .is_some_and(|rest| rest.eq_ignore_ascii_case(host))
        });
        if !same {
            return Some(format!(
                "writes from another site are refused (Origin {origin:?}, Host {host:?})"
            ));
        }
    }
    None
}

/// Layer 2: refuses writes and WebSocket upgrades from another site.
pub(super) async fn same_site(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let write = writes(request.method());
    if write || is_websocket(request.headers()) {
        let on_loopback = state.bound.is_some_and(|addr| addr.ip().is_loopback());
        if let Some(why) = cross_site(request.headers(), write, on_loopback) {
            return refused(why);
        }
    }
    next.run(request).await
}

/// Layer 3: writes per client address.
pub(super) async fn write_rate(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if writes(request.method()) && !state.writes.take(client_of(&request)) {
        let limits = state.limits;
        let mut answer = ApiError {
            kind: ErrorKind::Budget,
            message: format!(
                "too many writes from your address (at most {} at once, {} a second): try again shortly",
                limits.write_burst, limits.writes_per_second
            ),
        }
        .into_response();
        answer
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        return closing(answer);
    }
    next.run(request).await
}

/// Layer 4: reads the whole body within the body-read timeout, into a
/// buffer of its own that costs what it holds
/// ([`BodyBytes`](super::body_bytes::BodyBytes)).
pub(super) async fn read_body(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    // A length said to be over the limit is refused before anything is
    // read: the client would only be waiting to be cut off.
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return refused(format!(
            "the body is said to be {} bytes: at most {MAX_BODY_BYTES}",
            declared.unwrap_or_default()
        ));
    }
    let (parts, body) = request.into_parts();
    if is_empty(&parts.headers, declared) {
        return next.run(Request::from_parts(parts, Body::empty())).await;
    }
    // Room for the body is taken before a byte is read: the length said,
    // or the most a body may be.
    let room = declared.map_or(MAX_BODY_BYTES, |n| n as usize);
    let Some(held) = state.body_bytes.take(room) else {
        return closing(
            ApiError {
                kind: ErrorKind::Budget,
                message: "the server holds as many request bodies as it takes: try again shortly"
                    .into(),
            }
            .into_response(),
        );
    };
    let read = tokio::time::timeout(state.limits.body_read, read_whole(body, room)).await;
    match read {
        Err(_) => refused(format!(
            "the body did not arrive within {} s",
            state.limits.body_read.as_secs_f64()
        )),
        Ok(Err(e)) => refused(format!(
            "the body could not be read ({e}): at most {MAX_BODY_BYTES} bytes"
        )),
        Ok(Ok(bytes)) => {
            let answer = next.run(Request::from_parts(parts, Body::from(bytes)));
            let answer = answer.await;
            drop(held);
            answer
        }
    }
}

/// Whether a request has no body to read: no length, or a length of 0,
/// and no chunked transfer.
fn is_empty(headers: &HeaderMap, declared: Option<u64>) -> bool {
    let chunked = headers.contains_key(header::TRANSFER_ENCODING);
    !chunked && declared.unwrap_or(0) == 0
}

/// Reads a body of at most `room` bytes frame by frame into one buffer of
/// that capacity. Each frame is copied and dropped at once: a frame is a
/// slice of the connection's read buffer and keeps that whole buffer
/// alive, so a body dripped a byte per packet and kept as its frames
/// (what `collect` does) holds one read buffer per byte.
async fn read_whole(body: Body, room: usize) -> Result<Vec<u8>, String> {
    let mut body = body;
    let mut bytes = Vec::with_capacity(room);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| e.to_string())?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > room {
                return Err("length limit exceeded".into());
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}

/// Layer 5's answer: every request slot is taken.
pub(super) async fn overloaded(_: tower::BoxError) -> Response {
    let mut answer = ApiError {
        kind: ErrorKind::Budget,
        message: "the server is answering as many requests as it takes: try again shortly".into(),
    }
    .into_response();
    answer
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    answer
}

/// Layer 6: the request's own time limit.
pub(super) async fn deadline(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let limit = state.limits.request_time;
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(answer) => answer,
        Err(_) => ApiError {
            kind: ErrorKind::Budget,
            message: format!(
                "the request took longer than {} s, the limit",
                limit.as_secs_f64()
            ),
        }
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn writes_from_another_site_are_refused() {
        let json = ("content-type", "application/json; charset=utf-8");
        let host = ("host", "127.0.0.1:8080");
        assert_eq!(cross_site(&headers(&[json, host]), true, true), None);
        assert_eq!(
            cross_site(
                &headers(&[json, host, ("origin", "http://127.0.0.1:8080")]),
                true,
                true
            ),
            None
        );
        assert_eq!(
            cross_site(&headers(&[json, ("host", "localhost:1")]), true, true),
            None
        );
        assert_eq!(
            cross_site(&headers(&[json, ("host", "[::1]:1")]), true, true),
            None
        );
        for refused in [
            headers(&[("content-type", "text/plain"), host]),
            headers(&[host]),
            headers(&[json]),
            headers(&[json, host, ("origin", "http://evil.example")]),
            headers(&[json, host, ("origin", "null")]),
            headers(&[json, host, ("sec-fetch-site", "cross-site")]),
            headers(&[
                json,
                ("host", "evil.example"),
                ("origin", "http://evil.example"),
            ]),
        ] {
            assert!(cross_site(&refused, true, true).is_some(), "{refused:?}");
        }
        // Off loopback any Host is served, but the Origin must match it.
        let public = headers(&[
            json,
            ("host", "solvedb.example"),
            ("origin", "https://solvedb.example"),
        ]);
        assert_eq!(cross_site(&public, true, false), None);
        // An upgrade needs no JSON, only the same origin.
        assert_eq!(cross_site(&headers(&[host]), false, true), None);
        assert!(
            cross_site(
                &headers(&[host, ("origin", "http://evil.example")]),
                false,
                true
            )
            .is_some()
        );
    }
}
