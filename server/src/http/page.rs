//! The explorer page and its assets, embedded in the binary: plain HTML,
//! CSS and JavaScript modules, no build step, nothing fetched from
//! elsewhere (the content security policy forbids it).

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use solvedb_lookup::ErrorKind;

use super::state::AppState;

/// Every asset: its name under `/assets/`, its media type and its text.
pub const ASSETS: &[(&str, &str, &str)] = &[
    ("style.css", "text/css", include_str!("assets/style.css")),
    ("app.js", "text/javascript", include_str!("assets/app.js")),
    (
        "state.js",
        "text/javascript",
        include_str!("assets/state.js"),
    ),
    ("api.js", "text/javascript", include_str!("assets/api.js")),
    (
        "rated.js",
        "text/javascript",
        include_str!("assets/rated.js"),
    ),
    (
        "rules.js",
        "text/javascript",
        include_str!("assets/rules.js"),
    ),
    ("grid.js", "text/javascript", include_str!("assets/grid.js")),
    (
        "layers.js",
        "text/javascript",
        include_str!("assets/layers.js"),
    ),
    ("dots.js", "text/javascript", include_str!("assets/dots.js")),
    (
        "focus.js",
        "text/javascript",
        include_str!("assets/focus.js"),
    ),
    (
        "values.js",
        "text/javascript",
        include_str!("assets/values.js"),
    ),
    (
        "review.js",
        "text/javascript",
        include_str!("assets/review.js"),
    ),
    (
        "identity.js",
        "text/javascript",
        include_str!("assets/identity.js"),
    ),
    (
        "rooms.js",
        "text/javascript",
        include_str!("assets/rooms.js"),
    ),
    (
        "leaderboard.js",
        "text/javascript",
        include_str!("assets/leaderboard.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("assets/favicon.svg"),
    ),
];

/// The page itself.
pub const INDEX_HTML: &str = include_str!("assets/index.html");

/// The page for a path that is not one.
pub const NOT_FOUND_HTML: &str = include_str!("assets/404.html");

const POLICY: &str = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'";

/// The page's routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(index))
        .route("/assets/{name}", get(asset))
        .route(
            "/favicon.ico",
            get(|| async { asset(Path("favicon.svg".into())).await }),
        )
}

fn text(media: &str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, format!("{media}; charset=utf-8")),
            (header::CONTENT_SECURITY_POLICY, POLICY.to_owned()),
            (header::CACHE_CONTROL, "no-cache".to_owned()),
        ],
        body,
    )
        .into_response()
}

/// An HTML page of ours, with the page's headers.
pub(super) fn html(body: &'static str) -> Response {
    text("text/html", body)
}

async fn index() -> Response {
    text("text/html", INDEX_HTML)
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, media, body)) => text(media, body),
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(solvedb_lookup::error_json(
                Some(ErrorKind::Request),
                &format!("no asset {name:?}"),
            )),
        )
            .into_response(),
    }
}

/// Any other path: 404, with the error object under `/api/` (where
/// programs ask) and a page for people everywhere else.
pub(super) async fn not_found(uri: Uri) -> Response {
    if uri.path().starts_with("/api/") {
        let body = solvedb_lookup::error_json(
            Some(ErrorKind::Request),
            &format!("no such path {}", uri.path()),
        );
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    }
    (StatusCode::NOT_FOUND, html(NOT_FOUND_HTML)).into_response()
}
