DROP TABLE posts;
DROP TABLE authors;
