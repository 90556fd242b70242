//! Black-box tests of the `clerk-dev` binary: each test spawns it on a free port, reads
//! the listening line, and talks HTTP to it (Backend API, dev sign-in, CORS, faults).

mod backend;
mod dev;
mod faults;
mod organizations;
mod support;
mod users;
