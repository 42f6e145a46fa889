// The console's own writes make names known at once: a Backend whose writes tell the
// discovery what they created (or removed), wrapped around the real one where the app
// opens its backend. Everything else passes through untouched.
import { keys, priorityFromInt, queueKeyForPriority, type Priority } from "../keys";
import type { Backend } from "../types";
import type { NameDiscovery } from "./name-discovery";

type Note = (d: NameDiscovery, args: unknown[], result: unknown) => void;
const str = (v: unknown) => String(v);

/** The priority list a push writes (`priority` as queuePush takes it). */
function pushKey(name: unknown, priority: unknown): string {
  const p: Priority = typeof priority === "number" ? priorityFromInt(priority) : priority === "high" || priority === "low" ? priority : "normal";
  return queueKeyForPriority(str(name), p);
}

/** What each write tells the discovery once it has succeeded. */
const NOTES: Partial<Record<keyof Backend, Note>> = {
  kvSet: (d, [ns, key]) => d.learnKvKey(str(ns), str(key)),
  kvSetNx: (d, [ns, key], ok) => ok === true && d.learnKvKey(str(ns), str(key)),
  kvDel: (d, [ns, key], ok) => ok === true && d.forgetKvKey(str(ns), str(key)),
  poolPut: (d, [name]) => d.noteKey(keys.pool(str(name))),
  poolDelete: (d, [name]) => d.forget("pool", str(name)),
  lockAcquire: (d, [name], token) => token !== null && d.learn("lock", str(name)),
  lockForceRelease: (d, [name], ok) => ok === true && d.forget("lock", str(name)),
  counterIncr: (d, [name]) => d.learn("counter", str(name)),
  counterSet: (d, [name]) => d.learn("counter", str(name)),
  counterDel: (d, [name], ok) => ok === true && d.forget("counter", str(name)),
  // Queues by the key written, so the ownership rule decides: a push to queue "jobs:high"
  // writes fleet:queue:jobs:high, the high list of queue "jobs".
  queuePush: (d, [name, , opts]) => d.noteKey(pushKey(name, (opts as { priority?: unknown } | undefined)?.priority)),
  queuePushMany: (d, [name, items]) => {
    if (Array.isArray(items)) for (const it of items as Array<{ priority?: unknown }>) d.noteKey(pushKey(name, it.priority));
  },
  queueDead: (d, [name]) => d.noteKey(keys.queueDead(str(name))),
  queueFail: (d, [name]) => d.noteKey(keys.queueDead(str(name))),
  queueNack: (d, [name]) => d.noteKey(keys.queue(str(name))),
  streamPush: (d, [name]) => d.learn("stream", str(name)),
};

export function noteWrites<B extends Backend>(backend: B, discovery: NameDiscovery): B {
  // Wrappers are made once per method, and again if the method is replaced on the object
  // (tests instrument a backend by assigning its methods).
  const wrapped = new Map<PropertyKey, { of: unknown; fn: unknown }>();
  return new Proxy(backend, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      const cached = wrapped.get(prop);
      if (cached?.of === value) return cached.fn;
      const note = typeof prop === "string" ? NOTES[prop as keyof Backend] : undefined;
      const method = value as (...a: unknown[]) => unknown;
      const fn = note
        ? async (...args: unknown[]) => {
            const result = await method.apply(target, args);
            note(discovery, args, result);
            return result;
          }
        : method.bind(target);
      wrapped.set(prop, { of: value, fn });
      return fn;
    },
  });
}
