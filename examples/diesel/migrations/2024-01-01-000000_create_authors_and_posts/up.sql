-- Keys are BIGINT, assigned by the application: no AUTOINCREMENT, no
-- sequence. (`diesel print-schema` maps BIGINT to `BigInt`, while SQLite's
-- `INTEGER PRIMARY KEY` would map to `Integer`, an i32.)
-- CHECK (id > 0): the database refuses a key that is not an ID, such as the
-- 0 that MySQL/MariaDB store for a key-less INSERT in non-strict mode.
-- (MySQL before 8.0.16 reads the CHECK but does not enforce it.)
CREATE TABLE authors (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id > 0),
    name TEXT NOT NULL
);

CREATE TABLE posts (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id > 0),
    author_id BIGINT NOT NULL REFERENCES authors (id),
    title TEXT NOT NULL
);
