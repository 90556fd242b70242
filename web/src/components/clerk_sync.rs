//! The program's "On grant, in Clerk" setting (issue 14): put the program's slug into the
//! user's public metadata and, optionally, the user into an organization with a
//! non-admin role. Checked here with the server's own rules before the PATCH. Below the
//! form, the delivery log: each call to Clerk with its result, and a retry for a failed
//! one (like a webhook's delivery log).

use leptos::prelude::*;
use shared::api::{PatchProgramRequest, Program};
use shared::clerk_sync::{organization_id_ok, role_ok, ClerkCallOutcome, ClerkSyncCallLog, ClerkSyncSetting};
use uuid::Uuid;

use crate::api;
use crate::components::retry_then_refetch;
use crate::components::status::{loaded, Empty, ErrorNotice};
use crate::components::table::ScrollTable;
use crate::components::text::time;

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
        <section class="card">
            <h2>"On grant, in Clerk"</h2>
            <form class="form" method="post" novalidate on:submit=save>
                <p class="muted small">"When someone is granted access, Vestibule can mark it on their Clerk account, where your product already looks: as a note on the account your app can read, and as membership of one of your organizations. Revoking or withdrawing takes both back. A membership the user already had is never removed."</p>
                <div class="check">
                    <input id="clerk-metadata" type="checkbox" prop:checked=move || metadata.get() on:change=move |ev| metadata.set(event_target_checked(&ev))/>
                    <label for="clerk-metadata">"Note the access on the user's Clerk account"</label>
                </div>
                <p class="muted small" id="clerk-metadata-help">{format!("Your app then finds it in the session as vestibule.programs.{} (Clerk's public metadata).", p.slug)}</p>
                <div class="fields">
                    <div>
                        <label for="clerk-org">"Organization id (optional)"</label>
                        <input id="clerk-org" type="text" class="mono" spellcheck="false" placeholder="org_…" prop:value=move || org.get() on:input=move |ev| org.set(event_target_value(&ev))/>
                    </div>
                    <div>
                        <label for="clerk-role">"Role in the organization"</label>
                        <input id="clerk-role" type="text" class="mono" spellcheck="false" aria-describedby="clerk-role-help" prop:value=move || role.get() on:input=move |ev| role.set(event_target_value(&ev))/>
                    </div>
                </div>
                <p class="muted small" id="clerk-role-help">"Members get this role; the usual one is member, written as Clerk's key (org:member)."</p>
                {move || problem.get().map(|m| view! { <div class="alert alert-error" role="alert">{m}</div> })}
                <p class="muted small">"Applies to grants from now on; grants already mirrored keep the setting they were mirrored with until they end."</p>
                <button type="submit" disabled=move || pending.get()>"Save Clerk setting"</button>
            </form>
            <ClerkSyncLog program=p.id/>
        </section>
    }
}

/// What a call's outcome says, in plain words.
fn outcome_text(c: &ClerkSyncCallLog) -> String {
    let why = match c.status_code {
        Some(s) => format!("Clerk answered {s}"),
        None => "no answer from Clerk".to_owned(),
    };
    match (c.outcome, &c.next_attempt_at) {
        (ClerkCallOutcome::Succeeded, _) => "Succeeded".to_owned(),
        (ClerkCallOutcome::Pending, Some(at)) => format!("Failed ({why}); trying again at {}", time(at)),
        _ => format!("Failed ({why})"),
    }
}

#[component]
fn ClerkSyncLog(program: Uuid) -> impl IntoView {
    let path = format!("/api/owner/programs/{program}/clerk-sync/deliveries");
    let list_path = path.clone();
    let log = LocalResource::new(move || api::get::<shared::clerk_sync::ClerkSyncCallsResponse>(list_path.clone()));
    let retry = retry_then_refetch(path, log);
    view! {
        <div class="row spread">
            <h3>"Calls to Clerk"</h3>
            <button type="button" class="secondary" on:click=move |_| log.refetch()>"Refresh"</button>
        </div>
        {loaded(log, move |r| match r {
            Ok(page) if page.calls.is_empty() => view! { <Empty><p>"No calls yet."</p></Empty> }.into_any(),
            Ok(page) => {
                let rows = page.calls.into_iter().map(|c| {
                    let delivery = c.delivery_id;
                    let result = outcome_text(&c);
                    let what = if c.event_type == "grant.revoked" { "Access ended" } else { "Access granted" };
                    let grant = c.grant_id.map(|g| format!(" · grant {}", &g.to_string()[..8])).unwrap_or_default();
                    view! {
                        <tr>
                            <td class="small">{time(&c.at)}</td>
                            <td>{c.call.label()}</td>
                            <td class="small">{what}<span class="mono">{grant}</span></td>
                            <td>{c.attempt}</td>
                            <td>{result}</td>
                            <td>{c.can_retry.then(|| view! { <button type="button" class="secondary" on:click=move |_| retry.run(delivery)>"Retry now"</button> })}</td>
                        </tr>
                    }
                }).collect_view();
                view! {
                    <ScrollTable label="Calls to Clerk">
                        <caption>"Each call to Clerk for this program's grants, newest first"</caption>
                        <thead><tr><th scope="col">"When"</th><th scope="col">"Call"</th><th scope="col">"For"</th><th scope="col">"Attempt"</th><th scope="col">"Result"</th><th scope="col"></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </ScrollTable>
                }
                .into_any()
            }
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
    }
}
