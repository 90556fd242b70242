//! Black-box tests of the API: each test gets a fresh PostgreSQL database, a real
//! `clerk-dev` process and the real server on port 0, and talks to them over HTTP.
//! One test binary with a module per area keeps link time down.

mod support;

mod early_access;
mod faults;
mod foundation;
mod log_scan;
mod ops;
mod redeem;
