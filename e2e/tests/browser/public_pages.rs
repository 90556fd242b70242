//! The pages anyone can reach, signed out or signed in without any entry, and the sign-in
//! redirect: after signing in, `?next=` only ever continues to a path on this site
//! (issue 12, item 1), and `/redeem`'s "Use a different account" comes back there as the
//! other account (issue 19, item 2).

use crate::browser::Browser;
use crate::flows::{sign_in, sign_out};
use crate::stack::{in_browser, Stack};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_in_never_continues_to_another_site() {
    in_browser(|stack, b| Box::pin(never_elsewhere(stack, b))).await;
}

async fn never_elsewhere(_stack: &Stack, b: &Browser) {
    // Browsers read `/\evil.example` and `/<TAB>/evil.example` as `//evil.example`.
    for next in ["/%5Cevil.example", "/%09/evil.example", "//evil.example", "https://evil.example/", "/.//evil.example"]
    {
        b.open(&format!("/sign-in?next={next}")).await;
        b.wait_text("Development sign-in").await;
        b.fill("#sign-in-email", "rita.redirect@example.com").await;
        b.click_button("Sign in").await;
        // Not an owner and no usable `next`: their own waitlists, on this site.
        b.wait_path("/me").await;
        b.wait_text("Sign out").await;
        sign_out(b).await;
    }
    // A path on this site is where sign-in continues.
    sign_in(b, "rita.redirect@example.com", "/redeem", false).await;

    // A code sent to another address: "Use a different account" signs out and comes back
    // to /redeem signed in as the other one.
    b.wait_text("Signed in as rita.redirect@example.com").await;
    b.click_button("Use a different account").await;
    b.wait_path("/sign-in").await;
    let url = b.driver.current_url().await.unwrap();
    assert_eq!(url.query(), Some("next=/redeem"), "back to /redeem after signing in");
    b.wait_text("Development sign-in").await;
    b.fill("#sign-in-email", "rita.other@example.com").await;
    b.click_button("Sign in").await;
    b.wait_path("/redeem").await;
    b.wait_text("Signed in as rita.other@example.com").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_pages_are_accessible() {
    in_browser(|stack, b| Box::pin(public_pages(stack, b))).await;
}

async fn public_pages(stack: &Stack, b: &Browser) {
    // The public form's notice, opened to its full text (the compact summary is the
    // "waitlist" screenshot of the journey).
    let (owner, workspace) = stack.owner("nora.notice@example.com").await;
    stack.open_program(&owner, workspace, "notice-beta", "Hello.").await;
    b.open("/waitlist/notice-beta").await;
    b.wait_text("Read the full notice (version 1)").await;
    b.click_summary("Read the full notice (version 1)").await;
    b.wait_text("Until launch.").await;
    b.check_page("waitlist-notice").await;

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
