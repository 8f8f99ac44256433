//! The OCI test registries themselves (`tests/support/oci_registry.rs`), spoken to with
//! a plain HTTP client: Debian's docker-registry started with TLS and its htpasswd user
//! answers as distribution does, and the Bearer front answers as a token-based registry
//! does. The OCI client's own tests against them are unit tests (`src/net/oci/tests.rs`);
//! the binary's use of them (OCI mirrors, `mirror --layout oci`, `oci://` modules) is
//! tested in `oci_mirror.rs`. Skipped when the registry is not installed
//! (`scripts/fetch-docker-registry.sh`; `make test` installs it and insists).

use pretty_assertions::assert_eq;

use crate::support::oci_registry::{
    BearerFront, Registry, RegistryOptions, TokenPolicy, PASSWORD, SERVICE, USER,
};

const CA_PEM: &[u8] = include_bytes!("../../testdata/registry/tls/ca.pem");

/// A client that trusts the test CA and nothing else.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(CA_PEM).expect("test CA"))
        .build()
        .expect("client")
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// The registry serves the test certificate, challenges with Basic, takes the htpasswd
/// user, and names unknown repositories `NAME_UNKNOWN`.
#[tokio::test]
async fn test_registry_is_distribution_with_tls_and_htpasswd() {
    let Some(registry) = Registry::start(RegistryOptions {
        tls: true,
        htpasswd: true,
        relative_urls: false,
    }) else {
        return;
    };
    let base = registry.base_url();
    assert!(base.starts_with("https://127.0.0.1:"), "{base}");
    let client = client();

    let anonymous = client
        .get(format!("{base}/v2/"))
        .send()
        .await
        .expect("TLS works");
    assert_eq!(anonymous.status(), 401);
    assert_eq!(
        header(&anonymous, "www-authenticate"),
        r#"Basic realm="tfsum-test""#
    );

    let wrong = client
        .get(format!("{base}/v2/"))
        .basic_auth(USER, Some("wrong"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);

    let ok = client
        .get(format!("{base}/v2/"))
        .basic_auth(USER, Some(PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200, "{}", registry.log());
    assert_eq!(
        header(&ok, "docker-distribution-api-version"),
        "registry/2.0"
    );

    let unknown = client
        .get(format!("{base}/v2/no/such/tags/list"))
        .basic_auth(USER, Some(PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let body: serde_json::Value = unknown.json().await.unwrap();
    assert_eq!(body["errors"][0]["code"], "NAME_UNKNOWN");
}

/// The front challenges with Bearer and the scope a request needs; the token service
/// gives anonymous pull tokens and refresh-token grants; a token opens the backend.
#[tokio::test]
async fn bearer_front_and_token_service() {
    let Some(backend) = Registry::start(RegistryOptions {
        relative_urls: true,
        ..RegistryOptions::default()
    }) else {
        return;
    };
    let policy = TokenPolicy::default();
    let front = BearerFront::start(&backend, policy.clone());
    let client = client();
    let tags = format!("https://{}/v2/acme/x/tags/list", front.host);

    let challenged = client.get(&tags).send().await.unwrap();
    assert_eq!(challenged.status(), 401);
    assert_eq!(
        header(&challenged, "www-authenticate"),
        format!(
            r#"Bearer realm="{}",service="{SERVICE}",scope="repository:acme/x:pull""#,
            front.realm
        )
    );

    let answer: serde_json::Value = client
        .get(&front.realm)
        .query(&[("service", SERVICE), ("scope", "repository:acme/x:pull")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = answer["token"].as_str().expect("a token").to_string();
    let forwarded = client.get(&tags).bearer_auth(&token).send().await.unwrap();
    assert_eq!(forwarded.status(), 404, "the backend answers");
    let body: serde_json::Value = forwarded.json().await.unwrap();
    assert_eq!(body["errors"][0]["code"], "NAME_UNKNOWN");

    // An anonymous token does not push.
    let upload = format!("https://{}/v2/acme/x/blobs/uploads/", front.host);
    let refused = client
        .post(&upload)
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    assert!(
        header(&refused, "www-authenticate").ends_with(r#"scope="repository:acme/x:pull,push""#)
    );

    let granted: serde_json::Value = client
        .post(&front.realm)
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", policy.refresh_token.as_str()),
            ("client_id", "tfsum-test"),
            ("service", SERVICE),
            ("scope", "repository:acme/x:pull,push"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let pusher = granted["access_token"].as_str().expect("an access token");
    let started = client
        .post(&upload)
        .bearer_auth(pusher)
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), 202);
    assert!(header(&started, "location").starts_with("/v2/acme/x/blobs/uploads/"));

    let grants: Vec<(String, bool)> = front
        .token_requests()
        .into_iter()
        .map(|r| (r.grant, r.issued))
        .collect();
    assert_eq!(
        grants,
        [
            ("anonymous".to_string(), true),
            ("refresh".to_string(), true)
        ]
    );
    let statuses: Vec<(String, u16)> = front
        .requests()
        .into_iter()
        .map(|r| (r.method, r.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("GET".to_string(), 401),
            ("GET".to_string(), 404),
            ("POST".to_string(), 401),
            ("POST".to_string(), 202)
        ]
    );
}
