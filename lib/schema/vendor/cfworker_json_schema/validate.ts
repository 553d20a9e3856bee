import { deepCompareStrict } from './deep-compare-strict.ts';
import { dereference } from './dereference.ts';
import { format } from './format.ts';
import { encodePointer } from './pointer.ts';
import {
  InstanceType,
  OutputUnit,
  Schema,
  SchemaDraft,
  ValidationResult
} from './types.ts';
import { ucs2length } from './ucs2-length.ts';

export type Evaluated = Record<string | number, boolean>;

// ---- toolshed patches (see README.md beside this file) ----

/**
 * What one validation may still spend, set by the caller before each validation
 * (lib/schema.ts): `remaining` units of work (one per application of a schema to a
 * value, one per key scanned, one per 64 characters of a string), `exhausted()` called
 * when they run out (it tops `remaining` up or throws), and at most `maxErrors` errors
 * kept per list; `saturated` turns true once a list is full, and every loop then stops
 * at its next failure as `shortCircuit` would (a failing part is failing either way).
 */
export const limits = {
  remaining: Infinity,
  exhausted: (): void => {},
  maxErrors: Infinity,
  saturated: false,
  /**
   * Whether to record which properties and items were evaluated. Only
   * `unevaluatedProperties` and `unevaluatedItems` read the record, and writing it for
   * every item of a large array was most of the cost of validating one.
   */
  trackEvaluated: true,
  /**
   * Results already computed in this validation, by schema then value, or undefined when
   * the caller turned memoising off. With branches (`oneOf` whose branches both descend,
   * `allOf` of two `$ref`s to one definition) the same schema reaches the same value by
   * many paths, 2^depth of them in the worst case; with the memo each pair is computed
   * once, so the work is at most (subschemas × values). Only containers are memoised (a
   * JSON value from a parse is a tree, so a container is one place); a leaf costs a step.
   * Unused while `trackEvaluated` is on: a result then depends on the caller's record.
   * Only the schemas in `memoised` are remembered (lib/schema.ts passes the targets of
   * references: without a reference no schema meets one value twice).
   */
  memo: undefined as Map<object, Map<object, ValidationResult>> | undefined,
  memoised: undefined as ReadonlySet<object> | undefined
};

/**
 * The record of evaluated properties and items when nothing reads it: every use of a
 * record is skipped or gated on `limits.trackEvaluated`, and making fresh objects the
 * prototypes of other fresh objects (`Object.create(evaluated)`) was slow in V8.
 */
const NO_RECORD: Evaluated = Object.freeze(Object.create(null));
const NO_SUBS: Evaluated[] = Object.freeze([]) as unknown as Evaluated[];

/**
 * The result of every valid application, shared: callers only read results, and one
 * object per application was a large part of the garbage a validation made.
 */
const VALID: ValidationResult = Object.freeze({
  valid: true,
  errors: Object.freeze([]) as unknown as OutputUnit[]
});

function addErrors(errors: OutputUnit[], more: OutputUnit[]): void {
  for (const unit of more) {
    if (errors.length >= limits.maxErrors) {
      limits.saturated = true;
      return;
    }
    errors.push(unit);
  }
}

/**
 * The first pair of equal items (indexes), found in one pass: primitives are their own keys
 * (a Map compares them as deepCompareStrict does), containers go by canonical form.
 * Exported for lib/schema/fast.ts (toolshed patch 9).
 */
export function firstDuplicate(items: unknown[]): [number, number] | undefined {
  // Primitives go into a Set (one hash operation each; a Map storing indexes was 3–10×
  // slower on 100,000 strings): the first index is looked up only once a duplicate is found.
  const primitives = new Set<unknown>();
  const containers = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    limits.remaining--;
    if (typeof item === 'object' && item !== null) {
      const key = canonical(item);
      limits.remaining -= key.length >> 6;
      const first = containers.get(key);
      if (first !== undefined) return [first, i];
      containers.set(key, i);
    } else {
      const size = primitives.size;
      if (primitives.add(item).size === size) return [items.indexOf(item), i];
    }
  }
  return undefined;
}

/** JSON with sorted keys: equal for values that deepCompareStrict finds equal. */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'string' ? JSON.stringify(value) : String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const object = value as Record<string, unknown>;
  const parts = Object.keys(object)
    .sort()
    .map(key => `${JSON.stringify(key)}:${canonical(object[key])}`);
  return `{${parts.join(',')}}`;
}

/**
 * Patterns are compiled once (with the `u` flag, as upstream does), not at every use.
 * Exported for lib/schema/fast.ts (toolshed patch 9).
 */
const patterns = new Map<string, RegExp>();
export function compiledPattern(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, 'u');
    patterns.set(pattern, regex);
  }
  return regex;
}

/**
 * toolshed patch: the keywords of a schema object, read once into an object of one fixed
 * shape. Reading ~50 keywords, most of them absent, from schema objects of many shapes
 * at every application was most of the validator's time (the reads are megamorphic).
 */
const keywordCache = new WeakMap<object, Schema>();
function keywordsOf(schema: Schema): Schema {
  let keywords = keywordCache.get(schema);
  if (keywords === undefined) {
    keywords = {
    $ref: schema.$ref,
    $recursiveRef: schema.$recursiveRef,
    $recursiveAnchor: schema.$recursiveAnchor,
    type: schema.type,
    const: schema.const,
    enum: schema.enum,
    required: schema.required,
    not: schema.not,
    anyOf: schema.anyOf,
    allOf: schema.allOf,
    oneOf: schema.oneOf,
    if: schema.if,
    then: schema.then,
    else: schema.else,
    format: schema.format,
    properties: schema.properties,
    patternProperties: schema.patternProperties,
    additionalProperties: schema.additionalProperties,
    unevaluatedProperties: schema.unevaluatedProperties,
    minProperties: schema.minProperties,
    maxProperties: schema.maxProperties,
    propertyNames: schema.propertyNames,
    dependentRequired: schema.dependentRequired,
    dependentSchemas: schema.dependentSchemas,
    dependencies: schema.dependencies,
    prefixItems: schema.prefixItems,
    items: schema.items,
    additionalItems: schema.additionalItems,
    unevaluatedItems: schema.unevaluatedItems,
    contains: schema.contains,
    minContains: schema.minContains,
    maxContains: schema.maxContains,
    minItems: schema.minItems,
    maxItems: schema.maxItems,
    uniqueItems: schema.uniqueItems,
    minimum: schema.minimum,
    maximum: schema.maximum,
    exclusiveMinimum: schema.exclusiveMinimum,
    exclusiveMaximum: schema.exclusiveMaximum,
    multipleOf: schema.multipleOf,
    minLength: schema.minLength,
    maxLength: schema.maxLength,
    pattern: schema.pattern,
    __absolute_ref__: schema.__absolute_ref__,
    __absolute_recursive_ref__: schema.__absolute_recursive_ref__
    };
    keywordCache.set(schema, keywords);
  }
  return keywords;
}

/**
 * toolshed patch: where a value is, built into a JSON pointer only when an error needs it.
 * Upstream built the string for every value it visited, a third of the time of a
 * validation that finds nothing wrong.
 */
export type Location = string | { base: Location; key: string | number };

function where(location: Location): string {
  if (typeof location === 'string') return location;
  const keys: Array<string | number> = [];
  let at: Location = location;
  while (typeof at !== 'string') {
    keys.push(at.key);
    at = at.base;
  }
  let pointer = at;
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    pointer += `/${typeof key === 'number' ? key : encodePointer(key)}`;
  }
  return pointer;
}

// ---- end of toolshed patches ----

function hasOwnProperty(instance: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(instance, key);
}

function decimalInteger(
  value: number
): [coefficient: bigint, exponent: number] {
  const coefficientAndExponent = Math.abs(value).toString().split('e');
  const coefficient = coefficientAndExponent[0]!;
  const exponent = coefficientAndExponent[1] ?? '0';
  const point = coefficient.indexOf('.');
  const fractionLength = point === -1 ? 0 : coefficient.length - point - 1;
  return [
    BigInt(coefficient.replace('.', '')),
    Number(exponent) - fractionLength
  ];
}

// toolshed patch: exported for lib/schema/fast.ts (patch 9), so both paths decide alike.
export function isMultipleOf(instance: number, divisor: number): boolean {
  if (!Number.isFinite(instance) || !Number.isFinite(divisor) || divisor <= 0) {
    return false;
  }

  const [instanceCoefficient, instanceExponent] = decimalInteger(instance);
  const [divisorCoefficient, divisorExponent] = decimalInteger(divisor);
  const exponentDifference = instanceExponent - divisorExponent;

  if (exponentDifference >= 0) {
    return (
      (instanceCoefficient * 10n ** BigInt(exponentDifference)) %
        divisorCoefficient ===
      0n
    );
  }

  return (
    instanceCoefficient %
      (divisorCoefficient * 10n ** BigInt(-exponentDifference)) ===
    0n
  );
}

export function validate(
  instance: any,
  schema: Schema | boolean,
  draft: SchemaDraft = '2019-09',
  lookup: Record<string, Schema | boolean> = dereference(schema),
  shortCircuit = true,
  recursiveAnchor: Schema | null = null,
  instanceLocation: Location = '#',
  schemaLocation = '#',
  evaluated: Evaluated = limits.trackEvaluated ? Object.create(null) : NO_RECORD
): ValidationResult {
  // toolshed patch: every application of a schema to a value spends one unit of work.
  if (--limits.remaining < 0) limits.exhausted();
  // toolshed patch: each (schema, container) pair is computed once (see `limits.memo`).
  // A remembered result may hold fewer errors (it was computed short-circuiting) or name
  // the schema path of the first visit; its verdict is the same.
  const memo = limits.memo;
  if (
    memo === undefined ||
    typeof schema !== 'object' ||
    !limits.memoised!.has(schema) ||
    recursiveAnchor !== null ||
    typeof instance !== 'object' ||
    instance === null
  ) {
    return validateOnce(instance, schema, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, schemaLocation, evaluated);
  }
  let bySchema = memo.get(schema);
  if (bySchema === undefined) {
    bySchema = new Map();
    memo.set(schema, bySchema);
  }
  let result = bySchema.get(instance);
  if (result === undefined) {
    result = validateOnce(instance, schema, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, schemaLocation, evaluated);
    bySchema.set(instance, result);
  }
  return result;
}

function validateOnce(
  instance: any,
  schema: Schema | boolean,
  draft: SchemaDraft,
  lookup: Record<string, Schema | boolean>,
  shortCircuit: boolean,
  recursiveAnchor: Schema | null,
  instanceLocation: Location,
  schemaLocation: string,
  evaluated: Evaluated
): ValidationResult {
  if (schema === true) {
    return VALID;
  }

  if (schema === false) {
    return {
      valid: false,
      errors: [
        {
          instanceLocation: where(instanceLocation),
          keyword: 'false',
          keywordLocation: where(instanceLocation),
          error: 'False boolean schema.'
        }
      ]
    };
  }

  const rawInstanceType = typeof instance;
  let instanceType: Exclude<InstanceType, 'integer'>;
  switch (rawInstanceType) {
    case 'boolean':
    case 'number':
    case 'string':
      instanceType = rawInstanceType;
      break;
    case 'object':
      if (instance === null) {
        instanceType = 'null';
      } else if (Array.isArray(instance)) {
        instanceType = 'array';
      } else {
        instanceType = 'object';
      }
      break;
    default:
      // undefined, bigint, function, symbol
      throw new Error(
        `Instances of "${rawInstanceType}" type are not supported.`
      );
  }

  const {
    $ref,
    $recursiveRef,
    $recursiveAnchor,
    type: $type,
    const: $const,
    enum: $enum,
    required: $required,
    not: $not,
    anyOf: $anyOf,
    allOf: $allOf,
    oneOf: $oneOf,
    if: $if,
    then: $then,
    else: $else,

    format: $format,

    properties: $properties,
    patternProperties: $patternProperties,
    additionalProperties: $additionalProperties,
    unevaluatedProperties: $unevaluatedProperties,
    minProperties: $minProperties,
    maxProperties: $maxProperties,
    propertyNames: $propertyNames,
    dependentRequired: $dependentRequired,
    dependentSchemas: $dependentSchemas,
    dependencies: $dependencies,

    prefixItems: $prefixItems,
    items: $items,
    additionalItems: $additionalItems,
    unevaluatedItems: $unevaluatedItems,
    contains: $contains,
    minContains: $minContains,
    maxContains: $maxContains,
    minItems: $minItems,
    maxItems: $maxItems,
    uniqueItems: $uniqueItems,

    minimum: $minimum,
    maximum: $maximum,
    exclusiveMinimum: $exclusiveMinimum,
    exclusiveMaximum: $exclusiveMaximum,
    multipleOf: $multipleOf,

    minLength: $minLength,
    maxLength: $maxLength,
    pattern: $pattern,

    __absolute_ref__,
    __absolute_recursive_ref__
  } = keywordsOf(schema);

  const errors: OutputUnit[] = [];

  if ($recursiveAnchor === true && recursiveAnchor === null) {
    recursiveAnchor = schema;
  }

  if ($recursiveRef === '#') {
    const refSchema =
      recursiveAnchor === null
        ? (lookup[__absolute_recursive_ref__!] as Schema)
        : recursiveAnchor;
    const keywordLocation = `${schemaLocation}/$recursiveRef`;
    const result = validate(
      instance,
      recursiveAnchor === null ? schema : recursiveAnchor,
      draft,
      lookup,
      shortCircuit,
      refSchema,
      instanceLocation,
      keywordLocation,
      evaluated
    );
    if (!result.valid) {
      errors.push(
        {
          instanceLocation: where(instanceLocation),
          keyword: '$recursiveRef',
          keywordLocation,
          error: 'A subschema had errors.'
        }
      );
      addErrors(errors, result.errors);
    }
  }

  if ($ref !== undefined) {
    const uri = __absolute_ref__ || $ref;
    const refSchema = lookup[uri];
    if (refSchema === undefined) {
      let message = `Unresolved $ref "${$ref}".`;
      if (__absolute_ref__ && __absolute_ref__ !== $ref) {
        message += `  Absolute URI "${__absolute_ref__}".`;
      }
      message += `\nKnown schemas:\n- ${Object.keys(lookup).join('\n- ')}`;
      throw new Error(message);
    }
    const keywordLocation = `${schemaLocation}/$ref`;
    const result = validate(
      instance,
      refSchema,
      draft,
      lookup,
      shortCircuit,
      recursiveAnchor,
      instanceLocation,
      keywordLocation,
      evaluated
    );
    if (!result.valid) {
      errors.push(
        {
          instanceLocation: where(instanceLocation),
          keyword: '$ref',
          keywordLocation,
          error: 'A subschema had errors.'
        }
      );
      addErrors(errors, result.errors);
    }
    if (draft === '4' || draft === '7') {
      return errors.length === 0 ? VALID : { valid: false, errors };
    }
  }

  if (Array.isArray($type)) {
    let length = $type.length;
    let valid = false;
    for (let i = 0; i < length; i++) {
      if (
        instanceType === $type[i] ||
        ($type[i] === 'integer' &&
          instanceType === 'number' &&
          instance % 1 === 0 &&
          instance === instance)
      ) {
        valid = true;
        break;
      }
    }
    if (!valid) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'type',
        keywordLocation: `${schemaLocation}/type`,
        error: `Instance type "${instanceType}" is invalid. Expected "${$type.join(
          '", "'
        )}".`
      });
    }
  } else if ($type === 'integer') {
    if (instanceType !== 'number' || instance % 1 || instance !== instance) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'type',
        keywordLocation: `${schemaLocation}/type`,
        error: `Instance type "${instanceType}" is invalid. Expected "${$type}".`
      });
    }
  } else if ($type !== undefined && instanceType !== $type) {
    errors.push({
      instanceLocation: where(instanceLocation),
      keyword: 'type',
      keywordLocation: `${schemaLocation}/type`,
      error: `Instance type "${instanceType}" is invalid. Expected "${$type}".`
    });
  }

  if ($const !== undefined) {
    if (instanceType === 'object' || instanceType === 'array') {
      if (!deepCompareStrict(instance, $const)) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'const',
          keywordLocation: `${schemaLocation}/const`,
          error: `Instance does not match ${JSON.stringify($const)}.`
        });
      }
    } else if (instance !== $const) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'const',
        keywordLocation: `${schemaLocation}/const`,
        error: `Instance does not match ${JSON.stringify($const)}.`
      });
    }
  }

  if ($enum !== undefined) {
    if (instanceType === 'object' || instanceType === 'array') {
      if (!$enum.some(value => deepCompareStrict(instance, value))) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'enum',
          keywordLocation: `${schemaLocation}/enum`,
          error: `Instance does not match any of ${JSON.stringify($enum)}.`
        });
      }
    } else if (!$enum.some(value => instance === value)) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'enum',
        keywordLocation: `${schemaLocation}/enum`,
        error: `Instance does not match any of ${JSON.stringify($enum)}.`
      });
    }
  }

  if ($not !== undefined) {
    const keywordLocation = `${schemaLocation}/not`;
    const result = validate(
      instance,
      $not,
      draft,
      lookup,
      true, // toolshed patch: only the verdict counts here
      recursiveAnchor,
      instanceLocation,
      keywordLocation /*,
      evaluated*/
    );
    if (result.valid) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'not',
        keywordLocation,
        error: 'Instance matched "not" schema.'
      });
    }
  }

  const subEvaluateds: Array<Evaluated> = limits.trackEvaluated ? [] : NO_SUBS;

  if ($anyOf !== undefined) {
    const keywordLocation = `${schemaLocation}/anyOf`;
    const errorsLength = errors.length;
    let anyValid = false;
    for (const [i, subSchema] of $anyOf.entries()) {
      const subEvaluated: Evaluated = limits.trackEvaluated ? Object.create(evaluated) : NO_RECORD;
      const result = validate(
        instance,
        subSchema,
        draft,
        lookup,
        true, // toolshed patch: only the verdict counts here
        $recursiveAnchor === true ? recursiveAnchor : null,
        instanceLocation,
        `${keywordLocation}/${i}`,
        subEvaluated
      );
      addErrors(errors, result.errors);
      anyValid = anyValid || result.valid;
      if (result.valid) {
        if (limits.trackEvaluated) subEvaluateds.push(subEvaluated);
      }
    }
    if (anyValid) {
      errors.length = errorsLength;
    } else {
      errors.splice(errorsLength, 0, {
        instanceLocation: where(instanceLocation),
        keyword: 'anyOf',
        keywordLocation,
        error: 'Instance does not match any subschemas.'
      });
    }
  }

  if ($allOf !== undefined) {
    const keywordLocation = `${schemaLocation}/allOf`;
    const errorsLength = errors.length;
    let allValid = true;
    for (const [i, subSchema] of $allOf.entries()) {
      const subEvaluated: Evaluated = limits.trackEvaluated ? Object.create(evaluated) : NO_RECORD;
      const result = validate(
        instance,
        subSchema,
        draft,
        lookup,
        shortCircuit,
        $recursiveAnchor === true ? recursiveAnchor : null,
        instanceLocation,
        `${keywordLocation}/${i}`,
        subEvaluated
      );
      addErrors(errors, result.errors);
      allValid = allValid && result.valid;
      if (result.valid) {
        if (limits.trackEvaluated) subEvaluateds.push(subEvaluated);
      }
    }
    if (allValid) {
      errors.length = errorsLength;
    } else {
      errors.splice(errorsLength, 0, {
        instanceLocation: where(instanceLocation),
        keyword: 'allOf',
        keywordLocation,
        error: `Instance does not match every subschema.`
      });
    }
  }

  if ($oneOf !== undefined) {
    const keywordLocation = `${schemaLocation}/oneOf`;
    const errorsLength = errors.length;
    const matches = $oneOf.filter((subSchema, i) => {
      const subEvaluated: Evaluated = limits.trackEvaluated ? Object.create(evaluated) : NO_RECORD;
      const result = validate(
        instance,
        subSchema,
        draft,
        lookup,
        true, // toolshed patch: only the verdict counts here
        $recursiveAnchor === true ? recursiveAnchor : null,
        instanceLocation,
        `${keywordLocation}/${i}`,
        subEvaluated
      );
      addErrors(errors, result.errors);
      if (result.valid) {
        if (limits.trackEvaluated) subEvaluateds.push(subEvaluated);
      }
      return result.valid;
    }).length;
    if (matches === 1) {
      errors.length = errorsLength;
    } else {
      errors.splice(errorsLength, 0, {
        instanceLocation: where(instanceLocation),
        keyword: 'oneOf',
        keywordLocation,
        error: `Instance does not match exactly one subschema (${matches} matches).`
      });
    }
  }

  if (limits.trackEvaluated && (instanceType === 'object' || instanceType === 'array')) {
    Object.assign(evaluated, ...subEvaluateds);
  }

  if ($if !== undefined) {
    const keywordLocation = `${schemaLocation}/if`;
    const ifEvaluated: Evaluated = limits.trackEvaluated ? Object.create(null) : NO_RECORD;
    const conditionResult = validate(
      instance,
      $if,
      draft,
      lookup,
      true, // toolshed patch: only the verdict counts here
      recursiveAnchor,
      instanceLocation,
      keywordLocation,
      ifEvaluated
    ).valid;
    if (conditionResult) {
      Object.assign(evaluated, ifEvaluated);
      if ($then !== undefined) {
        const thenResult = validate(
          instance,
          $then,
          draft,
          lookup,
          shortCircuit,
          recursiveAnchor,
          instanceLocation,
          `${schemaLocation}/then`,
          evaluated
        );
        if (!thenResult.valid) {
          errors.push(
            {
              instanceLocation: where(instanceLocation),
              keyword: 'if',
              keywordLocation,
              error: `Instance does not match "then" schema.`
            }
          );
          addErrors(errors, thenResult.errors);
        }
      }
    } else if ($else !== undefined) {
      const elseResult = validate(
        instance,
        $else,
        draft,
        lookup,
        shortCircuit,
        recursiveAnchor,
        instanceLocation,
        `${schemaLocation}/else`,
        evaluated
      );
      if (!elseResult.valid) {
        errors.push(
          {
            instanceLocation: where(instanceLocation),
            keyword: 'if',
            keywordLocation,
            error: `Instance does not match "else" schema.`
          }
        );
        addErrors(errors, elseResult.errors);
      }
    }
  }

  // toolshed patch: a short-circuiting validation stops at its first failure here, before
  // the keywords that look inside the value.
  if (shortCircuit && errors.length > 0) return { valid: false, errors };

  if (instanceType === 'object') {
    if ($required !== undefined) {
      for (const key of $required) {
        if (!hasOwnProperty(instance, key)) {
          errors.push({
            instanceLocation: where(instanceLocation),
            keyword: 'required',
            keywordLocation: `${schemaLocation}/required`,
            error: `Instance does not have required property "${key}".`
          });
        }
      }
    }

    if (shortCircuit && errors.length > 0) return { valid: false, errors };

    const keys = Object.keys(instance);
    limits.remaining -= keys.length; // toolshed patch: key scans are work too

    if ($minProperties !== undefined && keys.length < $minProperties) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'minProperties',
        keywordLocation: `${schemaLocation}/minProperties`,
        error: `Instance does not have at least ${$minProperties} properties.`
      });
    }

    if ($maxProperties !== undefined && keys.length > $maxProperties) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'maxProperties',
        keywordLocation: `${schemaLocation}/maxProperties`,
        error: `Instance does not have at least ${$maxProperties} properties.`
      });
    }

    if ($propertyNames !== undefined) {
      const keywordLocation = `${schemaLocation}/propertyNames`;
      for (const key in instance) {
        const subInstancePointer: Location = { base: instanceLocation, key };
        const result = validate(
          key,
          $propertyNames,
          draft,
          lookup,
          shortCircuit,
          recursiveAnchor,
          subInstancePointer,
          keywordLocation
        );
        if (!result.valid) {
          errors.push(
            {
              instanceLocation: where(instanceLocation),
              keyword: 'propertyNames',
              keywordLocation,
              error: `Property name "${key}" does not match schema.`
            }
          );
          addErrors(errors, result.errors);
          if (shortCircuit || limits.saturated) break;
        }
      }
    }

    if ($dependentRequired !== undefined) {
      const keywordLocation = `${schemaLocation}/dependantRequired`;
      for (const key in $dependentRequired) {
        if (hasOwnProperty(instance, key)) {
          const required = $dependentRequired[key] as string[];
          for (const dependantKey of required) {
            if (!hasOwnProperty(instance, dependantKey)) {
              errors.push({
                instanceLocation: where(instanceLocation),
                keyword: 'dependentRequired',
                keywordLocation,
                error: `Instance has "${key}" but does not have "${dependantKey}".`
              });
            }
          }
        }
      }
    }

    if ($dependentSchemas !== undefined) {
      for (const [key, dependentSchema] of Object.entries($dependentSchemas)) {
        const keywordLocation = `${schemaLocation}/dependentSchemas`;
        if (hasOwnProperty(instance, key)) {
          const result = validate(
            instance,
            dependentSchema,
            draft,
            lookup,
            shortCircuit,
            recursiveAnchor,
            instanceLocation,
            `${keywordLocation}/${encodePointer(key)}`,
            evaluated
          );
          if (!result.valid) {
            errors.push(
              {
                instanceLocation: where(instanceLocation),
                keyword: 'dependentSchemas',
                keywordLocation,
                error: `Instance has "${key}" but does not match dependant schema.`
              }
            );
            addErrors(errors, result.errors);
          }
        }
      }
    }

    if ($dependencies !== undefined) {
      const keywordLocation = `${schemaLocation}/dependencies`;
      for (const key in $dependencies) {
        if (hasOwnProperty(instance, key)) {
          const propsOrSchema = $dependencies[key] as Schema | string[];
          if (Array.isArray(propsOrSchema)) {
            for (const dependantKey of propsOrSchema) {
              if (!hasOwnProperty(instance, dependantKey)) {
                errors.push({
                  instanceLocation: where(instanceLocation),
                  keyword: 'dependencies',
                  keywordLocation,
                  error: `Instance has "${key}" but does not have "${dependantKey}".`
                });
              }
            }
          } else {
            const result = validate(
              instance,
              propsOrSchema,
              draft,
              lookup,
              shortCircuit,
              recursiveAnchor,
              instanceLocation,
              `${keywordLocation}/${encodePointer(key)}`
            );
            if (!result.valid) {
              errors.push(
                {
                  instanceLocation: where(instanceLocation),
                  keyword: 'dependencies',
                  keywordLocation,
                  error: `Instance has "${key}" but does not match dependant schema.`
                }
              );
              addErrors(errors, result.errors);
            }
          }
        }
      }
    }

    const thisEvaluated = Object.create(null);

    let stop = false;

    if ($properties !== undefined) {
      const keywordLocation = `${schemaLocation}/properties`;
      for (const [key, propertySchema] of Object.entries($properties)) {
        if (!hasOwnProperty(instance, key)) {
          continue;
        }
        const subInstancePointer: Location = { base: instanceLocation, key };
        const result = validate(
          instance[key],
          propertySchema,
          draft,
          lookup,
          shortCircuit,
          recursiveAnchor,
          subInstancePointer,
          `${keywordLocation}/${encodePointer(key)}`
        );
        // Covered by "properties" whether or not it is valid, so "additionalProperties"
        // must not apply to it. Only a valid result is an annotation for "unevaluatedProperties".
        thisEvaluated[key] = true;
        if (result.valid) {
          if (limits.trackEvaluated) evaluated[key] = true;
        } else {
          stop = shortCircuit || limits.saturated;
          errors.push(
            {
              instanceLocation: where(instanceLocation),
              keyword: 'properties',
              keywordLocation,
              error: `Property "${key}" does not match schema.`
            }
          );
          addErrors(errors, result.errors);
          if (stop) break;
        }
      }
    }

    if (!stop && $patternProperties !== undefined) {
      const keywordLocation = `${schemaLocation}/patternProperties`;
      for (const [pattern, subSchema] of Object.entries($patternProperties)) {
        const regex = compiledPattern(pattern);
        for (const key in instance) {
          if (!regex.test(key)) {
            continue;
          }
          const subInstancePointer: Location = { base: instanceLocation, key };
          const result = validate(
            instance[key],
            subSchema,
            draft,
            lookup,
            shortCircuit,
            recursiveAnchor,
            subInstancePointer,
            `${keywordLocation}/${encodePointer(pattern)}`
          );
          // Covered by "patternProperties" whether or not it is valid; see "properties" above.
          thisEvaluated[key] = true;
          if (result.valid) {
            if (limits.trackEvaluated) evaluated[key] = true;
          } else {
            stop = shortCircuit || limits.saturated;
            errors.push(
              {
                instanceLocation: where(instanceLocation),
                keyword: 'patternProperties',
                keywordLocation,
                error: `Property "${key}" matches pattern "${pattern}" but does not match associated schema.`
              }
            );
            addErrors(errors, result.errors);
            if (stop) break;
          }
        }
        if (stop) break;
      }
    }

    if (!stop && $additionalProperties !== undefined) {
      const keywordLocation = `${schemaLocation}/additionalProperties`;
      for (const key in instance) {
        if (thisEvaluated[key]) {
          continue;
        }
        const subInstancePointer: Location = { base: instanceLocation, key };
        const result = validate(
          instance[key],
          $additionalProperties,
          draft,
          lookup,
          shortCircuit,
          recursiveAnchor,
          subInstancePointer,
          keywordLocation
        );
        if (result.valid) {
          if (limits.trackEvaluated) evaluated[key] = true;
        } else {
          stop = shortCircuit || limits.saturated;
          errors.push(
            {
              instanceLocation: where(instanceLocation),
              keyword: 'additionalProperties',
              keywordLocation,
              error: `Property "${key}" does not match additional properties schema.`
            }
          );
          addErrors(errors, result.errors);
          if (stop) break;
        }
      }
    } else if (!stop && $unevaluatedProperties !== undefined) {
      const keywordLocation = `${schemaLocation}/unevaluatedProperties`;
      for (const key in instance) {
        if (!evaluated[key]) {
          const subInstancePointer: Location = { base: instanceLocation, key };
          const result = validate(
            instance[key],
            $unevaluatedProperties,
            draft,
            lookup,
            shortCircuit,
            recursiveAnchor,
            subInstancePointer,
            keywordLocation
          );
          if (result.valid) {
            if (limits.trackEvaluated) evaluated[key] = true;
          } else {
            errors.push(
              {
                instanceLocation: where(instanceLocation),
                keyword: 'unevaluatedProperties',
                keywordLocation,
                error: `Property "${key}" does not match unevaluated properties schema.`
              }
            );
            addErrors(errors, result.errors);
            if (shortCircuit || limits.saturated) break;
          }
        }
      }
    }
  } else if (instanceType === 'array') {
    if ($maxItems !== undefined && instance.length > $maxItems) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'maxItems',
        keywordLocation: `${schemaLocation}/maxItems`,
        error: `Array has too many items (${instance.length} > ${$maxItems}).`
      });
    }

    if ($minItems !== undefined && instance.length < $minItems) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'minItems',
        keywordLocation: `${schemaLocation}/minItems`,
        error: `Array has too few items (${instance.length} < ${$minItems}).`
      });
    }

    const length: number = instance.length;
    let i = 0;
    let stop = false;

    if ($prefixItems !== undefined) {
      const keywordLocation = `${schemaLocation}/prefixItems`;
      const length2 = Math.min($prefixItems.length, length);
      for (; i < length2; i++) {
        const result = validate(
          instance[i],
          $prefixItems[i]!,
          draft,
          lookup,
          shortCircuit,
          recursiveAnchor,
          { base: instanceLocation, key: i },
          `${keywordLocation}/${i}`
        );
        if (limits.trackEvaluated) evaluated[i] = true;
        if (!result.valid) {
          stop = shortCircuit || limits.saturated;
          errors.push(
            {
              instanceLocation: where(instanceLocation),
              keyword: 'prefixItems',
              keywordLocation,
              error: `Items did not match schema.`
            }
          );
          addErrors(errors, result.errors);
          if (stop) break;
        }
      }
    }

    if ($items !== undefined) {
      const keywordLocation = `${schemaLocation}/items`;
      if (Array.isArray($items)) {
        const length2 = Math.min($items.length, length);
        for (; i < length2; i++) {
          const result = validate(
            instance[i],
            $items[i]!,
            draft,
            lookup,
            shortCircuit,
            recursiveAnchor,
            { base: instanceLocation, key: i },
            `${keywordLocation}/${i}`
          );
          if (limits.trackEvaluated) evaluated[i] = true;
          if (!result.valid) {
            stop = shortCircuit || limits.saturated;
            errors.push(
              {
                instanceLocation: where(instanceLocation),
                keyword: 'items',
                keywordLocation,
                error: `Items did not match schema.`
              }
            );
            addErrors(errors, result.errors);
            if (stop) break;
          }
        }
      } else {
        for (; i < length; i++) {
          const result = validate(
            instance[i],
            $items,
            draft,
            lookup,
            shortCircuit,
            recursiveAnchor,
            { base: instanceLocation, key: i },
            keywordLocation
          );
          if (limits.trackEvaluated) evaluated[i] = true;
          if (!result.valid) {
            stop = shortCircuit || limits.saturated;
            errors.push(
              {
                instanceLocation: where(instanceLocation),
                keyword: 'items',
                keywordLocation,
                error: `Items did not match schema.`
              }
            );
            addErrors(errors, result.errors);
            if (stop) break;
          }
        }
      }

      if (!stop && $additionalItems !== undefined) {
        const keywordLocation = `${schemaLocation}/additionalItems`;
        for (; i < length; i++) {
          const result = validate(
            instance[i],
            $additionalItems,
            draft,
            lookup,
            shortCircuit,
            recursiveAnchor,
            { base: instanceLocation, key: i },
            keywordLocation
          );
          if (limits.trackEvaluated) evaluated[i] = true;
          if (!result.valid) {
            stop = shortCircuit || limits.saturated;
            errors.push(
              {
                instanceLocation: where(instanceLocation),
                keyword: 'additionalItems',
                keywordLocation,
                error: `Items did not match additional items schema.`
              }
            );
            addErrors(errors, result.errors);
            if (stop) break;
          }
        }
      }
    }

    if ($contains !== undefined) {
      if (length === 0 && $minContains === undefined) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'contains',
          keywordLocation: `${schemaLocation}/contains`,
          error: `Array is empty. It must contain at least one item matching the schema.`
        });
      } else if ($minContains !== undefined && length < $minContains) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'minContains',
          keywordLocation: `${schemaLocation}/minContains`,
          error: `Array has less items (${length}) than minContains (${$minContains}).`
        });
      } else {
        const keywordLocation = `${schemaLocation}/contains`;
        const errorsLength = errors.length;
        let contained = 0;
        for (let j = 0; j < length; j++) {
          const result = validate(
            instance[j],
            $contains,
            draft,
            lookup,
            true, // toolshed patch: only the verdict counts here
            recursiveAnchor,
            { base: instanceLocation, key: j },
            keywordLocation
          );
          if (result.valid) {
            if (limits.trackEvaluated) evaluated[j] = true;
            contained++;
          } else {
            addErrors(errors, result.errors);
          }
        }

        if (contained >= ($minContains || 0)) {
          errors.length = errorsLength;
        }

        if ($minContains === undefined && contained === 0) {
          errors.splice(errorsLength, 0, {
            instanceLocation: where(instanceLocation),
            keyword: 'contains',
            keywordLocation,
            error: `Array does not contain item matching schema.`
          });
        } else if ($minContains !== undefined && contained < $minContains) {
          errors.push({
            instanceLocation: where(instanceLocation),
            keyword: 'minContains',
            keywordLocation: `${schemaLocation}/minContains`,
            error: `Array must contain at least ${$minContains} items matching schema. Only ${contained} items were found.`
          });
        } else if ($maxContains !== undefined && contained > $maxContains) {
          errors.push({
            instanceLocation: where(instanceLocation),
            keyword: 'maxContains',
            keywordLocation: `${schemaLocation}/maxContains`,
            error: `Array may contain at most ${$maxContains} items matching schema. ${contained} items were found.`
          });
        }
      }
    }

    if (!stop && $unevaluatedItems !== undefined) {
      const keywordLocation = `${schemaLocation}/unevaluatedItems`;
      for (i; i < length; i++) {
        if (evaluated[i]) {
          continue;
        }
        const result = validate(
          instance[i],
          $unevaluatedItems,
          draft,
          lookup,
          shortCircuit,
          recursiveAnchor,
          { base: instanceLocation, key: i },
          keywordLocation
        );
        if (limits.trackEvaluated) evaluated[i] = true;
        if (!result.valid) {
          errors.push(
            {
              instanceLocation: where(instanceLocation),
              keyword: 'unevaluatedItems',
              keywordLocation,
              error: `Items did not match unevaluated items schema.`
            }
          );
          addErrors(errors, result.errors);
          if (shortCircuit || limits.saturated) break;
        }
      }
    }

    if ($uniqueItems) {
      // toolshed patch: one pass with a Map of canonical forms instead of comparing
      // every pair, so the cost is linear in the array's size.
      const duplicate = firstDuplicate(instance);
      if (duplicate !== undefined) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'uniqueItems',
          keywordLocation: `${schemaLocation}/uniqueItems`,
          error: `Duplicate items at indexes ${duplicate[0]} and ${duplicate[1]}.`
        });
      }
    }
  } else if (instanceType === 'number') {
    if (draft === '4') {
      if (
        $minimum !== undefined &&
        (($exclusiveMinimum === true && instance <= $minimum) ||
          instance < $minimum)
      ) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'minimum',
          keywordLocation: `${schemaLocation}/minimum`,
          error: `${instance} is less than ${
            $exclusiveMinimum ? 'or equal to ' : ''
          } ${$minimum}.`
        });
      }
      if (
        $maximum !== undefined &&
        (($exclusiveMaximum === true && instance >= $maximum) ||
          instance > $maximum)
      ) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'maximum',
          keywordLocation: `${schemaLocation}/maximum`,
          error: `${instance} is greater than ${
            $exclusiveMaximum ? 'or equal to ' : ''
          } ${$maximum}.`
        });
      }
    } else {
      if ($minimum !== undefined && instance < $minimum) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'minimum',
          keywordLocation: `${schemaLocation}/minimum`,
          error: `${instance} is less than ${$minimum}.`
        });
      }
      if ($maximum !== undefined && instance > $maximum) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'maximum',
          keywordLocation: `${schemaLocation}/maximum`,
          error: `${instance} is greater than ${$maximum}.`
        });
      }
      if ($exclusiveMinimum !== undefined && instance <= $exclusiveMinimum) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'exclusiveMinimum',
          keywordLocation: `${schemaLocation}/exclusiveMinimum`,
          error: `${instance} is less than ${$exclusiveMinimum}.`
        });
      }
      if ($exclusiveMaximum !== undefined && instance >= $exclusiveMaximum) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'exclusiveMaximum',
          keywordLocation: `${schemaLocation}/exclusiveMaximum`,
          error: `${instance} is greater than or equal to ${$exclusiveMaximum}.`
        });
      }
    }
    if ($multipleOf !== undefined) {
      if (!isMultipleOf(instance, $multipleOf)) {
        errors.push({
          instanceLocation: where(instanceLocation),
          keyword: 'multipleOf',
          keywordLocation: `${schemaLocation}/multipleOf`,
          error: `${instance} is not a multiple of ${$multipleOf}.`
        });
      }
    }
  } else if (instanceType === 'string') {
    limits.remaining -= instance.length >> 6; // toolshed patch: string scans are work too
    const length =
      $minLength === undefined && $maxLength === undefined
        ? 0
        : ucs2length(instance);
    if ($minLength !== undefined && length < $minLength) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'minLength',
        keywordLocation: `${schemaLocation}/minLength`,
        error: `String is too short (${length} < ${$minLength}).`
      });
    }
    if ($maxLength !== undefined && length > $maxLength) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'maxLength',
        keywordLocation: `${schemaLocation}/maxLength`,
        error: `String is too long (${length} > ${$maxLength}).`
      });
    }
    if ($pattern !== undefined && !compiledPattern($pattern).test(instance)) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'pattern',
        keywordLocation: `${schemaLocation}/pattern`,
        error: `String does not match pattern.`
      });
    }
    if (
      $format !== undefined &&
      format[$format] &&
      !format[$format](instance)
    ) {
      errors.push({
        instanceLocation: where(instanceLocation),
        keyword: 'format',
        keywordLocation: `${schemaLocation}/format`,
        error: `String does not match format "${$format}".`
      });
    }
  }

  return errors.length === 0 ? VALID : { valid: false, errors };
}
