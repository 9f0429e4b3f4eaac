// Tests run on every backend with sync Diesel. Included into one module per
// backend, which provides `BACKEND`, `Conn` and `connect()`.

#[test]
fn primary_key_is_stored_as_assigned_and_found() {
    let (_db, mut conn) = connect();
    let user = User {
        id: fresh_id(),
        name: "alice".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(&mut conn)
        .expect("insert");

    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
        .load(&mut conn)
        .expect("plain select");
    assert_eq!(
        stored,
        vec![Raw {
            v: i64::from(user.id)
        }]
    );
    let found = users::table
        .find(user.id)
        .select(User::as_select())
        .first(&mut conn)
        .expect("find by id");
    assert_eq!(found, user);
}

#[test]
fn borrowing_insertable_stores_the_generated_ids() {
    let (_db, mut conn) = connect();
    let bob = NewUser {
        id: fresh_id(),
        name: "bob",
    };
    let carol = NewUser {
        id: UserId::generate().expect("an ID is issued"),
        name: "carol",
    };
    let (bob_id, carol_id) = (bob.id, carol.id);
    assert!(bob_id < carol_id, "IDs increase: {bob_id} then {carol_id}");
    diesel::insert_into(users::table)
        .values(&vec![bob, carol])
        .execute(&mut conn)
        .expect("insert");

    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users ORDER BY name")
        .load(&mut conn)
        .expect("plain select");
    let expected: Vec<Raw> = [bob_id, carol_id]
        .into_iter()
        .map(|id| Raw { v: id.into() })
        .collect();
    assert_eq!(stored, expected);
}

#[test]
fn foreign_key_and_nullable_foreign_key_round_trip() {
    let (_db, mut conn) = connect();
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
        .expect("insert posts");

    let stored: Vec<RawPair> =
        diesel::sql_query("SELECT user_id AS a, reviewer_id AS b FROM posts ORDER BY title")
            .load(&mut conn)
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
        .expect("load posts");
    assert_eq!(loaded, vec![draft, reviewed.clone()]);
    let by_reviewer: Vec<PostId> = posts::table
        .filter(posts::reviewer_id.eq(reviewer.id))
        .select(posts::id)
        .load(&mut conn)
        .expect("filter on nullable foreign key");
    assert_eq!(by_reviewer, vec![reviewed.id]);
}

#[test]
fn belonging_to_and_grouped_by_match_children_to_parents() {
    let (_db, mut conn) = connect();
    let ann = User {
        id: fresh_id(),
        name: "ann".to_owned(),
    };
    let ben = User {
        id: fresh_id(),
        name: "ben".to_owned(),
    };
    let nobody = User {
        id: fresh_id(),
        name: "nobody".to_owned(),
    };
    let users = vec![ann.clone(), ben.clone(), nobody.clone()];
    diesel::insert_into(users::table)
        .values(&users)
        .execute(&mut conn)
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
        .expect("insert posts");

    let loaded: Vec<Post> = Post::belonging_to(&users)
        .order(posts::title)
        .select(Post::as_select())
        .load(&mut conn)
        .expect("belonging_to");
    let grouped: Vec<(String, Vec<String>)> = loaded
        .grouped_by(&users)
        .into_iter()
        .zip(&users)
        .map(|(posts, user)| {
            (
                user.name.clone(),
                posts.into_iter().map(|p| p.title).collect(),
            )
        })
        .collect();
    assert_eq!(
        grouped,
        vec![
            ("ann".to_owned(), vec!["a1".to_owned(), "a2".to_owned()]),
            ("ben".to_owned(), vec!["b1".to_owned()]),
            ("nobody".to_owned(), vec![]),
        ]
    );
    let anns: Vec<PostId> = Post::belonging_to(&ann)
        .select(posts::id)
        .order(posts::id)
        .load(&mut conn)
        .expect("belonging_to one");
    assert_eq!(anns, vec![posts[0].id, posts[2].id]);
}

#[test]
fn join_on_flake_id_foreign_key_pairs_rows() {
    let (_db, mut conn) = connect();
    let ann = User {
        id: fresh_id(),
        name: "ann".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&ann)
        .execute(&mut conn)
        .expect("insert user");
    let post = Post {
        id: fresh_id(),
        user_id: ann.id,
        reviewer_id: None,
        title: "joined".to_owned(),
    };
    diesel::insert_into(posts::table)
        .values(&post)
        .execute(&mut conn)
        .expect("insert post");

    let joined: Vec<(User, Post)> = users::table
        .inner_join(posts::table)
        .select((User::as_select(), Post::as_select()))
        .load(&mut conn)
        .expect("join");
    assert_eq!(joined, vec![(ann.clone(), post.clone())]);
    let left: Vec<(UserId, Option<PostId>)> = users::table
        .left_join(posts::table)
        .select((users::id, posts::id.nullable()))
        .load(&mut conn)
        .expect("left join");
    assert_eq!(left, vec![(ann.id, Some(post.id))]);
}

#[test]
fn eq_any_selects_exactly_the_given_ids() {
    let (_db, mut conn) = connect();
    let users: Vec<User> = ["u0", "u1", "u2", "u3"]
        .iter()
        .map(|name| User {
            id: fresh_id(),
            name: (*name).to_owned(),
        })
        .collect();
    diesel::insert_into(users::table)
        .values(&users)
        .execute(&mut conn)
        .expect("insert");

    let wanted = vec![users[3].id, users[1].id];
    let names: Vec<String> = users::table
        .filter(users::id.eq_any(&wanted))
        .order(users::id)
        .select(users::name)
        .load(&mut conn)
        .expect("eq_any");
    assert_eq!(names, vec!["u1".to_owned(), "u3".to_owned()]);
    let excluded: i64 = users::table
        .filter(users::id.ne_all(wanted))
        .count()
        .get_result(&mut conn)
        .expect("ne_all");
    assert_eq!(excluded, 2);
}

#[test]
fn as_changeset_updates_the_row_with_that_id() {
    let (_db, mut conn) = connect();
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
        .expect("insert");

    kept.name = "renamed".to_owned();
    let updated = diesel::update(&kept)
        .set(&kept)
        .execute(&mut conn)
        .expect("update by identifiable");
    assert_eq!(updated, 1);
    diesel::delete(users::table.find(other.id))
        .execute(&mut conn)
        .expect("delete by id");

    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
        .load(&mut conn)
        .expect("plain select");
    assert_eq!(stored, vec![Raw { v: kept.id.into() }]);
    let name: String = users::table
        .find(kept.id)
        .select(users::name)
        .first(&mut conn)
        .expect("find");
    assert_eq!(name, "renamed");
}

#[test]
fn zero_id_in_database_is_a_deserialization_error_naming_it() {
    let (_db, mut conn) = connect();
    diesel::sql_query("INSERT INTO users (id, name) VALUES (0, 'zero')")
        .execute(&mut conn)
        .expect("plain insert");
    let err = users::table
        .select(User::as_select())
        .load(&mut conn)
        .expect_err("0 is not an ID");
    assert_invalid_id_error(err, "0");
}

#[test]
fn negative_id_in_database_is_a_deserialization_error_naming_it() {
    let (_db, mut conn) = connect();
    diesel::sql_query("INSERT INTO users (id, name) VALUES (-42, 'negative')")
        .execute(&mut conn)
        .expect("plain insert");
    let err = users::table
        .select(users::id)
        .load::<UserId>(&mut conn)
        .expect_err("-42 is not an ID");
    assert_invalid_id_error(err, "-42");
}

#[test]
fn invalid_nullable_foreign_key_is_a_deserialization_error() {
    let (_db, mut conn) = connect();
    let user = User {
        id: fresh_id(),
        name: "u".to_owned(),
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(&mut conn)
        .expect("insert");
    // The referenced row exists, so only the ID check can reject -7.
    diesel::sql_query("INSERT INTO users (id, name) VALUES (-7, 'bad')")
        .execute(&mut conn)
        .expect("plain insert user");
    diesel::sql_query(format!(
        "INSERT INTO posts (id, user_id, reviewer_id, title) VALUES (1, {}, -7, 't')",
        i64::from(user.id)
    ))
    .execute(&mut conn)
    .expect("plain insert post");
    let err = posts::table
        .select(posts::reviewer_id)
        .load::<Option<UserId>>(&mut conn)
        .expect_err("-7 is not an ID");
    assert_invalid_id_error(err, "-7");
}

#[test]
fn department_employee_cycle_is_written_in_one_transaction() {
    let (_db, mut conn) = connect();
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
    conn.transaction(|conn| {
        match BACKEND {
            // Both foreign keys are DEFERRABLE INITIALLY DEFERRED: the rows
            // can go in either order and are checked at COMMIT.
            Backend::Postgres | Backend::Sqlite => {
                diesel::insert_into(departments::table)
                    .values(&Department {
                        id: department,
                        name: "research".to_owned(),
                        head_id: Some(head.id),
                    })
                    .execute(conn)?;
                diesel::insert_into(employees::table)
                    .values(&vec![head.clone(), member.clone()])
                    .execute(conn)?;
            }
            // MySQL checks every statement: the department goes in without a
            // head, then gets it once the employee exists.
            Backend::Mysql => {
                diesel::insert_into(departments::table)
                    .values(&Department {
                        id: department,
                        name: "research".to_owned(),
                        head_id: None,
                    })
                    .execute(conn)?;
                diesel::insert_into(employees::table)
                    .values(&vec![head.clone(), member.clone()])
                    .execute(conn)?;
                diesel::update(departments::table.find(department))
                    .set(departments::head_id.eq(head.id))
                    .execute(conn)?;
            }
        }
        diesel::result::QueryResult::Ok(())
    })
    .expect("the cycle commits");

    let heads: Vec<RawPair> = diesel::sql_query("SELECT id AS a, head_id AS b FROM departments")
        .load(&mut conn)
        .expect("plain select departments");
    assert_eq!(
        heads,
        vec![RawPair {
            a: department.into(),
            b: Some(head.id.into())
        }]
    );
    let staff: Vec<RawPair> = diesel::sql_query(
        "SELECT e.department_id AS a, d.head_id AS b FROM employees e \
         JOIN departments d ON d.id = e.department_id ORDER BY e.id",
    )
    .load(&mut conn)
    .expect("plain select employees");
    assert_eq!(
        staff,
        vec![
            RawPair {
                a: department.into(),
                b: Some(head.id.into())
            },
            RawPair {
                a: department.into(),
                b: Some(head.id.into())
            },
        ]
    );
}

/// The bulk path: `generate_many` right before one `insert_into(..).values(&vec)`
/// gives the statement one contiguous run of the generator, even while another
/// caller takes IDs from it.
#[test]
fn rows_built_with_generate_many_get_one_contiguous_run() {
    let (_db, mut conn) = connect();
    let (parents, others) = crate::support::with_a_concurrent_caller(|| {
        batch::<ParentId>(BULK_ROWS)
            .into_iter()
            .zip(0..)
            .map(|(id, n)| Parent { id, n })
            .collect::<Vec<Parent>>()
    });
    let inserted = diesel::insert_into(parents::table)
        .values(&parents)
        .execute(&mut conn)
        .expect("bulk insert");
    assert_eq!(inserted, BULK_ROWS);
    let stored: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM parents")
        .load(&mut conn)
        .expect("plain select");
    let ids: Vec<i64> = stored.iter().map(|r| r.v).collect();
    assert_eq!(ids.len(), BULK_ROWS);
    crate::support::assert_one_contiguous_run(&ids, &others);
}

#[test]
fn bulk_insert_of_10000_rows_with_batch_ids_then_children_without_reading_back() {
    let (_db, mut conn) = connect();
    let parent_ids = batch::<ParentId>(BULK_ROWS);
    let child_ids = batch::<ChildId>(BULK_ROWS);
    let parents: Vec<Parent> = parent_ids
        .iter()
        .zip(0..)
        .map(|(&id, n)| Parent { id, n })
        .collect();
    // Each child references a parent by the ID assigned above: no
    // RETURNING, no re-read.
    let children: Vec<Child> = child_ids
        .iter()
        .zip(parent_ids.iter().rev())
        .map(|(&id, &parent_id)| Child { id, parent_id })
        .collect();

    let started = std::time::Instant::now();
    let (inserted_parents, inserted_children) = conn
        .transaction(|conn| {
            let p = diesel::insert_into(parents::table)
                .values(&parents)
                .execute(conn)?;
            let c = diesel::insert_into(children::table)
                .values(&children)
                .execute(conn)?;
            diesel::result::QueryResult::Ok((p, c))
        })
        .expect("bulk insert");
    eprintln!(
        "{BACKEND:?} (sync): {BULK_ROWS} parents + {BULK_ROWS} children, two statements, in {:?}",
        started.elapsed()
    );
    assert_eq!(
        (inserted_parents, inserted_children),
        (BULK_ROWS, BULK_ROWS)
    );

    let count = |sql: &str, conn: &mut Conn| -> i64 {
        let rows: Vec<Raw> = diesel::sql_query(sql).load(conn).expect("plain count");
        rows[0].v
    };
    assert_eq!(
        count("SELECT COUNT(DISTINCT id) AS v FROM parents", &mut conn),
        10_000
    );
    assert_eq!(
        count(
            "SELECT COUNT(*) AS v FROM children c JOIN parents p ON p.id = c.parent_id",
            &mut conn
        ),
        10_000
    );
    assert_eq!(
        count("SELECT MIN(id) AS v FROM parents", &mut conn),
        i64::from(parent_ids[0])
    );
    assert_eq!(
        count("SELECT MAX(id) AS v FROM children", &mut conn),
        i64::from(child_ids[BULK_ROWS - 1])
    );
    let first_child: Vec<RawPair> = diesel::sql_query(format!(
        "SELECT p.n AS a, p.id AS b FROM children c JOIN parents p ON p.id = c.parent_id \
         WHERE c.id = {}",
        i64::from(child_ids[0])
    ))
    .load(&mut conn)
    .expect("plain select");
    assert_eq!(
        first_child,
        vec![RawPair {
            a: 9_999,
            b: Some(parent_ids[BULK_ROWS - 1].into())
        }]
    );
}

#[test]
fn id_beyond_the_layout_is_a_deserialization_error_naming_it() {
    let (_db, mut conn) = connect();
    // 2^53: a valid BIGINT, one above the JavaScript-safe layout's largest ID.
    diesel::sql_query("INSERT INTO users (id, name) VALUES (9007199254740992, 'big')")
        .execute(&mut conn)
        .expect("plain insert");
    let err = users::table
        .select(users::id)
        .load::<SmallId>(&mut conn)
        .expect_err("2^53 is beyond the layout");
    assert_invalid_id_error(err, "9007199254740992");
    // The same value is a valid ID for the 63-bit layout.
    let ids: Vec<UserId> = users::table
        .select(users::id)
        .load(&mut conn)
        .expect("valid for UserId");
    assert_eq!(ids.len(), 1);
}

/// Keys stored by other means that are not IDs (0, negative, beyond the
/// layout) fail the read with an error in which `find_id_error` finds the
/// `IdError` naming the type and the value.
#[test]
fn stored_keys_that_are_not_ids_are_found_by_find_id_error() {
    let (_db, mut conn) = connect();
    for (stored, read_as, expected) in stored_keys_that_are_not_ids() {
        diesel::sql_query(format!(
            "INSERT INTO users (id, name) VALUES ({stored}, 'not an ID')"
        ))
        .execute(&mut conn)
        .expect("plain insert");
        let in_table: Vec<Raw> = diesel::sql_query("SELECT id AS v FROM users")
            .load(&mut conn)
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
                    .map(drop),
                diesel::sql_query("SELECT id FROM users")
                    .load::<UserKey>(&mut conn)
                    .map(drop),
            ],
            ReadAs::SmallId => [
                users::table
                    .select(users::id)
                    .load::<SmallId>(&mut conn)
                    .map(drop),
                diesel::sql_query("SELECT id FROM users")
                    .load::<SmallKey>(&mut conn)
                    .map(drop),
            ],
        };
        for read in reads {
            let err = read.expect_err("a key that is not an ID is not read as one");
            assert_found_id_error(&err, stored, &expected);
        }

        diesel::sql_query("DELETE FROM users")
            .execute(&mut conn)
            .expect("plain delete");
    }
}
