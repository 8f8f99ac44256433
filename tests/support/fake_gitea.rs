//! The part of a Gitea forge's REST API (`/api/v1/…`) that Renovate's `gitea` platform
//! calls, on 127.0.0.1, for one repository whose git is served elsewhere (its
//! `clone_url`, a [`super::git_http::GitServer`]). Pull requests are kept; every other
//! write is accepted and forgotten, and every list is empty. Each request is recorded
//! (method, path and query, and whether it carried the token).
//!
//! What Renovate 44 reads and the shapes it checks are in its
//! `lib/modules/platform/gitea/schema.ts`: the user, the server version, the repository
//! (owner, permissions, default branch, clone URL), pull requests.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::{json, Value};

const CREATED: &str = "2024-01-01T00:00:00Z";

struct ForgeState {
    owner: String,
    name: String,
    clone_url: String,
    token: String,
    pulls: Mutex<Vec<Value>>,
    seen: Mutex<Vec<String>>,
}

/// A running fake forge; stopped when the test process ends.
pub struct FakeGitea {
    port: u16,
    state: Arc<ForgeState>,
}

impl FakeGitea {
    /// Serves the repository `owner/name`, cloned from `clone_url`, to clients that
    /// send `token`.
    pub fn start(owner: &str, name: &str, clone_url: &str, token: &str) -> FakeGitea {
        let state = Arc::new(ForgeState {
            owner: owner.to_string(),
            name: name.to_string(),
            clone_url: clone_url.to_string(),
            token: token.to_string(),
            pulls: Mutex::default(),
            seen: Mutex::default(),
        });
        let app = Router::new().fallback(serve).with_state(Arc::clone(&state));
        let port = super::loopback::serve(app, "fake gitea");
        FakeGitea { port, state }
    }

    /// `http://127.0.0.1:PORT/api/v1/`, Renovate's `endpoint`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/api/v1/", self.port)
    }

    /// The pull requests created, as Renovate sent them (`title`, `head`, `base`, …).
    pub fn pulls(&self) -> Vec<Value> {
        self.state.pulls.lock().expect("pulls").clone()
    }

    /// `METHOD /path?query`, one per request, in order; `(no token)` marks a request
    /// without the token.
    pub fn seen(&self) -> Vec<String> {
        self.state.seen.lock().expect("seen").clone()
    }
}

async fn serve(
    State(state): State<Arc<ForgeState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let authorized = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.ends_with(&state.token));
    let mut line = format!("{method} {uri}");
    if !authorized {
        line.push_str(" (no token)");
    }
    state.seen.lock().expect("seen").push(line);
    if !authorized {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let path = uri.path().trim_end_matches('/');
    let repo = format!("/api/v1/repos/{}/{}", state.owner, state.name);
    match (method, path) {
        (Method::GET, "/api/v1/user") => Json(user("renovate", 1)).into_response(),
        (Method::GET, "/api/v1/version") => Json(json!({ "version": "1.22.0" })).into_response(),
        (Method::GET, p) if p == repo => Json(repository(&state)).into_response(),
        (Method::POST, p) if p == format!("{repo}/pulls") => {
            let Ok(request) = serde_json::from_slice::<Value>(&body) else {
                return StatusCode::BAD_REQUEST.into_response();
            };
            let mut pulls = state.pulls.lock().expect("pulls");
            let pull = pull_request(pulls.len() + 1, &request, &state);
            pulls.push(pull.clone());
            (StatusCode::CREATED, Json(pull)).into_response()
        }
        (Method::GET, p) if p == format!("{repo}/pulls") => {
            Json(Value::Array(state.pulls.lock().expect("pulls").clone())).into_response()
        }
        (Method::GET, p) if p.starts_with(&format!("{repo}/pulls/")) => {
            let number = p.rsplit('/').next().and_then(|n| n.parse::<u64>().ok());
            let pulls = state.pulls.lock().expect("pulls");
            match pulls.iter().find(|pr| pr["number"].as_u64() == number) {
                Some(pull) => Json(pull.clone()).into_response(),
                None => StatusCode::NOT_FOUND.into_response(),
            }
        }
        (Method::GET, _) => Json(json!([])).into_response(),
        _ => Json(json!({})).into_response(),
    }
}

fn user(login: &str, id: u64) -> Value {
    json!({
        "id": id,
        "login": login,
        "username": login,
        "full_name": login,
        "email": format!("{login}@example.invalid"),
    })
}

fn repository(state: &ForgeState) -> Value {
    json!({
        "id": 1,
        "name": state.name,
        "full_name": format!("{}/{}", state.owner, state.name),
        "owner": user(&state.owner, 2),
        "default_branch": "main",
        "clone_url": state.clone_url,
        "archived": false,
        "mirror": false,
        "empty": false,
        "fork": false,
        "permissions": { "admin": true, "push": true, "pull": true },
        "allow_merge_commits": true,
        "allow_rebase": true,
        "allow_squash_merge": true,
        "has_pull_requests": true,
        "has_issues": true,
    })
}

fn pull_request(number: usize, request: &Value, state: &ForgeState) -> Value {
    let head = request["head"].as_str().unwrap_or_default();
    json!({
        "id": number,
        "number": number,
        "state": "open",
        "title": request["title"],
        "body": request["body"],
        "mergeable": true,
        "created_at": CREATED,
        "updated_at": CREATED,
        "head": {
            "label": head,
            "ref": head,
            "sha": "0".repeat(40),
            "repo": { "full_name": format!("{}/{}", state.owner, state.name) },
        },
        "base": { "ref": request["base"] },
        "user": user("renovate", 1),
    })
}
