//! The explorer and rooms in headless Chromium over WebDriver: what people
//! do on the page, its layout, its checks, live searches and rooms between
//! two browsers. Each test starts its own chromedriver and server, and
//! fails, never skips, when Chromium or chromedriver is missing.
//!
//! One test binary, each file a module (see `games.rs` for why):
//! `cargo test -p solvedb-tests --test browser browser_layout::`.

mod browser_checks;
mod browser_flows;
mod browser_flows_search;
mod browser_layout;
mod browser_rooms;
