// Fleet's master housekeeping for fleets without a Python master (or beside one): one leader
// at a time through the Fleet lock primitive (`fleet:lock:<lockName>`), which, when it takes
// the lead, replaces `fleet:catalog` with its automations' schemas and then sweeps every
// queue's expired reservations every `sweepIntervalMs` (10 s, as the schema document says).
// Followers retry the lock; a leader renews it every third of its hold and steps down the
// moment a renewal fails, so a leader that stalls or dies is replaced within `holdSeconds`.
import type { Backend } from "@fleet/backend";
import { NameDiscovery } from "@fleet/backend";
import type { Automation } from "./automation";
import { catalogDoc, sweepQueues, type SweepReport } from "./housekeeping";
import { errorText } from "./task-body";

export interface MasterOptions {
  backend: Backend;
  /** Published to `fleet:catalog` (replacing it) whenever this master takes the lead. */
  automations: Automation[];
  /**
   * `replace` (default): clear `fleet:catalog` and write these automations, as the schema
   * document's master does on every start; `none`: leave the catalog to another master.
   */
  catalog?: "replace" | "none";
  sweepIntervalMs?: number;
  /** The lock's name (`fleet:lock:<name>`): masters sharing it elect one leader. */
  lockName?: string;
  /** How long the lead outlives a silent leader. */
  holdSeconds?: number;
  now?: () => number;
  log?: (line: string) => void;
}

export interface Master {
  readonly isLeader: boolean;
  readonly sweeps: number;
  /** Times this master took the lead. */
  readonly terms: number;
  /** Resolves once this master leads (or rejects after `timeoutMs`). */
  waitForLead(timeoutMs?: number): Promise<void>;
  /** Runs one sweep now if leading (what the timer runs); null when following. */
  sweep(): Promise<SweepReport | null>;
  /** Steps down (releasing the lock) and stops. */
  stop(): Promise<void>;
  /** As a crash: stops without releasing the lock (tests; the lock then expires). */
  kill(): Promise<void>;
}

export const MASTER_LOCK = "fleet-master";

export async function startMaster(opts: MasterOptions): Promise<Master> {
  const { backend, automations } = opts;
  const lockName = opts.lockName ?? MASTER_LOCK;
  const holdSeconds = opts.holdSeconds ?? 30;
  const sweepIntervalMs = opts.sweepIntervalMs ?? 10_000;
  const log = opts.log ?? (() => {});
  const renewMs = Math.max(100, (holdSeconds * 1000) / 3);
  // queue names without a SCAN of the whole key space per sweep (a Redis shared with another
  // application's millions of keys): one paced walk, plus what Redis reports as written
  const discovery = new NameDiscovery(backend, { log: (m) => log(`master: discovery: ${m}`) });

  let token: string | null = null;
  let stopped = false;
  let sweeps = 0;
  let terms = 0;
  let sweepTimer: ReturnType<typeof setInterval> | null = null;
  let electionTimer: ReturnType<typeof setTimeout> | null = null;
  let inFlight: Promise<SweepReport | null> | null = null;
  let electing: Promise<void> | null = null;
  const leadWaiters = new Set<() => void>();

  const stepDown = (why: string) => {
    if (token === null) return;
    token = null;
    if (sweepTimer) clearInterval(sweepTimer);
    sweepTimer = null;
    log(`master: stepped down (${why})`);
  };

  const sweep = (): Promise<SweepReport | null> => {
    if (token === null || stopped) return Promise.resolve(null);
    if (inFlight !== null) return inFlight;
    inFlight = sweepQueues(backend, opts.now?.(), () => discovery.names("queue"))
      .then((r) => {
        sweeps++;
        if (r.requeued || r.orphaned) log(`master: sweep re-queued ${r.requeued} expired reservation(s), dropped ${r.orphaned} orphan(s): ${JSON.stringify(r.byQueue)}`);
        return r;
      })
      .catch((err: unknown) => {
        log(`master: sweep failed: ${errorText(err)}`);
        return null;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };

  const takeLead = async (t: string) => {
    token = t;
    terms++;
    log(`master: leading (lock ${lockName}, hold ${holdSeconds} s)`);
    if ((opts.catalog ?? "replace") === "replace") {
      try {
        await backend.catalogReplace(new Map(automations.map((a) => [a.type, catalogDoc(a)])));
        log(`master: catalog replaced: ${automations.map((a) => a.type).join(", ") || "(empty)"}`);
      } catch (err) {
        log(`master: catalog write failed: ${errorText(err)}`);
      }
    }
    if (token !== t || stopped) return;
    sweepTimer = setInterval(() => void sweep(), sweepIntervalMs);
    sweepTimer.unref?.();
    for (const w of leadWaiters) w();
    leadWaiters.clear();
    await sweep();
  };

  const elect = async () => {
    try {
      if (token === null) {
        const t = await backend.lockAcquire(lockName, holdSeconds, 0);
        if (t !== null && !stopped) await takeLead(t);
      } else if (!(await backend.lockExtend(lockName, token, holdSeconds))) {
        stepDown("the lock was lost");
      }
    } catch (err) {
      // Redis unreachable: a leader that cannot renew may already have lost the lock; it stops sweeping
      // until it can prove it holds it again (a sweep by two masters is harmless, but the lead is not guessed)
      log(`master: election failed: ${errorText(err)}`);
      if (token !== null) {
        const t = token;
        try {
          if (!(await backend.lockExtend(lockName, t, holdSeconds))) stepDown("the lock was lost");
        } catch {
          stepDown("Redis unreachable");
        }
      }
    }
  };

  const schedule = () => {
    if (stopped) return;
    electionTimer = setTimeout(() => {
      electing = elect().finally(() => {
        electing = null;
        schedule();
      });
    }, renewMs);
    electionTimer.unref?.();
  };

  electing = elect().finally(() => {
    electing = null;
  });
  await electing;
  schedule();

  const halt = async (release: boolean) => {
    if (stopped) return;
    stopped = true;
    if (electionTimer) clearTimeout(electionTimer);
    if (electing !== null) await electing.catch(() => {});
    if (inFlight !== null) await inFlight;
    const t = token;
    stepDown(release ? "stopping" : "killed");
    await discovery.close();
    if (release && t !== null) await backend.lockRelease(lockName, t).catch(() => false);
  };

  return {
    get isLeader() {
      return token !== null;
    },
    get sweeps() {
      return sweeps;
    },
    get terms() {
      return terms;
    },
    waitForLead(timeoutMs = 60_000) {
      if (token !== null) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          leadWaiters.delete(done);
          reject(new Error(`not leading after ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        leadWaiters.add(done);
      });
    },
    sweep,
    stop: () => halt(true),
    kill: () => halt(false),
  };
}
