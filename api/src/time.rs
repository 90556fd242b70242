//! The one timestamp format of the API and of audit details: RFC 3339 in UTC with
//! microseconds (the database's precision).

use chrono::{DateTime, SecondsFormat, Utc};

pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}
