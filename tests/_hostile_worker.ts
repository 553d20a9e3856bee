// Validates one hostile shape (tests/_hostile_shapes.ts) in a Worker, so that a test can
// stop a validation that never ends instead of hanging the suite.
import { compileSchema } from "../lib/schema/compile.ts";
import { messageOf } from "../lib/util/json.ts";
import { SHAPES } from "./_hostile_shapes.ts";

const worker = self as unknown as Worker;
worker.onmessage = (event: MessageEvent<{ name: string; size: number }>) => {
  const shape = SHAPES.find((candidate) => candidate.name === event.data.name)!;
  const check = compileSchema(shape.schema);
  let outcome: string;
  try {
    outcome = check(shape.hostile(event.data.size)) ?? "valid";
  } catch (error) {
    outcome = `threw: ${messageOf(error)}`;
  }
  worker.postMessage(outcome);
};
