// The validator's sentences, said plainly: each rewrite on the sentence the vendored
// validator writes (lib/schema/vendor/cfworker_json_schema/validate.ts), and the ones it
// does not know passed on.
import assert from "node:assert/strict";
import { plainReason } from "../lib/schema/plain_errors.ts";

Deno.test("plainReason() rewrites each of the validator's sentences", () => {
  const cases: [string, string][] = [
    ['Instance type "number" is invalid. Expected "string".', "expected a string, got a number"],
    [
      'Instance type "array" is invalid. Expected "string", "integer", "null".',
      "expected a string, an integer or null, got an array",
    ],
    ['Instance does not have required property "text".', 'missing required property "text"'],
    ['Instance does not match any of ["a","b"].', 'must be one of ["a","b"]'],
    ['Instance does not match {"type":"circle"}.', 'must be {"type":"circle"}'],
    ['Instance matched "not" schema.', 'must not match the schema under "not"'],
    ["Instance does not match any subschemas.", 'matches none of the "anyOf" choices'],
    ["Instance does not match every subschema.", 'does not match every schema of "allOf"'],
    [
      "Instance does not match exactly one subschema (2 matches).",
      'must match exactly one of the "oneOf" choices (matches 2)',
    ],
    ['Instance does not match "then" schema.', 'does not match the "then" schema its "if" chose'],
    ["Instance does not have at least 2 properties.", "needs at least 2 properties"],
    ['Property name "x y" does not match schema.', 'property name "x y" is not allowed'],
    ['Instance has "start" but does not have "end".', '"start" needs "end" too'],
    [
      'Property "extra" does not match additional properties schema.',
      'property "extra" is not allowed here',
    ],
    ["Array has too many items (5 > 3).", "has 5 items, at most 3 allowed"],
    ["Array has too few items (1 < 2).", "has 1 items, at least 2 needed"],
    [
      "Duplicate items at indexes 1 and 3.",
      "items 1 and 3 are the same, and items must be unique",
    ],
    ["String is too short (2 < 5).", "is 2 characters long, at least 5 needed"],
    ["String is too long (9 > 5).", "is 9 characters long, at most 5 allowed"],
    ["String does not match pattern.", 'does not match its "pattern"'],
    ['String does not match format "email".', 'is not a valid "email"'],
    ["-1 is less than 0.", "must be at least 0 (got -1)"],
    ["0 is less than or equal to  0.", "must be greater than 0 (got 0)"],
    ["11 is greater than 10.", "must be at most 10 (got 11)"],
    ["10 is greater than or equal to 10.", "must be less than 10 (got 10)"],
    ["7 is not a multiple of 2.", "must be a multiple of 2 (got 7)"],
    ["Something new the validator says.", "Something new the validator says"],
  ];
  for (const [validator, plain] of cases) assert.equal(plainReason(validator), plain, validator);
});
