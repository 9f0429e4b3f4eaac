//! The `flakeid-service` binary as OS processes, against SQLite in a temp
//! dir and PostgreSQL and MariaDB in containers (`flakeid_tests::db`), with
//! what the database stored read back with plain SQL.
//!
//! ```text
//! ./scripts/test.sh --workspace --test service
//! ```

// Items shared between this binary's modules are `pub`.
#![allow(unreachable_pub)]

mod browser;
mod checks;
mod documents;
mod limits;
mod replicas;
mod startup;
mod support;

/// A database for one test, and whatever keeps it alive.
pub struct Db {
    pub url: String,
    _keep: Box<dyn std::any::Any>,
}

/// A SQLite file in a fresh temp dir.
pub fn sqlite() -> Db {
    let dir = tempfile::tempdir().expect("a temp dir");
    Db {
        url: format!("sqlite://{}/service.db?mode=rwc", dir.path().display()),
        _keep: Box::new(dir),
    }
}

/// A fresh PostgreSQL database (a container started on first use; fails
/// loudly without a container engine or `FLAKEID_TEST_POSTGRES_URL`).
pub fn postgres() -> Db {
    let db = flakeid_tests::db::postgres_blocking();
    Db {
        url: db.url().to_owned(),
        _keep: Box::new(db),
    }
}

/// A fresh MySQL/MariaDB database (as [`postgres`]).
pub fn mysql() -> Db {
    let db = flakeid_tests::db::mysql_blocking();
    Db {
        url: db.url().to_owned(),
        _keep: Box::new(db),
    }
}

/// Each check (a function of `checks` or `startup`) as a test on each
/// database.
macro_rules! on_each_database {
    ($($module:ident::$check:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $check() { crate::$module::$check(crate::sqlite()) })*
        }
        mod postgres {
            $(#[test] fn $check() { crate::$module::$check(crate::postgres()) })*
        }
        mod mysql {
            $(#[test] fn $check() { crate::$module::$check(crate::mysql()) })*
        }
    };
}

on_each_database!(
    startup::port_in_use_stops_before_claiming_a_node,
    checks::team_with_players_and_captain,
    checks::bulk_players,
    checks::pagination_returns_every_team_once_in_id_order,
    checks::bad_input_gets_a_4xx_naming_field_and_value,
    checks::health_reports_the_held_lease,
    checks::sigterm_releases_the_lease,
    checks::id_above_2_pow_53_round_trips_as_a_string,
    checks::metrics_count_issued_ids_and_renewals,
);
