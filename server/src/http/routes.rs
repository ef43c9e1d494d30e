//! [`router`]: every area of the server inside the [`layers`]
//! that bound every request and refuse writes from other sites.

use axum::Router;

use super::limits::MAX_BODY_BYTES;
use super::state::AppState;
use super::{
    admission, analysis_stream, api, layers, leaderboard, page, room_routes, session_routes,
};

/// The whole server: every area inside the [`layers`] that bound every
/// request and refuse writes from other sites.
pub fn router(state: AppState) -> Router {
    use axum::error_handling::HandleErrorLayer;
    use axum::extract::DefaultBodyLimit;
    use axum::http::{HeaderValue, header};
    use axum::middleware::from_fn_with_state;
    use tower::ServiceBuilder;
    use tower::limit::GlobalConcurrencyLimitLayer;
    use tower_http::set_header::SetResponseHeaderLayer;

    let shedding = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(layers::overloaded))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(
            state.limits.in_flight.max(1),
        ));
    // Each `layer` wraps the ones before it: the last is the outermost.
    Router::new()
        .merge(api::router())
        .merge(analysis_stream::router())
        .merge(page::router())
        .merge(room_routes::router())
        .merge(session_routes::router())
        .merge(leaderboard::router())
        .fallback(page::not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(from_fn_with_state(state.clone(), admission::scoped))
        .layer(from_fn_with_state(state.clone(), layers::deadline))
        .layer(shedding)
        .layer(from_fn_with_state(state.clone(), layers::read_body))
        .layer(from_fn_with_state(state.clone(), layers::write_rate))
        .layer(from_fn_with_state(state.clone(), layers::same_site))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .with_state(state)
}
