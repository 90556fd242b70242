//! A response read to the end, and its body read into the contract's types.
//!
//! Policy: a body is decoded strictly. The text must decode into the `shared` type *and*
//! that value must serialize back to the same JSON, so a field the type does not know
//! (a code where none belongs, an email in an error) fails the test instead of being
//! dropped by serde.

use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use shared::{ErrorBody, ErrorDetail};

pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    pub async fn from(r: reqwest::Response) -> Reply {
        let status = r.status();
        let headers = r.headers().clone();
        let text = r.text().await.unwrap_or_default();
        Reply { status, headers, text }
    }

    /// The body as untyped JSON, for the few tests that pin the raw wire shape.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|_| panic!("not JSON ({}): {}", self.status, self.text))
    }

    /// The body as `T`, strictly (see the module doc).
    #[track_caller]
    pub fn body<T: DeserializeOwned + Serialize>(&self) -> T {
        let raw = self.json();
        let typed: T = serde_json::from_value(raw.clone())
            .unwrap_or_else(|e| panic!("not a {} ({}): {e}: {}", std::any::type_name::<T>(), self.status, self.text));
        let back = serde_json::to_value(&typed).expect("a shared type serializes");
        assert_eq!(back, raw, "the body holds more than a {}: {}", std::any::type_name::<T>(), self.text);
        typed
    }

    /// Asserts the status and reads the body as `T`.
    #[track_caller]
    pub fn expect<T: DeserializeOwned + Serialize>(&self, status: u16) -> T {
        self.assert(status);
        self.body()
    }

    /// The error body's detail (the body must be exactly an `ErrorBody`).
    #[track_caller]
    pub fn error(&self) -> ErrorDetail {
        self.body::<ErrorBody>().error
    }

    /// The error code as it travels (read through serde, so it does not matter whether
    /// `shared` spells codes as strings or as an enum).
    #[track_caller]
    pub fn error_code(&self) -> String {
        let code = serde_json::to_value(self.error().code).expect("a code serializes");
        code.as_str().unwrap_or_else(|| panic!("the error code is not a string: {}", self.text)).to_owned()
    }

    /// Asserts the status and the error code; returns the detail.
    #[track_caller]
    pub fn expect_error(&self, status: u16, code: &str) -> ErrorDetail {
        self.assert(status);
        assert_eq!(self.error_code(), code, "body: {}", self.text);
        self.error()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    #[track_caller]
    pub fn assert(&self, status: u16) -> &Self {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        self
    }

    /// Asserts status and body text together (the uniform not-found answer, say).
    #[track_caller]
    pub fn assert_exactly(&self, status: u16, text: &str) {
        assert_eq!((self.status.as_u16(), self.text.as_str()), (status, text));
    }
}
