//! The `CHECK (<column> > 0)` that `#[flake_id]` adds to a SeaORM key.
//!
//! SeaORM writes a column's `extra` text verbatim into `CREATE TABLE` on
//! every backend, and the macro cannot know the backend, so the check must
//! read the same on PostgreSQL, MySQL/MariaDB and SQLite. No quoting does:
//! `"name"` is a string literal to MySQL (outside `ANSI_QUOTES` mode) and
//! `` `name` `` an error to PostgreSQL. The column name therefore goes in
//! unquoted, which names the same column everywhere only when it is
//! lowercase ASCII letters, digits and `_`, starts with a letter or `_`
//! (PostgreSQL folds unquoted names to lowercase, while SeaORM quotes the
//! column in `CREATE TABLE`, keeping its case) and is not a reserved word
//! of any of the three. Other names are a compile error that says how to
//! write the check by hand.

use heck::{
    ToKebabCase, ToLowerCamelCase, ToShoutySnakeCase, ToSnakeCase, ToTitleCase, ToUpperCamelCase,
};

/// `CHECK (<column> > 0)`, or why `column` cannot be written unquoted.
pub(super) fn check_clause(column: &str) -> Result<String, &'static str> {
    let mut chars = column.chars();
    let plain_start = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    let plain_rest = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !(plain_start && plain_rest) {
        return Err(
            "is not made of lowercase ASCII letters, digits and `_` starting with a letter or \
             `_`, so it needs quoting, which differs between PostgreSQL and MySQL",
        );
    }
    if RESERVED.binary_search(&column).is_ok() {
        return Err("is a reserved word in PostgreSQL, MySQL/MariaDB or SQLite");
    }
    Ok(format!("CHECK ({column} > 0)"))
}

/// The key's column name as `DeriveEntityModel` derives it from the field
/// when no `column_name` is given: the struct's `rename_all` style applied
/// to the field name in UpperCamelCase, else the field name in snake_case.
/// `Ok(None)` for a style SeaORM does not know (its derive reports it).
pub(super) fn default_column_name(
    field: &syn::Field,
    rename_all: Option<&syn::LitStr>,
) -> syn::Result<Option<String>> {
    let Some(ident) = &field.ident else {
        return Ok(None);
    };
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let Some(style) = rename_all else {
        return Ok(Some(
            if name == name.to_upper_camel_case().to_snake_case() {
                name.to_owned()
            } else {
                name.to_snake_case()
            },
        ));
    };
    let pascal = name.to_upper_camel_case();
    // The styles and spellings of sea-orm-macros' `CaseStyle`.
    let converted = match style.value().as_str() {
        "camel_case" | "PascalCase" => pascal.to_upper_camel_case(),
        "camelCase" => {
            let mut chars = pascal.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_lowercase().chain(chars).collect()
            })
        }
        "snake_case" | "snek_case" => pascal.to_snake_case(),
        "kebab_case" | "kebab-case" => pascal.to_kebab_case(),
        "SCREAMING-KEBAB-CASE" => pascal.to_kebab_case().to_uppercase(),
        "shouty_snake_case" | "shouty_snek_case" | "SCREAMING_SNAKE_CASE" => {
            pascal.to_shouty_snake_case()
        }
        "title_case" => pascal.to_title_case(),
        "mixed_case" => pascal.to_lower_camel_case(),
        "lowercase" => pascal.to_lowercase(),
        "UPPERCASE" => pascal.to_uppercase(),
        _ => return Ok(None),
    };
    Ok(Some(converted))
}

/// Words that cannot stand unquoted for the column in `CHECK (<name> > 0)`
/// on some database: found by creating `(<quoted name> BIGINT NOT NULL
/// PRIMARY KEY CHECK (<name> > 0))` for every keyword of PostgreSQL 15,
/// MariaDB 10.11 and SQLite 3 and keeping the words where that failed, or
/// where the check did not read the column (`null`, `true`,
/// `current_date`, … are values there, and let 0 in), plus MySQL 8.4's
/// reserved words. Sorted, for `binary_search`.
const RESERVED: &[&str] = &[
    "_filename",
    "accessible",
    "add",
    "all",
    "alter",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asensitive",
    "asymmetric",
    "authorization",
    "autoincrement",
    "before",
    "between",
    "bigint",
    "binary",
    "blob",
    "both",
    "by",
    "call",
    "cascade",
    "case",
    "cast",
    "change",
    "char",
    "character",
    "check",
    "collate",
    "collation",
    "column",
    "commit",
    "concurrently",
    "condition",
    "constraint",
    "continue",
    "convert",
    "create",
    "cross",
    "cube",
    "cume_dist",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "cursor",
    "database",
    "databases",
    "day_hour",
    "day_microsecond",
    "day_minute",
    "day_second",
    "dec",
    "decimal",
    "declare",
    "default",
    "deferrable",
    "delayed",
    "delete",
    "delete_domain_id",
    "dense_rank",
    "desc",
    "describe",
    "deterministic",
    "distinct",
    "distinctrow",
    "div",
    "do",
    "do_domain_ids",
    "double",
    "drop",
    "dual",
    "each",
    "else",
    "elseif",
    "empty",
    "enclosed",
    "end",
    "escape",
    "escaped",
    "except",
    "exists",
    "exit",
    "explain",
    "false",
    "fetch",
    "first_value",
    "float",
    "float4",
    "float8",
    "for",
    "force",
    "foreign",
    "freeze",
    "from",
    "full",
    "fulltext",
    "function",
    "generated",
    "get",
    "grant",
    "group",
    "grouping",
    "groups",
    "having",
    "high_priority",
    "hour_microsecond",
    "hour_minute",
    "hour_second",
    "if",
    "ignore",
    "ignore_domain_ids",
    "ilike",
    "in",
    "index",
    "infile",
    "initially",
    "inner",
    "inout",
    "insensitive",
    "insert",
    "int",
    "int1",
    "int2",
    "int3",
    "int4",
    "int8",
    "integer",
    "intersect",
    "interval",
    "into",
    "io_after_gtids",
    "io_before_gtids",
    "is",
    "isnull",
    "iterate",
    "join",
    "json_table",
    "key",
    "keys",
    "kill",
    "lag",
    "last_value",
    "lateral",
    "lead",
    "leading",
    "leave",
    "left",
    "like",
    "limit",
    "linear",
    "lines",
    "load",
    "localtime",
    "localtimestamp",
    "lock",
    "long",
    "longblob",
    "longtext",
    "loop",
    "low_priority",
    "manual",
    "master_bind",
    "master_demote_to_replica",
    "master_demote_to_slave",
    "master_ssl_verify_server_cert",
    "match",
    "maxvalue",
    "mediumblob",
    "mediumint",
    "mediumtext",
    "middleint",
    "minute_microsecond",
    "minute_second",
    "mod",
    "modifies",
    "natural",
    "no_write_to_binlog",
    "not",
    "nothing",
    "notnull",
    "nth_value",
    "ntile",
    "null",
    "numeric",
    "of",
    "offset",
    "on",
    "only",
    "optimize",
    "optimizer_costs",
    "option",
    "optionally",
    "or",
    "order",
    "out",
    "outer",
    "outfile",
    "over",
    "overlaps",
    "page_checksum",
    "parallel",
    "parse_vcol_expr",
    "partition",
    "percent_rank",
    "placing",
    "portion",
    "precision",
    "primary",
    "procedure",
    "purge",
    "qualify",
    "raise",
    "range",
    "rank",
    "read",
    "read_write",
    "reads",
    "real",
    "recursive",
    "ref_system_id",
    "references",
    "regexp",
    "release",
    "rename",
    "repeat",
    "replace",
    "require",
    "resignal",
    "restrict",
    "return",
    "returning",
    "revoke",
    "right",
    "rlike",
    "row",
    "row_number",
    "rows",
    "schema",
    "schemas",
    "second_microsecond",
    "select",
    "sensitive",
    "separator",
    "session_user",
    "set",
    "show",
    "signal",
    "similar",
    "smallint",
    "some",
    "spatial",
    "specific",
    "sql",
    "sql_big_result",
    "sql_calc_found_rows",
    "sql_small_result",
    "sqlexception",
    "sqlstate",
    "sqlwarning",
    "ssl",
    "starting",
    "stats_auto_recalc",
    "stats_persistent",
    "stats_sample_pages",
    "stored",
    "straight_join",
    "symmetric",
    "system",
    "table",
    "tablesample",
    "terminated",
    "then",
    "tinyblob",
    "tinyint",
    "tinytext",
    "to",
    "trailing",
    "transaction",
    "trigger",
    "true",
    "undo",
    "union",
    "unique",
    "unlock",
    "unsigned",
    "update",
    "usage",
    "use",
    "user",
    "using",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "values",
    "varbinary",
    "varchar",
    "varcharacter",
    "variadic",
    "varying",
    "verbose",
    "virtual",
    "when",
    "where",
    "while",
    "window",
    "with",
    "write",
    "xor",
    "year_month",
    "zerofill",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str) -> syn::Field {
        let ident = syn::Ident::new_raw(name, proc_macro2::Span::call_site());
        syn::parse_quote!(#ident: UserId)
    }

    fn named(name: &str, style: Option<&str>) -> Option<String> {
        let style = style.map(|s| syn::LitStr::new(s, proc_macro2::Span::call_site()));
        default_column_name(&field(name), style.as_ref()).expect("parses")
    }

    #[test]
    fn reserved_words_are_sorted_for_binary_search() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn plain_names_are_written_unquoted() {
        assert_eq!(check_clause("id").as_deref(), Ok("CHECK (id > 0)"));
        assert_eq!(
            check_clause("user_id2").as_deref(),
            Ok("CHECK (user_id2 > 0)")
        );
        assert_eq!(check_clause("_k").as_deref(), Ok("CHECK (_k > 0)"));
    }

    #[test]
    fn names_needing_quotes_or_reserved_are_refused() {
        for name in ["Id", "userId", "ID", "2id", "user-id", "id x", "", "clé"] {
            assert!(check_clause(name).is_err(), "{name:?}");
        }
        // Including words that would not fail but read as a value and let 0 in.
        for name in [
            "order",
            "select",
            "key",
            "user",
            "check",
            "null",
            "true",
            "current_date",
            "rank",
        ] {
            assert!(
                check_clause(name).is_err_and(|reason| reason.contains("reserved")),
                "{name:?}"
            );
        }
    }

    #[test]
    fn column_names_follow_sea_orm() {
        assert_eq!(named("id", None).as_deref(), Some("id"));
        assert_eq!(named("type", None).as_deref(), Some("type"));
        assert_eq!(named("userId", None).as_deref(), Some("user_id"));
        assert_eq!(named("id", Some("camelCase")).as_deref(), Some("id"));
        assert_eq!(
            named("user_id", Some("camelCase")).as_deref(),
            Some("userId")
        );
        assert_eq!(named("id", Some("PascalCase")).as_deref(), Some("Id"));
        assert_eq!(
            named("user_id", Some("SCREAMING_SNAKE_CASE")).as_deref(),
            Some("USER_ID")
        );
        assert_eq!(
            named("user_id", Some("kebab-case")).as_deref(),
            Some("user-id")
        );
        assert_eq!(named("id", Some("no such style")), None);
    }
}
