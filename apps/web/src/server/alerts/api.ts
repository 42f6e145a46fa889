// The alert routes' logic: the rules document (read by viewers with webhook URLs masked, by
// admins whole; written by admins as a whole document, compare-and-set on its generation,
// audited with the before and after, URLs masked there too) and the state (firing, deliveries
// waiting, history).
import { isJsonObject, pyJsonBytes, StaleGenerationError, type Backend } from "@fleet/backend";
import { AlertConfigSchema, AlertDeliverySchema, AlertHistoryEntrySchema, FiringAlertSchema, ROLE_RANK, type AlertConfig, type AlertRules, type AlertsStatus } from "@fleet/schema";
import { z } from "zod";

import { noteConfigChange } from "../audit/audit";
import type { Principal } from "../auth/roles";
import { parseIfMatch } from "../api/config-writes";
import { conflict, preconditionFailed, validationFailed, zodDetails } from "../api/errors";
import { announceAdmin } from "../api/resources";
import { readAlertConfig } from "./engine";
import { maskWebhookUrl } from "./text";

/** The JSON Schema the browser validates the document with (the server validates with zod). */
export const ALERT_CONFIG_JSON_SCHEMA = z.toJSONSchema(AlertConfigSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;

function masked(config: AlertConfig): AlertConfig {
  return { ...config, webhooks: config.webhooks.map((w) => ({ ...w, url: maskWebhookUrl(w.url) })) };
}

export async function getAlertRules(backend: Backend, principal: Principal): Promise<{ body: AlertRules; gen: number }> {
  const { config, gen, problem } = await readAlertConfig(backend);
  if (problem) throw conflict(`${problem[0]!.toUpperCase()}${problem.slice(1)}; an admin can replace them (PUT /api/v1/alerts/rules).`);
  const admin = ROLE_RANK[principal.role] >= ROLE_RANK.admin;
  return { body: { config: admin ? config : masked(config), gen, urls_masked: !admin, schema: ALERT_CONFIG_JSON_SCHEMA }, gen };
}

/** PUT: the whole document. If-Match "<gen>" (the editor sends it) makes a stale write a 412. */
export async function putAlertRules(backend: Backend, request: Request, body: unknown): Promise<{ body: AlertRules; gen: number }> {
  if (!isJsonObject(body)) throw validationFailed("The body must be a JSON object: the alert rules document.", [{ path: "", message: "must be a JSON object" }]);
  const parsed = AlertConfigSchema.safeParse(body);
  if (!parsed.success) {
    const details = zodDetails(parsed.error);
    const first = details[0]!;
    const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? "s" : ""})` : "";
    throw validationFailed(`The alert rules are invalid: ${first.path || "the document"} ${first.message}${more}.`, details);
  }
  const ifMatch = parseIfMatch(request.headers.get("if-match"));
  const current = await readAlertConfig(backend);
  if (ifMatch !== null && !ifMatch.includes(current.gen)) {
    throw preconditionFailed(`The alert rules have changed: they are at generation ${current.gen}, not ${ifMatch.join(" or ")}. Reload them and apply your change again.`);
  }
  let gen: number;
  try {
    ({ gen } = await backend.alertRulesSet(pyJsonBytes(parsed.data), current.gen));
  } catch (err) {
    if (err instanceof StaleGenerationError) {
      const msg = `The alert rules changed while this write was checked (now generation ${err.currentGen ?? "unreadable"}). Reload them and apply your change again.`;
      throw ifMatch !== null ? preconditionFailed(msg) : conflict(msg);
    }
    throw err;
  }
  noteConfigChange("alerts", masked(current.config), masked(parsed.data));
  await announceAdmin(backend, "alerts.rules.put", { gen, rules: parsed.data.rules.length, webhooks: parsed.data.webhooks.length });
  return { body: { config: parsed.data, gen, urls_masked: false, schema: ALERT_CONFIG_JSON_SCHEMA }, gen };
}

export const ALERTS_HISTORY_LIMIT = 200;

function parseEach<T>(bufs: Iterable<Buffer>, schema: z.ZodType<T>): T[] {
  const out: T[] = [];
  for (const b of bufs) {
    try {
      const r = schema.safeParse(JSON.parse(b.toString("utf8")));
      if (r.success) out.push(r.data);
    } catch {
      // an entry that is not JSON is skipped, never fatal
    }
  }
  return out;
}

export async function getAlertsStatus(backend: Backend, limit: number): Promise<AlertsStatus> {
  const state = await backend.alertStateRead(limit);
  const firing = parseEach(state.firing.values(), FiringAlertSchema.loose()).sort((a, b) => a.since - b.since || (a.key < b.key ? -1 : 1));
  const deliveries = parseEach(state.outbox.values(), AlertDeliverySchema.loose()).sort((a, b) => a.ts - b.ts);
  // what the page shows, without the stored payload copies
  return {
    firing: firing.map((f) => FiringAlertSchema.parse(f)),
    deliveries: deliveries.map((d) => AlertDeliverySchema.parse(d)),
    history: parseEach(state.history, AlertHistoryEntrySchema),
    history_total: state.historyTotal,
  };
}
