//! Questions on the form (issue 31), in every place they appear: the applicant's fields
//! ([`QuestionFields`], on the waitlist form and the account join), the owner's editor
//! with a live preview of those same fields ([`QuestionsEditor`]), and answers shown
//! readably ([`AnswersList`], on the entry page and as the queue's column). Joining with
//! a verified account ([`AccountNotice`], [`AddressPicker`]) is the same waitlist form,
//! signed in, with the account's confirmed addresses in place of the typed one.
//! Every rule is `shared::questions`, the one the API applies.

use leptos::prelude::*;
use shared::api::OwnEmails;
use shared::questions::{
    answer_text, check_questions, Answer, Answers, Question, QuestionKind, QuestionsError, MAX_QUESTIONS,
};

use crate::api;
use crate::auth::{Session, Status};

/// Whether every required question has an answer (the button waits for it). The other
/// rules (lengths, web addresses) are the fields' own attributes and the server's check,
/// whose 400 names the question: the public bundle carries no second copy of them.
pub fn answers_ready(questions: &[Question], answers: &Answers) -> bool {
    questions.iter().filter(|q| q.required).all(|q| match answers.get(&q.id) {
        Some(Answer::Text(t)) => !t.trim().is_empty(),
        Some(Answer::Choices(c)) => !c.is_empty(),
        None => false,
    })
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
            let label = shared::signup_form::question_label(&q.label, q.required);
            let qid = q.id.clone();
            let set_text = move |value: String| {
                let qid = qid.clone();
                answers.update(|a| {
                    a.insert(qid, Answer::Text(value));
                })
            };
            let input = match q.kind {
                QuestionKind::ShortText | QuestionKind::Url => {
                    let (qid, max) = (q.id.clone(), q.limit().unwrap_or(200));
                    let kind = if q.kind == QuestionKind::Url { "url" } else { "text" };
                    view! {
                        <label for=id.clone()>{label}</label>
                        <input id=id.clone() type=kind maxlength=max.to_string() disabled=disabled
                            required=q.required
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
                            required=q.required
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
                        <fieldset class="choices">
                            <legend>{label}</legend>
                            {options}
                        </fieldset>
                    }
                    .into_any()
                }
            };
            view! { <div class="question">{input}</div> }
        })
        .collect_view();
    view! {
        <section class="questions" aria-labelledby=format!("{prefix}-heading")>
            <h3 id=format!("{prefix}-heading")>{shared::signup_form::QUESTIONS_HEADING}</h3>
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

/// Whether the visitor is signed in; always `false` where no session is kept (the embed).
pub fn account_signed_in() -> impl Fn() -> bool + Send + Sync + Copy + 'static {
    let session = use_context::<Session>();
    move || session.is_some_and(|s| s.status.get() == Status::SignedIn)
}

/// Why a `joinWith: "account"` form asks to sign in, and the way there (back to this form).
#[component]
pub fn AccountNotice(slug: String, signed_in: impl Fn() -> bool + Send + Sync + Copy + 'static) -> impl IntoView {
    let next = format!("/sign-in?next=/waitlist/{slug}");
    view! {
        <p id="why-sign-in">"This waitlist asks you to sign in first, so that you join with an email address your account has already confirmed. Nobody can put your address on the list but you, and no confirmation email is needed."</p>
        {move || (!signed_in()).then(|| view! { <p class="card"><a href=next.clone() target="_top">"Sign in to join"</a></p> })}
    }
}

/// The signed-in account's confirmed addresses to join with, writing the chosen one to
/// `email` (the first, until another is picked).
#[component]
pub fn AddressPicker(email: RwSignal<String>) -> impl IntoView {
    let emails = LocalResource::new(|| api::get::<OwnEmails>("/api/me/emails"));
    let list = move || {
        emails.get().map(|r| {
            let emails = r.map(|e| e.emails).unwrap_or_default();
            if email.with_untracked(String::is_empty) {
                email.set(emails.first().cloned().unwrap_or_default());
            }
            if emails.is_empty() {
                return view! { <p class="field-error">"Your account has no confirmed address to join with yet."</p> }
                    .into_any();
            }
            emails
                .into_iter()
                .enumerate()
                .map(|(i, e)| {
                    let (e1, e2) = (e.clone(), e.clone());
                    view! {
                        <div class="check">
                            <input id=format!("join-email-{i}") type="radio" name="join-email"
                                prop:checked=move || email.with(|v| v == &e1) on:change=move |_| email.set(e2.clone())/>
                            <label for=format!("join-email-{i}")>{e}</label>
                        </div>
                    }
                })
                .collect_view()
                .into_any()
        })
    };
    view! {
        <fieldset>
            <legend>"Join with one of your confirmed addresses"</legend>
            {list}
        </fieldset>
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
