// What the runtime's own steps cost per byte at 16 MiB against 1 MiB (adr/0053): each step a
// large stdio echo must take, alone, on a flat ASCII payload. A step's per-byte growth is its
// 16 MiB time ÷ (16 × its 1 MiB time); memory touched for the first time makes it grow for the
// steps that write fresh buffers.
import { payload } from "./e2e/measure.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

for (const size of [MIB, 16 * MIB]) {
  const text = payload(size);
  const message = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } };
  const line = JSON.stringify(message);
  const bytes = encoder.encode(line);
  const group = `${size / MIB} MiB`;
  Deno.bench(`JSON.stringify, ${group}`, { group }, () => {
    JSON.stringify(message);
  });
  Deno.bench(`JSON.parse, ${group}`, { group }, () => {
    JSON.parse(line);
  });
  Deno.bench(`TextDecoder.decode, ${group}`, { group }, () => {
    decoder.decode(bytes);
  });
  Deno.bench(`TextEncoder.encode, ${group}`, { group }, () => {
    encoder.encode(line);
  });
  Deno.bench(`encodeInto a fresh buffer, ${group}`, { group }, () => {
    encoder.encodeInto(line, new Uint8Array(line.length));
  });
  Deno.bench(`a fresh Uint8Array filled with set, ${group}`, { group }, () => {
    new Uint8Array(bytes.length).set(bytes);
  });
}
