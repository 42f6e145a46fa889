// The master's housekeeping: re-queue expired reservations of every queue, and publish
// each automation's schemas to `fleet:catalog`.
import type { Backend } from "@fleet/backend";
import { NameDiscovery } from "@fleet/backend";
import { pyJsonBytes } from "@fleet/backend";
import { z } from "zod";
import type { Automation } from "./automation";
import { errorText } from "./task-body";

export interface HousekeepingOptions {
  backend: Backend;
  automations: Automation[];
  sweepIntervalMs?: number;
  /** Unix seconds; injectable for tests. */
  now?: () => number;
  log?: (line: string) => void;
}

export interface SweepReport {
  queues: number;
  requeued: number;
  orphaned: number;
  byQueue: Record<string, number>;
}

export interface Housekeeping {
  /** Runs one sweep now (also what the timer runs). */
  sweep(): Promise<SweepReport>;
  publishCatalog(): Promise<void>;
  readonly sweeps: number;
  stop(): Promise<void>;
}

/**
 * A zod schema as JSON Schema draft 2020-12. The input side is described: a key with a
 * default is optional, so a stored `{}` validates as the runtime accepts it.
 */
export function jsonSchemaOf(schema: z.ZodType | undefined): Record<string, unknown> | null {
  if (!schema) return null;
  return z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

/** The catalog document `{"config", "output", "task_payload"}` of an automation, as bytes. */
export function catalogDoc(automation: Automation): Buffer {
  const doc: Record<string, unknown> = {
    config: jsonSchemaOf(automation.config),
    output: jsonSchemaOf(automation.output),
    task_payload: jsonSchemaOf(automation.kind === "batch" ? automation.taskPayload : undefined),
  };
  if (automation.description) {
    const cfg = doc.config as Record<string, unknown>;
    if (cfg && cfg.description === undefined) cfg.description = automation.description;
  }
  return pyJsonBytes(doc);
}

export async function publishCatalog(backend: Backend, automations: Automation[]): Promise<void> {
  // entries of other automations (a Python master's, say) are left alone
  await Promise.all(automations.map((a) => backend.catalogSet(a.type, catalogDoc(a))));
}

/**
 * Re-queues the expired reservations of the named queues (default: every queue, found by a
 * walk of the key space; a long-running sweeper passes a NameDiscovery's names instead).
 */
export async function sweepQueues(backend: Backend, now?: number, queueNames?: () => Promise<string[]>): Promise<SweepReport> {
  const names = queueNames ? await queueNames() : await backend.queueNames();
  const report: SweepReport = { queues: names.length, requeued: 0, orphaned: 0, byQueue: {} };
  if (names.length === 0) return report;
  // one batched depth read tells which queues have anything overdue; only those are swept
  const depths = await backend.queueDepths(names, now);
  const overdue = depths.filter((d) => d.overdue > 0).map((d) => d.name);
  const results = await Promise.all(overdue.map((n) => backend.queueSweepExpired(n, now)));
  overdue.forEach((name, i) => {
    const r = results[i]!;
    report.requeued += r.requeued;
    report.orphaned += r.orphaned.length;
    if (r.requeued || r.orphaned.length) report.byQueue[name] = r.requeued;
  });
  return report;
}

export async function startHousekeeping(opts: HousekeepingOptions): Promise<Housekeeping> {
  const { backend, automations } = opts;
  const intervalMs = opts.sweepIntervalMs ?? 10_000;
  const log = opts.log ?? (() => {});
  let sweeps = 0;
  let stopped = false;
  let inFlight: Promise<SweepReport> | null = null;
  // queue names from one paced walk (and what Redis reports written), not a SCAN per sweep
  const discovery = new NameDiscovery(backend, { log: (m) => log(`housekeeping: discovery: ${m}`) });

  const sweep = (): Promise<SweepReport> => {
    if (inFlight !== null) return inFlight;
    inFlight = sweepQueues(backend, opts.now?.(), () => discovery.names("queue"))
      .then((r) => {
        sweeps++;
        if (r.requeued || r.orphaned) log(`sweep re-queued ${r.requeued} expired reservation(s), dropped ${r.orphaned} orphan(s): ${JSON.stringify(r.byQueue)}`);
        return r;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };

  await publishCatalog(backend, automations);
  const timer = setInterval(() => {
    if (!stopped) void sweep().catch((e: unknown) => log(`sweep failed: ${errorText(e)}`));
  }, intervalMs);
  timer.unref?.();

  return {
    sweep,
    publishCatalog: () => publishCatalog(backend, automations),
    get sweeps() {
      return sweeps;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (inFlight !== null) await inFlight.catch(() => {});
      await discovery.close();
    },
  };
}
