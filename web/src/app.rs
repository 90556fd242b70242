//! The application shell: session context, header and the route table (SPEC §8). Every
//! path here must also be one the API serves the shell for.

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use crate::auth;
use crate::components::nav::Header;
use crate::routes::{early_access, home, me, not_found, owner, redeem, sign_in, waitlist};

#[component]
pub fn App() -> impl IntoView {
    auth::start();
    view! {
        <Router>
            <Header/>
            <main id="main" class="wrap">
                <Routes fallback=not_found::NotFound>
                    <Route path=path!("/") view=home::Home/>
                    <Route path=path!("/waitlist/:slug") view=waitlist::Waitlist/>
                    <Route path=path!("/sign-in") view=sign_in::SignIn/>
                    <Route path=path!("/me") view=me::Me/>
                    <Route path=path!("/redeem") view=redeem::Redeem/>
                    <Route path=path!("/early-access/:slug") view=early_access::EarlyAccess/>
                    <Route path=path!("/owner") view=owner::dashboard::Dashboard/>
                    <Route path=path!("/owner/programs/:id") view=owner::program::ProgramPage/>
                    <Route path=path!("/owner/programs/:id/queue") view=owner::queue::Queue/>
                    <Route path=path!("/owner/programs/:id/notice") view=owner::notice::NoticePage/>
                    <Route path=path!("/owner/programs/:id/content") view=owner::content::ContentPage/>
                    <Route path=path!("/owner/programs/:id/audit") view=owner::audit::Audit/>
                    <Route path=path!("/owner/programs/:id/entries/:entry") view=owner::entry::EntryPage/>
                    <Route path=path!("/owner/workspaces/:id/owners") view=owner::owners::Owners/>
                </Routes>
            </main>
            <footer class="site-footer wrap">
                <p>"Vestibule · waitlists and early access, kept to the notice you agreed to."</p>
            </footer>
        </Router>
    }
}
