//! The program's "On grant, in Clerk" setting (issue 14): put the program's slug into the
//! user's public metadata and, optionally, the user into an organization with a
//! non-admin role. Checked here with the server's own rules before the PATCH.

use leptos::prelude::*;
use shared::api::{PatchProgramRequest, Program};
use shared::clerk_sync::{organization_id_ok, role_ok, ClerkSyncSetting};

#[component]
pub fn ClerkSyncForm(
    p: Program,
    blank: PatchProgramRequest,
    pending: RwSignal<bool>,
    change: Callback<(PatchProgramRequest, &'static str)>,
) -> impl IntoView {
    let current = p.clerk.clone();
    let metadata = RwSignal::new(current.as_ref().is_some_and(|c| c.public_metadata));
    let org = RwSignal::new(current.as_ref().and_then(|c| c.organization_id.clone()).unwrap_or_default());
    let role = RwSignal::new(current.and_then(|c| c.role).unwrap_or_else(|| "org:member".into()));
    let problem = RwSignal::new(None::<&'static str>);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (o, r) = (org.get_untracked().trim().to_owned(), role.get_untracked().trim().to_owned());
        let organization = match o.is_empty() {
            true => None,
            false if !organization_id_ok(&o) => {
                return problem.set(Some("An organization id is Clerk's org_… id: letters, digits and _ only."))
            }
            false if !role_ok(&r) => {
                return problem.set(Some("The role must be org:<key> and not an admin role (e.g. org:member)."))
            }
            false => Some((o, r)),
        };
        problem.set(None);
        let (organization_id, role) = organization.unzip();
        let setting = ClerkSyncSetting { public_metadata: metadata.get_untracked(), organization_id, role };
        change.run((PatchProgramRequest { clerk: Some(setting), ..blank.clone() }, "Clerk setting saved."));
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=save>
            <h2>"On grant, in Clerk"</h2>
            <p class="muted small">"When someone is granted access, Vestibule can mark it in Clerk, where your product already looks: in the user's public metadata (vestibule.programs."{p.slug.clone()}" in the session claims) and as a member of an organization. Revoking or withdrawing takes both back. A membership the user already had is never removed."</p>
            <div class="check">
                <input id="clerk-metadata" type="checkbox" prop:checked=move || metadata.get() on:change=move |ev| metadata.set(event_target_checked(&ev))/>
                <label for="clerk-metadata">"Put the program into the user's public metadata"</label>
            </div>
            <div class="fields">
                <div>
                    <label for="clerk-org">"Organization id (optional)"</label>
                    <input id="clerk-org" class="mono" spellcheck="false" placeholder="org_…" prop:value=move || org.get() on:input=move |ev| org.set(event_target_value(&ev))/>
                </div>
                <div>
                    <label for="clerk-role">"Role"</label>
                    <input id="clerk-role" class="mono" spellcheck="false" prop:value=move || role.get() on:input=move |ev| role.set(event_target_value(&ev))/>
                </div>
            </div>
            {move || problem.get().map(|m| view! { <div class="alert alert-error" role="alert">{m}</div> })}
            <p class="muted small">"Applies to grants from now on; grants already mirrored keep the setting they were mirrored with until they end."</p>
            <button type="submit" disabled=move || pending.get()>"Save Clerk setting"</button>
        </form>
    }
}
