//! `/`: what Vestibule is and where each kind of visitor goes next.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::components::set_title;

#[component]
pub fn Home() -> impl IntoView {
    set_title("Welcome");
    view! {
        <section class="hero">
            <h1>"Waitlists and early access, done carefully"</h1>
            <p class="lead">
                "Vestibule runs waitlists for products that are not open to everyone yet. You join a list through a form that says exactly why your address is collected and how long it is kept. When a place opens, the owner sends you a one-time invitation code through their own channel."
            </p>
        </section>
        <div class="grid">
            <section class="card">
                <h2>"Joined a waitlist?"</h2>
                <p>"Sign in with the same address to see where you stand, or to leave a list."</p>
                <p><A href="/me" attr:class="button">"My waitlists"</A></p>
            </section>
            <section class="card">
                <h2>"Got an invitation code?"</h2>
                <p>"Sign in, paste the code, and the program's early-access page opens for your account."</p>
                <p><A href="/redeem" attr:class="button">"Redeem a code"</A></p>
            </section>
            <section class="card">
                <h2>"Running a program?"</h2>
                <p>"Owners review their queue, select people under a written policy and issue invitation codes. Sign in with your owner account and your console opens."</p>
                <p><A href="/sign-in" attr:class="button secondary">"Sign in as an owner"</A></p>
            </section>
        </div>
        <section class="facts">
            <h2>"How it works"</h2>
            <ol>
                <li>"You tick a box for one specific notice. That choice is recorded with the notice's exact text."</li>
                <li>"Nobody is emailed by Vestibule. An owner who invites you sends the code themselves and records that they did."</li>
                <li>"A code works once, for the address it was issued to, and opens only that program."</li>
            </ol>
        </section>
    }
}
