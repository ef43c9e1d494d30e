//! Headless Chromium over WebDriver (chromedriver) for the browser tests:
//! one chromedriver per test, one or more browser sessions on it. Needs
//! the Debian packages `chromium` and `chromium-driver` (`.ci/run`
//! installs them); without them a test fails, it does not skip.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::FutureExt;

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// chromedriver, killed (and its browsers with it) however the test ends.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Driver {
    /// Starts chromedriver on a free loopback port and waits until it listens.
    ///
    /// # Panics
    ///
    /// If chromedriver or chromium is missing, or chromedriver does not start.
    pub async fn start() -> Driver {
        let chromedriver = find_program(&["chromedriver"]).expect(
            "chromedriver is not installed: the browser tests need the Debian packages \
             `chromium` and `chromium-driver` (apt-get install -y chromium chromium-driver; \
             .ci/run installs them)",
        );
        let port = free_port();
        let child = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", chromedriver.display()));
        let driver = Driver { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        driver
    }

    /// A new headless Chromium session with its own profile in `profile`
    /// (its own storage: two sessions are two people).
    ///
    /// # Panics
    ///
    /// If chromium is missing or the session cannot start.
    pub async fn session(&self, profile: &Path) -> Tab {
        let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]).expect(
            "chromium is not installed: the browser tests need the Debian packages \
             `chromium` and `chromium-driver` (apt-get install -y chromium chromium-driver)",
        );
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--hide-scrollbars", "--force-device-scale-factor=1",
                    format!("--user-data-dir={}", profile.display()),
                ],
            }),
        );
        let c = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("a WebDriver session with headless Chromium");
        Tab { c }
    }
}

/// One browser session's page, and what every browser test asks of it.
/// Each call panics on a WebDriver error: the test fails there.
#[derive(Debug)]
pub struct Tab {
    /// The WebDriver client, for what this does not cover.
    pub c: Client,
}

impl Tab {
    /// Runs `script` in the page and returns what it returns.
    pub async fn js(&self, script: &str) -> Value {
        self.c.execute(script, vec![]).await.unwrap()
    }

    /// The text content of the element with id `id`.
    pub async fn text(&self, id: &str) -> String {
        self.js(&format!(
            "return document.getElementById('{id}').textContent"
        ))
        .await
        .as_str()
        .unwrap_or_else(|| panic!("no element #{id}"))
        .to_owned()
    }

    /// Clicks the first element `css` selects.
    pub async fn click_css(&self, css: &str) {
        self.c
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element {css}: {e}"))
            .click()
            .await
            .unwrap();
    }

    /// Sizes the window so that the page's viewport is `width` × `height`
    /// CSS pixels (the window's frame is added to the size asked).
    pub async fn viewport(&self, width: u32, height: u32) {
        self.c.set_window_size(width, height).await.unwrap();
        for _ in 0..3 {
            let inner = self.js("return [innerWidth, innerHeight]").await;
            let [w, h]: [i64; 2] = serde_json::from_value(inner).unwrap_or([0, 0]);
            if (w, h) == (i64::from(width), i64::from(height)) {
                return;
            }
            let (outer_w, outer_h) = self.c.get_window_size().await.unwrap();
            let grow = |outer: u64, inner: i64, wanted: u32| {
                (outer as i64 + i64::from(wanted) - inner).max(1) as u32
            };
            self.c
                .set_window_size(grow(outer_w, w, width), grow(outer_h, h, height))
                .await
                .unwrap();
        }
    }

    /// Saves a screenshot as `target/screenshots/NAME.png`.
    pub async fn screenshot(&self, name: &str) {
        let png = self.c.screenshot().await.unwrap();
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }
}

/// The element to click for move `mv` on any board: a cell's button, or
/// the wide hit line of a dots edge (the edge's group also holds its
/// value's label, off the line).
pub fn move_selector(mv: &str) -> String {
    format!("#board button[data-move=\"{mv}\"], #board [data-move=\"{mv}\"] .hit")
}

/// Named checks run one after another: a check that fails (panics) is
/// noted and the others still run, so one run says every failing one;
/// [`finish`](Checks::finish) fails the test if any did.
#[derive(Debug, Default)]
pub struct Checks {
    failed: Vec<String>,
    passed: usize,
}

impl Checks {
    /// Runs `check`, noting its failure.
    pub async fn run(&mut self, name: &str, check: impl Future<Output = ()>) {
        let started = Instant::now();
        match AssertUnwindSafe(check).catch_unwind().await {
            Ok(()) => self.passed += 1,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                self.failed.push(format!("{name}: {message}"));
            }
        }
        eprintln!(
            "check {name}: {} in {:.1} s",
            if self
                .failed
                .last()
                .is_some_and(|f| f.starts_with(&format!("{name}:")))
            {
                "FAILED"
            } else {
                "ok"
            },
            started.elapsed().as_secs_f64()
        );
    }

    /// Fails if any check failed, naming each.
    ///
    /// # Panics
    ///
    /// If a check failed.
    pub fn finish(self) {
        assert!(
            self.failed.is_empty(),
            "{} of {} checks failed:\n{}",
            self.failed.len(),
            self.failed.len() + self.passed,
            self.failed.join("\n")
        );
    }
}
