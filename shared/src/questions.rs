//! Questions on the form (issue 31): what an owner may ask in a notice version and what
//! an applicant may answer. One rule for the API (which refuses a bad notice or a bad
//! answer with nothing written) and the SPA (which checks the same before sending).
//!
//! Policy, decided here because the issue is silent on the numbers:
//! * A notice holds at most [`MAX_QUESTIONS`] questions, each with an id of
//!   1–32 characters of `a-z 0-9 _ -` (unique in the notice; it names the CSV column and
//!   the answer's key), a one-line label of 1–200 characters and `required`.
//! * `oneChoice` and `manyChoices` list 2–20 distinct one-line choices of 1–100
//!   characters and take no `maxLength`; the other kinds take no `choices`.
//! * `maxLength` (characters) bounds a text: `shortText` 1–200 (default 200), `longText`
//!   1–4000 (default 2000), `url` 10–2000 (default 500).
//! * An answer is trimmed; an empty one counts as not given. A required question needs a
//!   non-empty answer. A `url` is an `http(s)://` address without spaces. A
//!   `manyChoices` answer lists distinct choices and is kept in the notice's order, so the
//!   same selection in another order is the same answer (and the same binding).
//! * An answer to a question the notice does not ask is refused, without echoing its key.

use crate::text::{acceptable, allowed_char, Lines};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const MAX_QUESTIONS: usize = 10;
pub const MAX_ID: usize = 32;
pub const MAX_LABEL: usize = 200;
pub const MIN_CHOICES: usize = 2;
pub const MAX_CHOICES: usize = 20;
pub const MAX_CHOICE: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum QuestionKind {
    ShortText,
    LongText,
    OneChoice,
    ManyChoices,
    Url,
}

impl QuestionKind {
    pub const ALL: [QuestionKind; 5] = [Self::ShortText, Self::LongText, Self::OneChoice, Self::ManyChoices, Self::Url];

    pub fn has_choices(self) -> bool {
        matches!(self, Self::OneChoice | Self::ManyChoices)
    }

    /// `(lowest, highest, default)` of `maxLength`, for the kinds that take one.
    pub fn length_bounds(self) -> Option<(u32, u32, u32)> {
        match self {
            Self::ShortText => Some((1, 200, 200)),
            Self::LongText => Some((1, 4000, 2000)),
            Self::Url => Some((10, 2000, 500)),
            Self::OneChoice | Self::ManyChoices => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ShortText => "shortText",
            Self::LongText => "longText",
            Self::OneChoice => "oneChoice",
            Self::ManyChoices => "manyChoices",
            Self::Url => "url",
        }
    }

    /// What the notice calls it, in a sentence (written out: lowercasing `title` would
    /// bring Unicode's case tables into the public bundle).
    pub fn noun(self) -> &'static str {
        match self {
            Self::ShortText => "short text",
            Self::LongText => "long text",
            Self::OneChoice => "one choice",
            Self::ManyChoices => "several choices",
            Self::Url => "web address",
        }
    }

    /// What the owner's editor calls it.
    pub fn title(self) -> &'static str {
        match self {
            Self::ShortText => "Short text",
            Self::LongText => "Long text",
            Self::OneChoice => "One choice",
            Self::ManyChoices => "Several choices",
            Self::Url => "Web address",
        }
    }
}

impl std::str::FromStr for QuestionKind {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|k| k.as_str() == s).ok_or(())
    }
}

/// How applicants join a program (`joinWith`): with any address they type (`email`, the
/// default), or signed in, with one of their account's currently verified addresses
/// (`account`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum JoinWith {
    #[default]
    Email,
    Account,
}

impl JoinWith {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Account => "account",
        }
    }
}

impl std::str::FromStr for JoinWith {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "email" => Ok(Self::Email),
            "account" => Ok(Self::Account),
            _ => Err(()),
        }
    }
}

/// One question of a notice version, as the owner wrote it and every reader sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Question {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 32, pattern = "^[a-z0-9_-]{1,32}$"))]
    pub id: String,
    pub kind: QuestionKind,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 200))]
    pub label: String,
    pub required: bool,
    /// For `oneChoice` and `manyChoices` only: 2–20 distinct choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// For `shortText`, `longText` and `url` only: the longest answer, in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
}

impl Question {
    /// The longest answer this question takes (text kinds), its default when unset.
    pub fn limit(&self) -> Option<u32> {
        self.kind.length_bounds().map(|(_, _, default)| self.max_length.unwrap_or(default))
    }

    pub fn choices(&self) -> &[String] {
        self.choices.as_deref().unwrap_or_default()
    }
}

/// What is wrong with a notice's questions (the API's `invalid_questions`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuestionsError {
    #[error("at most {MAX_QUESTIONS} questions")]
    TooMany,
    #[error("question {0}: the id is not 1–32 characters of a-z 0-9 _ - or is used twice")]
    Id(usize),
    #[error("question {0}: the label is not 1–200 characters on one line")]
    Label(usize),
    #[error("question {0}: choices are wrong for its kind (2–20 distinct, 1–100 characters each)")]
    Choices(usize),
    #[error("question {0}: maxLength is wrong for its kind")]
    MaxLength(usize),
}

/// Checks a notice's questions against the policy above (positions are 1-based).
pub fn check_questions(questions: &[Question]) -> Result<(), QuestionsError> {
    if questions.len() > MAX_QUESTIONS {
        return Err(QuestionsError::TooMany);
    }
    for (i, q) in questions.iter().enumerate() {
        let n = i + 1;
        let id_ok = (1..=MAX_ID).contains(&q.id.len())
            && q.id.bytes().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-'))
            && !questions[..i].iter().any(|p| p.id == q.id);
        if !id_ok {
            return Err(QuestionsError::Id(n));
        }
        if !acceptable(&q.label, MAX_LABEL, Lines::One) {
            return Err(QuestionsError::Label(n));
        }
        match (&q.choices, q.kind.has_choices()) {
            (Some(choices), true) => {
                let distinct = choices.iter().enumerate().all(|(j, c)| !choices[..j].contains(c));
                let each = choices.iter().all(|c| acceptable(c, MAX_CHOICE, Lines::One) && c.trim() == c);
                if !(MIN_CHOICES..=MAX_CHOICES).contains(&choices.len()) || !distinct || !each {
                    return Err(QuestionsError::Choices(n));
                }
            }
            (None, false) => {}
            _ => return Err(QuestionsError::Choices(n)),
        }
        match (q.max_length, q.kind.length_bounds()) {
            (None, _) => {}
            (Some(m), Some((low, high, _))) if (low..=high).contains(&m) => {}
            _ => return Err(QuestionsError::MaxLength(n)),
        }
    }
    Ok(())
}

/// One answer on the wire: a string, or a list of strings for `manyChoices`.
/// `Deserialize` is written out: serde's derive for an untagged enum buffers the value
/// first, which costs the SPA's bundles several KiB for two shapes a visitor tells apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Answer {
    Text(String),
    Choices(Vec<String>),
}

impl<'de> Deserialize<'de> for Answer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Shape;
        impl<'de> serde::de::Visitor<'de> for Shape {
            type Value = Answer;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Answer, E> {
                Ok(Answer::Text(v.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Answer, E> {
                Ok(Answer::Text(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Answer, A::Error> {
                let mut choices = Vec::new();
                while let Some(c) = seq.next_element::<String>()? {
                    choices.push(c);
                }
                Ok(Answer::Choices(choices))
            }
        }
        d.deserialize_any(Shape)
    }
}

/// The answers of one signup, by question id. A `BTreeMap`, so its JSON is canonical
/// (sorted keys): the signup's binding hashes it.
pub type Answers = BTreeMap<String, Answer>;

/// Why an answer is refused (the API's 400 `invalid_answer`, naming the question).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("question {0}: an answer is required")]
    Missing(String),
    #[error("question {0}: the answer is too long")]
    TooLong(String),
    #[error("question {0}: the answer is not one of the choices")]
    UnknownChoice(String),
    #[error("question {0}: the answer has the wrong form")]
    Invalid(String),
    /// An answer to a question the notice does not ask; its key is not repeated.
    #[error("an answer names no question of this notice")]
    NoSuchQuestion,
}

impl AnswerError {
    /// The id of the question the answer was for, when the notice asks it.
    pub fn question(&self) -> Option<&str> {
        match self {
            Self::Missing(q) | Self::TooLong(q) | Self::UnknownChoice(q) | Self::Invalid(q) => Some(q),
            Self::NoSuchQuestion => None,
        }
    }
}

/// Checks `answers` against `questions` and returns them normalized: trimmed, empty
/// ones dropped, several choices in the notice's order. The first refusal names its
/// question, in the notice's order.
pub fn check_answers(questions: &[Question], answers: &Answers) -> Result<Answers, AnswerError> {
    if answers.keys().any(|k| !questions.iter().any(|q| &q.id == k)) {
        return Err(AnswerError::NoSuchQuestion);
    }
    let mut out = Answers::new();
    for q in questions {
        let id = || q.id.clone();
        let answer = match answers.get(&q.id) {
            None => None,
            Some(a) => normalize(q, a)?,
        };
        match answer {
            Some(a) => {
                out.insert(q.id.clone(), a);
            }
            None if q.required => return Err(AnswerError::Missing(id())),
            None => {}
        }
    }
    Ok(out)
}

/// One answer, normalized; `None` when it is empty.
fn normalize(q: &Question, answer: &Answer) -> Result<Option<Answer>, AnswerError> {
    let id = || q.id.clone();
    match (q.kind, answer) {
        (QuestionKind::ManyChoices, Answer::Choices(picked)) => {
            if picked.iter().any(|p| !q.choices().contains(p)) {
                return Err(AnswerError::UnknownChoice(id()));
            }
            if picked.iter().enumerate().any(|(j, p)| picked[..j].contains(p)) {
                return Err(AnswerError::Invalid(id()));
            }
            let ordered: Vec<String> = q.choices().iter().filter(|c| picked.contains(c)).cloned().collect();
            Ok((!ordered.is_empty()).then_some(Answer::Choices(ordered)))
        }
        (QuestionKind::OneChoice, Answer::Text(text)) => match text.as_str() {
            "" => Ok(None),
            t if q.choices().iter().any(|c| c == t) => Ok(Some(Answer::Text(t.to_owned()))),
            _ => Err(AnswerError::UnknownChoice(id())),
        },
        (QuestionKind::ShortText | QuestionKind::LongText | QuestionKind::Url, Answer::Text(text)) => {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            let lines = if q.kind == QuestionKind::LongText { Lines::Many } else { Lines::One };
            if !text.chars().all(|c| allowed_char(c, lines)) {
                return Err(AnswerError::Invalid(id()));
            }
            if text.chars().count() > q.limit().unwrap_or(0) as usize {
                return Err(AnswerError::TooLong(id()));
            }
            if q.kind == QuestionKind::Url && !is_web_address(text) {
                return Err(AnswerError::Invalid(id()));
            }
            Ok(Some(Answer::Text(text.to_owned())))
        }
        _ => Err(AnswerError::Invalid(id())),
    }
}

/// An `http://` or `https://` address with a host and no white space.
pub fn is_web_address(text: &str) -> bool {
    let rest = text.strip_prefix("https://").or_else(|| text.strip_prefix("http://"));
    match rest {
        Some(rest) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            !host.is_empty() && host.contains('.') && !text.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    }
}

/// An answer as one line of text: choices joined with `"; "` (the queue, the CSV).
pub fn answer_text(answer: &Answer) -> String {
    match answer {
        Answer::Text(t) => t.clone(),
        Answer::Choices(c) => c.join("; "),
    }
}

/// Whether `answer` is, or includes, `choice` (the queue's filter by choice).
pub fn answer_has_choice(answer: &Answer, choice: &str) -> bool {
    match answer {
        Answer::Text(t) => t == choice,
        Answer::Choices(c) => c.iter().any(|x| x == choice),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: &str, kind: QuestionKind, required: bool) -> Question {
        let choices = kind.has_choices().then(|| vec!["Rust".to_owned(), "Go".to_owned(), "Zig".to_owned()]);
        Question { id: id.into(), kind, label: format!("Label {id}"), required, choices, max_length: None }
    }

    fn form() -> Vec<Question> {
        vec![
            q("name", QuestionKind::ShortText, true),
            q("why", QuestionKind::LongText, false),
            q("lang", QuestionKind::OneChoice, true),
            q("tools", QuestionKind::ManyChoices, false),
            q("site", QuestionKind::Url, false),
        ]
    }

    fn text(s: &str) -> Answer {
        Answer::Text(s.into())
    }

    fn answers(pairs: &[(&str, Answer)]) -> Answers {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    #[test]
    fn a_well_formed_notice_passes_and_each_fault_names_its_question() {
        assert_eq!(check_questions(&form()), Ok(()));
        assert_eq!(check_questions(&[]), Ok(()));
        let eleven: Vec<Question> = (0..11).map(|i| q(&format!("q{i}"), QuestionKind::ShortText, false)).collect();
        assert_eq!(check_questions(&eleven), Err(QuestionsError::TooMany));
        let mut twice = form();
        twice[1].id = "name".into();
        assert_eq!(check_questions(&twice), Err(QuestionsError::Id(2)));
        for bad_id in ["", "Name", "a b", &"x".repeat(33), "é"] {
            let mut f = form();
            f[0].id = bad_id.into();
            assert_eq!(check_questions(&f), Err(QuestionsError::Id(1)), "{bad_id:?}");
        }
        let mut f = form();
        f[2].label = "two\nlines".into();
        assert_eq!(check_questions(&f), Err(QuestionsError::Label(3)));
        let mut f = form();
        f[2].choices = Some(vec!["only".into()]);
        assert_eq!(check_questions(&f), Err(QuestionsError::Choices(3)));
        let mut f = form();
        f[3].choices = Some(vec!["a".into(), "a".into()]);
        assert_eq!(check_questions(&f), Err(QuestionsError::Choices(4)));
        let mut f = form();
        f[0].choices = Some(vec!["a".into(), "b".into()]);
        assert_eq!(check_questions(&f), Err(QuestionsError::Choices(1)));
        let mut f = form();
        f[2].choices = None;
        assert_eq!(check_questions(&f), Err(QuestionsError::Choices(3)));
        let mut f = form();
        f[2].max_length = Some(10);
        assert_eq!(check_questions(&f), Err(QuestionsError::MaxLength(3)));
        let mut f = form();
        f[0].max_length = Some(201);
        assert_eq!(check_questions(&f), Err(QuestionsError::MaxLength(1)));
        f[0].max_length = Some(200);
        assert_eq!(check_questions(&f), Ok(()));
    }

    #[test]
    fn answers_are_trimmed_ordered_and_empty_ones_dropped() {
        let given = answers(&[
            ("name", text("  Ada ")),
            ("why", text("   ")),
            ("lang", text("Go")),
            ("tools", Answer::Choices(vec!["Zig".into(), "Rust".into()])),
        ]);
        let want = answers(&[
            ("name", text("Ada")),
            ("lang", text("Go")),
            ("tools", Answer::Choices(vec!["Rust".into(), "Zig".into()])),
        ]);
        assert_eq!(check_answers(&form(), &given), Ok(want.clone()));
        assert_eq!(check_answers(&form(), &want), Ok(want), "normalizing is idempotent");
        assert_eq!(check_answers(&[], &Answers::new()), Ok(Answers::new()));
    }

    #[test]
    fn each_bad_answer_is_refused_naming_its_question() {
        let base = || answers(&[("name", text("Ada")), ("lang", text("Go"))]);
        let with = |k: &str, a: Answer| {
            let mut m = base();
            m.insert(k.into(), a);
            m
        };
        let cases = [
            (answers(&[("lang", text("Go"))]), AnswerError::Missing("name".into())),
            (with("name", text("  ")), AnswerError::Missing("name".into())),
            (with("lang", text("Cobol")), AnswerError::UnknownChoice("lang".into())),
            (with("lang", Answer::Choices(vec!["Go".into()])), AnswerError::Invalid("lang".into())),
            (with("tools", Answer::Choices(vec!["Perl".into()])), AnswerError::UnknownChoice("tools".into())),
            (with("tools", Answer::Choices(vec!["Go".into(), "Go".into()])), AnswerError::Invalid("tools".into())),
            (with("tools", text("Go")), AnswerError::Invalid("tools".into())),
            (with("name", text(&"x".repeat(201))), AnswerError::TooLong("name".into())),
            (with("name", text("a\u{7}b")), AnswerError::Invalid("name".into())),
            (with("name", text("two\nlines")), AnswerError::Invalid("name".into())),
            (with("why", text(&"y".repeat(2001))), AnswerError::TooLong("why".into())),
            (with("site", text("ftp://example.com")), AnswerError::Invalid("site".into())),
            (with("site", text("https://exa mple.com")), AnswerError::Invalid("site".into())),
            (with("site", text("https://")), AnswerError::Invalid("site".into())),
            (with("other", text("x")), AnswerError::NoSuchQuestion),
        ];
        for (given, want) in cases {
            assert_eq!(check_answers(&form(), &given), Err(want.clone()), "{given:?}");
        }
        assert_eq!(AnswerError::TooLong("name".into()).question(), Some("name"));
        assert_eq!(AnswerError::NoSuchQuestion.question(), None);
        assert!(check_answers(&form(), &with("why", text("two\nlines"))).is_ok());
        assert!(check_answers(&form(), &with("site", text("https://example.com/me?x=1"))).is_ok());
    }

    #[test]
    fn a_set_max_length_is_the_limit_in_characters() {
        let mut f = form();
        f[0].max_length = Some(3);
        let ok = answers(&[("name", text("🎉🎉🎉")), ("lang", text("Go"))]);
        assert!(check_answers(&f, &ok).is_ok());
        let long = answers(&[("name", text("abcd")), ("lang", text("Go"))]);
        assert_eq!(check_answers(&f, &long), Err(AnswerError::TooLong("name".into())));
    }

    #[test]
    fn the_wire_shapes_are_the_contracts() {
        let json = serde_json::json!({"id": "lang", "kind": "manyChoices", "label": "L", "required": false,
                                       "choices": ["a", "b"]});
        let parsed: Question = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(parsed.kind, QuestionKind::ManyChoices);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json);
        let a: Answers = serde_json::from_str(r#"{"b":["x","y"],"a":"t"}"#).unwrap();
        assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"a":"t","b":["x","y"]}"#, "sorted keys");
        assert!(serde_json::from_str::<Answers>(r#"{"a":1}"#).is_err());
        assert!(serde_json::from_str::<Answers>(r#"{"a":["x",2]}"#).is_err());
        assert!(serde_json::from_str::<Answers>(r#"{"a":null}"#).is_err());
        assert_eq!(answer_text(&Answer::Choices(vec!["x".into(), "y".into()])), "x; y");
        assert!(answer_has_choice(&Answer::Choices(vec!["x".into()]), "x"));
        assert!(!answer_has_choice(&text("xy"), "x"));
    }
}
