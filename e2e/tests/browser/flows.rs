//! Moves several browser tests share: signing in through the development sign-in page and
//! signing out, as a person would.

use crate::browser::Browser;

/// Signs in through the development sign-in page (asked for by `next`) and waits to
/// arrive there; checks the sign-in page itself when `check` is set.
pub async fn sign_in(b: &Browser, email: &str, next: &str, check: bool) {
    b.open(&format!("/sign-in?next={next}")).await;
    b.wait_text("Development sign-in").await;
    if check {
        b.check_page("sign-in").await;
    }
    b.fill("#sign-in-email", email).await;
    b.click_button("Sign in").await;
    b.wait_text("Sign out").await;
    b.wait_path(next).await;
}

pub async fn sign_out(b: &Browser) {
    b.click_button("Sign out").await;
    b.wait_text("Waitlists and early access, done carefully").await;
    b.element("a[href='/sign-in']").await;
}
