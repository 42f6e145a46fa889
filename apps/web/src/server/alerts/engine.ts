// The alert engine, run by the watch leader after each history tick (src/server/watch/service.ts):
//
//   evaluate: the rules (fleet:console:alerts:rules) against the tick's figures and whatever
//   else the rules need (workers, pools, dead letters T ago from the history ring); an alert
//   that starts firing or resolves is one atomic change (Backend.alertStateWrite): the firing
//   hash, one outbox entry per webhook, one history entry. An alert already firing is never
//   queued again: "no repeats while firing".
//
//   deliver: outbox entries that are due, oldest first (a resolved message waits for its
//   firing message to the same webhook), POSTed with a short timeout and no redirects
//   followed; a success or a final failure removes the entry and leaves a history entry; a
//   failure before that is retried later (10 s, 30 s, 1 min, 2, 5, 10, 15 min: 8 tries).
//
// Both steps first confirm the lead (a lock renewal), so a process that lost it sends
// nothing. Delivery is at least once: a leader that dies between a POST and its record
// leaves the entry for the next leader, which sends it again.
import { randomBytes } from "node:crypto";

import { pyJsonBytes, type Backend, type HistoryRangeRead } from "@fleet/backend";
import { AlertConfigSchema, type AlertConfig, type AlertDelivery, type AlertHistoryEntry, type Webhook } from "@fleet/schema";

import { joinRanges, recordsAt, ringRanges, slotTime, TIERS } from "../history/format";
import type { WatchTick } from "../history/writer";
import { deadKey, evaluate, needs, type AlertInputs, type FiringRecord } from "./evaluate";
import { formatSpan, maskWebhookUrl } from "./text";

export const ALERT_HISTORY_MAX = 1000;
export const OUTBOX_MAX = 500;
export const RETRY_DELAYS_SECONDS = [10, 30, 60, 120, 300, 600, 900];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 5000;
/** Characters of a receiver's answer kept in an error message. */
const ANSWER_PREVIEW = 200;

/** An outbox entry as stored (JSON): the delivery shown on the Alerts page plus what to send. */
export interface OutboxEntry extends AlertDelivery {
  seq: number;
  alert: FiringRecord;
  resolved_at: number | null;
}

export interface AlertEngineOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  log?: (line: string) => void;
  offlineAfterSeconds: number;
  /**
   * The pools a pool_free rule looks at: the app's one name discovery (src/server/watch/index.ts),
   * never a walk of the key space per tick (issue 11). Default: Backend.poolNames, which walks
   * the whole key space (tests, scripts).
   */
  poolNames?: (backend: Backend) => Promise<string[]>;
}

/** The stored rules document, parsed; an empty document before the first write. */
export async function readAlertConfig(backend: Backend): Promise<{ config: AlertConfig; gen: number; problem: string | null }> {
  const { doc, gen } = await backend.alertRulesGet();
  if (doc === null) return { config: { webhooks: [], rules: [] }, gen, problem: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(doc.toString("utf8"));
  } catch {
    return { config: { webhooks: [], rules: [] }, gen, problem: "the stored alert rules are not JSON" };
  }
  const r = AlertConfigSchema.safeParse(parsed);
  if (!r.success) return { config: { webhooks: [], rules: [] }, gen, problem: `the stored alert rules do not validate: ${r.error.issues[0]?.message ?? "?"}` };
  return { config: r.data, gen, problem: null };
}

function parseJson<T>(buf: Buffer): T | null {
  try {
    return JSON.parse(buf.toString("utf8")) as T;
  } catch {
    return null;
  }
}

const historyEntry = (e: AlertHistoryEntry) => pyJsonBytes(e);

export class AlertEngine {
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly log: (line: string) => void;
  private seq = 0;
  private lastProblem: string | null = null;

  constructor(private readonly opts: AlertEngineOptions) {
    this.fetchFn = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.log = opts.log ?? (() => {});
  }

  /** Evaluates the rules against a tick; commits what started firing or resolved. */
  async evaluate(backend: Backend, tick: WatchTick, now: number, confirm: () => Promise<boolean>): Promise<void> {
    const { config, problem } = await readAlertConfig(backend);
    if (problem !== this.lastProblem) {
      if (problem) this.log(`alerts not evaluated: ${problem}`);
      this.lastProblem = problem;
    }
    if (problem) return;
    const state = await backend.alertStateRead(0);
    const firing = new Map<string, FiringRecord>();
    for (const [key, buf] of state.firing) {
      const rec = parseJson<FiringRecord>(buf);
      if (rec && typeof rec.rule_id === "string") firing.set(key, { ...rec, key });
    }
    if (config.rules.length === 0 && firing.size === 0) return;

    const inputs = await this.inputs(backend, config, tick, now);
    const { transitions, updates } = evaluate(config, inputs, firing);
    if (transitions.length === 0 && updates.length === 0) return;

    const firingSet = new Map<string, Buffer>();
    const firingDel: string[] = [];
    const outboxSet = new Map<string, Buffer>();
    const history: Buffer[] = [];
    for (const u of updates) firingSet.set(u.key, pyJsonBytes(u));
    const outboxSize = state.outbox.size;
    for (const t of transitions) {
      if (t.type === "firing") firingSet.set(t.alert.key, pyJsonBytes(t.alert));
      else firingDel.push(t.alert.key);
      history.push(historyEntry({ ts: now, type: t.type, alert_key: t.alert.key, rule_id: t.alert.rule_id, summary: t.alert.summary }));
      const rule = config.rules.find((r) => r.id === t.alert.rule_id);
      const targets = targetsOf(config, rule?.webhooks ?? []);
      for (const w of targets) {
        if (outboxSize + outboxSet.size >= OUTBOX_MAX) {
          // The outbox is bounded: a receiver down for long must not grow Redis without end.
          history.push(
            historyEntry({
              ts: now,
              type: "delivery_dropped",
              alert_key: t.alert.key,
              rule_id: t.alert.rule_id,
              summary: t.alert.summary,
              webhook: webhookLabel(w),
              error: `the outbox holds ${OUTBOX_MAX} deliveries already`,
            }),
          );
          continue;
        }
        const entry: OutboxEntry = {
          id: randomBytes(8).toString("hex"),
          seq: ++this.seq,
          ts: now,
          webhook_id: w.id,
          webhook: webhookLabel(w),
          status: t.type,
          alert_key: t.alert.key,
          summary: t.alert.summary,
          attempts: 0,
          next_at: now,
          last_error: null,
          alert: t.alert,
          resolved_at: t.type === "resolved" ? now : null,
        };
        outboxSet.set(entry.id, pyJsonBytes(entry));
      }
    }
    if (!(await confirm())) return;
    await backend.alertStateWrite({ firingSet, firingDel, outboxSet, history, historyMax: ALERT_HISTORY_MAX });
    for (const t of transitions) this.log(`alert ${t.type}: ${t.alert.summary}`);
  }

  private async inputs(backend: Backend, config: AlertConfig, tick: WatchTick, now: number): Promise<AlertInputs> {
    const need = needs(config);
    const queues = new Map(tick.queues.map((q) => [q.name, { depths: q.depths, oldestPendingAge: q.oldestPendingAge, drainSeconds: q.drainSeconds }]));
    const [deadBefore, workers, pools] = await Promise.all([
      this.deadBefore(backend, [...queues.keys()], need.deadWindows, tick.ts),
      need.workers ? this.workerCounts(backend, now) : Promise.resolve(null),
      need.pools ? this.poolFree(backend) : Promise.resolve(null),
    ]);
    return { now, queues, deadBefore, workers, pools };
  }

  /** Dead letters `T` ago per queue and window, from the 10 s ring: the slot T ago or the one after it. */
  private async deadBefore(backend: Backend, names: string[], windows: Set<number>, ts: number): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (windows.size === 0 || names.length === 0) return out;
    const asks: Array<{ name: string; seconds: number; times: number[]; length: number }> = [];
    const reads: HistoryRangeRead[] = [];
    for (const seconds of windows) {
      const at = slotTime("10s", ts - seconds);
      const { ranges, times } = ringRanges("10s", at, at + TIERS["10s"].step);
      if (ranges.length !== 1) continue; // the two slots straddle the ring's end: skip this tick
      for (const name of names) {
        asks.push({ name, seconds, times, length: ranges[0]!.length });
        reads.push({ series: name, tier: "10s", ...ranges[0]! });
      }
    }
    const got = await backend.historyRead(reads);
    asks.forEach((a, i) => {
      const recs = recordsAt(joinRanges([got[i] ?? Buffer.alloc(0)], [a]), a.times);
      const rec = recs.find((r) => r !== null);
      if (rec) out.set(deadKey(a.name, a.seconds), rec.dead);
    });
    return out;
  }

  private async workerCounts(backend: Backend, now: number): Promise<Map<string, { offline: number; error: number }>> {
    const refs = await backend.workerList();
    const out = new Map<string, { offline: number; error: number }>();
    for (let i = 0; i < refs.length; i += 1000) {
      for (const w of await backend.workersIndex(refs.slice(i, i + 1000))) {
        const c = out.get(w.automationType) ?? { offline: 0, error: 0 };
        out.set(w.automationType, c);
        if (w.lastSeen === null || now - w.lastSeen > this.opts.offlineAfterSeconds) c.offline++;
        else if (w.state === "ERROR" || w.state === null) c.error++;
      }
    }
    return out;
  }

  private async poolFree(backend: Backend): Promise<Map<string, { free: number; size: number }>> {
    const names = await (this.opts.poolNames ?? ((b: Backend) => b.poolNames()))(backend);
    const sums = names.length > 0 ? await backend.poolSummaries(names) : [];
    return new Map(sums.map((p) => [p.name, { free: p.free, size: p.size }]));
  }

  /** Sends what is due. Answers how many deliveries were attempted. */
  async deliver(backend: Backend, now: number, confirm: () => Promise<boolean>): Promise<number> {
    const state = await backend.alertStateRead(0);
    if (state.outbox.size === 0) return 0;
    const { config } = await readAlertConfig(backend);
    const entries = [...state.outbox.values()]
      .map((b) => parseJson<OutboxEntry>(b))
      .filter((e): e is OutboxEntry => e !== null && typeof e.id === "string")
      .sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    const blocked = new Set<string>();
    let attempted = 0;
    for (const e of entries) {
      const lane = `${e.webhook_id}|${e.alert_key}`;
      // One alert's messages to one webhook go in order: firing before resolved.
      if (blocked.has(lane)) continue;
      blocked.add(lane);
      if (e.next_at > now) continue;
      const webhook = config.webhooks.find((w) => w.id === e.webhook_id);
      if (!(await confirm())) return attempted;
      if (!webhook) {
        await backend.alertStateWrite({
          outboxDel: [e.id],
          history: [
            historyEntry({
              ts: now,
              type: "delivery_dropped",
              alert_key: e.alert_key,
              rule_id: e.alert.rule_id,
              summary: e.summary,
              webhook: e.webhook,
              error: "the webhook was removed from the rules",
            }),
          ],
          historyMax: ALERT_HISTORY_MAX,
        });
        blocked.delete(lane);
        continue;
      }
      attempted++;
      const error = await this.post(webhook, e, now);
      const attempts = e.attempts + 1;
      if (error === null) {
        await backend.alertStateWrite({
          outboxDel: [e.id],
          history: [
            historyEntry({ ts: now, type: "delivered", alert_key: e.alert_key, rule_id: e.alert.rule_id, summary: `${e.status}: ${e.summary}`, webhook: e.webhook, attempts }),
          ],
          historyMax: ALERT_HISTORY_MAX,
        });
        blocked.delete(lane);
        this.log(`alert ${e.status} delivered to ${e.webhook}${attempts > 1 ? ` (attempt ${attempts})` : ""}`);
      } else if (attempts >= MAX_ATTEMPTS) {
        await backend.alertStateWrite({
          outboxDel: [e.id],
          history: [
            historyEntry({
              ts: now,
              type: "delivery_failed",
              alert_key: e.alert_key,
              rule_id: e.alert.rule_id,
              summary: `${e.status}: ${e.summary}`,
              webhook: e.webhook,
              attempts,
              error,
            }),
          ],
          historyMax: ALERT_HISTORY_MAX,
        });
        blocked.delete(lane);
        this.log(`alert ${e.status} to ${e.webhook} given up after ${attempts} attempts: ${error}`);
      } else {
        const delay = RETRY_DELAYS_SECONDS[Math.min(attempts - 1, RETRY_DELAYS_SECONDS.length - 1)]!;
        const next: OutboxEntry = { ...e, attempts, last_error: error, next_at: now + delay };
        await backend.alertStateWrite({ outboxSet: new Map([[e.id, pyJsonBytes(next)]]), historyMax: ALERT_HISTORY_MAX });
        this.log(`alert ${e.status} to ${e.webhook} failed (attempt ${attempts}, next in ${formatSpan(delay)}): ${error}`);
      }
    }
    return attempted;
  }

  /** One POST; null on a 2xx answer, else why not (never the URL's path or query). */
  private async post(webhook: Webhook, e: OutboxEntry, now: number): Promise<string | null> {
    const body = webhook.format === "slack" ? slackBody(e) : jsonBody(e, now);
    try {
      const res = await this.fetchFn(webhook.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "fleet-console-alerts" },
        body: JSON.stringify(body),
        // Never follow a redirect: an admin-given URL must not lead the console elsewhere.
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.status >= 200 && res.status < 300) {
        await res.body?.cancel().catch(() => undefined);
        return null;
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel().catch(() => undefined);
        return `${maskWebhookUrl(webhook.url)} answered ${res.status}, a redirect, which is not followed`;
      }
      const text = (await res.text().catch(() => "")).slice(0, ANSWER_PREVIEW).replace(/\s+/g, " ").trim();
      return `${maskWebhookUrl(webhook.url)} answered ${res.status}${text ? `: ${text}` : ""}`;
    } catch (err) {
      const name = err instanceof Error ? err.name : "";
      if (name === "TimeoutError" || name === "AbortError") return `${maskWebhookUrl(webhook.url)} did not answer within ${this.timeoutMs} ms`;
      // fetch's own messages can carry the URL: say what kind of failure it was, in our words
      const cause = err instanceof Error && err.cause instanceof Error ? ((err.cause as Error & { code?: string }).code ?? err.cause.message) : null;
      return `${maskWebhookUrl(webhook.url)} could not be reached${cause ? ` (${cause})` : ""}`;
    }
  }
}

function targetsOf(config: AlertConfig, ids: string[]): Webhook[] {
  return ids.length === 0 ? config.webhooks : config.webhooks.filter((w) => ids.includes(w.id));
}

function webhookLabel(w: Webhook): string {
  return w.name ? `${w.name} (${maskWebhookUrl(w.url)})` : maskWebhookUrl(w.url);
}

/** The generic JSON message. */
export function jsonBody(e: OutboxEntry, now: number) {
  return {
    status: e.status,
    alert: {
      key: e.alert.key,
      rule_id: e.alert.rule_id,
      rule_name: e.alert.rule_name,
      kind: e.alert.kind,
      subject: e.alert.subject,
      value: e.alert.value,
      summary: e.summary,
      since: e.alert.since,
    },
    resolved_at: e.resolved_at,
    sent_at: now,
    source: "fleet-console",
  };
}

/** Slack-compatible (incoming webhooks, Mattermost, Rocket.Chat...): one line of text. */
export function slackBody(e: OutboxEntry) {
  const lasted = e.resolved_at !== null ? ` (after ${formatSpan(e.resolved_at - e.alert.since)})` : "";
  return { text: `${e.status === "firing" ? ":rotating_light: FIRING" : ":white_check_mark: RESOLVED"} ${e.alert.rule_name}: ${e.summary}${lasted}` };
}
