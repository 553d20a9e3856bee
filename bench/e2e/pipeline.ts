// Pipelined echo calls over one connection, as bench:e2e's rounds (bench/e2e/measure.ts) and its
// bursts (bench/e2e/bursts.ts) make them: `inFlight` requests kept outstanding, a new one sent as
// each answer arrives, every answer checked against the text its request carried.
import { checkEcho, type Connection } from "./client.ts";

/** When a pipeline stops sending: after `requests` requests, or once `ms` have passed. */
export type PipelineLimit =
  | { inFlight: number; requests: number }
  | { inFlight: number; ms: number };

/** What a pipeline got: every request it sent answered, over `seconds`. */
export interface Pipelined {
  answered: number;
  seconds: number;
}

/**
 * Sends echoes with ids from `firstId` until the limit, then waits for the answers still in
 * flight; throws at the first wrong answer (naming `label`).
 */
export async function pipeline(
  server: Connection,
  label: string,
  firstId: number,
  limit: PipelineLimit,
): Promise<Pipelined> {
  const texts = new Map<number, string>();
  const started = performance.now();
  const open = "requests" in limit
    ? (sent: number) => sent < limit.requests
    : () => performance.now() - started < limit.ms;
  let sent = 0;
  const sendMore = (count: number) => {
    const ids: number[] = [];
    const batch: string[] = [];
    for (; ids.length < count && open(sent); sent++) {
      const id = firstId + sent;
      const text = `pipelined ${id}`;
      texts.set(id, text);
      ids.push(id);
      batch.push(text);
    }
    return ids.length > 0 ? server.sendEchoes(ids, batch) : Promise.resolve();
  };
  await sendMore(limit.inFlight);
  let answered = 0;
  // Each pass takes one answer to a request sent, so the loop ends once sending has stopped.
  while (answered < sent) {
    const response = await server.nextResponse();
    const id = response.id as number;
    checkEcho(label, response, id, texts.get(id) ?? "<unknown id>");
    texts.delete(id);
    answered++;
    await sendMore(1);
  }
  return { answered, seconds: (performance.now() - started) / 1000 };
}
