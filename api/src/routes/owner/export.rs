//! `GET /api/owner/programs/{id}/entries.csv`: the owner's queue export (id, email,
//! state, created_at, notice_version, permission_at) — no codes, no digests. Policy:
//! text a person typed (the email) is neutralized against spreadsheet formulas (a
//! leading `=`, `+`, `-`, `@`, tab or CR gets a `'` prefix) and quoted per RFC 4180.

use super::guard;
use crate::db::{self, locks::Strength, queue};
use crate::error::Result;
use crate::identity::Session;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::http::header;
use actix_web::{web, HttpResponse, HttpResponseBuilder};
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/entries.csv", web::get().to(export));
}

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

async fn export(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    let rows = db::transaction(&state.pool, async |tx| {
        guard::program(tx, &session, program_id, Strength::Share).await?;
        queue::all(tx, program_id).await
    })
    .await?;
    let mut csv = String::from("id,email,state,created_at,notice_version,permission_at\r\n");
    for e in rows {
        let line = [
            e.id.to_string(),
            csv_cell(&e.email),
            e.state.as_str().to_owned(),
            ts(e.created_at),
            e.notice_version.to_string(),
            ts(e.permission_at),
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
