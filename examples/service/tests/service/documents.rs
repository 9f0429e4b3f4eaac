//! `/openapi.json` and the page at `/`, as a client fetches them.

use serde_json::json;

use crate::support::Service;

/// The OpenAPI document names every route, and its IDs are the ID types'
/// own schemas: decimal strings, not integers.
#[test]
fn openapi_describes_ids_as_strings() {
    let db = crate::sqlite();
    let service = Service::start("openapi", &db.url, &[]);
    let doc = service.get("/openapi.json");
    assert_eq!(doc.status, 200, "{}", doc.text);
    let api = doc.json;
    let paths: Vec<&str> = api["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        paths,
        [
            "/health",
            "/players/bulk",
            "/players/{id}",
            "/teams",
            "/teams/{id}"
        ]
    );
    let schemas = &api["components"]["schemas"];
    for id in ["TeamId", "PlayerId"] {
        assert_eq!(schemas[id]["type"], json!("string"), "{id}");
        assert_eq!(schemas[id]["pattern"], json!("^[1-9][0-9]*$"), "{id}");
        assert_eq!(schemas[id]["maxLength"], json!(19), "{id}");
    }
    assert_eq!(
        schemas["Team"]["properties"]["id"]["$ref"],
        json!("#/components/schemas/TeamId")
    );
    assert_eq!(
        schemas["NewPlayers"]["properties"]["team_id"]["$ref"],
        json!("#/components/schemas/TeamId")
    );
    assert_eq!(
        api["paths"]["/teams/{id}"]["get"]["parameters"][0]["schema"]["$ref"],
        json!("#/components/schemas/TeamId")
    );
    let errors = &schemas["ErrorBody"]["properties"];
    assert!(
        errors["error"].is_object() && errors["field"].is_object() && errors["value"].is_object()
    );
    assert!(
        api["paths"]["/teams"]["post"]["responses"]["422"].is_object(),
        "POST /teams documents its 422"
    );
}

/// `/` is the static page, as HTML.
#[test]
fn page_is_served_as_html() {
    let db = crate::sqlite();
    let service = Service::start("page", &db.url, &[]);
    let page = service.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.content_type.as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert!(page.text.contains("<script>") && page.text.contains("/teams"));
}
