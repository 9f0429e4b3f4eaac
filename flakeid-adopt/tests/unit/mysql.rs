//! Unit tests of `src/mysql.rs` (private items; included with `#[path]` as
//! its `tests` module).

use super::*;

#[test]
fn modify_states_the_whole_definition_again() {
    let attributes = ColumnAttributes {
        nullable: true,
        default: Some("0".into()),
        comment: Some("author's key".into()),
    };
    assert_eq!(
        definition(&widened("int(10) unsigned"), &attributes, false),
        "BIGINT UNSIGNED NULL DEFAULT 0 COMMENT 'author''s key'"
    );
    assert_eq!(
        definition("int(11)", &ColumnAttributes::default(), true),
        "int(11) NOT NULL"
    );
    assert!(narrowing("`t`", "`c`", "bigint(20)").is_empty());
    assert!(narrowing("`t`", "`c`", "int(10) unsigned").contains("> 4294967295"));
}

#[test]
fn a_foreign_key_is_stated_again_with_its_actions() {
    let mut r = Reference {
        schema: None,
        table: "posts".into(),
        column: "user_id".into(),
        column_type: "int(11)".into(),
        constraint: Some("posts_ibfk_1".into()),
        on_delete: Some("CASCADE".into()),
        on_update: Some("RESTRICT".into()),
        referenced_schema: Some("app".into()),
        attributes: ColumnAttributes::default(),
    };
    assert_eq!(
        foreign_key(&r, "`user_id`", "`users`", "`id`").unwrap(),
        "FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE ON UPDATE RESTRICT"
    );
    // From another database, the key table is named with its own.
    r.schema = Some("archive".into());
    assert_eq!(
        foreign_key(&r, "`user_id`", "`users`", "`id`").unwrap(),
        "FOREIGN KEY (`user_id`) REFERENCES `app`.`users` (`id`) ON DELETE CASCADE ON UPDATE \
         RESTRICT"
    );
}
