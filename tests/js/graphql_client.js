// A GraphQL client as a browser runs it: `node graphql_client.js URL ID`.
// Creates users (one under ID, given as an integer variable above 2^53,
// the others under IDs the server generates), reads each back by its ID
// and through `node(id: ID!)`, walks `users` two at a time by cursor, and
// sends bad IDs. Fails if an ID arrives as anything but a decimal string
// that survives JSON.parse unchanged. Writes what it saw as JSON:
// { created, fetched, walked, pages, errors: { input: message } }.
"use strict";

const [url, bigId] = process.argv.slice(2);
const common = require("./graphql_common.js");
const { data, error } = common;
const { post, gql } = common.client(url);
const checkId = (id, text) => common.checkId(id, common.DECIMAL, text);

const CREATE = "mutation($name: String!, $id: GqlUserId) { createUser(name: $name, id: $id) { id name } }";
const USER = "query($id: GqlUserId!) { user(id: $id) { id name } }";

async function main() {
  const created = [];
  // An integer variable, written by hand: JSON.stringify would round it.
  const res = await post(
    `{"query": ${JSON.stringify(CREATE)}, "variables": {"name": "big", "id": ${bigId}}}`,
  );
  created.push(checkId(data(res).createUser.id, res.text));
  for (let i = 0; i < 5; i++) {
    const res = await gql(CREATE, { name: `user ${i}` });
    created.push(checkId(data(res).createUser.id, res.text));
  }
  if (created[0] !== bigId) throw new Error(`created ${created[0]}, sent ${bigId}`);

  const fetched = [];
  for (const id of created) {
    const res = await gql(USER, { id });
    fetched.push(checkId(data(res).user.id, res.text));
    const node = await gql("query($id: ID!) { node(id: $id) { id } }", { id });
    fetched.push(checkId(data(node).node.id, node.text));
  }
  if (fetched.some((id, i) => id !== created[i >> 1])) throw new Error(`fetched ${fetched}`);

  const walked = [];
  let after = null;
  let pages = 0;
  for (;;) {
    const res = await gql(
      "query($after: String) { users(after: $after, first: 2) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }",
      { after },
    );
    const users = data(res).users;
    pages++;
    for (const edge of users.edges) {
      if (edge.cursor !== edge.node.id) throw new Error(`cursor ${edge.cursor} of ${edge.node.id}`);
      walked.push(checkId(edge.node.id, res.text));
    }
    if (!users.pageInfo.hasNextPage) break;
    after = users.pageInfo.endCursor;
    if (pages > 10) throw new Error("pagination does not end");
  }

  const errors = {};
  for (const input of ['"0"', '"-5"', '"12abc"', '"99999999999999999999"', "1.5", "9007199254740993.0", "-5"]) {
    errors[input] = error(await post(`{"query": ${JSON.stringify(USER)}, "variables": {"id": ${input}}}`));
  }
  errors.cursor = error(await gql("{ users(after: \"abc\") { edges { cursor } } }"));
  errors.node = error(await gql('{ node(id: "x1") { id } }'));
  errors.mutation = error(await gql(CREATE, { name: "bad", id: "0" }));

  process.stdout.write(JSON.stringify({ created, fetched, walked, pages, errors }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
