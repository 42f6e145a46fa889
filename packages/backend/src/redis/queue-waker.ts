// Wakes a process's idle reservers the moment a task is pushed, without a poll per slot.
//
// The reserve must stay one atomic script (pop + register), and scripts cannot block, so the
// waiting is done beside it: one dedicated connection per pending list (high, normal, low)
// blocks in `BLMOVE key key LEFT LEFT`: it answers as soon as the list holds anything, and
// moving the head element to the head of the same list leaves the list exactly as it was
// (a Python BLPOP blocked on the same list is still served). The answer wakes every waiter;
// each then reserves through the script as usual. While nobody waits, nothing is sent.
import { setTimeout as sleep } from "node:timers/promises";
import type { RedisConnectionOptions } from "./connection";
import { RedisConnection } from "./connection";

/** How long one BLMOVE blocks before it is sent again (bounds shutdown and reconnects). */
const BLOCK_SECONDS = 5;

export class QueueWaker {
  private readonly waiters = new Set<(woken: boolean) => void>();
  private readonly conns: RedisConnection[];
  private closed = false;
  /** Loops parked until somebody waits. */
  private readonly parked = new Set<() => void>();

  constructor(rawUrl: string, opts: RedisConnectionOptions, listKeys: string[]) {
    // one blocking connection per list key
    this.conns = listKeys.map(
      () =>
        new RedisConnection(rawUrl, opts, {
          // a blocked command must outlive its own block time, not the console's 1.5 s budget
          commandTimeout: (BLOCK_SECONDS + 5) * 1000,
          connectionName: "fleet-queue-waker",
        }),
    );
    listKeys.forEach((key, i) => void this.loop(this.conns[i]!, key));
  }

  /** Resolves true when a push was seen, false after `timeoutMs`. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.waiters.add(done);
      this.unpark();
    });
  }

  private unpark(): void {
    for (const p of [...this.parked]) p();
    this.parked.clear();
  }

  private wakeAll(): void {
    for (const w of [...this.waiters]) w(true);
  }

  private async loop(conn: RedisConnection, key: string): Promise<void> {
    while (!this.closed) {
      if (this.waiters.size === 0) {
        await new Promise<void>((resolve) => this.parked.add(resolve));
        continue;
      }
      try {
        const r = await conn.ready();
        const hit = await r.blmoveBuffer(key, key, "LEFT", "LEFT", BLOCK_SECONDS);
        if (hit !== null) this.wakeAll();
      } catch {
        // Redis away or the connection closed: the waiters' own timeouts keep the slots polling
        if (!this.closed) await sleep(500);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unpark();
    for (const w of [...this.waiters]) w(false);
    // a blocked connection would answer QUIT only after its BLMOVE: drop it
    for (const c of this.conns) c.client.disconnect();
  }
}
