//! Browser tests: Debian's headless Chromium, driven through chromedriver, against the
//! real stack — a fresh PostgreSQL database, a real `clerk-dev` process and the real API
//! serving the built SPA (`web/dist`, built by the test command before the tests). They
//! assert on what a person sees (text and DOM), wait explicitly with timeouts, and save
//! screenshots of each main page at 1280 and 390 px to `artifacts/screenshots/`.

#[path = "../common/mod.rs"]
#[allow(
    dead_code,
    reason = "the browser tests use the database and sign-in part of the harness; the API tests use all of it"
)]
mod common;

mod browser;
mod journey;
mod stack;
