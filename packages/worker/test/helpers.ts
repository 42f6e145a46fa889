import { randomBytes } from "node:crypto";
import type { Backend } from "@fleet/backend";

/** A fresh automation type per test so tests sharing a DB never see each other's keys. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString("hex")}`;
}

export async function waitUntil<T>(fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export type BackendFactory = () => Promise<Backend> | Backend;

/** Wraps a backend to count calls by method name (e.g. to prove one bus subscription per process). */
export function countingBackend(backend: Backend): { backend: Backend; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(backend, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== "function" || typeof prop !== "string") return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { backend: proxy, calls };
}
