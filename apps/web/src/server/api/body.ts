// Reading request bodies with a size limit. A body over the limit is still read (and
// thrown away) up to a hard cap before we answer 413, so the client sees our answer
// instead of a connection reset mid-upload.
import { badRequest, payloadTooLarge } from "./errors";

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;

export async function readBodyBytes(request: Request, limit = BODY_LIMIT_BYTES, discardLimit = DISCARD_LIMIT_BYTES): Promise<Buffer> {
  const tooLarge = () => payloadTooLarge(`The request body is larger than ${formatBytes(limit)}; send a smaller body (split large batches).`);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  let over = Number.isFinite(declared) && declared > limit;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) over = true;
      if (over) {
        chunks.length = 0;
        if (total > discardLimit) break;
        continue;
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } finally {
    // past the discard cap (or on a read error) stop the upload instead of draining it
    reader.cancel().catch(() => undefined);
  }
  if (over) throw tooLarge();
  return Buffer.concat(chunks, total);
}

/** Parses a body as JSON; malformed JSON, invalid UTF-8 or an empty body is a 400. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw badRequest("The request needs a JSON body, and it was empty.");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("The request body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const why = err instanceof SyntaxError ? `: ${err.message}` : "";
    throw badRequest(`The request body is not valid JSON${why}.`);
  }
}

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}
