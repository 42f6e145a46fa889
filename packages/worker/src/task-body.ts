// Task bodies: `{"id": "<32 hex>", "payload": {...}}`, plus `attempts` and `last_error` once a run failed.
import { randomBytes } from "node:crypto";
import { isJsonObject, parseJsonBytes, pyJsonBytes } from "@fleet/backend";

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

/** Null when the body is not a JSON object with a usable id (such a body is delivered unregistered). */
export function parseTaskBody(body: Buffer): ParsedTaskBody | null {
  const parsed = parseJsonBytes(body);
  if (!parsed.ok || !isJsonObject(parsed.value)) return null;
  const doc = parsed.value;
  const rawId = doc.id;
  const id = typeof rawId === "string" ? rawId : typeof rawId === "number" ? String(rawId) : "";
  if (!id) return null;
  const attempts = typeof doc.attempts === "number" && Number.isInteger(doc.attempts) && doc.attempts >= 0 ? doc.attempts : 0;
  const lastError = typeof doc.last_error === "string" && doc.last_error !== "" ? doc.last_error : null;
  return { id, payload: doc.payload, attempts, lastError, doc };
}

const MAX_ERROR_CHARS = 2000;

/**
 * The body re-encoded with `attempts` and `last_error` set. Existing keys keep their place
 * (as a Python dict update would), new ones go last.
 */
export function withFailure(doc: Record<string, unknown>, attempts: number, error: string): Buffer {
  const next: Record<string, unknown> = { ...doc };
  next.attempts = attempts;
  next.last_error = error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error;
  return pyJsonBytes(next);
}

/** Exponential backoff: base * 2^(attempts-1), capped, with ±20 % jitter so retries of a burst spread out. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(0, Math.round(raw * (0.8 + 0.4 * random())));
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return typeof err === "string" ? err : JSON.stringify(err) ?? String(err);
}
