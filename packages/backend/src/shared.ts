// Small helpers both implementations share (one copy, not one per domain module).
import type { DeadLettersBackend, RequeueOptions } from "./types";

/** The client's clock in unix seconds, as Python's `time.time()`. */
export const nowSeconds = (): number => Date.now() / 1000;

export const sleep = (ms: number): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Python's `time.time() + ttl`-style durations, as milliseconds Redis accepts (PX >= 1). */
export const toPx = (seconds: number): number => Math.max(1, Math.round(seconds * 1000));

/** Names `field` in a record's `corrupt` list, once. */
export function markCorrupt(rec: { corrupt: string[] }, field: string): void {
  if (!rec.corrupt.includes(field)) rec.corrupt.push(field);
}

/** Plain code-unit order, independent of the locale, so both backends sort names alike. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A by-ref dead-letter action as both implementations run it: `dlqLocate`, then `dlqTake` of
 * what was found; `missing` is every ref not taken, lower-cased, once each, in the order given.
 */
export async function dlqByRef(
  dlq: Pick<DeadLettersBackend, "dlqLocate" | "dlqTake">,
  name: string,
  refs: string[],
  action: "requeue" | "delete",
  opts: RequeueOptions = {},
): Promise<{ count: number; missing: string[] }> {
  if (refs.length === 0) return { count: 0, missing: [] };
  const located = await dlq.dlqLocate(name, refs);
  const taken = located.found.length > 0 ? await dlq.dlqTake(name, located.found, action, opts) : { count: 0, missing: [] };
  const gone = new Set([...located.missing, ...taken.missing]);
  return { count: taken.count, missing: [...new Set(refs.map((x) => x.toLowerCase()))].filter((x) => gone.has(x)) };
}

/** Where an instance keeps the operations its domain modules answered (see installOperations). */
const OPERATIONS = Symbol("operations");

type OperationsHolder = { [OPERATIONS]: Record<string, (...args: unknown[]) => unknown> };

/**
 * Makes the domain modules' operations (`ops`, one instance's) methods of a class: each is put
 * once on `proto` as a method calling the instance's own, so an instance behaves as any class
 * instance does (a test may replace a method on the instance and delete it again, a Proxy
 * may wrap it), while the domain code stays functions of their context.
 */
export function installOperations(proto: object, instance: object, ops: object): void {
  Object.defineProperty(instance, OPERATIONS, { value: ops });
  for (const name of Object.keys(ops)) {
    if (Object.hasOwn(proto, name)) continue;
    Object.defineProperty(proto, name, {
      value: function operation(this: OperationsHolder, ...args: unknown[]) {
        return this[OPERATIONS][name]!(...args);
      },
      writable: true,
      configurable: true,
    });
  }
}
