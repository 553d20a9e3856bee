// Sizes and encodings that file resources and module resources share: how many bytes one read
// returns (text as UTF-8, a blob decoded), the error when that is over the limit, and base64.

/** The error a read over the limit rejects with (the flag is the host's name for the limit). */
export function overLimitError(uri: string, bytes: number, limit: number): Error {
  return new Error(
    `Resource "${uri}" is ${bytes} bytes, over the limit of ${limit} bytes (--max-resource-bytes)`,
  );
}

/** The length of `text` in UTF-8, counted without encoding it (a lone surrogate counts 3). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else bytes += 3;
  }
  return bytes;
}

/** The number of bytes `blob` decodes to, or undefined when it is not padded standard base64. */
export function base64Length(blob: string): number | undefined {
  if (blob.length % 4 !== 0) return undefined;
  const padding = blob.endsWith("==") ? 2 : blob.endsWith("=") ? 1 : 0;
  // A character class, not a pattern of groups: no backtracking on a blob of megabytes.
  if (/[^A-Za-z0-9+/]/.test(blob.slice(0, blob.length - padding))) return undefined;
  return blob.length / 4 * 3 - padding;
}

/** `bytes` as padded standard base64, by the runtime's own encoder. */
export function toBase64(bytes: Uint8Array): string {
  return bytes.toBase64();
}
