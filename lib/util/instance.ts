// The name of one server instance, which begins the ids it makes that only it can answer
// for: a 2025-era session's, and a task's while tasks live in its memory (`<name>.<uuid>`).
// Behind a load balancer such an id says which instance made it, so another instance can
// say where it lives instead of only "unknown".

/** An instance's name: letters, digits, `-` and `_`, up to 63 (a Kubernetes pod name fits). */
const NAME = "[A-Za-z0-9_-]{1,63}";

/** `--instance NAME`. */
export const INSTANCE_NAME = new RegExp(`^${NAME}$`);

/** An id an instance made: its name, a dot, a UUID. */
const INSTANCE_ID = new RegExp(
  `^(${NAME})\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`,
);

/** A name when none is given: 8 random hex digits. */
export function randomInstanceName(): string {
  return crypto.getRandomValues(new Uint8Array(4)).toHex();
}

/** A new id of `instance`: its name, a dot, and a random UUID (122 random bits). */
export function idOf(instance: string): string {
  return `${instance}.${crypto.randomUUID()}`;
}

/** The instance an id says made it, when it has that shape; undefined for any other id. */
export function instanceOf(id: string): string | undefined {
  return INSTANCE_ID.exec(id)?.[1];
}
