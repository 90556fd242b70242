//! Questions on the form (issue 31), in every place they appear: the applicant's fields
//! ([`QuestionFields`], on the waitlist form and the account join), the owner's editor
//! with a live preview of those same fields ([`QuestionsEditor`]), and answers shown
//! readably ([`AnswersList`], on the entry page and as the queue's column). Joining with
//! a verified account ([`AccountJoin`]) lives here too: it is the same form, signed in.
//! Every rule is `shared::questions`, the one the API applies.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{AccountJoinRequest, OwnEmails, PublicProgram, SignupResponse};
use shared::questions::{
    answer_text, check_answers, check_questions, Answer, AnswerError, Answers, Question, QuestionKind, QuestionsError,
    MAX_QUESTIONS,
};
use uuid::Uuid;

use crate::api;
use crate::auth::{use_session, Status};
use crate::components::status::{Arrived, Warning};

/// Whether `answers` would be accepted (every required question answered, nothing wrong).
pub fn answers_ready(questions: &[Question], answers: &Answers) -> bool {
    check_answers(questions, answers).is_ok()
}

/// The problem with one question's answer as typed so far; a missing answer is not
/// shown here (the button says what is left to do).
fn problem(q: &Question, answers: &Answers) -> Option<&'static str> {
    let mut only = Answers::new();
    if let Some(a) = answers.get(&q.id) {
        only.insert(q.id.clone(), a.clone());
    }
    match check_answers(std::slice::from_ref(q), &only) {
        Err(AnswerError::TooLong(_)) => Some("This answer is too long."),
        Err(AnswerError::UnknownChoice(_)) => Some("Pick one of the choices."),
        Err(AnswerError::Invalid(_)) if q.kind == QuestionKind::Url => {
            Some("Enter a web address starting with https:// or http://.")
        }
        Err(AnswerError::Invalid(_)) => Some("This answer cannot be used; remove unusual characters."),
        _ => None,
    }
}

fn text_of(answers: &Answers, id: &str) -> String {
    match answers.get(id) {
        Some(Answer::Text(t)) => t.clone(),
        _ => String::new(),
    }
}

fn picked(answers: &Answers, id: &str, choice: &str) -> bool {
    match answers.get(id) {
        Some(Answer::Choices(c)) => c.iter().any(|x| x == choice),
        Some(Answer::Text(t)) => t == choice,
        None => false,
    }
}

/// The form's fields for `questions`, writing into `answers`. `prefix` keeps element
/// ids unique when the preview and the form share a page.
#[component]
pub fn QuestionFields(
    questions: Vec<Question>,
    answers: RwSignal<Answers>,
    #[prop(optional)] disabled: bool,
    #[prop(default = "question")] prefix: &'static str,
) -> impl IntoView {
    if questions.is_empty() {
        return ().into_any();
    }
    let fields = questions
        .into_iter()
        .map(|q| {
            let id = format!("{prefix}-{}", q.id);
            let hint_id = format!("{id}-problem");
            let need = if q.required { " (required)" } else { " (optional)" };
            let label = format!("{}{need}", q.label);
            let qid = q.id.clone();
            let set_text = move |value: String| {
                let qid = qid.clone();
                answers.update(|a| {
                    a.insert(qid, Answer::Text(value));
                })
            };
            let q2 = q.clone();
            let shown_problem = move || answers.with(|a| problem(&q2, a));
            let input = match q.kind {
                QuestionKind::ShortText | QuestionKind::Url => {
                    let (qid, max) = (q.id.clone(), q.limit().unwrap_or(200));
                    let kind = if q.kind == QuestionKind::Url { "url" } else { "text" };
                    view! {
                        <label for=id.clone()>{label}</label>
                        <input id=id.clone() type=kind maxlength=max.to_string() disabled=disabled
                            required=q.required aria-describedby=hint_id.clone()
                            prop:value=move || answers.with(|a| text_of(a, &qid))
                            on:input=move |ev| set_text(event_target_value(&ev))/>
                    }
                    .into_any()
                }
                QuestionKind::LongText => {
                    let (qid, max) = (q.id.clone(), q.limit().unwrap_or(2000));
                    view! {
                        <label for=id.clone()>{label}</label>
                        <textarea id=id.clone() rows="4" maxlength=max.to_string() disabled=disabled
                            required=q.required aria-describedby=hint_id.clone()
                            prop:value=move || answers.with(|a| text_of(a, &qid))
                            on:input=move |ev| set_text(event_target_value(&ev))></textarea>
                    }
                    .into_any()
                }
                QuestionKind::OneChoice | QuestionKind::ManyChoices => {
                    let many = q.kind == QuestionKind::ManyChoices;
                    let options = q
                        .choices()
                        .iter()
                        .enumerate()
                        .map(|(i, choice)| {
                            let (qid, choice) = (q.id.clone(), choice.clone());
                            let option_id = format!("{id}-{i}");
                            let (c1, c2, q1) = (choice.clone(), choice.clone(), qid.clone());
                            let toggle = move |ev: leptos::ev::Event| {
                                let on = event_target_checked(&ev);
                                let (qid, choice) = (qid.clone(), c1.clone());
                                answers.update(|a| match many {
                                    false => {
                                        a.insert(qid, Answer::Text(choice));
                                    }
                                    true => {
                                        let mut list = match a.remove(&qid) {
                                            Some(Answer::Choices(c)) => c,
                                            _ => Vec::new(),
                                        };
                                        list.retain(|x| x != &choice);
                                        if on {
                                            list.push(choice);
                                        }
                                        a.insert(qid, Answer::Choices(list));
                                    }
                                });
                            };
                            view! {
                                <div class="check">
                                    <input id=option_id.clone() type=if many { "checkbox" } else { "radio" }
                                        name=id.clone() disabled=disabled
                                        prop:checked=move || answers.with(|a| picked(a, &q1, &c2)) on:change=toggle/>
                                    <label for=option_id>{choice}</label>
                                </div>
                            }
                        })
                        .collect_view();
                    view! {
                        <fieldset class="choices" aria-describedby=hint_id.clone()>
                            <legend>{label}</legend>
                            {options}
                        </fieldset>
                    }
                    .into_any()
                }
            };
            view! {
                <div class="question">
                    {input}
                    <p id=hint_id class="field-error" aria-live="polite">{shown_problem}</p>
                </div>
            }
        })
        .collect_view();
    view! {
        <section class="questions" aria-labelledby=format!("{prefix}-heading")>
            <h3 id=format!("{prefix}-heading")>"A few questions"</h3>
            {fields}
        </section>
    }
    .into_any()
}

/// An entry's answers, one per question in the notice's order ("No answer" where none).
#[component]
pub fn AnswersList(questions: Vec<Question>, answers: Answers) -> impl IntoView {
    if questions.is_empty() {
        return view! { <p class="muted">"This notice version asked no questions."</p> }.into_any();
    }
    let rows = questions
        .into_iter()
        .map(|q| {
            let answer = answers.get(&q.id).map(answer_text);
            view! {
                <dt>{q.label}</dt>
                <dd>{match answer {
                    Some(text) => view! { <span class="answer">{text}</span> }.into_any(),
                    None => view! { <span class="muted">"No answer"</span> }.into_any(),
                }}</dd>
            }
        })
        .collect_view();
    view! { <dl class="answers">{rows}</dl> }.into_any()
}

/// The answers of a queue row in one line: `label: answer` pairs, `; ` between choices.
pub fn answers_line(answers: &Answers) -> String {
    answers.iter().map(|(id, a)| format!("{id}: {}", answer_text(a))).collect::<Vec<_>>().join(" · ")
}

fn questions_problem(e: &QuestionsError) -> String {
    match e {
        QuestionsError::TooMany => format!("At most {MAX_QUESTIONS} questions."),
        QuestionsError::Id(n) => format!("Question {n}: its short name must be a-z, 0-9, _ or - and not used twice."),
        QuestionsError::Label(n) => format!("Question {n}: write a question of 1–200 characters on one line."),
        QuestionsError::Choices(n) => format!("Question {n}: give 2–20 different choices, one per line."),
        QuestionsError::MaxLength(n) => format!("Question {n}: the length limit is out of range for its kind."),
    }
}

/// The owner's editor of a new notice version's questions, with the form's preview. The
/// rows are drawn again only when questions are added, removed or moved (`layout`), so
/// typing in a row never replaces the field being typed in.
#[component]
pub fn QuestionsEditor(questions: RwSignal<Vec<Question>>) -> impl IntoView {
    let preview = RwSignal::new(Answers::new());
    let layout = RwSignal::new(0_u32);
    let add = move |_| {
        questions.update(|qs| {
            let n = (1..).find(|n| !qs.iter().any(|q| q.id == format!("q{n}"))).unwrap_or(1);
            qs.push(Question {
                id: format!("q{n}"),
                kind: QuestionKind::ShortText,
                label: String::new(),
                required: false,
                choices: None,
                max_length: None,
            });
        });
        layout.update(|v| *v += 1);
    };
    let rows = move || {
        layout.track();
        let n = questions.with_untracked(Vec::len);
        (0..n).map(|i| view! { <QuestionRow i questions layout/> }).collect_view()
    };
    let trouble = move || questions.with(|qs| check_questions(qs).err().map(|e| questions_problem(&e)));
    view! {
        <fieldset class="questions-editor">
            <legend>"Questions on the form"</legend>
            <p class="muted small">"Up to 10 questions, part of this notice version: applicants see them on the form and in the notice, and every entry keeps the version it answered. Answers are personal data: redaction and erasure remove them."</p>
            {rows}
            <button type="button" class="secondary" on:click=add
                disabled=move || questions.with(|q| q.len() >= MAX_QUESTIONS)>"Add a question"</button>
            <p class="field-error" aria-live="polite">{trouble}</p>
            <details class="preview" open>
                <summary>"Preview of the form"</summary>
                {move || {
                    let qs = questions.get();
                    if qs.is_empty() {
                        view! { <p class="muted">"No questions: the form asks only for the email address."</p> }.into_any()
                    } else if check_questions(&qs).is_err() {
                        view! { <p class="muted">"Complete the questions above to see the preview."</p> }.into_any()
                    } else {
                        view! { <QuestionFields questions=qs answers=preview prefix="preview"/> }.into_any()
                    }
                }}
            </details>
        </fieldset>
    }
}

/// A change to the list of questions itself (a move, a removal).
type Reorder = Box<dyn FnOnce(&mut Vec<Question>)>;

#[component]
fn QuestionRow(i: usize, questions: RwSignal<Vec<Question>>, layout: RwSignal<u32>) -> impl IntoView {
    let n = i + 1;
    let edit = move |f: Box<dyn FnOnce(&mut Question)>| {
        questions.update(|qs| {
            if let Some(q) = qs.get_mut(i) {
                f(q)
            }
        })
    };
    let q = questions.with_untracked(|qs| qs.get(i).cloned()).unwrap_or_else(|| Question {
        id: String::new(),
        kind: QuestionKind::ShortText,
        label: String::new(),
        required: false,
        choices: None,
        max_length: None,
    });
    let kind = Memo::new(move |_| questions.with(|qs| qs.get(i).map_or(QuestionKind::ShortText, |q| q.kind)));
    let restructure = move |f: Reorder| {
        questions.update(|qs| f(qs));
        layout.update(|v| *v += 1);
    };
    let choices_field = move || {
        kind.get().has_choices().then(|| {
            let text = questions.with_untracked(|qs| qs.get(i).map(|q| q.choices().join("\n")).unwrap_or_default());
            view! {
                <label for=format!("q{n}-choices")>"Choices, one per line"</label>
                <textarea id=format!("q{n}-choices") rows="3" prop:value=text
                    on:input=move |ev| {
                        let list: Vec<String> = event_target_value(&ev).lines().map(str::trim)
                            .filter(|l| !l.is_empty()).map(str::to_owned).collect();
                        edit(Box::new(move |q| q.choices = Some(list)))
                    }></textarea>
            }
        })
    };
    let length_field = move || {
        kind.get().length_bounds().map(|(low, high, default)| {
            view! {
                <label for=format!("q{n}-max")>{format!("Longest answer, in characters ({low}–{high}; {default} if empty)")}</label>
                <input id=format!("q{n}-max") type="number" min=low.to_string() max=high.to_string()
                    on:input=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<u32>().ok();
                        edit(Box::new(move |q| q.max_length = v))
                    }/>
            }
        })
    };
    view! {
        <div class="question-row card">
            <h3>{format!("Question {n}")}</h3>
            <label for=format!("q{n}-label")>"Question"</label>
            <input id=format!("q{n}-label") type="text" maxlength="200" prop:value=q.label.clone()
                on:input=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |q| q.label = v)) }/>
            <label for=format!("q{n}-kind")>"Kind of answer"</label>
            <select id=format!("q{n}-kind") on:change=move |ev| {
                if let Ok(kind) = event_target_value(&ev).parse::<QuestionKind>() {
                    edit(Box::new(move |q| {
                        q.kind = kind;
                        q.max_length = None;
                        q.choices = kind.has_choices().then(|| q.choices.clone().unwrap_or_default());
                    }))
                }
            }>
                {QuestionKind::ALL.into_iter().map(|k| view! {
                    <option value=k.as_str() selected=q.kind == k>{k.title()}</option>
                }).collect_view()}
            </select>
            {choices_field}
            {length_field}
            <label for=format!("q{n}-id")>"Short name (the CSV column)"</label>
            <input id=format!("q{n}-id") type="text" maxlength="32" spellcheck="false" class="mono" prop:value=q.id.clone()
                on:input=move |ev| { let v = event_target_value(&ev).trim().to_owned(); edit(Box::new(move |q| q.id = v)) }/>
            <div class="check">
                <input id=format!("q{n}-required") type="checkbox" prop:checked=q.required
                    on:change=move |ev| { let on = event_target_checked(&ev); edit(Box::new(move |q| q.required = on)) }/>
                <label for=format!("q{n}-required")>"An answer is required"</label>
            </div>
            <div class="row">
                <button type="button" class="secondary" disabled=i == 0
                    on:click=move |_| restructure(Box::new(move |qs| qs.swap(i - 1, i)))>{format!("Move question {n} up")}</button>
                <button type="button" class="secondary"
                    on:click=move |_| restructure(Box::new(move |qs| { qs.remove(i); }))>{format!("Remove question {n}")}</button>
            </div>
        </div>
    }
}

/// How the account join ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Joined {
    Idle,
    Sending,
    Received,
    Changed,
    Full,
    Retry,
    Refused,
}

/// The form of a program that asks applicants to join signed in (`joinWith: "account"`):
/// why it asks, a sign-in link that comes back here, then one of the account's verified
/// addresses to join with, the questions, the notice and the box.
#[component]
pub fn AccountJoin(program: PublicProgram) -> impl IntoView {
    let session = use_session();
    let slug = program.slug.clone();
    let next = format!("/sign-in?next=/waitlist/{slug}");
    let intro = view! {
        <h1>"Join the waitlist"</h1>
        <p class="muted">"Program: " <strong>{program.title.clone().unwrap_or_else(|| slug.clone())}</strong></p>
        {program.description.clone().map(|d| view! { <p class="lead">{d}</p> })}
        <p id="why-sign-in">"This waitlist asks you to sign in first, so that you join with an email address your account has already confirmed. Nobody can put your address on the list but you, and no confirmation email is needed."</p>
    };
    let body = move || match session.status.get() {
        Status::SignedIn => view! { <JoinSignedIn program=program.clone()/> }.into_any(),
        Status::Starting => view! { <p class="muted">"Checking whether you are signed in…"</p> }.into_any(),
        _ => view! {
            <div class="card">
                <A href=next.clone()>"Sign in to join"</A>
            </div>
        }
        .into_any(),
    };
    view! { {intro} {body} }
}

#[component]
fn JoinSignedIn(program: PublicProgram) -> impl IntoView {
    let emails = LocalResource::new(|| api::get::<OwnEmails>("/api/me/emails"));
    let chosen = RwSignal::new(None::<String>);
    let answers = RwSignal::new(Answers::new());
    let agreed = RwSignal::new(false);
    let outcome = RwSignal::new(Joined::Idle);
    let key = StoredValue::new(None::<Uuid>);
    let questions = StoredValue::new(program.notice.questions.clone());
    let (version, open) = (program.notice.version, program.signup_open);
    let ready = move || {
        open && chosen.with(Option::is_some)
            && agreed.get()
            && answers.with(|a| questions.with_value(|q| answers_ready(q, a)))
            && outcome.get() != Joined::Sending
    };
    let path = format!("/api/me/waitlist/{}/join", program.slug);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !ready() {
            return;
        }
        let request_key = key.get_value().unwrap_or_else(Uuid::new_v4);
        key.set_value(Some(request_key));
        let body = AccountJoinRequest {
            request_key,
            email: chosen.get_untracked().unwrap_or_default(),
            notice_version: version,
            permission: true,
            source: None,
            answers: answers.get_untracked(),
        };
        outcome.set(Joined::Sending);
        let path = path.clone();
        spawn_local(async move {
            let next = match api::post::<_, SignupResponse>(path, &body).await {
                Ok(_) => Joined::Received,
                Err(e) if e.is_retryable() => Joined::Retry,
                Err(e) if e.status == 409 => Joined::Changed,
                Err(e) if e.status == 429 => Joined::Full,
                Err(_) => Joined::Refused,
            };
            if next != Joined::Retry {
                key.set_value(None);
            }
            outcome.set(next);
        });
    };
    let addresses = move || {
        emails.get().map(|r| match r {
            Ok(OwnEmails { emails }) if emails.is_empty() => view! {
                <Warning><p>"Your account has no confirmed email address yet. Confirm one with your sign-in provider, then reload."</p></Warning>
            }
            .into_any(),
            Ok(OwnEmails { emails }) => {
                if chosen.get_untracked().is_none() {
                    chosen.set(emails.first().cloned());
                }
                emails
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let (e1, e2) = (e.clone(), e.clone());
                        view! {
                            <div class="check">
                                <input id=format!("join-email-{i}") type="radio" name="join-email"
                                    prop:checked=move || chosen.get().as_deref() == Some(e1.as_str())
                                    on:change=move |_| { chosen.set(Some(e2.clone())); key.set_value(None); }/>
                                <label for=format!("join-email-{i}")>{e}</label>
                            </div>
                        }
                    })
                    .collect_view()
                    .into_any()
            }
            Err(_) => view! { <Warning><p>"Your addresses could not be read. Reload to try again."</p></Warning> }.into_any(),
        })
    };
    let purpose = program.notice.purpose.clone();
    let received = move || outcome.get() == Joined::Received;
    view! {
        <Show when=received fallback=move || {
            let purpose = purpose.clone();
            view! {
                <form class="card form" method="post" novalidate on:submit=submit.clone()>
                    <h2>"Your confirmed address"</h2>
                    <fieldset>
                        <legend>"Join with this confirmed address"</legend>
                        {addresses}
                    </fieldset>
                    <QuestionFields questions=questions.get_value() answers disabled=!open prefix="join"/>
                    <section class="notice compact" aria-labelledby="join-notice-heading">
                        <h3 id="join-notice-heading">"What you agree to"</h3>
                        <p class="exact">{purpose}</p>
                    </section>
                    <div class="check">
                        <input id="join-permission" type="checkbox" disabled=!open
                            prop:checked=move || agreed.get() on:change=move |ev| agreed.set(event_target_checked(&ev))/>
                        <label for="join-permission">"I want to join this waitlist, and I agree that this email address and my answers are used and kept as the notice describes."</label>
                    </div>
                    <button type="submit" disabled=move || !ready()>"Join the waitlist"</button>
                    {move || match outcome.get() {
                        Joined::Changed => Some("This form changed since you opened it. Reload the page to see the current version."),
                        Joined::Full => Some("The list is full right now. Please try again later."),
                        Joined::Retry => Some("We could not confirm your request. Please try again — trying again cannot sign you up twice."),
                        Joined::Refused => Some("The request was not accepted. Check your answers and try again."),
                        _ => None,
                    }.map(|m| view! { <Warning><p>{m}</p></Warning> })}
                </form>
            }
        }>
            <Arrived id="joined-heading" heading="Thank you — your request was received">
                <p>"You joined with an address your account has confirmed. "<A href="/me">"See my place"</A>"."</p>
            </Arrived>
        </Show>
    }
}

/// The owner's choice of how applicants join (`joinWith`), on the program page.
#[component]
pub fn JoinWithForm(
    p: shared::api::Program,
    blank: shared::api::PatchProgramRequest,
    pending: RwSignal<bool>,
    change: Callback<(shared::api::PatchProgramRequest, &'static str)>,
) -> impl IntoView {
    use shared::questions::JoinWith;
    let choice = RwSignal::new(p.join_with);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let patch = shared::api::PatchProgramRequest { join_with: Some(choice.get_untracked()), ..blank.clone() };
        change.run((patch, "How applicants join is saved."));
    };
    let option = move |value: JoinWith, id: &'static str, text: &'static str| {
        view! {
            <div class="check">
                <input id=id type="radio" name="join-with" prop:checked=move || choice.get() == value
                    on:change=move |_| choice.set(value)/>
                <label for=id>{text}</label>
            </div>
        }
    };
    view! {
        <form class="card form" method="post" on:submit=save>
            <h2>"How applicants join"</h2>
            <fieldset>
                <legend class="sr-only">"How applicants join"</legend>
                {option(JoinWith::Email, "join-with-email", "With any email address they type (the default)")}
                {option(JoinWith::Account, "join-with-account", "Signed in, with an address their account has confirmed — the entry records it")}
            </fieldset>
            <button type="submit" disabled=move || pending.get()>"Save how applicants join"</button>
        </form>
    }
}
