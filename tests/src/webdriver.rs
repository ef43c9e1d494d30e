//! Headless Chromium over WebDriver (chromedriver) for the browser tests:
//! one chromedriver per test, one or more browser sessions on it. Needs
//! the Debian packages `chromium` and `chromium-driver` (`.ci/run`
//! installs them); without them a test fails, it does not skip.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
