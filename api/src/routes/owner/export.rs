//! `GET /api/owner/programs/{id}/entries.csv`: the owner's queue export (id, email,
//! state, created_at, notice_version, permission_at, ref) — no codes, no digests. Policy:
//! text a person typed (the email) is neutralized against spreadsheet formulas (a
//! leading `=`, `+`, `-`, `@`, tab or CR gets a `'` prefix) and quoted per RFC 4180.

use crate::http::error::Result;
use crate::identity::Session;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::queue;
use actix_web::http::header;
use actix_web::{get, web, HttpResponse, HttpResponseBuilder};
use uuid::Uuid;

/// One CSV cell of person-supplied text: formula-neutralized, then quoted if needed.
pub(super) fn csv_cell(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_owned() };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// A CSV download (the API scope adds `Cache-Control: private, no-store`).
pub(super) fn csv_response(mut builder: HttpResponseBuilder, filename: &str, body: String) -> HttpResponse {
    builder
        .insert_header((header::CONTENT_TYPE, "text/csv; charset=utf-8"))
        .insert_header((header::CONTENT_DISPOSITION, format!("attachment; filename=\"{filename}\"")))
        .body(body)
}

#[utoipa::path(operation_id = "exportEntries", responses(
    (status = 200, description = "The queue as CSV: id,email,state,created_at,notice_version,permission_at,ref (formula-neutralized).", content_type = "text/csv", body = String),
))]
#[get("/owner/programs/{id}/entries.csv")]
async fn export(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let rows = queue::export(&state.pool, &session.user_id, *id).await?;
    let mut csv = String::from("id,email,state,created_at,notice_version,permission_at,ref\r\n");
    for e in rows {
        let line = [
            e.id.to_string(),
            csv_cell(&e.email),
            e.state.to_string(),
            rfc3339(e.created_at),
            e.notice_version.to_string(),
            rfc3339(e.permission_at),
            // The grammar (a-z 0-9 _ -) needs no quoting; a leading `-` is neutralized.
            e.source_ref.as_deref().map(csv_cell).unwrap_or_default(),
        ];
        csv.push_str(&line.join(","));
        csv.push_str("\r\n");
    }
    Ok(csv_response(HttpResponse::Ok(), "entries.csv", csv))
}

#[cfg(test)]
mod tests {
    use super::csv_cell;

    #[test]
    fn formula_cells_are_neutralized_and_quoted() {
        assert_eq!(csv_cell("ann@example.com"), "ann@example.com");
        assert_eq!(csv_cell("=cmd@example.com"), "'=cmd@example.com");
        assert_eq!(csv_cell("+1@example.com"), "'+1@example.com");
        assert_eq!(csv_cell("-x@example.com"), "'-x@example.com");
        assert_eq!(csv_cell("@x"), "'@x");
        assert_eq!(csv_cell("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
