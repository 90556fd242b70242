//! Browser tests: Debian's headless Chromium, driven through chromedriver, against the
//! real stack — a fresh PostgreSQL database, a real `clerk-dev` process and the real API
//! serving the built SPA (`web/dist`, built by the test command before the tests). They
//! assert on what a person sees (text and DOM), wait explicitly with timeouts, and check
//! every page they visit for accessibility (axe-core and [`a11y`]'s own checks) at 1280 and
//! 390 px in the light and the dark theme, saving a screenshot of each to
//! `artifacts/screenshots/`.

#[path = "../common/mod.rs"]
#[allow(
    dead_code,
    reason = "the browser tests use the database and sign-in part of the harness; the API tests use all of it"
)]
mod common;

mod a11y;
mod browser;
mod cohort_journey;
mod console;
mod embed;
mod flows;
mod history;
mod integrations;
mod journey;
mod keyboard;
mod keys;
mod owner_tools;
mod public_pages;
mod questions;
mod rich_content;
mod stack;
mod stumbles;
mod trust_journey;
