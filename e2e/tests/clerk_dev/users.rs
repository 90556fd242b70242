//! User deletion, the full User object, and the metadata merge.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{error_code, json_of, ClerkDev};

fn assert_not_found(status: StatusCode, body: &Value, what: &str) {
    assert_eq!((status, error_code(body)), (StatusCode::NOT_FOUND, "resource_not_found"), "{what}: {body}");
}

#[tokio::test]
async fn deleting_a_user_removes_it_and_cuts_off_its_sessions() {
    let clerk = ClerkDev::start().await;
    let user_id = clerk.user_id("gone@example.com").await;
    let second_email = {
        let body = json!({ "user_id": user_id, "email_address": "gone2@example.com", "verified": true });
        clerk.api(Method::POST, "/v1/email_addresses", Some(body)).await.1["id"].as_str().unwrap().to_owned()
    };
    let session_id = clerk.create_session(&user_id).await;
    let tokens = format!("/v1/sessions/{session_id}/tokens");
    assert_eq!(clerk.api(Method::POST, &tokens, None).await.0, StatusCode::OK, "mints before deletion");
    let org = clerk.create_org("Left behind", None, Some(&user_id)).await;
    let bystander = clerk.user_id("stays@example.com").await;
    let bystander_session = clerk.create_session(&bystander).await;

    let (status, body) = clerk.api(Method::DELETE, &format!("/v1/users/{user_id}"), None).await;
    assert_eq!((status, body), (StatusCode::OK, json!({ "object": "user", "id": user_id, "deleted": true })));

    let (status, body) = clerk.api(Method::GET, &format!("/v1/users/{user_id}"), None).await;
    assert_not_found(status, &body, "GET the deleted user");
    let (status, body) = clerk.api(Method::DELETE, &format!("/v1/users/{user_id}"), None).await;
    assert_not_found(status, &body, "DELETE it again");
    let (status, body) = clerk.api(Method::POST, &tokens, None).await;
    assert_not_found(status, &body, "a token for its session");
    let res = clerk.request(Method::POST, &format!("/dev/sessions/{session_id}/tokens")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "a browser refresh of its session");
    let (status, body) = clerk.api(Method::POST, "/v1/sessions", Some(json!({ "user_id": user_id }))).await;
    assert_not_found(status, &body, "a new session");
    let (status, body) = clerk
        .api(Method::PATCH, &format!("/v1/email_addresses/{second_email}"), Some(json!({ "verified": false })))
        .await;
    assert_not_found(status, &body, "its email address");
    let (status, body) = clerk.api(Method::GET, &format!("/v1/users/{user_id}/organization_memberships"), None).await;
    assert_not_found(status, &body, "its memberships");
    let org_id = org["id"].as_str().unwrap();
    let (_, list) = clerk.api(Method::GET, &format!("/v1/organizations/{org_id}/memberships"), None).await;
    assert_eq!(list, json!({ "data": [], "total_count": 0 }), "its membership went with it");

    // Other users are untouched, and the email is free again: signing in makes a new user.
    let bystander_tokens = format!("/v1/sessions/{bystander_session}/tokens");
    assert_eq!(clerk.api(Method::POST, &bystander_tokens, None).await.0, StatusCode::OK);
    let res = clerk.request(Method::POST, "/dev/sign-in").json(&json!({ "email": "gone@example.com" })).send().await;
    let (status, signed_in) = json_of(res.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{signed_in}");
    let new_id = signed_in["userId"].as_str().unwrap();
    assert_ne!(new_id, user_id);
    let (_, user) = clerk.api(Method::GET, &format!("/v1/users/{new_id}"), None).await;
    assert_eq!(user["email_addresses"][0]["email_address"], "gone@example.com");
    assert_eq!(user["email_addresses"][0]["verification"]["status"], "verified");
}

#[tokio::test]
async fn the_user_object_has_metadata_and_the_fields_clients_read() {
    let clerk = ClerkDev::start().await;
    let body = json!({
        "email_address": ["full@example.com"],
        "public_metadata": { "plan": "beta" },
        "unsafe_metadata": { "theme": "dark" },
    });
    let (status, user) = clerk.api(Method::POST, "/v1/users", Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{user}");
    assert_eq!(
        (&user["public_metadata"], &user["private_metadata"], &user["unsafe_metadata"]),
        (&json!({ "plan": "beta" }), &json!({}), &json!({ "theme": "dark" }))
    );
    for field in ["phone_numbers", "web3_wallets", "external_accounts", "enterprise_accounts", "passkeys"] {
        assert_eq!(user[field], json!([]), "{field}");
    }
    for field in ["banned", "locked", "password_enabled", "two_factor_enabled", "totp_enabled", "has_image"] {
        assert_eq!(user[field], json!(false), "{field}");
    }
    for field in ["username", "first_name", "last_name", "external_id", "last_sign_in_at", "primary_phone_number_id"] {
        assert_eq!(user[field], Value::Null, "{field}");
    }
    assert!(user["image_url"].is_string());
    let (_, fetched) = clerk.api(Method::GET, &format!("/v1/users/{}", user["id"].as_str().unwrap()), None).await;
    assert_eq!(fetched, user);

    let (status, body) = clerk.api(Method::POST, "/v1/users", Some(json!({ "private_metadata": [1] }))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "form_param_format_invalid"));
    assert_eq!(body["errors"][0]["meta"]["param_name"], "private_metadata");
}

#[tokio::test]
async fn a_user_created_with_a_name_keeps_it_and_an_overlong_one_is_refused() {
    let clerk = ClerkDev::start().await;
    let body = json!({ "email_address": ["jo@example.com"], "first_name": "Jo", "last_name": "March" });
    let (status, user) = clerk.api(Method::POST, "/v1/users", Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{user}");
    let (_, fetched) = clerk.api(Method::GET, &format!("/v1/users/{}", user["id"].as_str().unwrap()), None).await;
    assert_eq!((&fetched["first_name"], &fetched["last_name"]), (&json!("Jo"), &json!("March")));
    let only_first = json!({ "email_address": ["amy@example.com"], "first_name": "Amy", "last_name": "" });
    let (_, user) = clerk.api(Method::POST, "/v1/users", Some(only_first)).await;
    assert_eq!((&user["first_name"], &user["last_name"]), (&json!("Amy"), &Value::Null));
    let long = json!({ "email_address": ["long@example.com"], "last_name": "x".repeat(257) });
    let (status, body) = clerk.api(Method::POST, "/v1/users", Some(long)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "form_param_format_invalid"));
    assert_eq!(body["errors"][0]["meta"]["param_name"], "last_name");
}

#[tokio::test]
async fn metadata_merges_deeply_and_null_deletes_keys_at_any_depth() {
    let clerk = ClerkDev::start().await;
    let id = clerk.user_id("meta@example.com").await;
    let path = format!("/v1/users/{id}/metadata");
    let merge = |body: Value| clerk.api(Method::PATCH, &path, Some(body));

    let (status, user) = merge(json!({
        "public_metadata": { "vestibule": { "programs": ["alpha"], "since": 1 }, "plan": "beta", "tags": ["a", "b"] },
        "private_metadata": { "note": "x" },
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{user}");
    assert_eq!(user["object"], "user");
    assert_eq!(user["unsafe_metadata"], json!({}), "absent kinds stay as they are");

    let (_, user) = merge(json!({
        "public_metadata": {
            "vestibule": { "since": null, "cohort": { "name": "c1", "ghost": null } },
            "plan": null,
            "tags": ["c"],
        },
        "unsafe_metadata": { "theme": "dark" },
    }))
    .await;
    assert_eq!(
        user["public_metadata"],
        json!({ "vestibule": { "programs": ["alpha"], "cohort": { "name": "c1" } }, "tags": ["c"] }),
        "objects merge key by key, arrays are replaced, null deletes, nulls in new objects vanish"
    );
    assert_eq!(user["private_metadata"], json!({ "note": "x" }));
    assert_eq!(user["unsafe_metadata"], json!({ "theme": "dark" }));

    let (_, user) = merge(json!({ "public_metadata": { "vestibule": "flat", "tags": { "k": 1 } } })).await;
    assert_eq!(user["public_metadata"], json!({ "vestibule": "flat", "tags": { "k": 1 } }), "replacing across kinds");
    let (status, unchanged) = merge(json!({})).await;
    assert_eq!((status, &unchanged["public_metadata"]), (StatusCode::OK, &user["public_metadata"]));
    let (_, user) = merge(json!({ "public_metadata": { "vestibule": null, "tags": null } })).await;
    assert_eq!(user["public_metadata"], json!({}));

    let (_, fetched) = clerk.api(Method::GET, &format!("/v1/users/{id}"), None).await;
    assert_eq!(
        (&fetched["public_metadata"], &fetched["private_metadata"], &fetched["unsafe_metadata"]),
        (&json!({}), &json!({ "note": "x" }), &json!({ "theme": "dark" }))
    );
}

#[tokio::test]
async fn bad_metadata_is_refused_and_changes_nothing() {
    let clerk = ClerkDev::start().await;
    let id = clerk.user_id("strict@example.com").await;
    let path = format!("/v1/users/{id}/metadata");
    clerk.api(Method::PATCH, &path, Some(json!({ "public_metadata": { "keep": 1 } }))).await;

    for (body, param) in [
        (json!({ "public_metadata": "text" }), "public_metadata"),
        (json!({ "private_metadata": [1, 2] }), "private_metadata"),
        (json!({ "public_metadata": { "ok": 2 }, "unsafe_metadata": 3 }), "unsafe_metadata"),
    ] {
        let (status, response) = clerk.api(Method::PATCH, &path, Some(body.clone())).await;
        assert_eq!((status, error_code(&response)), (StatusCode::UNPROCESSABLE_ENTITY, "form_param_format_invalid"));
        assert_eq!(response["errors"][0]["meta"]["param_name"], param, "{body}");
    }
    let (status, response) = clerk.api(Method::PATCH, &path, Some(json!({ "public_metadata": null }))).await;
    assert_eq!((status, &response["public_metadata"]), (StatusCode::OK, &json!({ "keep": 1 })), "null is absent");
    let (status, response) = clerk.api(Method::PATCH, &path, Some(json!({ "metadata": {} }))).await;
    assert_eq!((status, error_code(&response)), (StatusCode::BAD_REQUEST, "request_body_invalid"));
    let (status, response) =
        clerk.api(Method::PATCH, "/v1/users/user_nope/metadata", Some(json!({ "public_metadata": {} }))).await;
    assert_not_found(status, &response, "an unknown user");

    let (_, user) = clerk.api(Method::GET, &format!("/v1/users/{id}"), None).await;
    assert_eq!(user["public_metadata"], json!({ "keep": 1 }));
}
