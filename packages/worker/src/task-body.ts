// Task bodies: `{"id": "<32 hex>", "payload": {...}}`, plus `attempts` and `last_error` once a run failed.
// Reading and editing them is @fleet/backend's (src/task-body.ts): the id is the one the reserve
// registered, and a retry changes only `attempts` and `last_error`, byte for byte.
import { randomBytes } from "node:crypto";
import { parseTaskEnvelope, pyJsonBytes, withTaskFailure } from "@fleet/backend";

export function newTaskId(): string {
  return randomBytes(16).toString("hex");
}

export function encodeTaskBody(payload: unknown, id: string = newTaskId()): { id: string; body: Buffer } {
  return { id, body: pyJsonBytes({ id, payload }) };
}

export interface ParsedTaskBody {
  id: string;
  payload: unknown;
  attempts: number;
  lastError: string | null;
  doc: Record<string, unknown>;
}

/** The bytes each parsed doc came from, so that withFailure edits them rather than re-encoding the doc. */
const sourceBodies = new WeakMap<object, Buffer>();

/**
 * Null exactly when the body has no usable id, i.e. when the reserve left it unregistered (one
 * rule, @fleet/backend's taskIdOfBody), so dead-lettering it has no reservation to end.
 */
export function parseTaskBody(body: Buffer): ParsedTaskBody | null {
  const envelope = parseTaskEnvelope(body);
  if (!envelope) return null;
  const { id, doc } = envelope;
  sourceBodies.set(doc, body);
  const attempts = typeof doc.attempts === "number" && Number.isInteger(doc.attempts) && doc.attempts >= 0 ? doc.attempts : 0;
  const lastError = typeof doc.last_error === "string" && doc.last_error !== "" ? doc.last_error : null;
  return { id, payload: doc.payload, attempts, lastError, doc };
}

const MAX_ERROR_CHARS = 2000;

/**
 * The body with `attempts` and `last_error` set and every other byte as it was (integers
 * beyond 2^53, `1.0`, key order, escapes): existing members keep their place, new ones go last,
 * as a Python dict update would. `doc` is what parseTaskBody returned; a doc from anywhere else
 * is encoded as Python's json.dumps would.
 */
export function withFailure(doc: Record<string, unknown>, attempts: number, error: string): Buffer {
  const lastError = error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error;
  const source = sourceBodies.get(doc);
  const edited = source ? withTaskFailure(source, attempts, lastError) : null;
  return edited ?? pyJsonBytes({ ...doc, attempts, last_error: lastError });
}

/** Exponential backoff: base * 2^(attempts-1), capped, with ±20 % jitter so retries of a burst spread out. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(0, Math.round(raw * (0.8 + 0.4 * random())));
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return typeof err === "string" ? err : (JSON.stringify(err) ?? String(err));
}
