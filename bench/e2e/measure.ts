// deno-lint-ignore-file no-console -- reports a contestant that cannot take a payload
// One round of end-to-end measurements against one contestant: a fresh process, then
// cold start, sequential and pipelined echo calls, peak memory, CPU, and payload sizes.
import { checkEcho, type Contestant, spawn } from "./client.ts";
import { pipeline } from "./pipeline.ts";

export interface Workload {
  sequential: number;
  pipelined: number;
  inFlight: number;
  /** Payload sizes in bytes for the growth curve; 1 MiB must be among them. */
  payloadSizes: number[];
}

export interface RoundResult {
  coldStartMs: number;
  seqP50Ms: number;
  seqP99Ms: number;
  seqRps: number;
  pipelinedRps: number;
  peakRssMb: number;
  cpuUsPerRequest: number;
  /** Round trip in ms of one echo, by payload size in bytes. */
  payloadMs: Record<number, number>;
}

const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ

export async function measureRound(contestant: Contestant, work: Workload): Promise<RoundResult> {
  const started = performance.now();
  const server = spawn(contestant);
  try {
    await server.open();
    await server.sendEchoes([1], ["cold"]);
    checkEcho(contestant.label, await server.nextResponse(), 1, "cold");
    const coldStartMs = performance.now() - started;

    let nextId = 2;
    // Warm-up: let the JIT see the hot path before anything is timed.
    for (let i = 0; i < 200; i++) {
      const id = nextId++;
      await server.sendEchoes([id], ["warm-up"]);
      checkEcho(contestant.label, await server.nextResponse(), id, "warm-up");
    }

    const cpuBefore = cpuSeconds(server.pid);
    const latencies: number[] = [];
    const seqStarted = performance.now();
    for (let i = 0; i < work.sequential; i++) {
      const id = nextId++;
      const text = `sequential ${id}`;
      const sent = performance.now();
      await server.sendEchoes([id], [text]);
      checkEcho(contestant.label, await server.nextResponse(), id, text);
      latencies.push(performance.now() - sent);
    }
    const seqSeconds = (performance.now() - seqStarted) / 1000;

    const { seconds: pipelinedSeconds } = await pipeline(server, contestant.label, nextId, {
      inFlight: work.inFlight,
      requests: work.pipelined,
    });
    nextId += work.pipelined;
    const cpuUsPerRequest = (cpuSeconds(server.pid) - cpuBefore) * 1e6 /
      (work.sequential + work.pipelined);
    const peakRssMb = peakRss(server.pid);

    // A server that cannot take a size (a capped buffer) gets NaN from that size on.
    const payloadMs: Record<number, number> = {};
    let failed = false;
    for (const size of work.payloadSizes) {
      payloadMs[size] = NaN;
      if (failed) continue;
      const text = payload(size);
      const times: number[] = [];
      // Medians of several round trips: one garbage collection can double a single one.
      const repeats = size >= 4 * 1024 * 1024 ? 5 : 9;
      try {
        for (let i = 0; i < repeats; i++) {
          const id = nextId++;
          // Encoded before the clock starts: the client's own 16 MiB stringify and encode are
          // not the server's per-byte cost (adr/0052).
          const request = server.encodeEchoes([id], [text]);
          const sent = performance.now();
          await server.send(request);
          checkEcho(contestant.label, await server.nextResponse(), id, text);
          times.push(performance.now() - sent);
        }
        payloadMs[size] = median(times);
      } catch (error) {
        failed = true;
        console.error(`${contestant.label}: no answer for a ${size}-byte payload: ${error}`);
      }
    }

    latencies.sort((a, b) => a - b);
    return {
      coldStartMs,
      seqP50Ms: quantile(latencies, 0.5),
      seqP99Ms: quantile(latencies, 0.99),
      seqRps: work.sequential / seqSeconds,
      pipelinedRps: work.pipelined / pipelinedSeconds,
      peakRssMb,
      cpuUsPerRequest,
      payloadMs,
    };
  } finally {
    await server.close();
  }
}

/** User plus system CPU time of the whole process (all threads), from /proc. */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** The process's high-water mark of resident memory (VmHWM), in MB. */
function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kilobytes = Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1]);
  return kilobytes / 1024;
}

/** Printable ASCII that needs no JSON escaping, so every contestant echoes the same bytes. */
/** `size` bytes of printable ASCII that JSON never escapes: the large echoes' text. */
export function payload(size: number): string {
  const unit = "toolshed-payload-0123456789-abcdefghijklmnopqrstuvwxyz|";
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return quantile(sorted, 0.5);
}

/** The q-quantile of sorted values (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
