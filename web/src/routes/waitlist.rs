//! `/waitlist/:slug`: the public signup form. The email field comes first, checked with the
//! shared grammar as the user types (its fine print shown only once an address is
//! refused); then the notice in short — its purpose, with the exact full text one click
//! away — then an unticked box and the button, which says why while it cannot be pressed.
//! The signup records the version of the notice shown. One attempt keeps one request key
//! across retries after a network failure or server error, so a retry can never count
//! twice; a definite answer ends the attempt. The answer for a new and a known address is
//! the same neutral "received".

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_params_map;
use shared::api::{Notice, PowLevel, PublicProgram, SignupRequest, SignupResponse};
use shared::{EmailKey, ErrorCode, Slug};
use uuid::Uuid;

use crate::api::{self, ApiError, Code};
use crate::components::later::Later;
use crate::components::notice::NoticeView;
use crate::components::pow::{self, Solution};
use crate::components::questions::{account_signed_in, answers_ready, AccountNotice, AddressPicker, QuestionFields};
use crate::components::set_title;
use crate::components::status::{loaded, Arrived, ErrorNotice, Warning};
use shared::questions::{Answers, JoinWith};
use shared::signup_form as words;

/// The program the server wrote into this page (`api/src/routes/form_page.rs`), when it is
/// the one `slug` names. Taken once: the data block is removed, so a later client-side
/// visit to a form asks the API.
pub fn written_program(slug: &str) -> Option<PublicProgram> {
    let block = document().get_element_by_id(words::DATA_ID)?;
    let text = block.text_content();
    block.remove();
    let program: PublicProgram = serde_json::from_str(&text?).ok()?;
    (program.slug == slug).then_some(program)
}

/// The route's `:slug` now.
pub fn route_slug() -> String {
    use_params_map().get_untracked().get("slug").unwrap_or_default()
}

/// The public program named by the route's `:slug`, for the form here and the embed.
pub fn public_program() -> LocalResource<Result<PublicProgram, ApiError>> {
    let params = use_params_map();
    LocalResource::new(move || {
        let slug = params.read().get("slug").unwrap_or_default();
        async move {
            Slug::parse(&slug).map_err(|_| ApiError::not_found())?;
            api::get_public::<PublicProgram>(&format!("/api/public/programs/{slug}")).await
        }
    })
}

#[component]
pub fn Waitlist() -> impl IntoView {
    set_title("Join a waitlist");
    // Written into the page by the server: the form shows at once, with no request.
    if let Some(p) = written_program(&route_slug()) {
        return form_page(p);
    }
    let program = public_program();
    view! {
        {loaded(program, move |r| match r {
                    Ok(p) => form_page(p),
                    Err(e) if e.status == 404 => view! {
                        <div class="card">
                            <h1>"This waitlist is not available"</h1>
                            <p>"Check the link you were given. The list may not exist or may not be published yet."</p>
                        </div>
                    }.into_any(),
                    Err(e) => view! { <h1>"Join the waitlist"</h1><ErrorNotice err=e/> }.into_any(),
            })}
    }
    .into_any()
}

/// The program the server wrote into this page when the page is a signup form
/// (`/waitlist/{slug}`, or the embed's `/embed/waitlist/{slug}`), read from the address
/// alone, and whether it is the embed: the app then renders the form without the router
/// (`app.rs`).
pub fn page_program() -> Option<(PublicProgram, bool)> {
    let path = window().location().pathname().ok()?;
    let (slug, embed) = match path.strip_prefix("/embed/waitlist/") {
        Some(slug) => (slug, true),
        None => (path.strip_prefix("/waitlist/")?, false),
    };
    Slug::parse(slug).ok()?;
    Some((written_program(slug)?, embed))
}

pub fn form_page(p: PublicProgram) -> AnyView {
    page_title(&p);
    let slug = p.slug.clone();
    view! { <SignupForm program=p/> <DrawsLink slug/> }.into_any()
}

/// Sets the document's title: the program's own title alone, as the server writes it (the
/// page is the owner's); without one, the generic title naming the slug.
pub fn page_title(p: &PublicProgram) {
    match &p.title {
        Some(title) => document().set_title(title),
        None => set_title(&format!("Join the {} waitlist", p.slug)),
    }
}

/// "How this draw is run", when the program has lottery draws (issue 29).
#[component]
fn DrawsLink(slug: String) -> impl IntoView {
    let draws = crate::routes::draws::public_draws(slug.clone());
    move || {
        let any = draws.get().and_then(Result::ok).is_some_and(|d| !d.is_empty());
        any.then(|| {
            view! { <p class="small draws-link">"Seats here are drawn by lot. "<a href=format!("/waitlist/{slug}/draws")>"How this draw is run"</a></p> }
        })
    }
}

/// How the current attempt ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Idle,
    Sending,
    Received,
    /// Closed form, outdated notice or a key bound to other fields: reload.
    Changed,
    Full,
    /// Network failure or server error: the same attempt may be retried.
    Retry,
    Refused,
}

#[component]
pub(crate) fn SignupForm(program: PublicProgram) -> impl IntoView {
    let PublicProgram { slug, title, description, signup_open, notice, proof_of_work, embed_origins: _, join_with } =
        program;
    let email = RwSignal::new(String::new());
    // Issue 31: `joinWith: "account"` joins signed in, with a confirmed address (`components::questions`).
    let (account, signed_in) = (join_with == JoinWith::Account, account_signed_in());
    let agreed = RwSignal::new(false);
    let outcome = RwSignal::new(Outcome::Idle);
    let attempt_key = StoredValue::new(None::<Uuid>);
    let (questions, answers) = (StoredValue::new(notice.questions.clone()), RwSignal::new(Answers::new()));
    let checked = move || email.with(|v| (!v.trim().is_empty()).then(|| EmailKey::parse(v)));
    let ready = move || {
        signup_open
            && agreed.get()
            && matches!(checked(), Some(Ok(_)))
            && outcome.get() != Outcome::Sending
            && answers.with(|a| questions.with_value(|q| answers_ready(q, a)))
    };

    // Proof of work: solved in a worker from the start; a submit before it is done waits
    // for it (`queued`). A used or refused solution is replaced once and sent again.
    let work = RwSignal::new(Solution::NotNeeded);
    let slug_for_work = slug.clone();
    let fresh_work = Callback::new(move |()| {
        if proof_of_work != PowLevel::Off && signup_open && !account {
            pow::solve(&slug_for_work, work);
        }
    });
    fresh_work.run(());
    let queued = RwSignal::new(false);
    let resolved = StoredValue::new(false);

    let (version, path) = (notice.version, format!("/api/public/programs/{slug}/signups"));
    let join_path = format!("/api/me/waitlist/{slug}/join");
    let send = Callback::new(move |()| {
        let Some(key) = attempt_key.get_value() else { return };
        let body = SignupRequest {
            request_key: key,
            email: email.get_untracked(),
            notice_version: version,
            permission: true,
            source: source_ref(),
            altcha: work.with_untracked(Solution::payload),
            answers: answers.get_untracked(),
        };
        let (path, join_path) = (path.clone(), join_path.clone());
        spawn_local(async move {
            let result = match account {
                true => api::post::<_, SignupResponse>(join_path.clone(), &body).await,
                false => api::post_public::<_, SignupResponse>(&path, &body).await,
            };
            if matches!(&result, Err(e) if e.code == Code::Api(ErrorCode::ChallengeFailed)) && !resolved.get_value() {
                resolved.set_value(true);
                fresh_work.run(());
                queued.set(true);
                return;
            }
            let next = match result {
                Ok(_) => Outcome::Received,
                Err(e) if e.is_retryable() => Outcome::Retry,
                Err(e) if e.status == 409 => Outcome::Changed,
                Err(e) if e.status == 429 => Outcome::Full,
                Err(_) => Outcome::Refused,
            };
            if next != Outcome::Retry {
                attempt_key.set_value(None);
            }
            if next == Outcome::Received {
                email.set(String::new());
                agreed.set(false);
                answers.set(Answers::new());
                fresh_work.run(());
            }
            resolved.set_value(false);
            outcome.set(next);
        });
    });
    Effect::new(move || {
        if queued.get() && work.with(Solution::settled) {
            queued.set(false);
            send.run(());
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !ready() {
            return;
        }
        let key = attempt_key.get_value().unwrap_or_else(Uuid::new_v4);
        attempt_key.set_value(Some(key));
        outcome.set(Outcome::Sending);
        queued.set(true);
    };
    // A changed address is a new attempt with a new key.
    let on_email = move |ev| {
        email.set(event_target_value(&ev));
        attempt_key.set_value(None);
    };
    let published = (notice.version, notice.published_at.clone());
    let received = Memo::new(move |_| outcome.get() == Outcome::Received);

    // The heading is the program's title; without one, the generic heading and the slug.
    // The server's first paint (`api/src/routes/form_page.rs`) writes the same three.
    let untitled =
        title.is_none().then(|| view! { <p class="muted">{words::PROGRAM_PREFIX} <strong>{slug.clone()}</strong></p> });
    let heading_class = (embedded() && query_flag("hideTitle")).then_some("sr-only");
    view! {
        <h1 class=heading_class>{title.unwrap_or_else(|| words::UNTITLED_HEADING.to_owned())}</h1>
        {untitled}
        {description.map(|d| view! { <p class="lead pitch">{d}</p> })}
        {account.then(|| view! { <AccountNotice slug=slug.clone() signed_in/> })}
        {move || if account && !signed_in() {
            ().into_any()
        } else if received.get() {
            view! {
                <Arrived id="joined-heading" heading="Thank you — your request was received">
                    <p>"If a place opens up, the program's owner will contact you at the address you gave, through their own channel."</p>
                    <p>"To see your place in the queue, sign in with that same address: " {place_link()}"."</p>
                </Arrived>
            }.into_any()
        } else {
            let notice = notice.clone();
            let published = published.clone();
            let fields = view! {
                {account.then(|| view! { <AddressPicker email/> })}
                <QuestionFields questions=questions.get_value() answers disabled=!signup_open/>
            };
            view! { <FormBody signup_open notice published email agreed outcome checked ready on_email submit=submit fields account/> }.into_any()
        }}
    }
}

#[component]
fn FormBody(
    signup_open: bool,
    notice: Notice,
    published: (i32, String),
    email: RwSignal<String>,
    agreed: RwSignal<bool>,
    outcome: RwSignal<Outcome>,
    checked: impl Fn() -> Option<Result<EmailKey, shared::EmailError>> + Send + Sync + Copy + 'static,
    ready: impl Fn() -> bool + Send + Sync + Copy + 'static,
    on_email: impl Fn(leptos::ev::Event) + 'static,
    submit: impl Fn(leptos::ev::SubmitEvent) + 'static,
    /// The notice's questions (`components::questions`), after the address.
    fields: impl IntoView + 'static,
    /// Joining signed in: `fields` holds the address picker instead of the typed address.
    account: bool,
) -> impl IntoView {
    let problem = move || match checked() {
        Some(Err(e)) => Some(sentence(&e.to_string())),
        _ => None,
    };
    // Why the button cannot be pressed yet, in the order the form asks.
    let blocked = move || {
        if !signup_open {
            Some(words::BLOCKED_CLOSED)
        } else if !matches!(checked(), Some(Ok(_))) {
            Some(words::BLOCKED_EMAIL)
        } else if !agreed.get() {
            Some(words::BLOCKED_PERMISSION)
        } else {
            None
        }
    };
    let closed = (!signup_open).then(|| {
        view! {
            <Warning><p>{words::CLOSED}</p></Warning>
        }
    });
    let Notice { purpose, contact_text, retention_text, questions, .. } = notice;
    // The full text is folded: it renders a step after the rest (`components::later`).
    let version = published.0;
    let full_notice = {
        let purpose = purpose.clone();
        move || {
            let (purpose, contact_text, retention_text) =
                (purpose.clone(), contact_text.clone(), retention_text.clone());
            let (published, questions) = (published.clone(), questions.clone());
            view! { <NoticeView purpose contact_text retention_text published purpose_above=true questions/> }
        }
    };
    // The notice, the box and the button render a step after the address (and the full
    // text a step after them): the first screen's work in short tasks (`components::later`).
    let rest = move || {
        let (purpose, full_notice) = (purpose.clone(), full_notice.clone());
        view! {
            <section class="notice compact" aria-labelledby="notice-summary-heading">
                <h3 id="notice-summary-heading">{words::NOTICE_HEADING}</h3>
                <p class="exact">{purpose}</p>
                <details class="notice-full">
                    <summary>{words::full_notice_summary(version)}</summary>
                    <Later>{full_notice.clone()}</Later>
                </details>
            </section>
            <div class="check">
                <input id="signup-permission" type="checkbox" disabled=!signup_open
                    prop:checked=move || agreed.get() on:change=move |ev| agreed.set(event_target_checked(&ev))/>
                <label for="signup-permission">{words::PERMISSION}</label>
            </div>
            <button type="submit" disabled=move || !ready() aria-describedby="signup-blocked">
                {move || if outcome.get() == Outcome::Sending { "Sending…" } else { words::SUBMIT }}
            </button>
            <p id="signup-blocked" class="help" aria-live="polite">{blocked}</p>
            {move || outcome_message(outcome.get())}
        }
    };
    view! {
        {closed}
        <form class="card form" method="post" novalidate on:submit=submit>
            <h2>{words::EMAIL_HEADING}</h2>
            {(!account).then(|| view! {
            <label for="signup-email">{words::EMAIL_LABEL}</label>
            <input id="signup-email" type="email" inputmode="email" autocomplete="email" spellcheck="false"
                maxlength="254" disabled=!signup_open prop:value=email.get_untracked() on:input=on_email
                aria-invalid=move || problem().is_some().to_string()
                aria-describedby=move || if problem().is_some() { "signup-email-problem signup-email-help" } else { "signup-email-problem" }/>
            <p id="signup-email-problem" class="field-error" aria-live="polite">{problem}</p>
            // The grammar's fine print, only once an address is refused.
            {move || problem().is_some().then(|| view! {
                <p id="signup-email-help" class="help">
                    "Plain addresses such as name@example.com work. Some valid but unusual addresses are not accepted: ones with spaces, quotes, comments or non-English letters, and ones with an IP address instead of a domain name."
                </p>
            })}
            })}
            {fields}
            <Later>{rest.clone()}</Later>
        </form>
    }
}

fn outcome_message(outcome: Outcome) -> Option<AnyView> {
    let reload = || view! { <button type="button" class="secondary" on:click=|_| drop(window().location().reload())>"Reload"</button> };
    let view = match outcome {
        Outcome::Changed => view! {
            <Warning>
                <p>"This form changed since you opened it — it may have closed, or its notice was updated. Reload the page to see the current version."</p>
                {reload()}
            </Warning>
        }.into_any(),
        Outcome::Full => view! { <Warning><p>"The list is full right now. Please try again later."</p></Warning> }.into_any(),
        Outcome::Retry => view! {
            <Warning><p>"We could not confirm your request. Please try again — trying again cannot sign you up twice."</p></Warning>
        }.into_any(),
        Outcome::Refused => view! { <Warning><p>"The request was not accepted. Check the address and try again."</p></Warning> }.into_any(),
        Outcome::Idle | Outcome::Sending | Outcome::Received => return None,
    };
    Some(view)
}

/// Whether this is the framed copy of the form (`/embed/waitlist/{slug}`).
fn embedded() -> bool {
    window().location().pathname().is_ok_and(|p| p.starts_with("/embed/"))
}

/// Whether the page's query has `name=1` (the embed's `hideTitle`, set by `web/embed.js`).
fn query_flag(name: &str) -> bool {
    let search = window().location().search().unwrap_or_default();
    web_sys::UrlSearchParams::new_with_str(&search).ok().and_then(|p| p.get(name)).is_some_and(|v| v == "1")
}

/// "see my place": in the frame, a link out that opens in a new tab (a page of the
/// console or /me inside the owner's frame would be lost there).
fn place_link() -> AnyView {
    if embedded() {
        view! { <a href="/me" target="_blank" rel="noopener">"see my place"<span class="sr-only">" (opens in a new tab)"</span></a> }.into_any()
    } else {
        // A plain link: the router, when the page has one, takes it over.
        view! { <a href="/me">"see my place"</a> }.into_any()
    }
}

/// The page's `?ref=` source, when it follows the shared grammar (else dropped).
fn source_ref() -> Option<String> {
    let search = window().location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get("ref").and_then(|r| shared::SourceRef::parse(&r)).map(String::from)
}

/// `the address must …` → `The address must ….`
fn sentence(text: &str) -> String {
    let mut s = text.to_owned();
    if let Some(first) = s.get(..1) {
        let upper = first.to_ascii_uppercase();
        s.replace_range(..1, &upper);
    }
    s.push('.');
    s
}
