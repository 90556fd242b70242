//! Harness pieces shared by the test binaries (`api`, `browser`): a fresh PostgreSQL
//! database per test and a real `clerk-dev` process. Each binary includes this module
//! with `#[path = "../common/mod.rs"]`, since one test binary cannot import another's.

pub mod clerk;
pub mod db;
pub mod drand;

/// The browser origin the API tests present; it is in `APP_ORIGINS` of every API test
/// server. (Browser tests use the server's real `http://127.0.0.1:PORT` instead.)
pub const ORIGIN: &str = "http://vestibule.test";
