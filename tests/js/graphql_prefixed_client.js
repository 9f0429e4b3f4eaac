// A GraphQL client of prefixed IDs, as a browser runs it:
// `node graphql_prefixed_client.js URL USER_ID`. Creates orders for the
// user USER_ID (`usr_…`, above 2^53), the server giving each order an ID
// `ord_…` (base62, fixed width); reads each back, walks `orders` two at a
// time by cursor, and checks that string order is key order. Then sends a
// user's ID where an order's belongs, and other texts that are no order
// ID. Fails if an ID arrives as anything but its prefixed text, unchanged
// by JSON.parse. Writes what it saw as JSON:
// { created, fetched, walked, pages, errors: { case: message } }.
"use strict";

const [url, userId] = process.argv.slice(2);
const { checkId, client, data, error } = require("./graphql_common.js");
const { gql } = client(url);

const ORDER = /^ord_[0-9A-Za-z]{11}$/;
const USER = /^usr_[1-9][0-9]*$/;

const CREATE = "mutation($userId: PfxUserId!) { createOrder(userId: $userId) { id userId } }";
const GET = "query($id: PfxOrderId!) { order(id: $id) { id userId } }";

async function main() {
  if (!USER.test(userId)) throw new Error(`the user ID ${userId} is not usr_…`);
  const created = [];
  for (let i = 0; i < 5; i++) {
    const res = await gql(CREATE, { userId });
    const order = data(res).createOrder;
    created.push(checkId(order.id, ORDER, res.text));
    if (checkId(order.userId, USER, res.text) !== userId) {
      throw new Error(`the order's user is ${order.userId}, sent ${userId}`);
    }
  }

  const fetched = [];
  for (const id of created) {
    const res = await gql(GET, { id });
    const order = data(res).order;
    fetched.push(checkId(order.id, ORDER, res.text));
    if (order.userId !== userId) throw new Error(`read back user ${order.userId}`);
  }

  const walked = [];
  let after = null;
  let pages = 0;
  for (;;) {
    const res = await gql(
      "query($after: String) { orders(after: $after, first: 2) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }",
      { after },
    );
    const orders = data(res).orders;
    pages++;
    for (const edge of orders.edges) {
      if (edge.cursor !== edge.node.id) throw new Error(`cursor ${edge.cursor} of ${edge.node.id}`);
      walked.push(checkId(edge.node.id, ORDER, res.text));
    }
    if (!orders.pageInfo.hasNextPage) break;
    after = orders.pageInfo.endCursor;
    if (pages > 10) throw new Error("pagination does not end");
  }
  // Key order (the walk) is string order: base62 is fixed width.
  const sorted = [...walked].sort();
  if (sorted.some((id, i) => id !== walked[i])) throw new Error(`${walked} is not in string order`);

  const errors = {};
  errors.user_as_order = error(await gql(GET, { id: userId }));
  errors.order_as_user = error(await gql(CREATE, { userId: created[0] }));
  errors.bare_key = error(await gql(GET, { id: userId.slice("usr_".length) }));
  errors.bare_base62 = error(await gql(GET, { id: created[0].slice("ord_".length) }));
  errors.cursor = error(await gql("query($after: String) { orders(after: $after) { edges { cursor } } }", { after: userId }));

  process.stdout.write(JSON.stringify({ created, fetched, walked, pages, errors }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
