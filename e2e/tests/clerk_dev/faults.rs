//! `POST /dev/faults`: the `users` and `writes` switches, each independent of the other.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::{error_code, json_of, ClerkDev};

#[tokio::test]
async fn faults_make_user_lookups_fail_until_restored() {
    let clerk = ClerkDev::start().await;
    let user_id = clerk.create_user("fault@example.com").await["id"].as_str().unwrap().to_owned();
    let set = |users: &str| clerk.request(Method::POST, "/dev/faults").json(&json!({ "users": users })).send();

    let (status, body) = json_of(set("unavailable").await.unwrap()).await;
    assert_eq!((status, body), (StatusCode::OK, json!({ "users": "unavailable", "writes": "ok", "writeDelayMs": 0 })));
    let (status, body) = clerk.api(Method::GET, &format!("/v1/users/{user_id}"), None).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    error_code(&body);
    assert_eq!(clerk.api(Method::GET, "/v1/jwks", None).await.0, StatusCode::OK, "only users fail");

    let (status, body) = json_of(set("ok").await.unwrap()).await;
    assert_eq!((status, body), (StatusCode::OK, json!({ "users": "ok", "writes": "ok", "writeDelayMs": 0 })));
    assert_eq!(clerk.api(Method::GET, &format!("/v1/users/{user_id}"), None).await.0, StatusCode::OK);
    assert_eq!(set("sometimes").await.unwrap().status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_writes_fault_fails_metadata_and_membership_writes_until_restored() {
    let clerk = ClerkDev::start().await;
    let owner = clerk.user_id("owner@example.com").await;
    let member = clerk.user_id("member@example.com").await;
    let org = clerk.create_org("Faulty", None, Some(&owner)).await;
    let org_id = org["id"].as_str().unwrap();
    let metadata = format!("/v1/users/{member}/metadata");
    let memberships = format!("/v1/organizations/{org_id}/memberships");
    let owner_membership = format!("{memberships}/{owner}");
    let patch = || Some(json!({ "public_metadata": { "vestibule": { "programs": ["beta"] } } }));
    let add = || Some(json!({ "user_id": member, "role": "org:member" }));

    assert_eq!(
        clerk.faults(json!({ "writes": "unavailable" })).await,
        (StatusCode::OK, json!({ "users": "ok", "writes": "unavailable", "writeDelayMs": 0 }))
    );
    for (method, path, body) in [
        (Method::PATCH, metadata.as_str(), patch()),
        (Method::POST, memberships.as_str(), add()),
        (Method::DELETE, owner_membership.as_str(), None),
    ] {
        let (status, body) = clerk.api(method.clone(), path, body).await;
        assert_eq!(
            (status, error_code(&body)),
            (StatusCode::SERVICE_UNAVAILABLE, "service_unavailable"),
            "{method} {path}"
        );
    }
    // Nothing was written, reads and the other endpoints still answer.
    let (status, user) = clerk.api(Method::GET, &format!("/v1/users/{member}"), None).await;
    assert_eq!((status, &user["public_metadata"]), (StatusCode::OK, &json!({})));
    let (status, list) = clerk.api(Method::GET, &memberships, None).await;
    assert_eq!((status, &list["total_count"]), (StatusCode::OK, &json!(1)));
    assert_eq!(list["data"][0]["public_user_data"]["user_id"], json!(owner));
    assert_eq!(
        clerk.api(Method::GET, &format!("/v1/users/{member}/organization_memberships"), None).await.0,
        StatusCode::OK
    );
    clerk.create_org("Still creatable", None, None).await;

    // The switches are independent: users can fail while writes are back, and vice versa.
    let both = json!({ "users": "unavailable", "writes": "unavailable", "writeDelayMs": 0 });
    assert_eq!(clerk.faults(json!({ "users": "unavailable" })).await, (StatusCode::OK, both));
    let users_only = json!({ "users": "unavailable", "writes": "ok", "writeDelayMs": 0 });
    assert_eq!(clerk.faults(json!({ "writes": "ok" })).await, (StatusCode::OK, users_only));
    assert_eq!(clerk.api(Method::GET, &format!("/v1/users/{member}"), None).await.0, StatusCode::SERVICE_UNAVAILABLE);

    // Once restored, the same writes converge.
    let (status, user) = clerk.api(Method::PATCH, &metadata, patch()).await;
    assert_eq!((status, &user["public_metadata"]), (StatusCode::OK, &json!({ "vestibule": { "programs": ["beta"] } })));
    assert_eq!(clerk.api(Method::POST, &memberships, add()).await.0, StatusCode::OK);
    assert_eq!(clerk.api(Method::DELETE, &owner_membership, None).await.0, StatusCode::OK);
    let (_, list) = clerk.api(Method::GET, &memberships, None).await;
    assert_eq!((&list["total_count"], &list["data"][0]["public_user_data"]["user_id"]), (&json!(1), &json!(member)));
}

#[tokio::test]
async fn fault_bodies_must_name_a_known_switch_and_state() {
    let clerk = ClerkDev::start().await;
    for body in [json!({}), json!({ "writes": "sometimes" }), json!({ "reads": "ok" }), json!({ "users": null })] {
        let (status, response) = clerk.faults(body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        error_code(&response);
    }
    assert_eq!(
        clerk.faults(json!({ "users": "ok" })).await,
        (StatusCode::OK, json!({ "users": "ok", "writes": "ok", "writeDelayMs": 0 }))
    );
}
