// Tests run with diesel-async on PostgreSQL and MySQL/MariaDB. Included into
// one module per backend, which provides `BACKEND`, `Conn` and `connect()`.

// The cases sync Diesel runs too.
crate::diesel_common::diesel_cases!(async);

/// The rows plain SQL `sql` reads (a failure names the statement).
async fn plain_select<T>(conn: &mut Conn, sql: &'static str) -> Vec<T>
where
    T: diesel::QueryableByName<<Conn as diesel_async::AsyncConnectionCore>::Backend>
        + Send
        + 'static,
{
    diesel::sql_query(sql)
        .load(conn)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[tokio::test]
async fn async_belonging_to_grouped_by_join_and_eq_any() {
    let (_db, mut conn) = connect().await;
    let ann = user("ann");
    let ben = user("ben");
    let users = vec![ann.clone(), ben.clone()];
    diesel::insert_into(users::table)
        .values(&users)
        .execute(&mut conn)
        .await
        .expect("insert users");
    let posts = three_posts(&ann, &ben);
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
    let mut kept = user("kept");
    let other = user("other");
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

    let stored: Vec<Raw> = plain_select(
        &mut conn,
        "SELECT id AS v FROM users WHERE name = 'renamed'",
    )
    .await;
    assert_eq!(stored, vec![Raw { v: kept.id.into() }]);
}

#[tokio::test]
async fn async_department_employee_cycle_is_written_in_one_transaction() {
    let (_db, mut conn) = connect().await;
    let department = DepartmentId::generate().expect("a fresh ID");
    let head = employee(department, "head");
    let member = employee(department, "member");
    let staff = vec![head.clone(), member.clone()];
    conn.transaction::<(), diesel::result::Error, _>(async |conn| {
        // PostgreSQL checks the deferred keys at COMMIT; MySQL per statement,
        // so there the head is set once the employee exists.
        let head_id = match BACKEND {
            Backend::Postgres | Backend::Sqlite => Some(head.id),
            Backend::Mysql => None,
        };
        diesel::insert_into(departments::table)
            .values(&research(department, head_id))
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

    let heads: Vec<RawPair> =
        plain_select(&mut conn, "SELECT id AS a, head_id AS b FROM departments").await;
    assert_eq!(heads, vec![with_head(department, head.id)]);
    let members: Vec<Raw> = plain_select(
        &mut conn,
        "SELECT department_id AS v FROM employees ORDER BY id",
    )
    .await;
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
    let parents = numbered_parents(parent_ids.iter().copied());
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

    let joined: Vec<Raw> = plain_select(
        &mut conn,
        "SELECT COUNT(DISTINCT c.id) AS v FROM children c JOIN parents p ON p.id = c.parent_id",
    )
    .await;
    assert_eq!(joined, vec![Raw { v: 10_000 }]);
    let last: Vec<Raw> = plain_select(&mut conn, "SELECT MAX(parent_id) AS v FROM children").await;
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

    let stored: Vec<Raw> =
        plain_select(&mut conn, "SELECT id AS v FROM users WHERE name = 'bob'").await;
    assert_eq!(stored, vec![Raw { v: bob_id.into() }]);
}
