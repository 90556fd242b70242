//! The sign-in adapter. `GET /api/config` picks the back end — the local stand-in
//! (`clerk-dev`, development only) or real Clerk — and this module hides which one is in
//! use: it keeps the `__session` cookie fresh, answers "refresh and retry" for [`crate::api`],
//! and holds the session's CSRF token. Policy: no email, token or code is ever written to
//! local storage or the console; only the session id lives in `sessionStorage`.

mod clerk;
mod local;

use std::cell::{Cell, RefCell};

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::api::ConfigResponse;

use crate::api::{self, ApiError};

/// What the SPA knows about the visitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Configuration and session are still being read.
    Starting,
    SignedOut,
    SignedIn,
    /// The server could not confirm either way (identity provider or API unavailable).
    Unverified,
}

/// Which sign-in back end the server asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Unknown,
    Local,
    Clerk,
    /// `/api/config` failed or named nothing usable.
    Unavailable,
}

/// Reactive view of the session, provided as context by [`start`].
#[derive(Clone, Copy)]
pub struct Session {
    pub status: RwSignal<Status>,
    pub backend: RwSignal<Backend>,
    /// Whether the signed-in person owns a workspace (`None` until asked): the header
    /// offers the owner console only to owners.
    pub owner: RwSignal<Option<bool>>,
    /// The account's verified address (the first, when it has several), for "Signed in as …".
    pub email: RwSignal<Option<String>>,
}

thread_local! {
    static SESSION: Cell<Option<Session>> = const { Cell::new(None) };
    static CSRF: RefCell<Option<String>> = const { RefCell::new(None) };
}

pub fn use_session() -> Session {
    expect_context::<Session>()
}

/// Provides the [`Session`] context and starts reading configuration and session.
pub fn start() {
    let session = Session {
        status: RwSignal::new(Status::Starting),
        backend: RwSignal::new(Backend::Unknown),
        owner: RwSignal::new(None),
        email: RwSignal::new(None),
    };
    provide_context(session);
    SESSION.set(Some(session));
    spawn_local(init(session));
}

async fn init(session: Session) {
    crate::components::next_task().await;
    let Ok(config) = api::get_public::<ConfigResponse>("/api/config").await else {
        session.backend.set(Backend::Unavailable);
        session.status.set(Status::Unverified);
        return;
    };
    let has_session = match (config.identity.as_str(), config.identity_dev_url, config.publishable_key) {
        ("local", Some(url), _) => {
            local::configure(url);
            session.backend.set(Backend::Local);
            local::resume().await
        }
        ("clerk", _, Some(key)) => match clerk::load(&key).await {
            Ok(()) => {
                session.backend.set(Backend::Clerk);
                clerk::signed_in()
            }
            Err(_) => {
                session.backend.set(Backend::Unavailable);
                session.status.set(Status::Unverified);
                return;
            }
        },
        _ => {
            session.backend.set(Backend::Unavailable);
            session.status.set(Status::Unverified);
            return;
        }
    };
    if has_session {
        confirm(session).await;
    } else {
        session.status.set(Status::SignedOut);
    }
}

/// Asks the API who is signed in, keeping the CSRF token it hands out.
async fn confirm(session: Session) {
    forget_csrf();
    session.owner.set(None);
    session.email.set(None);
    let status = match api::fetch_me().await {
        Ok(me) => {
            CSRF.set(Some(me.csrf_token));
            Status::SignedIn
        }
        Err(e) if e.status == 401 => Status::SignedOut,
        Err(_) => Status::Unverified,
    };
    session.status.set(status);
    if status == Status::SignedIn {
        // Best effort: without it the header only says "Sign out".
        let emails = api::get::<shared::api::OwnEmails>("/api/me/emails").await;
        session.email.set(emails.ok().and_then(|e| e.emails.into_iter().next()));
        is_owner().await;
    }
}

/// Whether the signed-in person owns an active workspace: the owner API answers their
/// workspaces, or the same 404 as for anything absent. Asked once per session.
pub async fn is_owner() -> bool {
    let Some(session) = SESSION.get() else { return false };
    if let Some(known) = session.owner.get_untracked() {
        return known;
    }
    let answer = api::get::<Vec<shared::api::Workspace>>("/api/owner/workspaces").await;
    let owner = match answer {
        Ok(_) => true,
        Err(e) if e.status == 404 => false,
        // Unknown for now (network, outage): ask again next time.
        Err(_) => return false,
    };
    session.owner.set(Some(owner));
    if owner {
        crate::prefetch::console();
    }
    owner
}

/// Development sign-in through the local stand-in.
pub async fn sign_in_local(email: &str) -> Result<(), ApiError> {
    local::sign_in(email).await?;
    if let Some(session) = SESSION.get() {
        confirm(session).await;
    }
    Ok(())
}

/// Mounts Clerk's sign-in component into `el` (real Clerk only).
pub fn mount_clerk_sign_in(el: &web_sys::HtmlElement) {
    clerk::mount_sign_in(el);
}

pub fn unmount_clerk_sign_in(el: &web_sys::HtmlElement) {
    clerk::unmount_sign_in(el);
}

/// Gets a fresh session token into the cookie. `false` when there is no session to refresh.
pub async fn refresh() -> bool {
    match SESSION.get().map(|s| s.backend.get_untracked()) {
        Some(Backend::Local) => local::refresh().await,
        Some(Backend::Clerk) => clerk::refresh().await,
        _ => false,
    }
}

/// The CSRF token of the current session, asking `GET /api/me` once per session.
pub async fn csrf_token() -> Result<String, ApiError> {
    if let Some(token) = CSRF.with_borrow(Clone::clone) {
        return Ok(token);
    }
    let me = api::fetch_me().await?;
    CSRF.set(Some(me.csrf_token.clone()));
    Ok(me.csrf_token)
}

pub fn forget_csrf() {
    CSRF.set(None);
}

/// The API said 401 even after a refresh: the session is over.
pub fn mark_signed_out() {
    forget_csrf();
    if let Some(session) = SESSION.get() {
        session.owner.set(None);
        session.email.set(None);
        session.status.set(Status::SignedOut);
    }
}

/// Ends the session on this device (and, with Clerk, at Clerk).
pub async fn sign_out() {
    match SESSION.get().map(|s| s.backend.get_untracked()) {
        Some(Backend::Local) => local::sign_out(),
        Some(Backend::Clerk) => clerk::sign_out().await,
        _ => {}
    }
    mark_signed_out();
}
