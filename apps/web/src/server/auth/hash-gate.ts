// At most a few password hashes at once per process (issue 12.5). A scrypt check takes
// 32 MiB and tens of milliseconds of a libuv thread; unbounded, a burst of sign-ins (from
// many addresses, each within its budget) would take every thread and the memory with it.
// Further checks wait their turn, a bounded number for a bounded time, then give up: the
// caller answers 429 without having checked anything.
export const BUSY: unique symbol = Symbol("hash-gate-busy");

export interface HashGateStats {
  running: number;
  waiting: number;
  /** The most that ever ran at once. */
  maxRunning: number;
  /** Checks run through the gate. */
  total: number;
}

export class HashGate {
  private running = 0;
  private readonly queue: Array<{ go: () => void; timer: ReturnType<typeof setTimeout> }> = [];
  private maxRunning = 0;
  private total = 0;

  constructor(
    readonly concurrency = 2,
    readonly maxWaiting = 32,
    readonly waitMs = 5_000,
  ) {}

  /** Runs `fn` when a slot is free; BUSY when none came free in time (or too many wait). */
  async run<T>(fn: () => Promise<T>): Promise<T | typeof BUSY> {
    if (this.running >= this.concurrency) {
      if (this.queue.length >= this.maxWaiting) return BUSY;
      const admitted = await new Promise<boolean>((resolve) => {
        const entry = {
          go: () => {
            clearTimeout(entry.timer);
            resolve(true);
          },
          timer: setTimeout(() => {
            const i = this.queue.indexOf(entry);
            if (i >= 0) this.queue.splice(i, 1);
            resolve(false);
          }, this.waitMs),
        };
        this.queue.push(entry);
      });
      if (!admitted) return BUSY;
      // the slot was handed over by the one that finished: `running` already counts us
    } else {
      this.running += 1;
    }
    this.maxRunning = Math.max(this.maxRunning, this.running);
    this.total += 1;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) next.go();
      else this.running -= 1;
    }
  }

  stats(): HashGateStats {
    return { running: this.running, waiting: this.queue.length, maxRunning: this.maxRunning, total: this.total };
  }
}

const GATE = Symbol.for("fleet.console.hashGate");

/** The process's gate for password checks (on globalThis: one per process, across dev reloads). */
export function hashGate(): HashGate {
  const g = globalThis as { [GATE]?: HashGate };
  g[GATE] ??= new HashGate();
  return g[GATE];
}
