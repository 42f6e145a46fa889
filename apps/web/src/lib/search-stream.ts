// The browser side of GET /api/v1/queues/{name}/search: reads the NDJSON answer line by line
// as it arrives and hands each line over; an error envelope (4xx/5xx before the stream
// began) is thrown as ApiError, like every other call (src/lib/api.ts).
import { SearchLineSchema, type SearchLine } from "@fleet/schema";

import { API_BASE, ApiError, UNEXPECTED_ANSWER, backendAvailability, errorFromAnswer, qs, seg } from "./api";

export interface SearchParams {
  q?: string;
  where?: string;
  /** Comma list: pending, processing, scheduled, dead; empty for all. */
  in?: string;
  limit?: number;
}

export function searchPath(name: string, p: SearchParams): string {
  return `/queues/${seg(name)}/search${qs({ q: p.q, where: p.where, in: p.in, limit: p.limit })}`;
}

/** Streams one search; resolves when the answer ends, rejects with ApiError or AbortError. */
export async function streamSearch(name: string, p: SearchParams, signal: AbortSignal, onLine: (line: SearchLine) => void): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${searchPath(name, p)}`, { signal, credentials: "same-origin", cache: "no-store", headers: { Accept: "application/x-ndjson" } });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, "network_error", "The console did not answer. Check that it is running and reachable.");
  }
  if (!res.ok) {
    const err = errorFromAnswer(res, await res.json().catch(() => undefined));
    if (err.backendUnavailable) backendAvailability.set({ unavailable: true, message: err.message });
    throw err;
  }
  /** One NDJSON line as its schema reads it; a line that does not match ends the search with an error. */
  const parse = (line: string): SearchLine => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    const checked = SearchLineSchema.safeParse(json);
    if (!checked.success) throw new ApiError(res.status, UNEXPECTED_ANSWER, "The console's search answer has a line of an unexpected shape.");
    return checked.data;
  };
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") onLine(parse(line));
    }
  }
  if (buffered.trim() !== "") onLine(parse(buffered));
}
