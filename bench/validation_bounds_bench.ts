// Evidence for adr/0010: what validating 1 MiB of arguments costs, for each hostile shape
// (tests/_hostile_shapes.ts) beside a benign value of about the same size against the same
// schema (the baseline of its group). Before the patches, the hostile side of every group
// took from seconds to hours, or crashed the process.
import { compileSchema } from "../lib/schema/compile.ts";
import { SHAPES } from "../tests/_hostile_shapes.ts";

const SIZE = 1024 * 1024;

for (const shape of SHAPES) {
  const check = compileSchema(shape.schema);
  const benign = shape.benign(SIZE);
  const hostile = shape.hostile(SIZE);
  const sizeOf = (value: unknown) => `${(JSON.stringify(value).length / SIZE).toFixed(2)} MiB`;
  const run = (value: unknown) => () => {
    try {
      check(value);
    } catch {
      // The budget of steps ran out: the call would be an isError result.
    }
  };
  Deno.bench(`${shape.name}: benign, ${sizeOf(benign)}`, {
    group: shape.name,
    baseline: true,
    n: 10,
    warmup: 2,
  }, run(benign));
  Deno.bench(`${shape.name}: hostile, ${sizeOf(hostile)}`, {
    group: shape.name,
    n: 10,
    warmup: 2,
  }, run(hostile));
}
