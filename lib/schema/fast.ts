// A schema's verdict, compiled once into a tree of closures that only says yes or no
// (adr/0027). The vendored validator interprets a schema at every
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
// `unevaluatedProperties`/`unevaluatedItems` read a record of the properties and items that
// other keywords on the same value evaluated, as the vendor keeps it (see Rec): shared with
// `$ref`, `$recursiveRef`, `then`/`else` and `dependentSchemas`, inherited by the branches of
// `anyOf`/`allOf`/`oneOf` and added to when they pass, fresh for `if` (added when it passes),
// `not`, `dependencies` and every value below. So a subschema's verdict on a value depends on
// the record it meets only through applications on that same value, which the schema bounds;
// an application that meets a fresh record (every one that descends) is a function of the
// subschema and the value, and is remembered as above. Subschemas that need no record compile
// as before; those that do get an annotator (buildAnnotator()), in the vendor's order.
// `$recursiveRef` resolves against the dynamic anchor (the vendor's `recursiveAnchor`), a
// parameter of compilation here: a subschema compiles once per anchor it can meet.
// `$dynamicRef` and `$dynamicAnchor` are ignored, as the vendor ignores them.
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

interface VerdictOptions {
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

/**
 * Keywords whose results depend on more than the schema and the value: mirrored when the
 * whole schema compiles at once (its record and anchors are known then), not lazily.
 */
const LAZILY_UNSUPPORTED = [
  "unevaluatedProperties",
  "unevaluatedItems",
  "$recursiveRef",
  "$recursiveAnchor",
];

/** The vendor's `recursiveAnchor`: the schema a `$recursiveRef` of "#" goes to, if any. */
type Anchor = JsonObject | null;

/** A compiled schema object at one anchor, shared by every place that uses it. */
interface Cell {
  part: AnyPart;
  compiling: boolean;
  /** This validation's remembered verdicts on containers, as a reference target. */
  memo: Map<object, boolean> | undefined;
  /** Its applications that read or add to a record, by variant (see annotatorOf()). */
  variants: Variant[] | undefined;
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
  /** The compiled cells, by anchor then schema object. */
  cells: Map<Anchor, Map<object, Cell>>;
  run: Run;
  /** References applied on one value, by anchor then subschema (see referencesOnOneValue()). */
  fanOut: Map<Anchor, Map<object, number>>;
  /** Whether some subschema reads the record of evaluated properties or items. */
  records: boolean;
  /** Whether some subschema has a `$recursiveRef` of "#", the only reader of anchors. */
  anchors: boolean;
  /** What each subschema does with the record (see recordUse()). */
  uses: Map<object, RecordUse>;
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
  const found = options.lazy ? { records: false, anchors: false } : scan(schema, options.lookup);
  const context: Context = {
    options,
    cells: new Map(),
    run,
    fanOut: new Map(),
    ...found,
    uses: new Map(),
  };
  const root = compile(schema, context, null).check;
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

/**
 * Whether any object in the schema has the keywords that need a record of evaluated
 * properties and items, or anchors: a schema without them compiles as if neither existed.
 */
function scan(
  schema: unknown,
  lookup: Record<string, Schema | boolean>,
): { records: boolean; anchors: boolean } {
  const found = { records: false, anchors: false };
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const object = node as JsonObject;
    if (object.unevaluatedProperties !== undefined || object.unevaluatedItems !== undefined) {
      found.records = true;
    }
    if (object.$recursiveRef === "#") found.anchors = true;
    for (const key in object) visit(object[key]);
  };
  visit(schema);
  for (const key in lookup) visit(lookup[key]);
  return found;
}

function compile(schema: unknown, context: Context, anchor: Anchor): AnyPart {
  if (schema === true) return ACCEPT;
  if (schema === false) return REJECT;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new UnsupportedSchema("a subschema is neither an object nor a boolean");
  }
  const cell = cellOf(schema as JsonObject, context, anchor);
  if (!cell.compiling) return cell.part;
  // Met again inside itself, which only a reference to an ancestor does: bound late.
  return { check: (value) => cell.part.check(value), refers: true, deep: true };
}

function cellOf(schema: JsonObject, context: Context, anchor: Anchor): Cell {
  let cells = context.cells.get(anchor);
  if (cells === undefined) context.cells.set(anchor, cells = new Map());
  let cell = cells.get(schema);
  if (cell === undefined) {
    cell = { part: REJECT, compiling: true, memo: undefined, variants: undefined };
    cells.set(schema, cell);
    if (context.options.lazy) {
      let compiled: AnyPart | undefined;
      cell.part = {
        check: (value) => (compiled ??= compileObject(schema, context, anchor)).check(value),
        refers: true,
        deep: true,
      };
      cell.compiling = false;
      return cell;
    }
    cell.part = compileObject(schema, context, anchor);
    cell.compiling = false;
  }
  return cell;
}

/** The anchor below `s`: the vendor's `recursiveAnchor` once `$recursiveAnchor` is read. */
function anchorBelow(s: Schema, anchor: Anchor, context: Context): Anchor {
  if (!context.anchors) return null;
  return s.$recursiveAnchor === true && anchor === null ? s as JsonObject : anchor;
}

/** The anchor of the branches of `anyOf`, `allOf` and `oneOf`: none, as the vendor has it,
 * unless `s` itself has `$recursiveAnchor`. */
function branchAnchor(s: Schema, below: Anchor): Anchor {
  return s.$recursiveAnchor === true ? below : null;
}

/**
 * What a `$recursiveRef` of "#" in `s` applies, as the vendor resolves it: with no anchor
 * yet, `s` itself again, at the anchor its URI names; else the anchor, at itself.
 */
function recursiveTarget(s: Schema, below: Anchor, context: Context): [JsonObject, Anchor] {
  if (below !== null) return [below, below];
  const target = context.options.lookup[s.__absolute_recursive_ref__ ?? ""];
  if (typeof target !== "object" || target === null) {
    throw new UnsupportedSchema(`$recursiveRef "${s.$recursiveRef}" does not resolve to a schema`);
  }
  return [s as JsonObject, target as JsonObject];
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

function compileObject(schema: JsonObject, context: Context, anchor: Anchor): AnyPart {
  if (context.options.lazy) {
    for (const keyword of LAZILY_UNSUPPORTED) {
      if (schema[keyword] !== undefined) throw new UnsupportedSchema(`it uses "${keyword}"`);
    }
  }
  const s = schema as Schema;
  const { draft, maxReferencesPerValue } = context.options;
  if (
    maxReferencesPerValue !== Infinity &&
    referencesOnOneValue(s, anchor, context) > maxReferencesPerValue
  ) {
    throw new UnsupportedSchema(
      `a subschema applies more than ${maxReferencesPerValue} references to one value`,
    );
  }
  const below = anchorBelow(s, anchor, context);
  // Objects and arrays go to the annotator when this subschema needs a record of its own.
  const containers = context.records && recordUse(s, context).reads
    ? buildAnnotator(s, context, anchor, false, false)
    : undefined;
  const parts: Parts = { any: [], object: [], array: [], string: [], number: [] };
  if (context.anchors && s.$recursiveRef === "#") {
    const [target, at] = recursiveTarget(s, below, context);
    parts.any.push(referenceTo(target, at, context));
  }
  if (s.$ref !== undefined) {
    parts.any.push(referenceTo(targetOf(s, context), below, context));
    // draft-04 and draft-07 ignore the keywords beside `$ref`, as the vendor does.
    if (draft === "4" || draft === "7") {
      return dispatch(ANY_TYPE, false, parts, context.run, containers);
    }
  }
  if (s.const !== undefined) parts.any.push(shallow(constCheck(s.const)));
  if (s.enum !== undefined) parts.any.push(shallow(enumCheck(s.enum)));
  parts.any.push(...sameValueApplicators(s, context, below, false));
  if (containers === undefined) {
    parts.object.push(...objectParts(s, context, below, false));
    parts.array.push(...arrayParts(s, context, below, false));
  }
  parts.string.push(...stringChecks(s).map(shallow));
  parts.number.push(...numberChecks(s, draft).map(shallow));
  const { mask, singleInteger } = typeOf(s.type);
  return dispatch(mask, singleInteger, parts, context.run, containers);
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
function dispatch(
  mask: number,
  singleInteger: boolean,
  parts: Parts,
  run: Run,
  containers?: ContainerAnnotator,
): AnyPart {
  // The checks of every kind, shared by the kinds without checks of their own: a schema
  // compiles to a few closures, not one per kind (a meta-schema's cells compile at start-up).
  const common = parts.any.length === 0 ? accept : allOnOneValue(cheapFirst(parts.any), run);
  const forKind = <T>(bit: number, own: Part<T>[], first: Part<T>[] = []) =>
    (mask & bit) === 0
      ? reject
      : own.length === 0 && first.length === 0
      ? common
      : allOnOneValue([...first, ...cheapFirst([...parts.any, ...own])], run);
  // With an annotator, a record of its own for each object and array (it checks everything).
  const withRecord = (bit: number): Check =>
    (mask & bit) === 0 ? reject : (value) => containers!(value as object, freshRecord());
  const onObject = containers === undefined ? forKind(OBJECT, parts.object) : withRecord(OBJECT);
  const onArray = containers === undefined ? forKind(ARRAY, parts.array) : withRecord(ARRAY);
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
    refers: containers !== undefined || all.some((part) => part.refers),
    deep: containers !== undefined || all.some((part) => part.deep),
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

/**
 * `not`, `anyOf`, `allOf`, `oneOf` and `if`/`then`/`else`; only `not` when `recordFree` (the
 * annotator applies the others, with their records).
 */
function sameValueApplicators(
  s: Schema,
  context: Context,
  below: Anchor,
  recordFree: boolean,
): AnyPart[] {
  const run = context.run;
  const found: AnyPart[] = [];
  if (s.not !== undefined) {
    const not = compile(s.not, context, below);
    found.push({ ...not, check: (value) => !not.check(value) });
  }
  if (recordFree) return found;
  const inBranches = branchAnchor(s, below);
  if (s.anyOf !== undefined) {
    const parts = compileList(s.anyOf, "anyOf", context, inBranches);
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
    const parts = compileList(s.allOf, "allOf", context, inBranches);
    found.push({ ...flagsOf(parts), check: allOnOneValue(parts, run) });
  }
  if (s.oneOf !== undefined) {
    const parts = compileList(s.oneOf, "oneOf", context, inBranches);
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
    const condition = compile(s.if, context, below);
    const then = s.then === undefined ? ACCEPT : compile(s.then, context, below);
    const otherwise = s.else === undefined ? ACCEPT : compile(s.else, context, below);
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

function compileList(
  schemas: unknown,
  keyword: string,
  context: Context,
  anchor: Anchor,
): AnyPart[] {
  if (!Array.isArray(schemas)) throw new UnsupportedSchema(`"${keyword}" is not an array`);
  return schemas.map((schema) => compile(schema, context, anchor));
}

function targetOf(s: Schema, context: Context): Schema | boolean {
  const target = context.options.lookup[s.__absolute_ref__ || s.$ref!];
  if (target === undefined) throw new UnsupportedSchema(`$ref "${s.$ref}" does not resolve`);
  return target;
}

/**
 * A reference (`$ref`, `$recursiveRef`): the target's closure at its anchor, bound late (it
 * may still be compiling); while the run is recording, its verdicts on containers are
 * remembered for the rest of the validation.
 */
function referenceTo(target: Schema | boolean, anchor: Anchor, context: Context): AnyPart {
  if (typeof target === "boolean") return target ? ACCEPT : REJECT;
  const cell = cellOf(target as JsonObject, context, anchor);
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
function referencesOnOneValue(schema: unknown, anchor: Anchor, context: Context): number {
  if (typeof schema !== "object" || schema === null) return 0;
  if (Array.isArray(schema)) {
    return schema.reduce(
      (sum: number, item) => sum + referencesOnOneValue(item, anchor, context),
      0,
    );
  }
  let fanOut = context.fanOut.get(anchor);
  if (fanOut === undefined) context.fanOut.set(anchor, fanOut = new Map());
  const known = fanOut.get(schema);
  if (known !== undefined) return known;
  fanOut.set(schema, Infinity); // a cycle, should one get here, is refused
  const s = schema as Schema;
  const below = anchorBelow(s, anchor, context);
  let count = 0;
  if (context.anchors && s.$recursiveRef === "#") {
    const [target, at] = recursiveTarget(s, below, context);
    count += 1 + referencesOnOneValue(target, at, context);
  }
  if (s.$ref !== undefined) {
    count += 1 + referencesOnOneValue(targetOf(s, context), below, context);
  }
  const draft = context.options.draft;
  if (s.$ref === undefined || (draft !== "4" && draft !== "7")) {
    for (const applied of [s.not, s.if, s.then, s.else]) {
      count += referencesOnOneValue(applied, below, context);
    }
    for (const applied of [s.anyOf, s.allOf, s.oneOf]) {
      count += referencesOnOneValue(applied, branchAnchor(s, below), context);
    }
    for (const map of [s.dependentSchemas, s.dependencies]) {
      if (map !== undefined) count += referencesOnOneValue(Object.values(map), below, context);
    }
  }
  fanOut.set(schema, count);
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

/**
 * The checks of objects. With `recordFree`, only those that neither read nor add to the
 * record (not `dependentSchemas`, `properties`, `patternProperties`, `additionalProperties`):
 * the annotator applies those, in the vendor's order.
 */
function objectParts(
  s: Schema,
  context: Context,
  below: Anchor,
  recordFree: boolean,
): Part<JsonObject>[] {
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
  if (s.dependentSchemas !== undefined && !recordFree) {
    for (const [key, schema] of Object.entries(s.dependentSchemas)) {
      implies.push([key, compile(schema, context, below)]);
    }
  }
  if (s.dependencies !== undefined) {
    for (const key in s.dependencies) {
      const dependency = s.dependencies[key];
      if (Array.isArray(dependency)) needs.push([key, stringsOf(dependency, "dependencies")]);
      else implies.push([key, compile(dependency, context, below)]);
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
  if (!recordFree) {
    const properties = propertiesCheck(s, context, below);
    if (properties !== undefined) parts.push(properties);
    const others = otherPropertiesCheck(s, context, below);
    if (others !== undefined) parts.push(others);
  }
  if (s.propertyNames !== undefined) {
    const names = compile(s.propertyNames, context, below);
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

/** Up to this many `properties`, each is asked for by name; past it, the value's keys are walked. */
const BY_NAME_AT_MOST = 16;

/** `properties`, those whose schemas look only at the property's value first. */
function propertiesCheck(
  s: Schema,
  context: Context,
  below: Anchor,
): Part<JsonObject> | undefined {
  if (s.properties === undefined) return undefined;
  const compiled = Object.entries(s.properties).map(([key, schema]) =>
    [key, compile(schema, context, below)] as const
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
  const refers = ordered.some(([, part]) => part.refers);
  if (keys.length > BY_NAME_AT_MOST) {
    // Many names (a meta-schema's ~60 keywords against a schema's three): the value's own keys
    // are walked instead, so the work follows the value. Asking every name of a meta-schema of
    // every subschema of every tool made a loop hot enough at start-up for V8 to optimize it,
    // ~1.2 MB of peak memory at the first answer (adr/0074).
    const byName = new Map(ordered.map(([key, part]) => [key, part.check]));
    return {
      refers,
      deep: true,
      check: (value) => {
        for (const key in value) {
          const check = byName.get(key);
          if (check !== undefined && hasOwn(value, key) && !check(value[key])) return false;
        }
        return true;
      },
    };
  }
  return {
    refers,
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
function otherPropertiesCheck(
  s: Schema,
  context: Context,
  below: Anchor,
): Part<JsonObject> | undefined {
  const patterns = Object.entries(s.patternProperties ?? {}).map(([pattern, schema]) =>
    [patternOf(pattern), compile(schema, context, below)] as const
  );
  const additional = s.additionalProperties === undefined
    ? ACCEPT
    : compile(s.additionalProperties, context, below);
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

/** The checks of arrays; with `recordFree`, not those of items (see objectParts()). */
function arrayParts(
  s: Schema,
  context: Context,
  below: Anchor,
  recordFree: boolean,
): Part<unknown[]>[] {
  const parts: Part<unknown[]>[] = [];
  const { minItems, maxItems } = s;
  if (maxItems !== undefined) parts.push(shallow((value) => !(value.length > maxItems)));
  if (minItems !== undefined) parts.push(shallow((value) => !(value.length < minItems)));
  if (!recordFree) {
    const items = itemsCheck(s, context, below);
    if (items !== undefined) parts.push(items);
    if (s.contains !== undefined) parts.push(containsCheck(s, context, below));
  }
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
function itemsCheck(s: Schema, context: Context, below: Anchor): Part<unknown[]> | undefined {
  const prefix = s.prefixItems === undefined
    ? []
    : compileList(s.prefixItems, "prefixItems", context, below);
  const tuple = Array.isArray(s.items) ? compileList(s.items, "items", context, below) : [];
  const positional: AnyPart[] = [];
  for (let i = 0; i < Math.max(prefix.length, tuple.length); i++) {
    positional.push(i < prefix.length ? prefix[i] : tuple[i]);
  }
  let rest = ACCEPT;
  if (s.items !== undefined && !Array.isArray(s.items)) rest = compile(s.items, context, below);
  else if (Array.isArray(s.items) && s.additionalItems !== undefined) {
    rest = compile(s.additionalItems, context, below);
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
function containsCheck(s: Schema, context: Context, below: Anchor): Part<unknown[]> {
  const contains = compile(s.contains, context, below);
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

// ---- the record of evaluated properties and items (unevaluatedProperties, unevaluatedItems) ----

/**
 * The vendor's `evaluated` record of one value: the properties (keys) or items (indexes)
 * that keywords evaluated, and what it sees through `parent`, as the vendor's records see
 * through their prototype (`Object.create(evaluated)` for a branch of `anyOf`/`allOf`/`oneOf`).
 */
interface Rec {
  parent: Rec | undefined;
  /** Every property or item. */
  all: boolean;
  /** Every item below this index. */
  upTo: number;
  /** Other keys or indexes. */
  keys: Set<string | number> | undefined;
  /**
   * The names of `properties` keywords that passed, each the compiled set of its schema (not
   * a copy): those that are own properties of the value count as seen.
   */
  named: ReadonlySet<string>[] | undefined;
}

function freshRecord(parent?: Rec): Rec {
  return { parent, all: false, upTo: 0, keys: undefined, named: undefined };
}

function seenKey(record: Rec | undefined, key: string, value: JsonObject): boolean {
  for (; record !== undefined; record = record.parent) {
    if (record.all || (record.keys !== undefined && record.keys.has(key))) return true;
    const named = record.named;
    if (named !== undefined) {
      for (let i = 0; i < named.length; i++) {
        if (named[i].has(key) && hasOwn(value, key)) return true;
      }
    }
  }
  return false;
}

function seenIndex(record: Rec | undefined, index: number): boolean {
  for (; record !== undefined; record = record.parent) {
    if (record.all || index < record.upTo) return true;
    if (record.keys !== undefined && record.keys.has(index)) return true;
  }
  return false;
}

function allSeen(record: Rec | undefined): boolean {
  for (; record !== undefined; record = record.parent) if (record.all) return true;
  return false;
}

function note(record: Rec, key: string | number): void {
  (record.keys ??= new Set()).add(key);
}

/**
 * Adds what `from` recorded itself (not what it sees through its parent) to `into`. `from`
 * is done with (the record of a branch or a condition): its set is taken when `into` has none.
 */
function mergeRecord(into: Rec, from: Rec): void {
  if (from.all) into.all = true;
  if (from.upTo > into.upTo) into.upTo = from.upTo;
  if (from.named !== undefined) {
    into.named = into.named === undefined ? from.named : [...into.named, ...from.named];
  }
  if (from.keys === undefined) return;
  if (into.keys === undefined) into.keys = from.keys;
  else for (const key of from.keys) into.keys.add(key);
}

/**
 * What applying a subschema does with the record of the value: whether its verdict may
 * depend on what the record holds when it starts (`reads`), and whether it may add to it
 * (`annotates`). Over-estimates are safe: they only keep records that nothing needed.
 */
interface RecordUse {
  reads: boolean;
  annotates: boolean;
}

const NO_USE: RecordUse = { reads: false, annotates: false };

function recordUse(schema: unknown, context: Context): RecordUse {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return NO_USE;
  let use = context.uses.get(schema);
  if (use !== undefined) return use;
  // A cycle, should one get here (compileSchema() refuses them): assume both.
  context.uses.set(schema, { reads: true, annotates: true });
  const s = schema as Schema;
  const draft = context.options.draft;
  let reads = false;
  let annotates = false;
  /** The subschemas applied to the value with this record, shared or seen through. */
  const sharing: unknown[] = [];
  // Its target depends on the anchor: assumed to do both.
  if (context.anchors && s.$recursiveRef === "#") reads = annotates = true;
  if (s.$ref !== undefined) sharing.push(targetOf(s, context));
  if (s.$ref === undefined || (draft !== "4" && draft !== "7")) {
    for (const list of [s.anyOf, s.allOf, s.oneOf]) {
      if (Array.isArray(list)) sharing.push(...list);
    }
    if (s.if !== undefined) {
      if (recordUse(s.if, context).annotates) annotates = true;
      sharing.push(s.then, s.else);
    }
    if (s.dependentSchemas !== undefined) sharing.push(...Object.values(s.dependentSchemas));
    if (unevaluatedPropertiesOf(s) !== undefined || s.unevaluatedItems !== undefined) {
      reads = annotates = true;
    }
    for (
      const keyword of [
        "properties",
        "patternProperties",
        "additionalProperties",
        "prefixItems",
        "items",
        "contains",
      ] as const
    ) {
      if (s[keyword] !== undefined) annotates = true;
    }
  }
  for (const applied of sharing) {
    const { reads: r, annotates: a } = recordUse(applied, context);
    reads ||= r;
    annotates ||= a;
  }
  use = { reads, annotates };
  context.uses.set(schema, use);
  return use;
}

/** `unevaluatedProperties`, which the vendor ignores beside `additionalProperties`. */
function unevaluatedPropertiesOf(s: Schema): Schema | boolean | undefined {
  return s.additionalProperties === undefined ? s.unevaluatedProperties : undefined;
}

/** A subschema applied with a record: reads what it sees there, adds what it evaluates. */
type Annotator = (value: unknown, record: Rec) => boolean;
/** The same for an object or an array (primitives have no record). */
type ContainerAnnotator = (value: object, record: Rec) => boolean;

/** A compiled annotator: null when the variant needs no record after all. */
interface Variant {
  containers: ContainerAnnotator | null | undefined;
}

/**
 * `schema` applied with a record at `anchor`, or undefined when its plain check will do:
 * when it neither reads a record that may hold something (`incoming`) nor adds to one that
 * someone reads afterwards (`output`). Compiled once per cell and variant; bound late, since
 * a cycle of references may ask for it while it compiles.
 */
function annotatorOf(
  schema: unknown,
  anchor: Anchor,
  context: Context,
  incoming: boolean,
  output: boolean,
): Annotator | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return undefined;
  const use = recordUse(schema, context);
  if (!((use.reads && incoming) || (use.annotates && output))) return undefined;
  const cell = cellOf(schema as JsonObject, context, anchor);
  const variants = cell.variants ??= [];
  const index = (incoming ? 1 : 0) + (output ? 2 : 0);
  let variant = variants[index];
  if (variant === undefined) {
    variant = variants[index] = { containers: undefined };
    variant.containers = buildAnnotator(schema as Schema, context, anchor, incoming, output) ??
      null;
  }
  if (variant.containers === null) return undefined;
  const bound = variant;
  return (value, record) => {
    const containers = bound.containers;
    return typeof value === "object" && value !== null && containers
      ? containers(value, record)
      : cell.part.check(value);
  };
}

/** One step of an annotator: its application on the value, with the record. */
interface Step {
  run: (value: never, record: Rec, mark: number) => boolean;
  refers: boolean;
  /** Whether it reads or writes the record. */
  uses: boolean;
}

/** A step as planned: what it does with the record, and how to compile it. */
interface Planned {
  reads: boolean;
  annotates: boolean;
  compile: (incoming: boolean, output: boolean) => Step;
}

/** Applies `check` as after() does, with a record. */
function afterWith(
  run: Run,
  mark: number,
  check: Annotator,
  value: unknown,
  record: Rec,
): boolean {
  if (run.recording || run.applied === mark) return check(value, record);
  run.recording = true;
  const verdict = check(value, record);
  run.recording = false;
  return verdict;
}

/** A plain part as a step (it neither reads nor writes the record). */
function plainStep<T>(part: Part<T>): Step {
  const check = part.check;
  return { run: (value: T) => check(value), refers: part.refers, uses: false };
}

/**
 * The checks of one schema object on an object or an array, with the record of that value,
 * in the vendor's order wherever the record is read or written (its other checks first, the
 * cheap ones before the deep): `$recursiveRef`, `$ref`, the branches of `anyOf`/`allOf`/
 * `oneOf` (each seeing the record, added to it once all three passed), `if` (its own record,
 * added when it passes), `then`/`else`; then for objects `dependentSchemas`, `properties`
 * with `patternProperties` and `additionalProperties`, `unevaluatedProperties`; for arrays
 * `prefixItems`/`items`/`additionalItems`, `contains`, `unevaluatedItems`. Undefined when
 * neither kind of value needs a record here.
 */
function buildAnnotator(
  s: Schema,
  context: Context,
  anchor: Anchor,
  incoming: boolean,
  output: boolean,
): ContainerAnnotator | undefined {
  const run = context.run;
  const draft = context.options.draft;
  const below = anchorBelow(s, anchor, context);
  const legacy = (draft === "4" || draft === "7") && s.$ref !== undefined;
  const use = (schema: unknown) => recordUse(schema, context);
  const common: Planned[] = [];
  const onObject: Planned[] = [];
  const onArray: Planned[] = [];

  /** A subschema applied to the value with the same record. */
  const sharing = (schema: unknown, at: Anchor, plain: () => AnyPart, reference: boolean) => ({
    ...use(schema),
    compile: (incoming: boolean, output: boolean): Step => {
      const annotator = annotatorOf(schema, at, context, incoming, output);
      if (annotator === undefined) return plainStep(plain());
      return {
        run: reference
          ? (value: unknown, record: Rec) => {
            run.applied++;
            return annotator(value, record);
          }
          : annotator,
        refers: true,
        uses: true,
      };
    },
  });

  if (context.anchors && s.$recursiveRef === "#") {
    const [target, at] = recursiveTarget(s, below, context);
    common.push(sharing(target, at, () => referenceTo(target, at, context), true));
  }
  if (s.$ref !== undefined) {
    const target = targetOf(s, context);
    common.push(sharing(target, below, () => referenceTo(target, below, context), true));
  }
  if (!legacy) {
    const branches = branchAnchor(s, below);
    const lists = (["anyOf", "allOf", "oneOf"] as const).filter((key) => s[key] !== undefined);
    if (lists.length > 0) {
      const all = lists.flatMap((key) => (Array.isArray(s[key]) ? s[key] : []) as unknown[]);
      common.push({
        reads: all.some((branch) => use(branch).reads),
        annotates: all.some((branch) => use(branch).annotates),
        compile: (incoming, output) => branchesStep(s, lists, context, branches, incoming, output),
      });
    }
    if (s.if !== undefined) {
      const then = s.then, otherwise = s.else;
      common.push({
        reads: use(then).reads || use(otherwise).reads,
        annotates: use(s.if).annotates || use(then).annotates || use(otherwise).annotates,
        compile: (incoming, output) => ifStep(s, context, below, incoming, output),
      });
    }
    if (s.dependentSchemas !== undefined) {
      const dependents = Object.entries(s.dependentSchemas);
      const reads = dependents.some(([, schema]) => use(schema).reads);
      const annotates = dependents.some(([, schema]) => use(schema).annotates);
      onObject.push({
        reads,
        annotates,
        // Each sees what those before it added: assumed of all of them.
        compile: (incoming, output) =>
          dependentsStep(dependents, context, below, incoming || annotates, output || reads),
      });
    }
    if (
      s.properties !== undefined || s.patternProperties !== undefined ||
      s.additionalProperties !== undefined
    ) {
      onObject.push({
        reads: false,
        annotates: true,
        compile: (_, output) => propertiesStep(s, context, below, output),
      });
    }
    const unevaluatedProperties = unevaluatedPropertiesOf(s);
    if (unevaluatedProperties !== undefined) {
      onObject.push({
        reads: true,
        annotates: true,
        compile: (_, output) => unevaluatedStep(unevaluatedProperties, context, below, output),
      });
    }
    if (s.prefixItems !== undefined || s.items !== undefined) {
      onArray.push({
        reads: false,
        annotates: true,
        compile: (_, output) => itemsStep(s, context, below, output),
      });
    }
    if (s.contains !== undefined) {
      onArray.push({
        reads: false,
        annotates: true,
        compile: (_, output) => containsStep(s, context, below, output),
      });
    }
    if (s.unevaluatedItems !== undefined) {
      const unevaluatedItems = s.unevaluatedItems;
      onArray.push({
        reads: true,
        annotates: true,
        compile: (_, output) => unevaluatedStep(unevaluatedItems, context, below, output),
      });
    }
  }

  /** The steps of one kind of value, each told what may be in the record and who reads it. */
  const compileSteps = (planned: Planned[]): Step[] => {
    const steps: Step[] = [];
    for (let i = 0; i < planned.length; i++) {
      const before = incoming || planned.slice(0, i).some((step) => step.annotates);
      const after = output || planned.slice(i + 1).some((step) => step.reads);
      steps.push(planned[i].compile(before, after));
    }
    return steps;
  };
  const objectSteps = compileSteps([...common, ...onObject]);
  const arraySteps = compileSteps([...common, ...onArray]);
  if (!objectSteps.some((step) => step.uses) && !arraySteps.some((step) => step.uses)) {
    return undefined;
  }
  // The checks that neither read nor write the record.
  const { mask } = legacy ? { mask: ANY_TYPE } : typeOf(s.type);
  const free: AnyPart[] = [];
  if (!legacy) {
    if (s.const !== undefined) free.push(shallow(constCheck(s.const)));
    if (s.enum !== undefined) free.push(shallow(enumCheck(s.enum)));
    free.push(...sameValueApplicators(s, context, below, true));
  }
  const freeObject = legacy ? [] : objectParts(s, context, below, true);
  const freeArray = legacy ? [] : arrayParts(s, context, below, true);
  const objectFirst = cheapFirst([...free, ...freeObject as AnyPart[]]).map(plainStep);
  const arrayFirst = cheapFirst([...free, ...freeArray as AnyPart[]]).map(plainStep);
  const forObject = (mask & OBJECT) === 0 ? undefined : [...objectFirst, ...objectSteps];
  const forArray = (mask & ARRAY) === 0 ? undefined : [...arrayFirst, ...arraySteps];
  return (value, record) => {
    const steps = Array.isArray(value) ? forArray : forObject;
    if (steps === undefined) return false;
    const mark = run.applied;
    for (let i = 0; i < steps.length; i++) {
      const { run: apply, refers } = steps[i];
      const step = apply as (value: unknown, record: Rec, mark: number) => boolean;
      if (!refers || run.recording || run.applied === mark) {
        if (!step(value, record, mark)) return false;
        continue;
      }
      run.recording = true;
      const verdict = step(value, record, mark);
      run.recording = false;
      if (!verdict) return false;
    }
    return true;
  };
}

/**
 * `anyOf`, `allOf` and `oneOf`: each branch sees the record as it was before the first of
 * them, and the records of those that passed are added to it once all three passed. Only
 * when they are read afterwards does `anyOf` look at the branches after one that passed.
 */
function branchesStep(
  s: Schema,
  lists: ("anyOf" | "allOf" | "oneOf")[],
  context: Context,
  anchor: Anchor,
  incoming: boolean,
  output: boolean,
): Step {
  const run = context.run;
  interface Branch {
    annotator: Annotator | undefined;
    check: Check;
  }
  const compiled = lists.map((key) => ({
    key,
    branches: compileList(s[key], key, context, anchor).map((part, i): Branch => ({
      annotator: annotatorOf((s[key] as unknown[])[i], anchor, context, incoming, output),
      check: part.check,
    })),
  }));
  const uses = compiled.some(({ branches }) => branches.some((branch) => !!branch.annotator));
  /** One branch: its verdict, its record kept in `passed` when it is read afterwards. */
  const apply = (branch: Branch, value: unknown, record: Rec, mark: number, passed: Rec[]) => {
    if (branch.annotator === undefined) return after(run, mark, branch.check, value);
    const own = freshRecord(record);
    if (!afterWith(run, mark, branch.annotator, value, own)) return false;
    if (output) passed.push(own);
    return true;
  };
  return {
    refers: true,
    uses,
    run: (value: unknown, record: Rec, mark: number) => {
      const passed: Rec[] = output ? [] : NO_RECORDS;
      for (const { key, branches } of compiled) {
        if (key === "anyOf") {
          let any = false;
          for (const branch of branches) {
            // After one passed, only the records of the others matter.
            if (any && (!output || branch.annotator === undefined)) continue;
            if (apply(branch, value, record, mark, passed)) any = true;
          }
          if (!any) return false;
        } else if (key === "allOf") {
          for (const branch of branches) {
            if (!apply(branch, value, record, mark, passed)) return false;
          }
        } else {
          let matches = 0;
          for (const branch of branches) {
            if (apply(branch, value, record, mark, passed) && ++matches > 1) return false;
          }
          if (matches !== 1) return false;
        }
      }
      for (const own of passed) mergeRecord(record, own);
      return true;
    },
  };
}

/** What branchesStep() keeps when nothing reads the records of its branches. */
const NO_RECORDS: Rec[] = [];

/** `if` with its own record (added when it passes), then `then` or `else` on the value's. */
function ifStep(
  s: Schema,
  context: Context,
  anchor: Anchor,
  incoming: boolean,
  output: boolean,
): Step {
  const run = context.run;
  const condition = compile(s.if, context, anchor);
  const conditionAnnotator = output ? annotatorOf(s.if, anchor, context, false, true) : undefined;
  const branch = (schema: unknown) => {
    if (schema === undefined) return { check: accept, annotator: undefined };
    return {
      check: compile(schema, context, anchor).check,
      annotator: annotatorOf(schema, anchor, context, incoming || !!conditionAnnotator, output),
    };
  };
  const then = branch(s.then), otherwise = branch(s.else);
  const uses = !!(conditionAnnotator || then.annotator || otherwise.annotator);
  return {
    refers: true,
    uses,
    run: (value: unknown, record: Rec, mark: number) => {
      let passed: boolean;
      if (conditionAnnotator === undefined) passed = after(run, mark, condition.check, value);
      else {
        const own = freshRecord();
        passed = afterWith(run, mark, conditionAnnotator, value, own);
        if (passed) mergeRecord(record, own);
      }
      const { check, annotator } = passed ? then : otherwise;
      return annotator === undefined
        ? after(run, mark, check, value)
        : afterWith(run, mark, annotator, value, record);
    },
  };
}

/** `dependentSchemas`: each present key's schema, on the value's record. */
function dependentsStep(
  dependents: [string, unknown][],
  context: Context,
  anchor: Anchor,
  incoming: boolean,
  output: boolean,
): Step {
  const run = context.run;
  const compiled = dependents.map(([key, schema]) => ({
    key,
    check: compile(schema, context, anchor).check,
    annotator: annotatorOf(schema, anchor, context, incoming, output),
  }));
  return {
    refers: true,
    uses: compiled.some((dependent) => !!dependent.annotator),
    run: (value: JsonObject, record: Rec, mark: number) => {
      for (const { key, check, annotator } of compiled) {
        if (!hasOwn(value, key)) continue;
        const passed = annotator === undefined
          ? after(run, mark, check, value)
          : afterWith(run, mark, annotator, value, record);
        if (!passed) return false;
      }
      return true;
    },
  };
}

/**
 * `properties`, `patternProperties` and `additionalProperties` as their plain checks, then,
 * when the record is read afterwards, the keys they evaluated: own keys of `properties`,
 * keys of a pattern, and with `additionalProperties` every key.
 */
function propertiesStep(s: Schema, context: Context, anchor: Anchor, output: boolean): Step {
  const run = context.run;
  const parts = [propertiesCheck(s, context, anchor), otherPropertiesCheck(s, context, anchor)]
    .filter((part) => part !== undefined);
  const check = allOnOneValue(parts, run);
  const refers = parts.some((part) => part.refers);
  if (!output) return { run: (value: JsonObject) => check(value), refers, uses: false };
  const everything = s.additionalProperties !== undefined;
  const named = s.properties === undefined ? undefined : new Set(Object.keys(s.properties));
  const patterns = Object.keys(s.patternProperties ?? {}).map(patternOf);
  return {
    refers,
    uses: true,
    run: (value: JsonObject, record: Rec) => {
      if (!check(value)) return false;
      if (everything) {
        record.all = true;
        return true;
      }
      if (named !== undefined) (record.named ??= []).push(named);
      if (patterns.length > 0) {
        for (const key in value) {
          for (let i = 0; i < patterns.length; i++) {
            if (patterns[i].test(key)) {
              note(record, key);
              break;
            }
          }
        }
      }
      return true;
    },
  };
}

/**
 * `unevaluatedProperties` (on an object) and `unevaluatedItems` (on an array): every key or
 * item the record has not seen; then it has seen them all.
 */
function unevaluatedStep(
  schema: unknown,
  context: Context,
  anchor: Anchor,
  output: boolean,
): Step {
  const run = context.run;
  const part = compile(schema, context, anchor);
  const check = part.check;
  return {
    refers: part.refers,
    uses: true,
    run: (value: JsonObject | unknown[], record: Rec, mark: number) => {
      if (part !== ACCEPT && !allSeen(record)) {
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            if (seenIndex(record, i)) continue;
            if (!after(run, mark, check, value[i])) return false;
          }
        } else {
          for (const key in value) {
            if (seenKey(record, key, value)) continue;
            if (!after(run, mark, check, value[key])) return false;
          }
        }
      }
      if (output) record.all = true;
      return true;
    },
  };
}

/**
 * `prefixItems`, `items` and `additionalItems` as their plain check, then, when the record is
 * read afterwards, the items they evaluated: all of them after a schema `items` or an
 * `additionalItems`, else those at the positions they name.
 */
function itemsStep(s: Schema, context: Context, anchor: Anchor, output: boolean): Step {
  const part = itemsCheck(s, context, anchor);
  const check = part === undefined ? accept : part.check;
  const refers = part !== undefined && part.refers;
  if (!output) return { run: (value: unknown[]) => check(value), refers, uses: false };
  const everything = s.items !== undefined &&
    (!Array.isArray(s.items) || s.additionalItems !== undefined);
  const positions = Math.max(
    Array.isArray(s.prefixItems) ? s.prefixItems.length : 0,
    Array.isArray(s.items) ? s.items.length : 0,
  );
  return {
    refers,
    uses: true,
    run: (value: unknown[], record: Rec) => {
      if (!check(value)) return false;
      if (everything) record.all = true;
      else {
        const upTo = Math.min(positions, value.length);
        if (upTo > record.upTo) record.upTo = upTo;
      }
      return true;
    },
  };
}

/** `contains`; when the record is read afterwards, every item checked, those that pass noted. */
function containsStep(s: Schema, context: Context, anchor: Anchor, output: boolean): Step {
  if (!output) return plainStep(containsCheck(s, context, anchor));
  const run = context.run;
  const contains = compile(s.contains, context, anchor);
  const test = contains.check;
  const { minContains, maxContains } = s;
  return {
    refers: contains.refers,
    uses: true,
    run: (value: unknown[], record: Rec, mark: number) => {
      const length = value.length;
      if (minContains === undefined && length === 0) return false;
      if (minContains !== undefined && length < minContains) return false;
      let contained = 0;
      for (let i = 0; i < length; i++) {
        if (after(run, mark, test, value[i])) {
          contained++;
          note(record, i);
        }
      }
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
