// What every domain module of the in-memory implementation works with: the key space, whether
// the backend was closed (waits end), and the event bus's listeners. The domain modules
// (./kv.ts, ./queues.ts, ./workers.ts, ...) are functions of this context, as on Redis
// (../redis/context.ts).
import { CorruptDataError } from "../errors";
import { priorityFromInt, type Priority } from "../keys";
import type { BusMessage } from "../types";
import { MemoryStore, type Value } from "./store";

export interface MemoryContext {
  readonly raw: MemoryStore;
  isClosed(): boolean;
  /** Subscribers of the event bus (subscribeEvents). */
  readonly listeners: Set<(msg: BusMessage) => void>;
  /** Publishes on the bus: each listener gets its copy after the current step, as Redis delivers after the publish returns. */
  publish(topic: string, payload: Buffer): void;
}

export function createMemoryContext(): MemoryContext & { close(): void } {
  let closed = false;
  const listeners = new Set<(msg: BusMessage) => void>();
  return {
    raw: new MemoryStore(),
    isClosed: () => closed,
    listeners,
    publish(topic, payload) {
      for (const listener of [...listeners]) {
        queueMicrotask(() => {
          if (listeners.has(listener)) listener({ topic, payload: Buffer.from(payload) });
        });
      }
    },
    close() {
      closed = true;
      listeners.clear();
    },
  };
}

/** `read()`, or `fallback` when it meets a key of another type (MemoryStore's WRONGTYPE). */
export function wrongTypeAs<T, F>(fallback: F, read: () => T): T | F {
  try {
    return read();
  } catch (err) {
    if (err instanceof CorruptDataError && err.message.startsWith("WRONGTYPE")) return fallback;
    throw err;
  }
}

/** Bytes that are never UTF-8, so they never parse: what a key of the wrong type reads as. */
const UNREADABLE = Buffer.from([0xff]);

/** A key of the wrong type reads as an unparseable value (corrupt), never as an error. */
export function stringOrUnreadable(v: Value | undefined): Buffer | null {
  if (v === undefined) return null;
  return v.type === "string" ? v.value : UNREADABLE;
}

export function ttlMs(ttlSeconds: number | null | undefined): number | null {
  return ttlSeconds != null && ttlSeconds > 0 ? ttlSeconds * 1000 : null;
}

export function normalizePriority(p: number | Priority | undefined): Priority {
  if (p === undefined) return "normal";
  return typeof p === "number" ? priorityFromInt(p) : p;
}
