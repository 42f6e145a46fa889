// One leader among every console process sharing a Redis, through the Fleet lock primitive
// (`fleet:lock:<name>`), as the TypeScript master elects its own (packages/worker/src/master.ts):
// `lockAcquire(name, hold, 0)` (no waiting: a follower simply tries again later), renewed with
// `lockExtend` every third of the hold. A renewal that fails, or cannot be made (Redis away),
// ends the lead at once: the lock may already be someone else's. A leader that dies (or
// stalls past the hold) loses the lock when it expires, and a follower takes it at its next
// try: hand-over within hold + hold/3.
//
// Framework-free (no Next, no env): tests and child processes build one over any Backend.
import type { Backend } from "@fleet/backend";

export interface LeadershipOptions {
  getBackend: () => Promise<Backend>;
  /** The lock's name (`fleet:lock:<name>`): processes sharing it elect one leader. */
  lockName: string;
  holdSeconds: number;
  onLead?: (term: number) => void;
  onStepDown?: (why: string) => void;
  log?: (line: string) => void;
}

export class Leadership {
  private token: string | null = null;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private electing: Promise<void> | null = null;
  private termCount = 0;
  private readonly renewMs: number;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: LeadershipOptions) {
    this.renewMs = Math.max(100, (opts.holdSeconds * 1000) / 3);
    this.log = opts.log ?? (() => {});
  }

  get isLeader(): boolean {
    return this.token !== null;
  }

  /** Times this process took the lead. */
  get terms(): number {
    return this.termCount;
  }

  /** Tries at once, then every third of the hold. */
  start(): void {
    if (this.timer || this.electing || this.stopped) return;
    this.electing = this.elect().finally(() => {
      this.electing = null;
      this.schedule();
    });
  }

  /** One election round now (tests). */
  async electNow(): Promise<void> {
    await this.electing;
    await this.elect();
  }

  /** Still the leader, as far as Redis says right now (a renewal). */
  async confirm(): Promise<boolean> {
    await this.renew();
    return this.token !== null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.electing = this.elect().finally(() => {
        this.electing = null;
        this.schedule();
      });
    }, this.renewMs);
    this.timer.unref?.();
  }

  private async elect(): Promise<void> {
    if (this.stopped) return;
    if (this.token !== null) {
      await this.renew();
      return;
    }
    try {
      const backend = await this.opts.getBackend();
      const t = await backend.lockAcquire(this.opts.lockName, this.opts.holdSeconds, 0);
      if (t === null || this.stopped) {
        if (t !== null) await backend.lockRelease(this.opts.lockName, t).catch(() => false);
        return;
      }
      this.token = t;
      this.termCount++;
      this.log(`leading (lock ${this.opts.lockName}, hold ${this.opts.holdSeconds} s)`);
      this.opts.onLead?.(this.termCount);
    } catch (err) {
      this.log(`election failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async renew(): Promise<void> {
    const t = this.token;
    if (t === null) return;
    let held: boolean;
    let why = "the lock was lost";
    try {
      held = await (await this.opts.getBackend()).lockExtend(this.opts.lockName, t, this.opts.holdSeconds);
    } catch (err) {
      held = false;
      why = `the lock could not be renewed (${err instanceof Error ? err.message : String(err)})`;
    }
    if (!held && this.token === t) this.stepDown(why);
  }

  private stepDown(why: string): void {
    if (this.token === null) return;
    this.token = null;
    this.log(`stepped down: ${why}`);
    this.opts.onStepDown?.(why);
  }

  /** Stops electing and releases the lock when held (a clean shutdown: another takes over at its next try). */
  async stop(): Promise<void> {
    await this.halt(true);
  }

  /** As a crash: stops without releasing (tests; the lock then expires after its hold). */
  async kill(): Promise<void> {
    await this.halt(false);
  }

  private async halt(release: boolean): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.electing?.catch(() => undefined);
    const t = this.token;
    this.stepDown(release ? "stopping" : "killed");
    if (release && t !== null) {
      try {
        await (await this.opts.getBackend()).lockRelease(this.opts.lockName, t);
      } catch {
        // the lock expires by itself after its hold
      }
    }
  }
}
