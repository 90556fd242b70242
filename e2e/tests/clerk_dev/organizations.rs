//! Organizations and memberships: shapes, errors, and both membership lists.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{error_code, ClerkDev};

fn ids(list: &Value) -> Vec<&str> {
    list["data"].as_array().unwrap().iter().map(|m| m["public_user_data"]["user_id"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn organizations_are_created_with_clerks_shape_and_found_by_id_or_slug() {
    let clerk = ClerkDev::start().await;
    let creator = clerk.user_id("creator@example.com").await;
    let body = json!({
        "name": "Acme Beta",
        "slug": "acme-beta",
        "created_by": creator,
        "public_metadata": { "tier": "gold" },
        "max_allowed_memberships": 5,
    });
    let (status, org) = clerk.api(Method::POST, "/v1/organizations", Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{org}");
    let id = org["id"].as_str().unwrap();
    assert!(id.starts_with("org_"), "{id}");
    assert_eq!(
        (&org["object"], &org["name"], &org["slug"], &org["created_by"]),
        (&json!("organization"), &json!("Acme Beta"), &json!("acme-beta"), &json!(creator))
    );
    assert_eq!((&org["public_metadata"], &org["private_metadata"]), (&json!({ "tier": "gold" }), &json!({})));
    assert_eq!((&org["max_allowed_memberships"], &org["admin_delete_enabled"]), (&json!(5), &json!(true)));
    assert_eq!(org["has_image"], false);
    assert!(org["created_at"].as_i64().unwrap() > 1_600_000_000_000 && org.get("members_count").is_none());

    let (status, by_id) = clerk.api(Method::GET, &format!("/v1/organizations/{id}"), None).await;
    assert_eq!((status, &by_id), (StatusCode::OK, &org));
    let (_, by_slug) = clerk.api(Method::GET, "/v1/organizations/acme-beta?include_members_count=true", None).await;
    assert_eq!((&by_slug["id"], &by_slug["members_count"]), (&json!(id), &json!(1)), "the creator is a member");
    let (_, list) = clerk.api(Method::GET, &format!("/v1/organizations/{id}/memberships"), None).await;
    assert_eq!((&list["total_count"], &list["data"][0]["role"]), (&json!(1), &json!("org:admin")));

    // Without a slug one is made from the name, unique; without a creator there is no member.
    let derived = clerk.create_org("Acme, Inc.", None, None).await;
    assert_eq!(derived["slug"], "acme-inc");
    assert!(derived.get("created_by").is_none());
    let again = clerk.create_org("Acme, Inc.", None, None).await;
    let slug = again["slug"].as_str().unwrap();
    assert!(slug.starts_with("acme-inc-") && slug.len() > "acme-inc-".len(), "{slug}");
    let path = format!("/v1/organizations/{}?include_members_count=true", derived["id"].as_str().unwrap());
    assert_eq!(clerk.api(Method::GET, &path, None).await.1["members_count"], 0);
}

#[tokio::test]
async fn bad_organizations_get_clerks_errors() {
    let clerk = ClerkDev::start().await;
    clerk.create_org("Taken", Some("taken"), None).await;
    for (body, status, code) in [
        (json!({ "name": "Dup", "slug": "taken" }), StatusCode::UNPROCESSABLE_ENTITY, "form_identifier_exists"),
        (json!({ "name": "Bad", "slug": "Not A Slug" }), StatusCode::UNPROCESSABLE_ENTITY, "form_param_format_invalid"),
        (json!({ "name": "  " }), StatusCode::UNPROCESSABLE_ENTITY, "form_param_format_invalid"),
        (
            json!({ "name": "Neg", "max_allowed_memberships": -1 }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "form_param_value_invalid",
        ),
        (
            json!({ "name": "Meta", "public_metadata": "x" }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "form_param_format_invalid",
        ),
        (
            json!({ "name": "Ghost", "created_by": "user_nope" }),
            StatusCode::BAD_REQUEST,
            "organization_creator_not_found",
        ),
        (json!({ "slug": "nameless" }), StatusCode::BAD_REQUEST, "request_body_invalid"),
    ] {
        let (got, response) = clerk.api(Method::POST, "/v1/organizations", Some(body.clone())).await;
        assert_eq!((got, error_code(&response)), (status, code), "{body}");
    }
    let (status, response) = clerk.api(Method::GET, "/v1/organizations/org_nope", None).await;
    assert_eq!((status, error_code(&response)), (StatusCode::NOT_FOUND, "resource_not_found"));
    let (status, _) = clerk.api(Method::GET, "/v1/organizations/taken?include_members_count=maybe", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn memberships_are_added_once_listed_from_both_sides_and_removed() {
    let clerk = ClerkDev::start().await;
    let owner = clerk.user_id("owner@example.com").await;
    let member = clerk.user_id("Member@Example.com").await;
    let org = clerk.create_org("Club", Some("club"), Some(&owner)).await;
    let org_id = org["id"].as_str().unwrap();
    let memberships = format!("/v1/organizations/{org_id}/memberships");
    let add =
        |user: &str, role: &str| clerk.api(Method::POST, &memberships, Some(json!({ "user_id": user, "role": role })));

    let (status, membership) = add(&member, "org:member").await;
    assert_eq!(status, StatusCode::OK, "{membership}");
    assert!(membership["id"].as_str().unwrap().starts_with("orgmem_"));
    assert_eq!((&membership["object"], &membership["role"]), (&json!("organization_membership"), &json!("org:member")));
    assert_eq!(membership["permissions"], json!(["org:sys_memberships:read", "org:sys_billing:read"]));
    assert_eq!((&membership["public_metadata"], &membership["private_metadata"]), (&json!({}), &json!({})));
    assert_eq!(membership["organization"], org, "the organization is embedded");
    assert_eq!(
        membership["public_user_data"],
        json!({
            "user_id": member, "identifier": "Member@Example.com", "first_name": null, "last_name": null,
            "image_url": "", "has_image": false,
        })
    );
    assert!(membership["created_at"].as_i64().unwrap() >= org["created_at"].as_i64().unwrap());

    let (status, body) = add(&member, "org:admin").await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, "already_a_member_in_organization"));
    for role in ["admin", "org:", "org:Admin", "member"] {
        let third = clerk.user_id(&format!("{}@example.com", role.replace(':', "-"))).await;
        let (status, body) = add(&third, role).await;
        assert_eq!(
            (status, error_code(&body)),
            (StatusCode::UNPROCESSABLE_ENTITY, "form_param_value_invalid"),
            "{role}"
        );
        assert_eq!(body["errors"][0]["meta"]["param_name"], "role");
    }
    let custom = clerk.user_id("billing@example.com").await;
    let (status, body) = add(&custom, "org:billing_manager").await;
    assert_eq!((status, &body["permissions"]), (StatusCode::OK, &json!([])), "custom roles are accepted");
    let (status, body) = add("user_nope", "org:member").await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"));
    let path = "/v1/organizations/org_nope/memberships";
    let (status, body) = clerk.api(Method::POST, path, Some(json!({ "user_id": member, "role": "org:member" }))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"));
    let (status, body) = clerk.api(Method::POST, &memberships, Some(json!({ "user_id": member }))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, "request_body_invalid"));

    // Both sides see it.
    let (_, list) = clerk.api(Method::GET, &memberships, None).await;
    assert_eq!(list.as_object().unwrap().len(), 2, "only data and total_count: {list}");
    assert_eq!((ids(&list), &list["total_count"]), (vec![custom.as_str(), &member, &owner], &json!(3)));
    let (_, mine) = clerk.api(Method::GET, &format!("/v1/users/{member}/organization_memberships"), None).await;
    assert_eq!((&mine["total_count"], &mine["data"][0]), (&json!(1), &membership));

    let (status, removed) = clerk.api(Method::DELETE, &format!("{memberships}/{member}"), None).await;
    assert_eq!((status, &removed), (StatusCode::OK, &membership), "answers the removed membership");
    let (_, mine) = clerk.api(Method::GET, &format!("/v1/users/{member}/organization_memberships"), None).await;
    assert_eq!(mine, json!({ "data": [], "total_count": 0 }));
    let (_, list) = clerk.api(Method::GET, &memberships, None).await;
    assert_eq!(ids(&list), [custom.as_str(), &owner]);
    for path in [format!("{memberships}/{member}"), format!("/v1/organizations/org_nope/memberships/{owner}")] {
        let (status, body) = clerk.api(Method::DELETE, &path, None).await;
        assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"), "{path}");
    }
    let (status, body) = clerk.api(Method::GET, "/v1/users/user_nope/organization_memberships", None).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"));
    let (status, body) = clerk.api(Method::GET, path, None).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"));

    // A member can be added back after removal.
    assert_eq!(add(&member, "org:admin").await.0, StatusCode::OK);
}

#[tokio::test]
async fn membership_lists_paginate_and_order_like_clerk() {
    let clerk = ClerkDev::start().await;
    let org = clerk.create_org("Big", None, None).await;
    let memberships = format!("/v1/organizations/{}/memberships", org["id"].as_str().unwrap());
    let mut users = Vec::new();
    for i in 0..12 {
        let user = clerk.user_id(&format!("m{i}@example.com")).await;
        let (status, _) =
            clerk.api(Method::POST, &memberships, Some(json!({ "user_id": user, "role": "org:member" }))).await;
        assert_eq!(status, StatusCode::OK);
        users.push(user);
    }
    let newest_first: Vec<&str> = users.iter().rev().map(String::as_str).collect();

    let (_, page) = clerk.api(Method::GET, &memberships, None).await;
    assert_eq!((ids(&page), &page["total_count"]), (newest_first[..10].to_vec(), &json!(12)), "default limit 10");
    let (_, page) = clerk.api(Method::GET, &format!("{memberships}?limit=5&offset=10"), None).await;
    assert_eq!((ids(&page), &page["total_count"]), (newest_first[10..].to_vec(), &json!(12)));
    let (_, page) = clerk.api(Method::GET, &format!("{memberships}?offset=20"), None).await;
    assert_eq!(page, json!({ "data": [], "total_count": 12 }));
    let (_, page) = clerk.api(Method::GET, &format!("{memberships}?order_by=%2Bcreated_at&limit=2"), None).await;
    assert_eq!(ids(&page), [users[0].as_str(), &users[1]]);
    let (_, page) = clerk.api(Method::GET, &format!("{memberships}?order_by=-created_at&limit=1"), None).await;
    assert_eq!(ids(&page), [newest_first[0]]);
    let (_, page) =
        clerk.api(Method::GET, &format!("/v1/users/{}/organization_memberships?limit=1", users[3]), None).await;
    assert_eq!((&page["total_count"], page["data"].as_array().unwrap().len()), (&json!(1), 1));

    for (query, status, code) in [
        ("limit=0", StatusCode::UNPROCESSABLE_ENTITY, "form_param_value_invalid"),
        ("limit=501", StatusCode::UNPROCESSABLE_ENTITY, "form_param_value_invalid"),
        ("offset=-1", StatusCode::UNPROCESSABLE_ENTITY, "form_param_value_invalid"),
        ("order_by=name", StatusCode::UNPROCESSABLE_ENTITY, "form_param_value_invalid"),
        ("limit=ten", StatusCode::BAD_REQUEST, "request_query_invalid"),
    ] {
        let (got, body) = clerk.api(Method::GET, &format!("{memberships}?{query}"), None).await;
        assert_eq!((got, error_code(&body)), (status, code), "{query}");
    }
}
