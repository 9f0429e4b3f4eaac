// A GraphQL client of a seaography schema, as a browser runs it:
// `node seaography_client.js URL ID`. Creates authors (one under ID, given
// as an integer variable above 2^53, the others without a key, one at a
// time and in a batch) and two posts each; moves a post to another author
// and pins posts (a nullable foreign key), then unpins one; runs every
// filter of the ID columns and checks each answer against the rows it
// holds (compared as BigInt); follows the relation both ways; walks the
// posts three at a time by cursor; sends bad IDs. Fails if an ID arrives
// as anything but a decimal string that survives JSON.parse unchanged.
// Writes what it saw as JSON:
// { authors, posts, filters: { name: ids }, walked, pages, errors: { input: message } }.
"use strict";

const [url, bigId] = process.argv.slice(2);
const common = require("./graphql_common.js");
const { data, error } = common;
const { post, gql } = common.client(url);
const checkId = (id, text) => common.checkId(id, common.DECIMAL, text);

function byKey(a, b) {
  return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
}

function same(what, got, want) {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

const AUTHOR = "id name pinnedPostId";
const POST = "id authorId title";
const CREATE_AUTHOR = `mutation($data: SgAuthorsInsertInput!) { sgAuthorsCreateOne(data: $data) { ${AUTHOR} } }`;
const CREATE_AUTHORS = `mutation($data: [SgAuthorsInsertInput!]!) { sgAuthorsCreateBatch(data: $data) { ${AUTHOR} } }`;
const CREATE_POST = `mutation($data: SgPostsInsertInput!) { sgPostsCreateOne(data: $data) { ${POST} } }`;
const UPDATE_AUTHORS = `mutation($data: SgAuthorsUpdateInput!, $filter: SgAuthorsFilterInput) { sgAuthorsUpdate(data: $data, filter: $filter) { ${AUTHOR} } }`;
const UPDATE_POSTS = `mutation($data: SgPostsUpdateInput!, $filter: SgPostsFilterInput) { sgPostsUpdate(data: $data, filter: $filter) { ${POST} } }`;
const POSTS = `query($filters: SgPostsFilterInput) { sgPosts(filters: $filters) { nodes { ${POST} } } }`;
const AUTHORS = `query($filters: SgAuthorsFilterInput) { sgAuthors(filters: $filters) { nodes { ${AUTHOR} } } }`;
const POST_BY_ID = "query($id: SgPostId) { sgPosts(filters: { id: { eq: $id } }) { nodes { id } } }";

function checkAuthor(a, text) {
  checkId(a.id, text);
  if (a.pinnedPostId !== null) checkId(a.pinnedPostId, text);
  return a;
}

function checkPost(p, text) {
  checkId(p.id, text);
  checkId(p.authorId, text);
  return p;
}

async function main() {
  const authors = [];
  // An integer variable, written by hand: JSON.stringify would round it.
  let res = await post(
    `{"query": ${JSON.stringify(CREATE_AUTHOR)}, "variables": {"data": {"id": ${bigId}, "name": "big"}}}`,
  );
  authors.push(checkAuthor(data(res).sgAuthorsCreateOne, res.text));
  same("the chosen key", authors[0].id, bigId);
  res = await gql(CREATE_AUTHORS, { data: [{ name: "a1" }, { name: "a2" }] });
  for (const a of data(res).sgAuthorsCreateBatch) authors.push(checkAuthor(a, res.text));
  res = await gql(CREATE_AUTHOR, { data: { name: "a3" } });
  authors.push(checkAuthor(data(res).sgAuthorsCreateOne, res.text));
  same("pinned posts of new authors", authors.map((a) => a.pinnedPostId), [null, null, null, null]);

  const posts = [];
  for (const a of authors) {
    for (const n of [1, 2]) {
      const res = await gql(CREATE_POST, { data: { authorId: a.id, title: `${a.name} ${n}` } });
      const p = checkPost(data(res).sgPostsCreateOne, res.text);
      same("the author of a new post", p.authorId, a.id);
      posts.push(p);
    }
  }

  // Updates: a post moves to the first author; posts are pinned, one unpinned.
  res = await gql(UPDATE_POSTS, { data: { authorId: bigId }, filter: { id: { eq: posts[2].id } } });
  same("the moved post", data(res).sgPostsUpdate.map((p) => checkPost(p, res.text)), [
    { ...posts[2], authorId: bigId },
  ]);
  posts[2].authorId = bigId;
  for (const [a, p] of [[0, 0], [1, 3], [2, 4]]) {
    const res = await gql(UPDATE_AUTHORS, {
      data: { pinnedPostId: posts[p].id },
      filter: { id: { eq: authors[a].id } },
    });
    same("the pinned post", data(res).sgAuthorsUpdate.map((x) => checkAuthor(x, res.text).pinnedPostId), [posts[p].id]);
    authors[a].pinnedPostId = posts[p].id;
  }
  res = await gql(UPDATE_AUTHORS, { data: { pinnedPostId: null }, filter: { id: { eq: authors[2].id } } });
  same("the unpinned post", data(res).sgAuthorsUpdate.map((x) => x.pinnedPostId), [null]);
  authors[2].pinnedPostId = null;

  // Every filter, against the rows held here.
  const ids = posts.map((p) => p.id).sort(byKey);
  const [low, mid, high] = [ids[1], ids[3], ids[6]];
  const big = (x) => BigInt(x);
  const postFilters = [
    ["id eq", { id: { eq: mid } }, (p) => p.id === mid],
    ["id ne", { id: { ne: mid } }, (p) => p.id !== mid],
    ["id gt", { id: { gt: mid } }, (p) => big(p.id) > big(mid)],
    ["id gte", { id: { gte: mid } }, (p) => big(p.id) >= big(mid)],
    ["id lt", { id: { lt: mid } }, (p) => big(p.id) < big(mid)],
    ["id lte", { id: { lte: mid } }, (p) => big(p.id) <= big(mid)],
    ["id is_in", { id: { is_in: [low, high, ids[7]] } }, (p) => [low, high, ids[7]].includes(p.id)],
    ["id is_not_in", { id: { is_not_in: [low, high] } }, (p) => ![low, high].includes(p.id)],
    ["id between", { id: { between: [low, high] } }, (p) => big(p.id) >= big(low) && big(p.id) <= big(high)],
    ["id not_between", { id: { not_between: [low, high] } }, (p) => big(p.id) < big(low) || big(p.id) > big(high)],
    ["authorId eq", { authorId: { eq: bigId } }, (p) => p.authorId === bigId],
    ["authorId ne", { authorId: { ne: bigId } }, (p) => p.authorId !== bigId],
    ["authorId is_in", { authorId: { is_in: [authors[1].id, authors[3].id] } }, (p) => [authors[1].id, authors[3].id].includes(p.authorId)],
    ["authorId gt", { authorId: { gt: authors[1].id } }, (p) => big(p.authorId) > big(authors[1].id)],
    ["authorId lt", { authorId: { lt: authors[2].id } }, (p) => big(p.authorId) < big(authors[2].id)],
  ];
  const filters = {};
  for (const [name, filter, want] of postFilters) {
    const res = await gql(POSTS, { filters: filter });
    const got = data(res).sgPosts.nodes.map((p) => checkPost(p, res.text).id).sort(byKey);
    same(name, got, posts.filter(want).map((p) => p.id).sort(byKey));
    filters[name] = got;
  }
  const pinned = posts[0].id;
  const authorFilters = [
    ["pinnedPostId eq", { pinnedPostId: { eq: pinned } }, (a) => a.pinnedPostId === pinned],
    // SQL's `<>`: a NULL is neither equal nor unequal.
    ["pinnedPostId ne", { pinnedPostId: { ne: pinned } }, (a) => a.pinnedPostId !== null && a.pinnedPostId !== pinned],
    ["pinnedPostId is_null", { pinnedPostId: { is_null: true } }, (a) => a.pinnedPostId === null],
    ["pinnedPostId is_null false", { pinnedPostId: { is_null: false } }, (a) => a.pinnedPostId !== null],
  ];
  for (const [name, filter, want] of authorFilters) {
    const res = await gql(AUTHORS, { filters: filter });
    const got = data(res).sgAuthors.nodes.map((a) => checkAuthor(a, res.text).id).sort(byKey);
    same(name, got, authors.filter(want).map((a) => a.id).sort(byKey));
    filters[name] = got;
  }
  // Integers are read exactly, as a literal in the query and as a JSON variable.
  res = await gql(`{ sgAuthors(filters: { id: { eq: ${bigId} } }) { nodes { id } } }`);
  filters["id eq, an integer literal"] = data(res).sgAuthors.nodes.map((a) => checkId(a.id, res.text));
  same("an integer literal", filters["id eq, an integer literal"], [bigId]);
  res = await post(
    `{"query": "query($id: SgAuthorId) { sgAuthors(filters: { id: { eq: $id } }) { nodes { id } } }", "variables": {"id": ${bigId}}}`,
  );
  filters["id eq, an integer variable"] = data(res).sgAuthors.nodes.map((a) => checkId(a.id, res.text));
  same("an integer variable", filters["id eq, an integer variable"], [bigId]);

  // The relation both ways: an author's posts, a post's author.
  res = await gql("{ sgAuthors { nodes { id post { nodes { id authorId } } } } }");
  for (const a of data(res).sgAuthors.nodes) {
    const got = a.post.nodes.map((p) => checkPost(p, res.text)).sort((x, y) => byKey(x.id, y.id));
    const want = posts.filter((p) => p.authorId === a.id).map(({ id, authorId }) => ({ id, authorId }));
    same(`the posts of ${a.id}`, got, want.sort((x, y) => byKey(x.id, y.id)));
  }
  res = await gql("{ sgPosts { nodes { id authorId author { id name } } } }");
  for (const p of data(res).sgPosts.nodes) {
    checkPost(p, res.text);
    same(`the author of ${p.id}`, p.author, { id: p.authorId, name: authors.find((a) => a.id === p.authorId).name });
  }

  // Every post once, in key order, three at a time.
  const walked = [];
  let cursor = null;
  let pages = 0;
  for (;;) {
    const res = await gql(
      "query($cursor: String) { sgPosts(pagination: { cursor: { limit: 3, cursor: $cursor } }) { edges { cursor node { id authorId } } pageInfo { hasNextPage endCursor } } }",
      { cursor },
    );
    const page = data(res).sgPosts;
    pages++;
    for (const edge of page.edges) walked.push(checkPost(edge.node, res.text).id);
    if (!page.pageInfo.hasNextPage) break;
    cursor = page.pageInfo.endCursor;
    if (pages > 10) throw new Error("pagination does not end");
  }

  // Bad IDs: each an error naming the field and the value.
  const errors = {};
  const inputs = ['"0"', '"-5"', '""', '"12abc"', '"+5"', '"007"', '"99999999999999999999"', "1.5", "-5", "0", "99999999999999999999"];
  for (const input of inputs) {
    errors[input] = error(await post(`{"query": ${JSON.stringify(POST_BY_ID)}, "variables": {"id": ${input}}}`));
  }
  errors.create = error(await gql(CREATE_POST, { data: { authorId: "0", title: "refused" } }));
  errors.update = error(await gql(UPDATE_POSTS, { data: { authorId: -1 }, filter: { id: { eq: posts[0].id } } }));
  errors.is_in = error(await gql(POSTS, { filters: { id: { is_in: [posts[0].id, "x9"] } } }));
  errors.between = error(await gql(POSTS, { filters: { id: { between: [posts[0].id] } } }));
  errors.nullable = error(await gql(AUTHORS, { filters: { pinnedPostId: { eq: "1.0" } } }));
  errors.literal = error(await gql("{ sgPosts(filters: { id: { eq: 99999999999999999999 } }) { nodes { id } } }"));

  process.stdout.write(JSON.stringify({ authors, posts, filters, walked, pages, errors }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
