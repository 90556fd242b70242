//! The pages anyone can reach, signed out or signed in without any entry.

use crate::browser::Browser;
use crate::flows::sign_in;
use crate::stack::{in_browser, Stack};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_pages_are_accessible() {
    in_browser(|stack, b| Box::pin(public_pages(stack, b))).await;
}

async fn public_pages(_stack: &Stack, b: &Browser) {
    b.open("/").await;
    b.wait_text("Waitlists and early access, done carefully").await;
    b.check_page("home").await;
    assert!(!b.text().await.contains("Owner console"), "a visitor is offered no owner navigation");

    b.open("/waitlist/no-such-list").await;
    b.wait_text("This waitlist is not available").await;
    b.check_page("waitlist-unavailable").await;

    b.open("/owner/no-such-page").await; // a client route the SPA does not know
    b.wait_text("Page not found").await;
    b.check_page("not-found").await;

    b.open("/redeem").await;
    b.wait_text("Sign in to continue").await;
    b.check_page("redeem-signed-out").await;

    // Signed in with no entry anywhere: an empty list that says why.
    sign_in(b, "nobody.yet@example.com", "/me", false).await;
    b.wait_text("You are not on any waitlist").await;
    b.check_page("me-empty").await;
    assert!(!b.text().await.contains("Owner console"), "a non-owner is offered no owner navigation");
}
