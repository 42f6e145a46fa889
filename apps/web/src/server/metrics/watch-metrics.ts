// The watch's figures in GET /api/v1/metrics (issue 15.4), read from what the watch leader
// stored (fleet:console:history:latest, the alert keys), so every replica answers the same:
//
//   fleet_queue_finished_tasks_total{queue}        counter: reservations that ended, as the
//                                                   watch counted them; rate() is the throughput
//   fleet_queue_oldest_pending_age_seconds{queue}  gauge: the oldest pending task's wait, at least
//   fleet_queue_drain_time_seconds{queue}          gauge: to an empty queue at the current trend
//                                                   (absent when not falling or not known)
//   fleet_alerts_firing{rule,kind}                 gauge: alert instances firing, per rule
//   fleet_alert_deliveries_waiting{state}          gauge: webhook deliveries not yet made (new, retrying)
//   fleet_watch_last_tick_timestamp_seconds        gauge: the newest tick's time (alert on it going stale)
//
// Never throws: a failed read leaves these families out (fleet_backend_up says why).
import type { Backend } from "@fleet/backend";

import { readAlertConfig } from "../alerts/engine";
import { parseLatest } from "../history/writer";
import { Exposition } from "./exposition";

function parseJson<T>(buf: Buffer): T | null {
  try {
    return JSON.parse(buf.toString("utf8")) as T;
  } catch {
    return null;
  }
}

export async function collectWatchMetrics(
  getBackend: () => Promise<Backend>,
  log: (m: string, e: unknown) => void = (m, e) => console.error(`[metrics] ${m}:`, e instanceof Error ? e.message : e),
): Promise<string> {
  let backend: Backend;
  let latestRaw: Map<string, Buffer>;
  let state: Awaited<ReturnType<Backend["alertStateRead"]>>;
  let rules: Awaited<ReturnType<typeof readAlertConfig>>;
  try {
    backend = await getBackend();
    [latestRaw, state, rules] = await Promise.all([backend.historyLatest(), backend.alertStateRead(0), readAlertConfig(backend)]);
  } catch (err) {
    log("reading the watch's figures failed", err);
    return "";
  }
  const latest = [...latestRaw]
    .map(([queue, buf]) => ({ queue, l: parseLatest(buf) }))
    .filter((x): x is { queue: string; l: NonNullable<ReturnType<typeof parseLatest>> } => x.l !== null)
    .sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0));
  const out = new Exposition();
  out.counter(
    "fleet_queue_finished_tasks_total",
    "Reservations of a queue that ended (acked, failed or retried), as the console's watch counted them every 10 s; rate() of it is the throughput. A lower bound when tasks pass through a queue between two looks.",
    latest.map(({ queue, l }) => ({ labels: { queue }, value: l.finished_total })),
  );
  out.gauge(
    "fleet_queue_oldest_pending_age_seconds",
    "How long the oldest pending task of a queue has waited, at least (Fleet stores no push time: the watch measures it from the tasks it saw).",
    latest.filter(({ l }) => l.oldest_pending_age_seconds !== null).map(({ queue, l }) => ({ labels: { queue }, value: l.oldest_pending_age_seconds! })),
  );
  out.gauge(
    "fleet_queue_drain_time_seconds",
    "Seconds until a queue's pending tasks reach zero at the trend of the last 5 minutes; absent when the backlog is not falling.",
    latest.filter(({ l }) => l.drain_seconds !== null).map(({ queue, l }) => ({ labels: { queue }, value: l.drain_seconds! })),
  );
  const firing = new Map<string, { kind: string; n: number }>();
  for (const r of rules.config.rules) if (r.enabled) firing.set(r.id, { kind: r.kind, n: 0 });
  for (const buf of state.firing.values()) {
    const f = parseJson<{ rule_id?: string; kind?: string }>(buf);
    if (!f || typeof f.rule_id !== "string") continue;
    const e = firing.get(f.rule_id) ?? { kind: f.kind ?? "", n: 0 };
    e.n++;
    firing.set(f.rule_id, e);
  }
  out.gauge(
    "fleet_alerts_firing",
    "Alert instances firing now, per rule (0 for an enabled rule with none).",
    [...firing].sort(([a], [b]) => (a < b ? -1 : 1)).map(([rule, e]) => ({ labels: { rule, kind: e.kind }, value: e.n })),
  );
  let retrying = 0;
  for (const buf of state.outbox.values()) if ((parseJson<{ attempts?: number }>(buf)?.attempts ?? 0) > 0) retrying++;
  out.gauge("fleet_alert_deliveries_waiting", "Webhook deliveries not made yet: new ones, and failed ones waiting for a retry.", [
    { labels: { state: "new" }, value: state.outbox.size - retrying },
    { labels: { state: "retrying" }, value: retrying },
  ]);
  const newest = latest.reduce((m, { l }) => Math.max(m, l.ts), 0);
  out.gauge(
    "fleet_watch_last_tick_timestamp_seconds",
    "Unix time of the watch leader's newest tick (every 10 s while one leads); absent before the first.",
    newest > 0 ? [{ value: newest }] : [],
  );
  return out.toString();
}
