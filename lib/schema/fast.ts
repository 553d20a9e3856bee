// A schema's verdict, compiled once into a tree of closures that only says yes or no
// (adr/0010, "a compiled verdict path"). The vendored validator interprets a schema at every
// application and builds error records as it goes; most values are valid and need neither.
// compileSchema() asks this first and runs the full validator only for a "no", so messages
// come from the same code as before. Verdicts must be the vendored validator's, keyword by
// keyword (tests/fast_validator_test.ts compares them): where this file does not mirror a
// keyword exactly, it refuses the schema and the full validator does everything, as before.
// No errors are collected: every check stops at its first failure.
//
// Linear in the value, for every value a parse makes (a tree), without a budget of steps:
// - Without references, each subschema is applied to each place in the value at most once:
//   the schema is a tree, and each keyword sends a subschema one way down the value.
// - References are the only way to meet a place twice: two applications on one value (two
//   `oneOf` branches, `properties` beside `allOf`, …) that both lead to the same reference
//   target at the same place. So in any group of applications on one value, once one of them
//   has applied a reference, the later ones remember each (target, container) verdict they
//   compute, for the rest of the validation (referenceTo(), after()). Two applications of a
//   target to a container that remember nothing cannot both happen: where their paths part,
//   the later one would have been remembering. So each target's closure runs at most twice
//   per container. Remembering only there, rather than everywhere as patch 8 of the vendored
//   validator does, keeps the Map out of values that are met once (almost all of them).
// - Primitives are not remembered; what bounds them is the references one value can meet
//   through keywords that stay on it (`$ref` to `$ref`, `allOf` of two references, …),
//   counted per subschema at compile time and refused above `maxReferencesPerValue`.
// A value holding one object at two places (never from a parse) is outside this argument.
//
// Values that are not JSON (undefined, a function: a parse never makes them) make the full
// validator throw where it meets them; this path gives up ("no") where it meets them, and the
// full validator then throws. Not exactly where: checks run in another order here and stop
// at the first failure, and `anyOf` and `contains` at the first success, so a part the full
// validator looks at inside a branch whose verdict is already known may go unseen here.
import {
  compiledPattern,
  deepCompareStrict,
  firstDuplicate,
  format,
  isMultipleOf,
  type Schema,
  type SchemaDraft,
  ucs2length,
} from "./vendor/cfworker_json_schema/index.ts";
import type { JsonObject } from "../util/json.ts";

/** True: the value is valid. False: it is not, or this path could not tell. */
export type Verdict = (value: unknown) => boolean;

export interface VerdictOptions {
  draft: SchemaDraft;
  /** The schema's resources by absolute URI, from the vendor's `dereference()`. */
  lookup: Record<string, Schema | boolean>;
  /** The most references one subschema may apply to one value without descending. */
  maxReferencesPerValue: number;
  /**
   * Compile each subschema at its first application instead of all at once: for a large
   * schema of which a value meets a small part (a meta-schema, checking a tool's schema).
   * Every part then counts as deep and as applying references (the safe choices, see
   * after()); a subschema that turns out unsupported makes its verdicts "no".
   */
  lazy?: boolean;
}

/** A schema this path does not mirror; the message says why. */
export class UnsupportedSchema extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "UnsupportedSchema";
  }
}

/**
 * A compiled check and what the order of checks needs to know about it: whether it may
 * apply a reference, and whether it may look below the value (or cost in proportion to it).
 */
interface Part<T> {
  check: (value: T) => boolean;
  refers: boolean;
  deep: boolean;
}
type Check = (value: unknown) => boolean;
type AnyPart = Part<unknown>;

/**
 * Thrown to abandon a validation on a value that is not JSON, which the full validator
 * reports in its own way. Caught at the top, where it means "no".
 */
const UNDECIDED = new Error("a value that is not JSON");

/** Keywords whose results depend on more than the schema and the value. */
const UNSUPPORTED = [
  "unevaluatedProperties",
  "unevaluatedItems",
  "$recursiveRef",
  "$recursiveAnchor",
  "$dynamicRef",
  "$dynamicAnchor",
];

/** A compiled schema object, shared by every place that uses it. */
interface Cell {
  part: AnyPart;
  compiling: boolean;
  /** This validation's remembered verdicts on containers, as a reference target. */
  memo: Map<object, boolean> | undefined;
}

/** The validation under way. One per compiled schema: validations never nest. */
interface Run {
  /** References applied so far: an application that moves it is one that may meet again. */
  applied: number;
  /** Whether references remember their verdicts on containers (see after()). */
  recording: boolean;
  /** The cells whose memo this validation filled, emptied when it ends. */
  memos: Cell[];
  /** Whether Object.prototype has no enumerable properties, once asked (see isPlain()). */
  cleanPrototype: boolean | undefined;
}

interface Context {
  options: VerdictOptions;
  cells: Map<object, Cell>;
  run: Run;
  /** References applied on one value, by subschema (see referencesOnOneValue()). */
  fanOut: Map<object, number>;
}

const accept = (): boolean => true;
const reject = (): boolean => false;
const ACCEPT: AnyPart = { check: accept, refers: false, deep: false };
const REJECT: AnyPart = { check: reject, refers: false, deep: false };

/**
 * Compiles `schema` (already dereferenced, checked against its meta-schema, its reference
 * cycles refused: compileSchema() does all three first); throws UnsupportedSchema when
 * some subschema uses a keyword this path does not mirror.
 */
export function compileVerdict(schema: JsonObject | boolean, options: VerdictOptions): Verdict {
  const run: Run = { applied: 0, recording: false, memos: [], cleanPrototype: undefined };
  const context: Context = { options, cells: new Map(), run, fanOut: new Map() };
  const root = compile(schema, context).check;
  return (value) => {
    run.applied = 0;
    run.recording = false;
    run.cleanPrototype = undefined;
    try {
      return root(value);
    } catch {
      // Not JSON, or a stack overflow on deep nesting: the full validator decides.
      return false;
    } finally {
      for (const cell of run.memos) cell.memo = undefined;
      run.memos.length = 0;
    }
  };
}

function compile(schema: unknown, context: Context): AnyPart {
  if (schema === true) return ACCEPT;
  if (schema === false) return REJECT;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new UnsupportedSchema("a subschema is neither an object nor a boolean");
  }
  const cell = cellOf(schema as JsonObject, context);
  if (!cell.compiling) return cell.part;
  // Met again inside itself, which only a reference to an ancestor does: bound late.
  return { check: (value) => cell.part.check(value), refers: true, deep: true };
}

function cellOf(schema: JsonObject, context: Context): Cell {
  let cell = context.cells.get(schema);
  if (cell === undefined) {
    cell = { part: REJECT, compiling: true, memo: undefined };
    context.cells.set(schema, cell);
    if (context.options.lazy) {
      let compiled: AnyPart | undefined;
      cell.part = {
        check: (value) => (compiled ??= compileObject(schema, context)).check(value),
        refers: true,
        deep: true,
      };
      cell.compiling = false;
      return cell;
    }
    cell.part = compileObject(schema, context);
    cell.compiling = false;
  }
  return cell;
}

/** The kinds of JSON value, as bits of the set that `type` allows. */
const OBJECT = 1, ARRAY = 2, STRING = 4, NUMBER = 8, INTEGER = 16, BOOLEAN = 32, NULL = 64;
const ANY_TYPE = OBJECT | ARRAY | STRING | NUMBER | BOOLEAN | NULL;
const TYPE_BITS: Record<string, number> = {
  object: OBJECT,
  array: ARRAY,
  string: STRING,
  number: NUMBER,
  integer: INTEGER,
  boolean: BOOLEAN,
  null: NULL,
};

/** One schema object: its checks by the kind of value they apply to. */
interface Parts {
  /** Checks that apply to every kind of value. */
  any: AnyPart[];
  object: Part<JsonObject>[];
  array: Part<unknown[]>[];
  string: Part<string>[];
  number: Part<number>[];
}

function compileObject(schema: JsonObject, context: Context): AnyPart {
  for (const keyword of UNSUPPORTED) {
    if (schema[keyword] !== undefined) throw new UnsupportedSchema(`it uses "${keyword}"`);
  }
  const s = schema as Schema;
  const { draft, maxReferencesPerValue } = context.options;
  if (
    maxReferencesPerValue !== Infinity &&
    referencesOnOneValue(s, context) > maxReferencesPerValue
  ) {
    throw new UnsupportedSchema(
      `a subschema applies more than ${maxReferencesPerValue} references to one value`,
    );
  }
  const parts: Parts = { any: [], object: [], array: [], string: [], number: [] };
  if (s.$ref !== undefined) {
    parts.any.push(referenceTo(s, context));
    // draft-04 and draft-07 ignore the keywords beside `$ref`, as the vendor does.
    if (draft === "4" || draft === "7") return dispatch(ANY_TYPE, false, parts, context.run);
  }
  if (s.const !== undefined) parts.any.push(shallow(constCheck(s.const)));
  if (s.enum !== undefined) parts.any.push(shallow(enumCheck(s.enum)));
  parts.any.push(...sameValueApplicators(s, context));
  parts.object.push(...objectParts(s, context));
  parts.array.push(...arrayParts(s, context));
  parts.string.push(...stringChecks(s).map(shallow));
  parts.number.push(...numberChecks(s, draft).map(shallow));
  const { mask, singleInteger } = typeOf(s.type);
  return dispatch(mask, singleInteger, parts, context.run);
}

function shallow<T>(check: (value: T) => boolean): Part<T> {
  return { check, refers: false, deep: false };
}

/**
 * The closure of one schema: by the value's kind, the type check, then that kind's checks,
 * those that look only at the value itself first. The verdict is the conjunction of all of
 * them whatever the order, and a failing branch of a union then fails on its discriminating
 * `const` before it descends into the value.
 */
function dispatch(mask: number, singleInteger: boolean, parts: Parts, run: Run): AnyPart {
  // The checks of every kind, shared by the kinds without checks of their own: a schema
  // compiles to a few closures, not one per kind (a meta-schema's cells compile at start-up).
  const common = parts.any.length === 0 ? accept : allOnOneValue(cheapFirst(parts.any), run);
  const forKind = <T>(bit: number, own: Part<T>[], first: Part<T>[] = []) =>
    (mask & bit) === 0
      ? reject
      : own.length === 0 && first.length === 0
      ? common
      : allOnOneValue([...first, ...cheapFirst([...parts.any, ...own])], run);
  const onObject = forKind(OBJECT, parts.object);
  const onArray = forKind(ARRAY, parts.array);
  const onString = forKind(STRING, parts.string);
  const onBoolean = (mask & BOOLEAN) === 0 ? reject : common;
  const onNull = (mask & NULL) === 0 ? reject : common;
  let onNumber = forKind(NUMBER, parts.number);
  if ((mask & (NUMBER | INTEGER)) === INTEGER) {
    // The vendor's two tests differ on Infinity: only `type: "integer"` accepts it.
    const integer = shallow<number>(
      singleInteger ? (value) => !(value % 1) && value === value : (value) => value % 1 === 0,
    );
    onNumber = forKind(INTEGER, parts.number, [integer]);
  }
  const all = [...parts.any, ...parts.object, ...parts.array];
  return {
    refers: all.some((part) => part.refers),
    deep: all.some((part) => part.deep),
    // `typeof value === "…"` tests, which V8 compiles to type checks (a switch on the
    // string it returns was a tenth of the time).
    check: (value) => {
      if (typeof value === "object") {
        if (value === null) return onNull(null);
        return Array.isArray(value) ? onArray(value) : onObject(value as JsonObject);
      }
      if (typeof value === "string") return onString(value);
      if (typeof value === "number") return onNumber(value);
      if (typeof value === "boolean") return onBoolean(value);
      // undefined, a function, a bigint, a symbol: the full validator throws on them.
      throw UNDECIDED;
    },
  };
}

function cheapFirst<T>(parts: Part<T>[]): Part<T>[] {
  return [...parts.filter((part) => !part.deep), ...parts.filter((part) => part.deep)];
}

/**
 * Applies one of a group of checks on one value. Once another one of them has applied a
 * reference (`mark`, the count when the group began, has moved), both may reach the same
 * (target, container), so this one remembers the verdicts its references compute.
 */
function after<T>(run: Run, mark: number, check: (value: T) => boolean, value: T): boolean {
  if (run.recording || run.applied === mark) return check(value);
  run.recording = true;
  const verdict = check(value);
  run.recording = false;
  return verdict;
}

/** Whether a group has two checks that may apply references, and so must use after(). */
function mayMeetAgain(parts: { refers: boolean }[]): boolean {
  return parts.filter((part) => part.refers).length > 1;
}

/** All of `parts` on one value, in order. */
function allOnOneValue<T>(parts: Part<T>[], run: Run): (value: T) => boolean {
  const checks = parts.map((part) => part.check);
  if (!mayMeetAgain(parts)) return every(checks);
  return (value) => {
    const mark = run.applied;
    for (let i = 0; i < checks.length; i++) if (!after(run, mark, checks[i], value)) return false;
    return true;
  };
}

/** All of `checks`, unrolled for the short lists that most schemas have. */
function every<T>(checks: ((value: T) => boolean)[]): (value: T) => boolean {
  const [a, b, c, d] = checks;
  switch (checks.length) {
    case 0:
      return accept;
    case 1:
      return a;
    case 2:
      return (value) => a(value) && b(value);
    case 3:
      return (value) => a(value) && b(value) && c(value);
    case 4:
      return (value) => a(value) && b(value) && c(value) && d(value);
    default:
      return (value) => {
        for (let i = 0; i < checks.length; i++) if (!checks[i](value)) return false;
        return true;
      };
  }
}

function typeOf(type: unknown): { mask: number; singleInteger: boolean } {
  if (type === undefined) return { mask: ANY_TYPE, singleInteger: false };
  const names = Array.isArray(type) ? type : [type];
  let mask = 0;
  for (const name of names) {
    const bit = typeof name === "string" && Object.hasOwn(TYPE_BITS, name) ? TYPE_BITS[name] : 0;
    if (bit === 0) throw new UnsupportedSchema(`type ${JSON.stringify(name)} is not a JSON type`);
    mask |= bit;
  }
  return { mask, singleInteger: !Array.isArray(type) };
}

/** As the vendor compares: strictly for a primitive, deepCompareStrict for a container. */
function constCheck(expected: unknown): Check {
  if (typeof expected !== "object" || expected === null) return (value) => value === expected;
  return (value) =>
    typeof value === "object" && value !== null && deepCompareStrict(value, expected);
}

function enumCheck(members: unknown): Check {
  if (!Array.isArray(members)) throw new UnsupportedSchema('"enum" is not an array');
  // `===` as the vendor compares primitives: a Set would also find NaN, which `===` never does.
  const primitives = new Set(
    members.filter((member) =>
      (typeof member !== "object" || member === null) && member === member
    ),
  );
  const containers = members.filter((member) => typeof member === "object" && member !== null);
  return (value) => {
    if (typeof value !== "object" || value === null) return primitives.has(value);
    for (let i = 0; i < containers.length; i++) {
      if (deepCompareStrict(value, containers[i])) return true;
    }
    return false;
  };
}

/** `not`, `anyOf`, `allOf`, `oneOf` and `if`/`then`/`else`. */
function sameValueApplicators(s: Schema, context: Context): AnyPart[] {
  const run = context.run;
  const found: AnyPart[] = [];
  if (s.not !== undefined) {
    const not = compile(s.not, context);
    found.push({ ...not, check: (value) => !not.check(value) });
  }
  if (s.anyOf !== undefined) {
    const parts = compileList(s.anyOf, "anyOf", context);
    const branches = parts.map((part) => part.check);
    const grouped = mayMeetAgain(parts);
    found.push({
      ...flagsOf(parts),
      check: (value) => {
        const mark = run.applied;
        for (let i = 0; i < branches.length; i++) {
          if (grouped ? after(run, mark, branches[i], value) : branches[i](value)) return true;
        }
        return false;
      },
    });
  }
  if (s.allOf !== undefined) {
    const parts = compileList(s.allOf, "allOf", context);
    found.push({ ...flagsOf(parts), check: allOnOneValue(parts, run) });
  }
  if (s.oneOf !== undefined) {
    const parts = compileList(s.oneOf, "oneOf", context);
    const branches = parts.map((part) => part.check);
    const grouped = mayMeetAgain(parts);
    found.push({
      ...flagsOf(parts),
      check: (value) => {
        const mark = run.applied;
        let matches = 0;
        for (let i = 0; i < branches.length; i++) {
          const match = grouped ? after(run, mark, branches[i], value) : branches[i](value);
          if (match && ++matches > 1) return false;
        }
        return matches === 1;
      },
    });
  }
  if (s.if !== undefined) {
    const condition = compile(s.if, context);
    const then = s.then === undefined ? ACCEPT : compile(s.then, context);
    const otherwise = s.else === undefined ? ACCEPT : compile(s.else, context);
    const [test, yes, no] = [condition.check, then.check, otherwise.check];
    found.push({
      ...flagsOf([condition, then, otherwise]),
      check: (value) => {
        const mark = run.applied;
        return test(value) ? after(run, mark, yes, value) : after(run, mark, no, value);
      },
    });
  }
  return found;
}

function flagsOf(parts: { refers: boolean; deep: boolean }[]): { refers: boolean; deep: boolean } {
  return { refers: parts.some((part) => part.refers), deep: parts.some((part) => part.deep) };
}

function compileList(schemas: unknown, keyword: string, context: Context): AnyPart[] {
  if (!Array.isArray(schemas)) throw new UnsupportedSchema(`"${keyword}" is not an array`);
  return schemas.map((schema) => compile(schema, context));
}

function targetOf(s: Schema, context: Context): Schema | boolean {
  const target = context.options.lookup[s.__absolute_ref__ || s.$ref!];
  if (target === undefined) throw new UnsupportedSchema(`$ref "${s.$ref}" does not resolve`);
  return target;
}

/**
 * A `$ref`: the target's closure, bound late (it may still be compiling); while the run is
 * recording, its verdicts on containers are remembered for the rest of the validation.
 */
function referenceTo(s: Schema, context: Context): AnyPart {
  const target = targetOf(s, context);
  if (typeof target === "boolean") return target ? ACCEPT : REJECT;
  const cell = cellOf(target as JsonObject, context);
  const run = context.run;
  const check: Check = (value) => {
    run.applied++;
    if (!run.recording || typeof value !== "object" || value === null) {
      return cell.part.check(value);
    }
    let memo = cell.memo;
    if (memo === undefined) {
      memo = cell.memo = new Map();
      run.memos.push(cell);
    }
    let verdict = memo.get(value);
    if (verdict === undefined) {
      verdict = cell.part.check(value);
      memo.set(value, verdict);
    }
    return verdict;
  };
  return { check, refers: true, deep: true };
}

/**
 * The most references applying `schema` to a value can apply to that same value: through
 * `$ref` and the keywords that stay on the value. Finite, since compileSchema() refuses
 * cycles of these; but it doubles with each level of `allOf: [{$ref}, {$ref}]`.
 */
function referencesOnOneValue(schema: unknown, context: Context): number {
  if (typeof schema !== "object" || schema === null) return 0;
  if (Array.isArray(schema)) {
    return schema.reduce((sum: number, item) => sum + referencesOnOneValue(item, context), 0);
  }
  const known = context.fanOut.get(schema);
  if (known !== undefined) return known;
  context.fanOut.set(schema, Infinity); // a cycle, should one get here, is refused
  const s = schema as Schema;
  let count = 0;
  if (s.$ref !== undefined) count += 1 + referencesOnOneValue(targetOf(s, context), context);
  const draft = context.options.draft;
  if (s.$ref === undefined || (draft !== "4" && draft !== "7")) {
    for (const applied of [s.not, s.anyOf, s.allOf, s.oneOf, s.if, s.then, s.else]) {
      count += referencesOnOneValue(applied, context);
    }
    for (const map of [s.dependentSchemas, s.dependencies]) {
      if (map !== undefined) count += referencesOnOneValue(Object.values(map), context);
    }
  }
  context.fanOut.set(schema, count);
  return count;
}

function stringChecks(s: Schema): ((value: string) => boolean)[] {
  const checks: ((value: string) => boolean)[] = [];
  const { minLength, maxLength, pattern, format: name } = s;
  // ucs2length() is at least half the UTF-16 length and at most all of it: most strings are
  // decided without counting.
  if (minLength !== undefined) {
    checks.push((value) => (value.length + 1) >> 1 >= minLength || ucs2length(value) >= minLength);
  }
  if (maxLength !== undefined) {
    checks.push((value) => value.length <= maxLength || ucs2length(value) <= maxLength);
  }
  if (pattern !== undefined) {
    const regex = patternOf(pattern);
    checks.push((value) => regex.test(value));
  }
  if (name !== undefined) {
    // The vendor calls `format[name]` when it is truthy; a name inherited from
    // Object.prototype ("toString") would call that, which is not mirrored here.
    if (Object.hasOwn(format, name)) {
      const test = format[name];
      checks.push((value) => test(value));
    } else if ((format as Record<string, unknown>)[name] !== undefined) {
      throw new UnsupportedSchema(`format "${name}" is not one of the validator's own`);
    }
  }
  return checks;
}

function numberChecks(s: Schema, draft: SchemaDraft): ((value: number) => boolean)[] {
  const checks: ((value: number) => boolean)[] = [];
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = s;
  // `!(a < b)` rather than `a >= b`: the vendor fails a value only when its comparison
  // holds, and no comparison with NaN does.
  if (draft === "4") {
    // draft-04: `exclusiveMinimum: true` makes `minimum` exclusive; a number there is ignored.
    if (minimum !== undefined) {
      checks.push(
        exclusiveMinimum === true ? (value) => !(value <= minimum) : (value) => !(value < minimum),
      );
    }
    if (maximum !== undefined) {
      checks.push(
        exclusiveMaximum === true ? (value) => !(value >= maximum) : (value) => !(value > maximum),
      );
    }
  } else {
    if (minimum !== undefined) checks.push((value) => !(value < minimum));
    if (maximum !== undefined) checks.push((value) => !(value > maximum));
    if (exclusiveMinimum !== undefined) {
      const bound = exclusiveMinimum as number;
      checks.push((value) => !(value <= bound));
    }
    if (exclusiveMaximum !== undefined) {
      const bound = exclusiveMaximum as number;
      checks.push((value) => !(value >= bound));
    }
  }
  if (multipleOf !== undefined) checks.push((value) => isMultipleOf(value, multipleOf));
  return checks;
}

const hasOwn = Object.hasOwn;

/** Whether `for…in` visits only own keys of `value`: a plain object, and no pollution. */
function isPlain(value: object, run: Run): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  if (run.cleanPrototype === undefined) {
    run.cleanPrototype = true;
    for (const _ in Object.prototype) run.cleanPrototype = false;
  }
  return run.cleanPrototype;
}

function objectParts(s: Schema, context: Context): Part<JsonObject>[] {
  const parts: Part<JsonObject>[] = [];
  if (s.required !== undefined) {
    const required = stringsOf(s.required, "required");
    parts.push(shallow((value) => {
      for (let i = 0; i < required.length; i++) if (!hasOwn(value, required[i])) return false;
      return true;
    }));
  }
  const { minProperties, maxProperties } = s;
  if (minProperties !== undefined || maxProperties !== undefined) {
    parts.push(shallow((value) => {
      const count = Object.keys(value).length;
      return !(minProperties !== undefined && count < minProperties) &&
        !(maxProperties !== undefined && count > maxProperties);
    }));
  }
  // dependentRequired, and the arrays of dependencies: a present key requires these keys.
  const needs: [string, string[]][] = [];
  // dependentSchemas, and the schemas of dependencies: a present key applies this schema.
  const implies: [string, AnyPart][] = [];
  if (s.dependentRequired !== undefined) {
    for (const key in s.dependentRequired) {
      needs.push([key, stringsOf(s.dependentRequired[key], "dependentRequired")]);
    }
  }
  if (s.dependentSchemas !== undefined) {
    for (const [key, schema] of Object.entries(s.dependentSchemas)) {
      implies.push([key, compile(schema, context)]);
    }
  }
  if (s.dependencies !== undefined) {
    for (const key in s.dependencies) {
      const dependency = s.dependencies[key];
      if (Array.isArray(dependency)) needs.push([key, stringsOf(dependency, "dependencies")]);
      else implies.push([key, compile(dependency, context)]);
    }
  }
  if (needs.length > 0) {
    parts.push(shallow((value) => {
      for (const [key, required] of needs) {
        if (!hasOwn(value, key)) continue;
        for (let i = 0; i < required.length; i++) if (!hasOwn(value, required[i])) return false;
      }
      return true;
    }));
  }
  if (implies.length > 0) parts.push(impliedCheck(implies, context.run));
  const properties = propertiesCheck(s, context);
  if (properties !== undefined) parts.push(properties);
  const others = otherPropertiesCheck(s, context);
  if (others !== undefined) parts.push(others);
  if (s.propertyNames !== undefined) {
    const names = compile(s.propertyNames, context);
    const check = names.check;
    parts.push({
      refers: names.refers,
      deep: true,
      check: (value) => {
        for (const key in value) if (!check(key)) return false;
        return true;
      },
    });
  }
  return parts;
}

/** The schemas that a present key applies to the whole object. */
function impliedCheck(implies: [string, AnyPart][], run: Run): Part<JsonObject> {
  const parts = implies.map(([, part]) => part);
  const grouped = mayMeetAgain(parts);
  return {
    ...flagsOf(parts),
    check: (value) => {
      const mark = run.applied;
      for (const [key, { check }] of implies) {
        if (!hasOwn(value, key)) continue;
        if (!(grouped ? after(run, mark, check, value) : check(value))) return false;
      }
      return true;
    },
  };
}

/** `properties`, those whose schemas look only at the property's value first. */
function propertiesCheck(s: Schema, context: Context): Part<JsonObject> | undefined {
  if (s.properties === undefined) return undefined;
  const compiled = Object.entries(s.properties).map(([key, schema]) =>
    [key, compile(schema, context)] as const
  );
  const ordered = [
    ...compiled.filter(([, part]) => !part.deep),
    ...compiled.filter(([, part]) => part.deep),
  ];
  const keys = ordered.map(([key]) => key);
  const checks = ordered.map(([, part]) => part.check);
  // The vendor applies these to own properties only. A plain object inherits only
  // Object.prototype's names, so for any other name a value read means an own property, and
  // only a missing one needs asking (it may be an own `undefined`). An object of another
  // prototype may get checked on an inherited value too: a stricter verdict, never a laxer.
  const inheritable = keys.map((key) => key in Object.prototype);
  return {
    refers: ordered.some(([, part]) => part.refers),
    deep: true,
    check: (value) => {
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const item = value[key];
        if (item === undefined || inheritable[i]) {
          if (hasOwn(value, key) && !checks[i](item)) return false;
        } else if (!checks[i](item)) return false;
      }
      return true;
    },
  };
}

/**
 * `patternProperties` and `additionalProperties`, in one pass over the keys: a key that no
 * own property of `properties` and no pattern covers is additional.
 */
function otherPropertiesCheck(s: Schema, context: Context): Part<JsonObject> | undefined {
  const patterns = Object.entries(s.patternProperties ?? {}).map(([pattern, schema]) =>
    [patternOf(pattern), compile(schema, context)] as const
  );
  const additional = s.additionalProperties === undefined
    ? ACCEPT
    : compile(s.additionalProperties, context);
  if (patterns.length === 0 && additional === ACCEPT) return undefined;
  const named = new Set(Object.keys(s.properties ?? {}));
  const regexes = patterns.map(([regex]) => regex);
  const checks = patterns.map(([, part]) => part.check);
  // Several patterns may match one key, and so apply their schemas to one value.
  const grouped = mayMeetAgain(patterns.map(([, part]) => part));
  const run = context.run;
  const rest = additional.check;
  return {
    ...flagsOf([additional, ...patterns.map(([, part]) => part)]),
    deep: true,
    check: (value) => {
      // A key of `for…in` is own unless a prototype has enumerable properties: asked once
      // per object (when a key is named), rather than once per named key.
      let plain: boolean | undefined;
      for (const key in value) {
        let covered = named.has(key) && ((plain ??= isPlain(value, run)) || hasOwn(value, key));
        const mark = run.applied;
        for (let i = 0; i < regexes.length; i++) {
          if (!regexes[i].test(key)) continue;
          covered = true;
          if (!(grouped ? after(run, mark, checks[i], value[key]) : checks[i](value[key]))) {
            return false;
          }
        }
        if (!covered && additional !== ACCEPT && !rest(value[key])) return false;
      }
      return true;
    },
  };
}

function arrayParts(s: Schema, context: Context): Part<unknown[]>[] {
  const parts: Part<unknown[]>[] = [];
  const { minItems, maxItems } = s;
  if (maxItems !== undefined) parts.push(shallow((value) => !(value.length > maxItems)));
  if (minItems !== undefined) parts.push(shallow((value) => !(value.length < minItems)));
  const items = itemsCheck(s, context);
  if (items !== undefined) parts.push(items);
  if (s.contains !== undefined) parts.push(containsCheck(s, context));
  // Last: hashing every item is the dearest check of all.
  if (s.uniqueItems) {
    parts.push({
      check: (value) => firstDuplicate(value) === undefined,
      refers: false,
      deep: true,
    });
  }
  return parts;
}

/**
 * `prefixItems`, `items` and `additionalItems`, as the vendor walks them with one index:
 * `prefixItems` from 0, then an array `items` from where that stopped (so its first entries
 * may go unused), then a schema `items` (from the end of `prefixItems`) or, after an array
 * `items`, `additionalItems` for the rest.
 */
function itemsCheck(s: Schema, context: Context): Part<unknown[]> | undefined {
  const prefix = s.prefixItems === undefined
    ? []
    : compileList(s.prefixItems, "prefixItems", context);
  const tuple = Array.isArray(s.items) ? compileList(s.items, "items", context) : [];
  const positional: AnyPart[] = [];
  for (let i = 0; i < Math.max(prefix.length, tuple.length); i++) {
    positional.push(i < prefix.length ? prefix[i] : tuple[i]);
  }
  let rest = ACCEPT;
  if (s.items !== undefined && !Array.isArray(s.items)) rest = compile(s.items, context);
  else if (Array.isArray(s.items) && s.additionalItems !== undefined) {
    rest = compile(s.additionalItems, context);
  }
  if (positional.length === 0 && rest === ACCEPT) return undefined;
  // A schema `items` starts after `prefixItems`; `additionalItems` after both.
  const restFrom = Array.isArray(s.items) ? positional.length : prefix.length;
  const fixed = positional.map((part) => part.check);
  const check = rest.check;
  return {
    ...flagsOf([rest, ...positional]),
    deep: true,
    check: (value) => {
      const length = value.length;
      const end = Math.min(fixed.length, length);
      for (let i = 0; i < end; i++) if (!fixed[i](value[i])) return false;
      if (rest !== ACCEPT) {
        for (let i = restFrom; i < length; i++) if (!check(value[i])) return false;
      }
      return true;
    },
  };
}

/** `contains` with `minContains`/`maxContains`, with the vendor's reading of empty arrays. */
function containsCheck(s: Schema, context: Context): Part<unknown[]> {
  const contains = compile(s.contains, context);
  const test = contains.check;
  const { minContains, maxContains } = s;
  if (minContains === undefined && maxContains === undefined) {
    return {
      refers: contains.refers,
      deep: true,
      check: (value) => {
        for (let i = 0; i < value.length; i++) if (test(value[i])) return true;
        return false;
      },
    };
  }
  return {
    refers: contains.refers,
    deep: true,
    check: (value) => {
      const length = value.length;
      if (minContains === undefined && length === 0) return false;
      if (minContains !== undefined && length < minContains) return false;
      let contained = 0;
      for (let i = 0; i < length; i++) if (test(value[i])) contained++;
      if (minContains === undefined ? contained === 0 : contained < minContains) return false;
      return !(maxContains !== undefined && contained > maxContains);
    },
  };
}

/**
 * The validator's own RegExp for a pattern. One that does not compile (a draft-04
 * `patternProperties` key, which its meta-schema does not check) is left to the validator,
 * which throws at each validation as it always did.
 */
function patternOf(source: string): RegExp {
  try {
    return compiledPattern(source);
  } catch {
    throw new UnsupportedSchema(`the pattern "${source}" does not compile with the u flag`);
  }
}

function stringsOf(value: unknown, keyword: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new UnsupportedSchema(`"${keyword}" is not an array of strings`);
  }
  return value;
}
