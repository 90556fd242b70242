//! A signed-in user's requests: every one carries their session token, and every
//! mutation their session-bound CSRF token. [`super::Owner`] and [`super::Recipient`]
//! are sessions that speak their audience's routes; both deref to this, and this to
//! the [`User`].

use super::{Reply, TestApp, User};
use serde::Serialize;

#[derive(Clone)]
pub struct Session {
    pub(super) app: TestApp,
    pub user: User,
}

impl std::ops::Deref for Session {
    type Target = User;
    fn deref(&self) -> &User {
        &self.user
    }
}

impl Session {
    pub async fn get(&self, path: &str) -> Reply {
        self.app.get(path, Some(&self.user)).await
    }

    pub async fn post(&self, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.post(path, body, Some(&self.user)).await
    }

    pub async fn put(&self, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.put(path, body, Some(&self.user)).await
    }

    pub async fn patch(&self, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.patch(path, body, Some(&self.user)).await
    }

    /// Any method with a JSON body, as this user.
    pub async fn send(&self, method: reqwest::Method, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.send(method, path, Some(body), Some(&self.user)).await
    }
}
