// One `event:*` subscription per backend (so per process), shared by every worker in it.
// Listeners are reference-counted: the subscription opens with the first and closes
// with the last, and one listener leaving never cuts off the others.
import type { Backend, BusMessage, Subscription } from "@fleet/backend";

export type BusListener = (msg: BusMessage) => void;

export interface SharedBus {
  /** Adds a listener for one topic (channel without `event:`), or every topic with "*". Resolves once subscribed. */
  listen(topic: string, listener: BusListener): Promise<() => Promise<void>>;
  readonly listenerCount: number;
}

class Bus implements SharedBus {
  private readonly listeners = new Map<string, Set<BusListener>>();
  private sub: Promise<Subscription> | null = null;
  private count = 0;

  constructor(private readonly backend: Backend) {}

  get listenerCount(): number {
    return this.count;
  }

  private dispatch(msg: BusMessage): void {
    for (const key of [msg.topic, "*"]) {
      const set = this.listeners.get(key);
      if (!set) continue;
      for (const l of [...set]) {
        try {
          l(msg);
        } catch {
          // one faulty listener must not starve the rest
        }
      }
    }
  }

  async listen(topic: string, listener: BusListener): Promise<() => Promise<void>> {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    // wrap so the same function may be added twice and removed independently
    const entry: BusListener = (m) => listener(m);
    set.add(entry);
    this.count++;
    if (!this.sub) {
      this.sub = this.backend.subscribeEvents((m) => this.dispatch(m));
      this.sub.catch(() => {
        this.sub = null;
      });
    }
    try {
      await this.sub;
    } catch (err) {
      set.delete(entry);
      this.count--;
      throw err;
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      set.delete(entry);
      if (set.size === 0 && this.listeners.get(topic) === set) this.listeners.delete(topic);
      this.count--;
      if (this.count === 0 && this.sub !== null) {
        const sub = this.sub;
        this.sub = null;
        await (await sub).close();
      }
    };
  }
}

const buses = new WeakMap<Backend, Bus>();

export function sharedBus(backend: Backend): SharedBus {
  let bus = buses.get(backend);
  if (!bus) buses.set(backend, (bus = new Bus(backend)));
  return bus;
}
