-- Keys are BIGINT, assigned by the application: no AUTOINCREMENT, no
-- sequence. (`diesel print-schema` maps BIGINT to `BigInt`; SQLite's
-- `INTEGER PRIMARY KEY` would map to `Integer`, an i32.)
CREATE TABLE authors (
    id BIGINT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL
);

CREATE TABLE posts (
    id BIGINT PRIMARY KEY NOT NULL,
    author_id BIGINT NOT NULL REFERENCES authors (id),
    title TEXT NOT NULL
);
