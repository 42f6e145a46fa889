// The console's own writes make names known at once: a Backend whose writes tell the
// discovery what they created (or removed), wrapped around the real one where the app
// opens its backend. Everything else passes through untouched.
import type { Backend } from "../types";
import type { NameDiscovery } from "./name-discovery";

type Note = (d: NameDiscovery, args: unknown[], result: unknown) => void;
const str = (v: unknown) => String(v);

/** What each write tells the discovery once it has succeeded. */
const NOTES: Partial<Record<keyof Backend, Note>> = {
  kvSet: (d, [ns, key]) => d.learnKvKey(str(ns), str(key)),
  kvSetNx: (d, [ns, key], ok) => ok === true && d.learnKvKey(str(ns), str(key)),
  kvDel: (d, [ns, key], ok) => ok === true && d.forgetKvKey(str(ns), str(key)),
  poolPut: (d, [name]) => d.learn("pool", str(name)),
  poolDelete: (d, [name]) => d.forget("pool", str(name)),
  lockAcquire: (d, [name], token) => token !== null && d.learn("lock", str(name)),
  lockForceRelease: (d, [name], ok) => ok === true && d.forget("lock", str(name)),
  counterIncr: (d, [name]) => d.learn("counter", str(name)),
  counterSet: (d, [name]) => d.learn("counter", str(name)),
  counterDel: (d, [name], ok) => ok === true && d.forget("counter", str(name)),
  queuePush: (d, [name]) => d.learn("queue", str(name)),
  queuePushMany: (d, [name, items]) => Array.isArray(items) && items.length > 0 && d.learn("queue", str(name)),
  queueDead: (d, [name]) => d.learn("queue", str(name)),
  queueFail: (d, [name]) => d.learn("queue", str(name)),
  queueNack: (d, [name]) => d.learn("queue", str(name)),
  streamPush: (d, [name]) => d.learn("stream", str(name)),
};

export function noteWrites<B extends Backend>(backend: B, discovery: NameDiscovery): B {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(backend, {
    get(target, prop, receiver) {
      const note = typeof prop === "string" ? NOTES[prop as keyof Backend] : undefined;
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = value as (...a: unknown[]) => unknown;
        fn = note
          ? async (...args: unknown[]) => {
              const result = await method.apply(target, args);
              note(discovery, args, result);
              return result;
            }
          : method.bind(target);
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
