//! The SQL a command writes: printed, or as `up.sql` and `down.sql` files.

use flakeid_sql::Dialect;

use crate::args::CliError;

/// Writes the up (or, with `down`, the down) statements to `stdout` as a script for
/// the database's client, after the comment lines `header`; with `out`,
/// writes both into a migration directory instead (`up.sql`, `down.sql`:
/// one batch each, as Diesel's migrations and SeaORM's `execute_unprepared`
/// run them).
pub(crate) fn output(
    dialect: Dialect,
    header: &[String],
    up: &[String],
    down: &[String],
    print_down: bool,
    out: Option<&std::path::Path>,
    stdout: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    let comments: String = header.iter().map(|l| format!("-- {l}\n")).collect();
    let Some(dir) = out else {
        let statements = if print_down { down } else { up };
        return write!(stdout, "{comments}{}", dialect.script(statements))
            .map_err(CliError::output);
    };
    let write = |name: &str, statements: &[String]| {
        let path = dir.join(name);
        std::fs::write(&path, format!("{comments}{}", dialect.batch(statements)))
            .map_err(|e| CliError::failed(format!("cannot write {}: {e}", path.display())))?;
        eprintln!("wrote {}", path.display());
        Ok::<(), CliError>(())
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::failed(format!("cannot create {}: {e}", dir.display())))?;
    write("up.sql", up)?;
    write("down.sql", down)
}
