//! The HTTP API: routes, request and response bodies, and the OpenAPI
//! document generated from them.

use std::sync::{Arc, RwLock};
use std::time::Instant;

use axum::Json;
use axum::extract::{DefaultBodyLimit, RawQuery, Request, State};
use axum::http::{Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use flakeid_lease::LeaseStatus;
use flakeid_seaorm::lease::NodeLease;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, TransactionTrait,
};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use utoipa::{OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::extract::{IdPath, JsonBody};
use crate::schema::{MAX_NAME_CHARS, PlayerId, TeamId, player, team};

pub use crate::extract::MAX_BODY_BYTES;

/// The most players `POST /teams` or `POST /players/bulk` takes at once
/// (3 bound values a row: far below every database's limit).
pub const MAX_PLAYERS_PER_REQUEST: usize = 1000;
/// `limit` of `GET /teams` when not given.
pub const DEFAULT_PAGE: u64 = 20;
/// The largest `limit` of `GET /teams`.
pub const MAX_PAGE: u64 = 100;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The connection pool.
    pub db: DatabaseConnection,
    /// The node lease. [`run`](crate::run) takes it out to release it once
    /// the server has stopped (connections may still hold clones of this
    /// state for a moment).
    pub lease: Arc<RwLock<Option<NodeLease>>>,
    /// The lease's state, for `/health`: told by the lease at every change
    /// ([`NodeLease::watch`](flakeid_lease::AsyncNodeLease::watch)), never polled.
    pub lease_state: watch::Receiver<LeaseStatus>,
    /// The lease space.
    pub space: Arc<str>,
}

/// The router with every route, and the OpenAPI document at `/openapi.json`.
pub fn router(state: AppState) -> axum::Router {
    let (router, api) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(create_team, list_teams))
        .routes(routes!(get_team))
        .routes(routes!(create_players))
        .routes(routes!(get_player))
        .routes(routes!(health))
        .split_for_parts();
    let api = Arc::new(api);
    router
        .route("/openapi.json", get(move || async move { Json(api) }))
        .route("/metrics", get(crate::metrics::render))
        .route("/", get(index))
        .route("/favicon.ico", get(no_icon))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(log_request))
        .with_state(state)
}

/// A player as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Player {
    /// The player's ID.
    pub id: PlayerId,
    /// The team the player plays for.
    pub team_id: TeamId,
    /// The player's name.
    pub name: String,
}

impl From<player::Model> for Player {
    fn from(p: player::Model) -> Player {
        Player {
            id: p.id,
            team_id: p.team_id,
            name: p.name,
        }
    }
}

/// A team with its players (in ID order, which is the order they were
/// created in).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Team {
    /// The team's ID.
    pub id: TeamId,
    /// The team's name.
    pub name: String,
    /// The captain, one of `players`.
    pub captain_id: Option<PlayerId>,
    /// The team's players.
    pub players: Vec<Player>,
}

/// A team in a list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamSummary {
    /// The team's ID.
    pub id: TeamId,
    /// The team's name.
    pub name: String,
    /// The captain's ID.
    pub captain_id: Option<PlayerId>,
}

/// One page of teams in ID order.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamPage {
    /// Up to `limit` teams, each with a larger ID than `after`.
    pub teams: Vec<TeamSummary>,
    /// `after` for the next page; null on the last page.
    pub next: Option<TeamId>,
}

/// A new player.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    /// 1 to 100 characters, no control characters.
    pub name: String,
}

/// A new team with its players.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTeam {
    /// 1 to 100 characters, no control characters.
    pub name: String,
    /// 1 to 1000 players.
    pub players: Vec<NewPlayer>,
    /// The captain: an index into `players`.
    pub captain: usize,
}

/// New players for an existing team.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayers {
    /// The team.
    pub team_id: TeamId,
    /// 1 to 1000 names.
    pub names: Vec<String>,
}

/// What `/health` says.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Health {
    /// The lease's state in words, as of its last change
    /// (`held: node 5 (fence 2), ceiling … ms`).
    pub lease: String,
    /// The node ID the lease holds now (null once released).
    pub node: Option<u64>,
    /// The lease space (empty once released).
    pub space: String,
    /// Whether IDs are issued now; false answers 503.
    pub issuing: bool,
}

/// A name, checked: `field` and the name itself are in the error.
fn check_name(field: &str, name: &str) -> Result<String, ApiError> {
    let refuse = |why: &str| {
        ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{field} {why}"),
            field,
            name,
        )
    };
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(refuse("is empty"));
    }
    if trimmed.chars().count() > MAX_NAME_CHARS {
        return Err(refuse(&format!(
            "is longer than {MAX_NAME_CHARS} characters"
        )));
    }
    // PostgreSQL refuses NUL in text; the rest would only confuse pages and logs.
    if trimmed.chars().any(char::is_control) {
        return Err(refuse("contains control characters"));
    }
    Ok(trimmed.to_owned())
}

fn check_count(field: &str, n: usize) -> Result<(), ApiError> {
    if (1..=MAX_PLAYERS_PER_REQUEST).contains(&n) {
        Ok(())
    } else {
        Err(ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{field} must hold 1 to {MAX_PLAYERS_PER_REQUEST} entries, not {n}"),
            field,
            n,
        ))
    }
}

/// Creates a team, its players and its captain in one transaction.
#[utoipa::path(
    post,
    path = "/teams",
    request_body = NewTeam,
    responses(
        (status = 201, description = "Created", body = Team),
        (status = 400, description = "Not JSON", body = ErrorBody),
        (status = 415, description = "Not sent as application/json", body = ErrorBody),
        (status = 422, description = "A field is wrong", body = ErrorBody),
        (status = 503, description = "No IDs can be issued now", body = ErrorBody),
    )
)]
async fn create_team(
    State(state): State<AppState>,
    JsonBody(new): JsonBody<NewTeam>,
) -> Result<Response, ApiError> {
    let name = check_name("name", &new.name)?;
    check_count("players", new.players.len())?;
    let names = new
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| check_name(&format!("players[{i}].name"), &p.name))
        .collect::<Result<Vec<_>, _>>()?;
    if new.captain >= names.len() {
        return Err(ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "captain must be an index into players (0..={})",
                names.len() - 1
            ),
            "captain",
            new.captain,
        ));
    }

    // Every ID of the graph is known before anything is written, so the
    // rows can reference each other from the start; taken together, right
    // before the transaction, so that they sit together in the indexes.
    let n = names.len();
    // Taken with `*_async`: where the generator has to wait (the next
    // millisecond, the lease's ceiling), this task waits on tokio's timer
    // and the thread serves other requests meanwhile.
    let team_id = TeamId::generate_async().await?;
    let player_ids = PlayerId::generate_many_async(n).await?;
    let players: Vec<Player> = player_ids
        .iter()
        .zip(names)
        .map(|(&id, name)| Player { id, team_id, name })
        .collect();
    let captain_id = players[new.captain].id;

    let txn = state.db.begin().await?;
    // The team first, without its captain (see `schema::create_tables`),
    team::Entity::insert(team::ActiveModel {
        id: Set(team_id),
        name: Set(name.clone()),
        captain_id: Set(None),
    })
    .exec_without_returning(&txn)
    .await?;
    // then its players in one statement,
    player::Entity::insert_many(players.iter().map(|p| player::ActiveModel {
        id: Set(p.id),
        team_id: Set(team_id),
        name: Set(p.name.clone()),
    }))
    .exec_without_returning(&txn)
    .await?;
    // then the captain, before anyone else can see the team.
    team::Entity::update_many()
        .col_expr(team::Column::CaptainId, Expr::value(captain_id.get()))
        .filter(team::Column::Id.eq(team_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;

    tracing::info!(team = %team_id, players = players.len(), "team created");
    let team = Team {
        id: team_id,
        name,
        captain_id: Some(captain_id),
        players,
    };
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/teams/{team_id}"))],
        Json(team),
    )
        .into_response())
}

/// Adds players to a team, in one multi-row INSERT.
#[utoipa::path(
    post,
    path = "/players/bulk",
    request_body = NewPlayers,
    responses(
        (status = 201, description = "Created, in ID order", body = Vec<Player>),
        (status = 400, description = "Not JSON", body = ErrorBody),
        (status = 404, description = "No such team", body = ErrorBody),
        (status = 422, description = "A field is wrong", body = ErrorBody),
        (status = 503, description = "No IDs can be issued now", body = ErrorBody),
    )
)]
async fn create_players(
    State(state): State<AppState>,
    JsonBody(new): JsonBody<NewPlayers>,
) -> Result<(StatusCode, Json<Vec<Player>>), ApiError> {
    check_count("names", new.names.len())?;
    let names = new
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| check_name(&format!("names[{i}]"), n))
        .collect::<Result<Vec<_>, _>>()?;
    if team::Entity::find_by_id(new.team_id)
        .one(&state.db)
        .await?
        .is_none()
    {
        return Err(ApiError::unknown("team", "team_id", new.team_id));
    }
    let mut models: Vec<player::ActiveModel> = names
        .iter()
        .map(|name| player::ActiveModel {
            team_id: Set(new.team_id),
            name: Set(name.clone()),
            ..Default::default()
        })
        .collect();
    // What `insert_many_with_ids` does (one contiguous run of IDs for the
    // statement, taken as it is built), in two steps because the response
    // lists the new IDs.
    flakeid_seaorm::assign_ids(&mut models).await?;
    let players = models
        .iter()
        .zip(names)
        .map(|(m, name)| {
            let id = flakeid_seaorm::FlakeActiveModel::key(m)?
                .ok_or_else(|| sea_orm::DbErr::Custom("assign_ids left a key unset".into()))?;
            Ok(Player {
                id,
                team_id: new.team_id,
                name,
            })
        })
        .collect::<Result<Vec<_>, sea_orm::DbErr>>()?;
    player::Entity::insert_many(models)
        .exec_without_returning(&state.db)
        .await?;
    tracing::info!(team = %new.team_id, players = players.len(), "players created");
    Ok((StatusCode::CREATED, Json(players)))
}

/// A team with its players.
#[utoipa::path(
    get,
    path = "/teams/{id}",
    params(("id" = TeamId, Path, description = "The team's ID")),
    responses(
        (status = 200, description = "The team", body = Team),
        (status = 400, description = "Not a team ID", body = ErrorBody),
        (status = 404, description = "No such team", body = ErrorBody),
    )
)]
async fn get_team(
    State(state): State<AppState>,
    IdPath(id): IdPath<TeamId>,
) -> Result<Json<Team>, ApiError> {
    let Some(t) = team::Entity::find_by_id(id).one(&state.db).await? else {
        return Err(ApiError::unknown("team", "id", id));
    };
    let players = player::Entity::find()
        .filter(player::Column::TeamId.eq(id))
        .order_by_asc(player::Column::Id)
        .all(&state.db)
        .await?;
    Ok(Json(Team {
        id: t.id,
        name: t.name,
        captain_id: t.captain_id,
        players: players.into_iter().map(Player::from).collect(),
    }))
}

/// A player.
#[utoipa::path(
    get,
    path = "/players/{id}",
    params(("id" = PlayerId, Path, description = "The player's ID")),
    responses(
        (status = 200, description = "The player", body = Player),
        (status = 400, description = "Not a player ID", body = ErrorBody),
        (status = 404, description = "No such player", body = ErrorBody),
    )
)]
async fn get_player(
    State(state): State<AppState>,
    IdPath(id): IdPath<PlayerId>,
) -> Result<Json<Player>, ApiError> {
    match player::Entity::find_by_id(id).one(&state.db).await? {
        Some(p) => Ok(Json(p.into())),
        None => Err(ApiError::unknown("player", "id", id)),
    }
}

/// `after` and `limit` of `GET /teams`, each refused with its name and value.
fn page_params(query: Option<&str>) -> Result<(Option<TeamId>, u64), ApiError> {
    let mut after = None;
    let mut limit = DEFAULT_PAGE;
    let mut seen = Vec::new();
    for (key, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let bad = |error: String| {
            ApiError::field(StatusCode::BAD_REQUEST, error, key.clone(), value.as_ref())
        };
        if seen.contains(&key) {
            return Err(bad(format!("{key} is given twice")));
        }
        match key.as_ref() {
            "after" => after = Some(value.parse::<TeamId>().map_err(|e| bad(e.to_string()))?),
            "limit" => {
                limit = canonical_number(&value)
                    .filter(|n| (1..=MAX_PAGE).contains(n))
                    .ok_or_else(|| {
                        bad(format!(
                            "limit must be a whole number 1..={MAX_PAGE} in decimal digits (no \
                             sign, no leading zero)"
                        ))
                    })?;
            }
            _ => return Err(bad(format!("unknown query parameter {key}"))),
        }
        seen.push(key.clone());
    }
    Ok((after, limit))
}

/// `text` as a number if it is one the way IDs are written: decimal digits
/// only (no sign, no whitespace), no leading zero.
fn canonical_number(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let leading_zero = text.len() > 1 && text.starts_with('0');
    if digits && !leading_zero {
        text.parse().ok()
    } else {
        None
    }
}

/// Teams in ID order, `limit` at a time: keyset pagination by ID. IDs grow
/// with the time they were issued, so this is also creation order (to the
/// millisecond; across replicas, as far as their clocks agree), and a page
/// costs one index range scan however deep it is.
#[utoipa::path(
    get,
    path = "/teams",
    params(
        ("after" = Option<TeamId>, Query, description = "Only teams with larger IDs: the previous page's `next`"),
        ("limit" = Option<u64>, Query, minimum = 1, maximum = 100, description = "Teams per page (default 20)"),
    ),
    responses(
        (status = 200, description = "A page of teams", body = TeamPage),
        (status = 400, description = "A bad query parameter", body = ErrorBody),
    )
)]
async fn list_teams(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Json<TeamPage>, ApiError> {
    let (after, limit) = page_params(query.as_deref())?;
    let mut select = team::Entity::find().order_by_asc(team::Column::Id);
    if let Some(after) = after {
        select = select.filter(team::Column::Id.gt(after));
    }
    // One row more than asked tells whether there is a next page.
    let mut rows = select.limit(limit + 1).all(&state.db).await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next = if more {
        rows.last().map(|t| t.id)
    } else {
        None
    };
    Ok(Json(TeamPage {
        teams: rows
            .into_iter()
            .map(|t| TeamSummary {
                id: t.id,
                name: t.name,
                captain_id: t.captain_id,
            })
            .collect(),
        next,
    }))
}

/// Readiness: 200 while the node lease lets the generator issue IDs, 503
/// otherwise (fenced, moving to another node, released).
#[utoipa::path(
    get,
    path = "/health",
    responses(
        (status = 200, description = "Issuing IDs", body = Health),
        (status = 503, description = "Not issuing IDs", body = Health),
    )
)]
async fn health(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    let status = state.lease_state.borrow().clone();
    let node = match status {
        LeaseStatus::Held { node, .. }
        | LeaseStatus::RenewingLate { node, .. }
        | LeaseStatus::Fenced { node, .. } => Some(node),
        LeaseStatus::Moving { from_node, .. } => Some(from_node),
        _ => None,
    };
    let health = Health {
        lease: status.to_string(),
        space: if node.is_some() {
            state.space.to_string()
        } else {
            String::new()
        },
        node,
        issuing: status.is_issuing(),
    };
    let code = if health.issuing {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(health))
}

/// The page that lists and creates teams through the API.
async fn index() -> Html<&'static str> {
    Html(include_str!("../static/index.html"))
}

/// Browsers ask for `/favicon.ico` by themselves: no icon, and no error.
async fn no_icon() -> StatusCode {
    StatusCode::NO_CONTENT
}

async fn no_route(method: Method, uri: Uri) -> ApiError {
    ApiError::field(
        StatusCode::NOT_FOUND,
        format!("no route for {method} {}", uri.path()),
        "path",
        uri.path(),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::field(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{} does not take {method}", uri.path()),
        "method",
        method.as_str(),
    )
}

/// One log event per request: debug for answers and for `/health` (a
/// probe's 503 is the lease's state, which the lease's own events report),
/// warn for client errors and for 503 (no IDs now: a state that passes),
/// error for the other server errors (a failure to look into).
async fn log_request(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let response = next.run(req).await;
    let status = response.status().as_u16();
    let micros = started.elapsed().as_micros();
    match status {
        _ if path == "/health" => tracing::debug!(%method, %path, status, micros, "request"),
        503 => tracing::warn!(%method, %path, status, micros, "request"),
        500.. => tracing::error!(%method, %path, status, micros, "request"),
        400..=499 => tracing::warn!(%method, %path, status, micros, "request"),
        _ => tracing::debug!(%method, %path, status, micros, "request"),
    }
    response
}

/// The OpenAPI document's header; the paths come from the routes.
#[derive(OpenApi)]
#[openapi(info(
    title = "flakeid-service",
    description = "Teams and players with flake ID keys. IDs are decimal strings: \
                   JavaScript numbers lose integers above 2^53."
))]
struct ApiDoc;
