// What a dead letter's body says about how it died, for the on-call reader: the last error,
// how many attempts, when it failed and on which worker. Fleet's bodies carry `attempts` and
// `last_error`; a runtime that also records the time or the worker uses one of the names below,
// and anything else is simply not shown (never guessed).
import type { RawValue } from "@fleet/schema";

import { cutJsonField } from "./full-value";

/** A member of a JSON object body as text (bodyField's rule; a cut preview still holds its first members). */
function bodyField(v: RawValue | null | undefined, field: string): string | null {
  let f: unknown;
  if (v?.truncated && (v.json === null || v.json === undefined) && v.text) {
    f = cutJsonField(v.text, field);
  } else {
    const j = v?.json;
    if (j === null || typeof j !== "object" || Array.isArray(j)) return null;
    f = Object.hasOwn(j, field) ? (j as Record<string, unknown>)[field] : undefined;
  }
  if (f === undefined || f === null) return null;
  return typeof f === "string" ? f : JSON.stringify(f);
}

const TIME_FIELDS = ["failed_at", "dead_at", "last_failed_at", "died_at", "dead_lettered_at"] as const;
const WORKER_FIELDS = ["last_worker", "worker_id", "worker", "failed_on"] as const;

export interface DeadLetterFacts {
  error: string | null;
  attempts: number | null;
  /** Unix seconds. */
  failedAt: number | null;
  /** The body's own name of the field `failedAt` came from. */
  failedAtField: string | null;
  worker: string | null;
  workerField: string | null;
}

/** Unix seconds from a number (seconds, or milliseconds when it is that large) or an ISO date. */
export function parseWhen(text: string | null): number | null {
  if (text === null || text.trim() === "") return null;
  const t = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(t)) {
    const n = Number(t);
    if (!Number.isFinite(n) || n <= 0) return null;
    return n > 1e12 ? n / 1000 : n;
  }
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

export function deadLetterFacts(body: RawValue | null | undefined): DeadLetterFacts {
  const attemptsText = bodyField(body, "attempts");
  const attempts = attemptsText !== null && /^\d+$/.test(attemptsText) ? Number(attemptsText) : null;
  let failedAt: number | null = null;
  let failedAtField: string | null = null;
  for (const f of TIME_FIELDS) {
    const when = parseWhen(bodyField(body, f));
    if (when !== null) {
      failedAt = when;
      failedAtField = f;
      break;
    }
  }
  let worker: string | null = null;
  let workerField: string | null = null;
  for (const f of WORKER_FIELDS) {
    const w = bodyField(body, f);
    if (w !== null && w.trim() !== "") {
      worker = w;
      workerField = f;
      break;
    }
  }
  return { error: bodyField(body, "last_error"), attempts, failedAt, failedAtField, worker, workerField };
}
