// Failed sign-ins slow down, per user name and client address, in memory: after 3
// failures in a row each attempt must wait 1 s, 2 s, 4 s … up to 5 minutes after the
// last failure. A success clears the record. The map is bounded so a flood of names
// cannot grow it without limit.
export const FREE_FAILURES = 3;
export const MAX_DELAY_MS = 5 * 60_000;
const FORGET_AFTER_MS = 30 * 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  failures: number;
  last: number;
}

export class SignInThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => number = Date.now) {}

  private key(user: string, address: string | null): string {
    return `${user.toLowerCase()}\u0000${address ?? "unknown"}`;
  }

  /** Milliseconds until the next attempt is allowed; 0 when it is allowed now. */
  waitMs(user: string, address: string | null): number {
    const e = this.entries.get(this.key(user, address));
    if (!e || e.failures < FREE_FAILURES) return 0;
    const delay = Math.min(1000 * 2 ** (e.failures - FREE_FAILURES), MAX_DELAY_MS);
    return Math.max(0, e.last + delay - this.clock());
  }

  fail(user: string, address: string | null): void {
    const now = this.clock();
    const k = this.key(user, address);
    const e = this.entries.get(k);
    const stale = e && now - e.last > FORGET_AFTER_MS;
    this.entries.delete(k); // re-inserted last: Map order is then least recently failed first
    this.entries.set(k, { failures: e && !stale ? e.failures + 1 : 1, last: now });
    if (this.entries.size > MAX_ENTRIES) {
      for (const old of this.entries.keys()) {
        this.entries.delete(old);
        if (this.entries.size <= MAX_ENTRIES) break;
      }
    }
  }

  succeed(user: string, address: string | null): void {
    this.entries.delete(this.key(user, address));
  }
}

const THROTTLE = Symbol.for("fleet.console.signInThrottle");

export function signInThrottle(): SignInThrottle {
  const g = globalThis as { [THROTTLE]?: SignInThrottle };
  g[THROTTLE] ??= new SignInThrottle();
  return g[THROTTLE];
}
