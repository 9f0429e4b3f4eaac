// What the GraphQL clients of the tests share: posting to the server,
// reading data and errors, and checking an ID as it arrived.
"use strict";

// Decimal IDs: digits, no sign, no leading zero.
const DECIMAL = /^[1-9][0-9]*$/;

// A client of the GraphQL endpoint at `url`. `post` sends a raw body, so
// that a test can write integers above 2^53 that JSON.stringify would round.
function client(url) {
  async function post(body) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${text}`);
    return { text, json: JSON.parse(text) };
  }
  function gql(query, variables = {}) {
    return post(JSON.stringify({ query, variables }));
  }
  return { post, gql };
}

// `id` if it is a string of `pattern` whose characters are in the raw
// response `text` as JSON.parse gave them; a decimal ID must also survive
// BigInt unchanged.
function checkId(id, pattern, text) {
  if (typeof id !== "string" || !pattern.test(id)) {
    throw new Error(`not an ID of ${pattern}: ${JSON.stringify(id)}`);
  }
  if (!text.includes(`"${id}"`)) throw new Error(`${id} is not in ${text}`);
  if (pattern === DECIMAL && BigInt(id).toString() !== id) {
    throw new Error(`${id} does not survive BigInt`);
  }
  return id;
}

// The response's data; its errors are a failure.
function data({ text, json }) {
  if (json.errors) throw new Error(`unexpected errors: ${text}`);
  return json.data;
}

// The response's error messages, joined; no error is a failure.
function error({ text, json }) {
  if (!json.errors || json.errors.length === 0) throw new Error(`no error: ${text}`);
  return json.errors.map((e) => e.message).join("; ");
}

module.exports = { DECIMAL, client, checkId, data, error };
