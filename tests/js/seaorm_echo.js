// Reads SeaORM models as JSON on stdin, checks that every ID is a decimal
// string JavaScript can carry exactly (also above 2^53), and writes them back:
// each model unchanged plus `id_echo` (the ID after a BigInt round trip) and
// `id_exact` (whether Number() would have kept it).
"use strict";

const ID_FIELDS = ["id", "head_id", "department_id"];
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const models = JSON.parse(input);
  const out = models.map((model) => {
    for (const field of ID_FIELDS) {
      const value = model[field];
      if (value === undefined || value === null) continue;
      if (typeof value !== "string" || !/^[1-9][0-9]*$/.test(value)) {
        throw new Error(`${field} is not a decimal string: ${JSON.stringify(value)}`);
      }
      if (BigInt(value).toString() !== value) {
        throw new Error(`${field} does not survive BigInt: ${value}`);
      }
    }
    return {
      ...model,
      id_echo: BigInt(model.id).toString(),
      id_exact: Number.isSafeInteger(Number(model.id)),
    };
  });
  process.stdout.write(JSON.stringify(out));
});
