// Tests run with diesel-async on PostgreSQL and MySQL/MariaDB. Included into
// one module per backend, which provides `BACKEND`, `Conn` and `connect()`.

#[tokio::test]
async fn async_primary_key_is_stored_as_assigned_and_found() {
    let (_db, mut conn) = connect().await;
    let user = User {
        id: fresh_id(),
        name: "alice".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(&mut conn)
        .await
        .expect("insert");

    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
        .load(&mut conn)
        .await
        .expect("plain select");
    assert_eq!(stored, vec![Raw { v: user.id.into() }]);
    let found = users::table
        .find(user.id)
        .select(User::as_select())
        .first(&mut conn)
        .await
        .expect("find by id");
    assert_eq!(found, user);
}

#[tokio::test]
async fn async_foreign_key_and_nullable_foreign_key_round_trip() {
    let (_db, mut conn) = connect().await;
    let author = User {
        id: fresh_id(),
        name: "author".to_owned(),
    };
    let reviewer = User {
        id: fresh_id(),
        name: "reviewer".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&vec![author.clone(), reviewer.clone()])
        .execute(&mut conn)
        .await
        .expect("insert users");
    let reviewed = Post {
        id: fresh_id(),
        user_id: author.id,
        reviewer_id: Some(reviewer.id),
        title: "reviewed".to_owned(),
    };
    let draft = Post {
        id: fresh_id(),
        user_id: author.id,
        reviewer_id: None,
        title: "draft".to_owned(),
    };
    diesel::insert_into(posts::table)
        .values(&vec![reviewed.clone(), draft.clone()])
        .execute(&mut conn)
        .await
        .expect("insert posts");

    let stored: Vec<RawPair> =
        diesel::sql_query("SELECT user_id AS a, reviewer_id AS b FROM posts ORDER BY title")
            .load(&mut conn)
            .await
            .expect("plain select");
    assert_eq!(
        stored,
        vec![
            RawPair {
                a: author.id.into(),
                b: None
            },
            RawPair {
                a: author.id.into(),
                b: Some(reviewer.id.into())
            },
        ]
    );
    let loaded: Vec<Post> = posts::table
        .order(posts::title)
        .select(Post::as_select())
        .load(&mut conn)
        .await
        .expect("load posts");
    assert_eq!(loaded, vec![draft, reviewed]);
}

#[tokio::test]
async fn async_belonging_to_grouped_by_join_and_eq_any() {
    let (_db, mut conn) = connect().await;
    let ann = User {
        id: fresh_id(),
        name: "ann".to_owned(),
    };
    let ben = User {
        id: fresh_id(),
        name: "ben".to_owned(),
    };
    let users = vec![ann.clone(), ben.clone()];
    diesel::insert_into(users::table)
        .values(&users)
        .execute(&mut conn)
        .await
        .expect("insert users");
    let posts = vec![
        Post {
            id: fresh_id(),
            user_id: ann.id,
            reviewer_id: None,
            title: "a1".to_owned(),
        },
        Post {
            id: fresh_id(),
            user_id: ben.id,
            reviewer_id: Some(ann.id),
            title: "b1".to_owned(),
        },
        Post {
            id: fresh_id(),
            user_id: ann.id,
            reviewer_id: None,
            title: "a2".to_owned(),
        },
    ];
    diesel::insert_into(posts::table)
        .values(&posts)
        .execute(&mut conn)
        .await
        .expect("insert posts");

    let loaded: Vec<Post> = Post::belonging_to(&users)
        .order(posts::title)
        .select(Post::as_select())
        .load(&mut conn)
        .await
        .expect("belonging_to");
    let titles: Vec<Vec<String>> = loaded
        .grouped_by(&users)
        .into_iter()
        .map(|posts| posts.into_iter().map(|p| p.title).collect())
        .collect();
    assert_eq!(
        titles,
        vec![
            vec!["a1".to_owned(), "a2".to_owned()],
            vec!["b1".to_owned()]
        ]
    );
    let joined: Vec<(String, String)> = users::table
        .inner_join(posts::table)
        .filter(posts::id.eq_any(vec![posts[1].id, posts[2].id]))
        .order(posts::title)
        .select((users::name, posts::title))
        .load(&mut conn)
        .await
        .expect("join with eq_any");
    assert_eq!(
        joined,
        vec![
            ("ann".to_owned(), "a2".to_owned()),
            ("ben".to_owned(), "b1".to_owned()),
        ]
    );
}

#[tokio::test]
async fn async_as_changeset_updates_the_row_with_that_id() {
    let (_db, mut conn) = connect().await;
    let mut kept = User {
        id: fresh_id(),
        name: "kept".to_owned(),
    };
    let other = User {
        id: fresh_id(),
        name: "other".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&vec![kept.clone(), other.clone()])
        .execute(&mut conn)
        .await
        .expect("insert");
    kept.name = "renamed".to_owned();
    let updated = diesel::update(&kept)
        .set(&kept)
        .execute(&mut conn)
        .await
        .expect("update by identifiable");
    assert_eq!(updated, 1);

    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users WHERE name = 'renamed'")
        .load(&mut conn)
        .await
        .expect("plain select");
    assert_eq!(stored, vec![Raw { v: kept.id.into() }]);
}

#[tokio::test]
async fn async_zero_id_in_database_is_a_deserialization_error_naming_it() {
    let (_db, mut conn) = connect().await;
    diesel::sql_query("INSERT INTO users (id, name) VALUES (0, 'zero')")
        .execute(&mut conn)
        .await
        .expect("plain insert");
    let err = users::table
        .select(User::as_select())
        .load(&mut conn)
        .await
        .expect_err("0 is not an ID");
    assert_invalid_id_error(err, "0");
}

#[tokio::test]
async fn async_department_employee_cycle_is_written_in_one_transaction() {
    let (_db, mut conn) = connect().await;
    let department = DepartmentId::generate().expect("a fresh ID");
    let head = Employee {
        id: fresh_id(),
        department_id: department,
        name: "head".to_owned(),
    };
    let member = Employee {
        id: fresh_id(),
        department_id: department,
        name: "member".to_owned(),
    };
    let staff = vec![head.clone(), member.clone()];
    conn.transaction::<(), diesel::result::Error, _>(async |conn| {
        // PostgreSQL checks the deferred keys at COMMIT; MySQL per statement,
        // so there the head is set once the employee exists.
        let head_id = match BACKEND {
            Backend::Postgres | Backend::Sqlite => Some(head.id),
            Backend::Mysql => None,
        };
        diesel::insert_into(departments::table)
            .values(&Department {
                id: department,
                name: "research".to_owned(),
                head_id,
            })
            .execute(conn)
            .await?;
        diesel::insert_into(employees::table)
            .values(&staff)
            .execute(conn)
            .await?;
        if head_id.is_none() {
            diesel::update(departments::table.find(department))
                .set(departments::head_id.eq(head.id))
                .execute(conn)
                .await?;
        }
        Ok(())
    })
    .await
    .expect("the cycle commits");

    let heads: Vec<RawPair> = diesel::sql_query("SELECT id AS a, head_id AS b FROM departments")
        .load(&mut conn)
        .await
        .expect("plain select departments");
    assert_eq!(
        heads,
        vec![RawPair {
            a: department.into(),
            b: Some(head.id.into())
        }]
    );
    let members: Vec<Raw> =
        diesel::sql_query("SELECT department_id AS v FROM employees ORDER BY id")
            .load(&mut conn)
            .await
            .expect("plain select employees");
    assert_eq!(
        members,
        vec![
            Raw {
                v: department.into()
            },
            Raw {
                v: department.into()
            }
        ]
    );
}

#[tokio::test]
async fn async_bulk_insert_of_10000_rows_with_batch_ids_then_children() {
    let (_db, mut conn) = connect().await;
    let parent_ids = batch::<ParentId>(BULK_ROWS);
    let parents: Vec<Parent> = parent_ids
        .iter()
        .zip(0..)
        .map(|(&id, n)| Parent { id, n })
        .collect();
    let children: Vec<Child> = batch::<ChildId>(BULK_ROWS)
        .into_iter()
        .zip(&parent_ids)
        .map(|(id, &parent_id)| Child { id, parent_id })
        .collect();

    let started = std::time::Instant::now();
    conn.transaction::<(), diesel::result::Error, _>(async |conn| {
        diesel::insert_into(parents::table)
            .values(&parents)
            .execute(conn)
            .await?;
        diesel::insert_into(children::table)
            .values(&children)
            .execute(conn)
            .await?;
        Ok(())
    })
    .await
    .expect("bulk insert");
    eprintln!(
        "{BACKEND:?} (async): {BULK_ROWS} parents + {BULK_ROWS} children, two statements, in {:?}",
        started.elapsed()
    );

    let joined: Vec<Raw> = diesel::sql_query(
        "SELECT COUNT(DISTINCT c.id) AS v FROM children c JOIN parents p ON p.id = c.parent_id",
    )
    .load(&mut conn)
    .await
    .expect("plain count");
    assert_eq!(joined, vec![Raw { v: 10_000 }]);
    let last: Vec<Raw> = diesel::sql_query("SELECT MAX(parent_id) AS v FROM children")
        .load(&mut conn)
        .await
        .expect("plain max");
    assert_eq!(
        last,
        vec![Raw {
            v: parent_ids[BULK_ROWS - 1].into()
        }]
    );
}

#[tokio::test]
async fn async_borrowing_insertable_stores_the_generated_id() {
    let (_db, mut conn) = connect().await;
    let bob = NewUser {
        id: fresh_id(),
        name: "bob",
    };
    let bob_id = bob.id;
    diesel::insert_into(users::table)
        .values(&bob)
        .execute(&mut conn)
        .await
        .expect("insert");

    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users WHERE name = 'bob'")
        .load(&mut conn)
        .await
        .expect("plain select");
    assert_eq!(stored, vec![Raw { v: bob_id.into() }]);
}

#[tokio::test]
async fn async_negative_id_in_database_is_a_deserialization_error_naming_it() {
    let (_db, mut conn) = connect().await;
    diesel::sql_query("INSERT INTO users (id, name) VALUES (-42, 'negative')")
        .execute(&mut conn)
        .await
        .expect("plain insert");
    let err = users::table
        .select(users::id)
        .load::<UserId>(&mut conn)
        .await
        .expect_err("-42 is not an ID");
    assert_invalid_id_error(err, "-42");
}

#[tokio::test]
async fn async_id_beyond_the_layout_is_a_deserialization_error_naming_it() {
    let (_db, mut conn) = connect().await;
    diesel::sql_query("INSERT INTO users (id, name) VALUES (9007199254740992, 'big')")
        .execute(&mut conn)
        .await
        .expect("plain insert");
    let err = users::table
        .select(users::id)
        .load::<SmallId>(&mut conn)
        .await
        .expect_err("2^53 is beyond the layout");
    assert_invalid_id_error(err, "9007199254740992");
}

#[tokio::test]
async fn async_invalid_nullable_foreign_key_is_a_deserialization_error() {
    let (_db, mut conn) = connect().await;
    let user = User {
        id: fresh_id(),
        name: "u".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(&mut conn)
        .await
        .expect("insert");
    // The referenced row exists, so only the ID check can reject -7.
    diesel::sql_query("INSERT INTO users (id, name) VALUES (-7, 'bad')")
        .execute(&mut conn)
        .await
        .expect("plain insert user");
    diesel::sql_query(format!(
        "INSERT INTO posts (id, user_id, reviewer_id, title) VALUES (1, {}, -7, 't')",
        i64::from(user.id)
    ))
    .execute(&mut conn)
    .await
    .expect("plain insert post");
    let err = posts::table
        .select(posts::reviewer_id)
        .load::<Option<UserId>>(&mut conn)
        .await
        .expect_err("-7 is not an ID");
    assert_invalid_id_error(err, "-7");
}

/// Keys stored by other means that are not IDs (0, negative, beyond the
/// layout) fail the read with an error in which `find_id_error` finds the
/// `IdError` naming the type and the value.
#[tokio::test]
async fn async_stored_keys_that_are_not_ids_are_found_by_find_id_error() {
    let (_db, mut conn) = connect().await;
    for (stored, read_as, expected) in stored_keys_that_are_not_ids() {
        diesel::sql_query(format!(
            "INSERT INTO users (id, name) VALUES ({stored}, 'not an ID')"
        ))
        .execute(&mut conn)
        .await
        .expect("plain insert");
        let in_table: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
            .load(&mut conn)
            .await
            .expect("plain select");
        assert_eq!(
            in_table,
            vec![Raw { v: stored }],
            "the database keeps {stored}"
        );

        let reads = match read_as {
            ReadAs::UserRow => [
                users::table
                    .select(User::as_select())
                    .load(&mut conn)
                    .await
                    .map(drop),
                diesel::sql_query("SELECT id FROM users")
                    .load::<UserKey>(&mut conn)
                    .await
                    .map(drop),
            ],
            ReadAs::SmallId => [
                users::table
                    .select(users::id)
                    .load::<SmallId>(&mut conn)
                    .await
                    .map(drop),
                diesel::sql_query("SELECT id FROM users")
                    .load::<SmallKey>(&mut conn)
                    .await
                    .map(drop),
            ],
        };
        for read in reads {
            let err = read.expect_err("a key that is not an ID is not read as one");
            assert_found_id_error(&err, stored, &expected);
        }

        diesel::sql_query("DELETE FROM users")
            .execute(&mut conn)
            .await
            .expect("plain delete");
    }
}
