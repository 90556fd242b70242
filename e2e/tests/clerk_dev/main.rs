//! Black-box tests of the `clerk-dev` binary: each test spawns it on a free port, reads
//! the listening line, and talks HTTP to it (Backend API, dev sign-in, CORS, faults), and
//! [`sdk`] drives it with Clerk's official Backend SDK.

mod backend;
mod dev;
mod faults;
mod organizations;
mod sdk;
mod support;
mod users;
