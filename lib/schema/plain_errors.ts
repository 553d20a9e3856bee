// The validator's messages in the words of the person (or model) who sent the value:
// "Instance does not have required property "x"" becomes `missing required property "x"`.
// The validator (lib/schema/vendor/) is kept as published but for its bounds, so its
// wording is translated here, after the fact, on the failure path only.

/** One rewrite: the validator's sentence, and what to say instead. */
type Rewrite = [RegExp, (...groups: string[]) => string];

/** "string", "null" → `a string or null`. */
function typeNames(list: string): string {
  const names = list.split('", "').map((name) =>
    name === "null" ? "null" : `${/^[aeiou]/.test(name) ? "an" : "a"} ${name}`
  );
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

const REWRITES: readonly Rewrite[] = [
  [
    /^Instance type "([^"]+)" is invalid\. Expected "(.+)"\.$/,
    (got, expected) => `expected ${typeNames(expected)}, got ${typeNames(got)}`,
  ],
  [
    /^Instance does not have required property "(.*)"\.$/s,
    (key) => `missing required property "${key}"`,
  ],
  [/^Instance does not match any of (.*)\.$/s, (list) => `must be one of ${list}`],
  [/^Instance matched "not" schema\.$/, () => `must not match the schema under "not"`],
  [/^Instance does not match any subschemas\.$/, () => `matches none of the "anyOf" choices`],
  [/^Instance does not match every subschema\.$/, () => `does not match every schema of "allOf"`],
  [
    /^Instance does not match exactly one subschema \((\d+) matches\)\.$/,
    (count) => `must match exactly one of the "oneOf" choices (matches ${count})`,
  ],
  [
    /^Instance does not match "(then|else)" schema\.$/,
    (branch) => `does not match the "${branch}" schema its "if" chose`,
  ],
  [/^Instance does not match (.*)\.$/s, (value) => `must be ${value}`],
  [/^Instance does not have at least (\d+) properties\.$/, (n) => `needs at least ${n} properties`],
  [
    /^Property name "(.*)" does not match schema\.$/s,
    (key) => `property name "${key}" is not allowed`,
  ],
  [
    /^Instance has "(.*)" but does not have "(.*)"\.$/s,
    (key, other) => `"${key}" needs "${other}" too`,
  ],
  [
    /^Property "(.*)" does not match additional properties schema\.$/s,
    (key) => `property "${key}" is not allowed here`,
  ],
  [
    /^Property "(.*)" does not match unevaluated properties schema\.$/s,
    (key) => `property "${key}" is not allowed here`,
  ],
  [
    /^Array has too many items \((\d+) > (\d+)\)\.$/,
    (got, most) => `has ${got} items, at most ${most} allowed`,
  ],
  [
    /^Array has too few items \((\d+) < (\d+)\)\.$/,
    (got, least) => `has ${got} items, at least ${least} needed`,
  ],
  [
    /^Duplicate items at indexes (\d+) and (\d+)\.$/,
    (a, b) => `items ${a} and ${b} are the same, and items must be unique`,
  ],
  [
    /^String is too short \((\d+) < (\d+)\)\.$/,
    (got, least) => `is ${got} characters long, at least ${least} needed`,
  ],
  [
    /^String is too long \((\d+) > (\d+)\)\.$/,
    (got, most) => `is ${got} characters long, at most ${most} allowed`,
  ],
  [/^String does not match pattern\.$/, () => `does not match its "pattern"`],
  [/^String does not match format "(.*)"\.$/, (format) => `is not a valid "${format}"`],
  [
    /^(\S+) is less than or equal to\s+(\S+)\.$/,
    (got, bound) => `must be greater than ${bound} (got ${got})`,
  ],
  [/^(\S+) is less than\s+(\S+)\.$/, (got, bound) => `must be at least ${bound} (got ${got})`],
  [
    /^(\S+) is greater than or equal to\s+(\S+)\.$/,
    (got, bound) => `must be less than ${bound} (got ${got})`,
  ],
  [/^(\S+) is greater than\s+(\S+)\.$/, (got, bound) => `must be at most ${bound} (got ${got})`],
  [
    /^(\S+) is not a multiple of (\S+)\.$/,
    (got, step) => `must be a multiple of ${step} (got ${got})`,
  ],
];

/** The validator's sentence for one error, said plainly; unknown ones lose their period. */
export function plainReason(error: string): string {
  for (const [pattern, rewrite] of REWRITES) {
    const match = pattern.exec(error);
    if (match !== null) return rewrite(...match.slice(1));
  }
  return error.replace(/\.$/, "");
}
