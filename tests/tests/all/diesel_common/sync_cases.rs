// Tests run on every backend with sync Diesel. Included into one module per
// backend, which provides `BACKEND`, `Conn` and `connect()`.

// The cases diesel-async runs too.
crate::diesel_common::diesel_cases!(sync);

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
fn belonging_to_and_grouped_by_match_children_to_parents() {
    let (_db, mut conn) = connect();
    let ann = user("ann");
    let ben = user("ben");
    let nobody = user("nobody");
    let users = vec![ann.clone(), ben.clone(), nobody.clone()];
    diesel::insert_into(users::table)
        .values(&users)
        .execute(&mut conn)
        .expect("insert users");
    let posts = three_posts(&ann, &ben);
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
    let ann = user("ann");
    diesel::insert_into(users::table)
        .values(&ann)
        .execute(&mut conn)
        .expect("insert user");
    let post = post(ann.id, None, "joined");
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
    let users: Vec<User> = ["u0", "u1", "u2", "u3"].map(user).to_vec();
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
    let mut kept = user("kept");
    let other = user("other");
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
fn department_employee_cycle_is_written_in_one_transaction() {
    let (_db, mut conn) = connect();
    let department = DepartmentId::generate().expect("a fresh ID");
    let head = employee(department, "head");
    let member = employee(department, "member");
    conn.transaction(|conn| {
        match BACKEND {
            // Both foreign keys are DEFERRABLE INITIALLY DEFERRED: the rows
            // can go in either order and are checked at COMMIT.
            Backend::Postgres | Backend::Sqlite => {
                diesel::insert_into(departments::table)
                    .values(&research(department, Some(head.id)))
                    .execute(conn)?;
                diesel::insert_into(employees::table)
                    .values(&vec![head.clone(), member.clone()])
                    .execute(conn)?;
            }
            // MySQL checks every statement: the department goes in without a
            // head, then gets it once the employee exists.
            Backend::Mysql => {
                diesel::insert_into(departments::table)
                    .values(&research(department, None))
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
    assert_eq!(heads, vec![with_head(department, head.id)]);
    let staff: Vec<RawPair> = diesel::sql_query(
        "SELECT e.department_id AS a, d.head_id AS b FROM employees e \
         JOIN departments d ON d.id = e.department_id ORDER BY e.id",
    )
    .load(&mut conn)
    .expect("plain select employees");
    assert_eq!(
        staff,
        vec![
            with_head(department, head.id),
            with_head(department, head.id)
        ]
    );
}

/// The bulk path: `generate_many` right before one `insert_into(..).values(&vec)`
/// gives the statement one contiguous run of the generator, even while another
/// caller takes IDs from it.
#[test]
fn rows_built_with_generate_many_get_one_contiguous_run() {
    let (_db, mut conn) = connect();
    let (parents, others) =
        crate::support::with_a_concurrent_caller(|| numbered_parents(batch::<ParentId>(BULK_ROWS)));
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
    let parents = numbered_parents(parent_ids.iter().copied());
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
