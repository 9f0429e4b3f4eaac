// A GraphQL client of a seaography schema whose ID columns are prefixed
// ID types, as a browser runs it: `node seaography_prefixed_client.js URL`.
// Creates two writers (keys `wri_…` in Crockford base32, from the model's
// hook) and two notes each (`note_…` in decimal, with the writer's ID as
// their foreign key); reads a writer's notes through the filter of the
// foreign key and the notes of a list of IDs; sends a note's ID where a
// writer's belongs, a bare key and a bare Crockford string. Fails if an ID
// arrives as anything but its prefixed text, unchanged by JSON.parse.
// Writes what it saw as JSON: { writers, notes, filtered, errors: { case: message } }.
"use strict";

const [url] = process.argv.slice(2);
const { checkId, client, data, error } = require("./graphql_common.js");
const { gql } = client(url);

const WRITER = /^wri_[0-7][0-9A-HJKMNP-TV-Z]{12}$/;
const NOTE = /^note_[1-9][0-9]*$/;

const CREATE_WRITER = "mutation($data: SgpWritersInsertInput!) { sgpWritersCreateOne(data: $data) { id name } }";
const CREATE_NOTE = "mutation($data: SgpNotesInsertInput!) { sgpNotesCreateOne(data: $data) { id writerId } }";
const NOTES = "query($filters: SgpNotesFilterInput) { sgpNotes(filters: $filters) { nodes { id writerId } } }";

async function main() {
  const writers = [];
  const notes = [];
  for (const name of ["ada", "grace"]) {
    const res = await gql(CREATE_WRITER, { data: { name } });
    const writer = checkId(data(res).sgpWritersCreateOne.id, WRITER, res.text);
    writers.push(writer);
    for (let i = 0; i < 2; i++) {
      const res = await gql(CREATE_NOTE, { data: { writerId: writer, body: `${name} ${i}` } });
      const note = data(res).sgpNotesCreateOne;
      notes.push([checkId(note.id, NOTE, res.text), checkId(note.writerId, WRITER, res.text)]);
      if (note.writerId !== writer) throw new Error(`note of ${note.writerId}, sent ${writer}`);
    }
  }
  // Crockford is fixed width: the writers' IDs sort like their keys.
  if (!(writers[0] < writers[1])) throw new Error(`${writers} out of order`);

  const filtered = {};
  let res = await gql(NOTES, { filters: { writerId: { eq: writers[1] } } });
  filtered.writer = data(res).sgpNotes.nodes.map((n) => checkId(n.id, NOTE, res.text));
  res = await gql(NOTES, { filters: { id: { is_in: [notes[0][0], notes[3][0]] } } });
  filtered.is_in = data(res).sgpNotes.nodes.map((n) => checkId(n.id, NOTE, res.text));

  const errors = {};
  errors.note_as_writer = error(await gql(NOTES, { filters: { writerId: { eq: notes[0][0] } } }));
  errors.writer_as_note = error(await gql(NOTES, { filters: { id: { eq: writers[0] } } }));
  errors.create = error(await gql(CREATE_NOTE, { data: { writerId: notes[0][0], body: "x" } }));
  errors.bare_key = error(await gql(NOTES, { filters: { id: { eq: notes[0][0].slice("note_".length) } } }));
  errors.bare_crockford = error(await gql(NOTES, { filters: { writerId: { eq: writers[0].slice("wri_".length) } } }));

  process.stdout.write(JSON.stringify({ writers, notes, filtered, errors }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
