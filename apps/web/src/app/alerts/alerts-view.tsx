"use client";
// The Alerts page (issue 15.2): what fires now, deliveries not made yet (with why), the
// rules and webhooks, the recent history, and for admins the rules editor: the whole document
// as JSON, checked against its JSON Schema as it is typed, a review of every change (rule by
// rule, field by field) before a save that is a compare-and-set on the generation loaded.
import { AlertRulesSchema, type AlertConfig, type AlertDelivery, type AlertHistoryEntry, type AlertRule, type ErrorDetail, type FiringAlert } from "@fleet/schema";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";

import { ErrorState, LoadingState, PageHeader, RelativeTime, ResultNote, Section } from "@/components";
import { diffConfig, makeValidator, parseJsonObject, RawJsonEditor, validateValue } from "@/components/config-editor";
import { ChangeList } from "@/components/config-editor/change-list";
import { ApiError, apiPut, errorMessage } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import { queries, queryKeys } from "@/lib/query";
import { Can, useSession } from "@/lib/session";

import { ALERT_KINDS_LIST, byIds, conditionText, KIND_LABEL, ruleTemplate, subjectText } from "./rule-text";

function Firing({ firing }: { firing: FiringAlert[] }) {
  return (
    <Section id="firing" title="Firing now" count={formatNumber(firing.length)} empty={firing.length === 0 ? "Nothing is firing." : undefined}>
      <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="firing-list">
        {firing.map((f) => (
          <li key={f.key} className="py-2 text-sm">
            <p className="font-medium text-red-800 dark:text-red-300">
              {f.rule_name} <span className="font-normal text-slate-600 dark:text-slate-400">· {f.subject}</span>
            </p>
            <p>{f.summary}</p>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              firing since <RelativeTime at={f.since} />
            </p>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Deliveries({ deliveries }: { deliveries: AlertDelivery[] }) {
  return (
    <Section
      id="deliveries"
      title="Deliveries not made yet"
      count={formatNumber(deliveries.length)}
      description="Messages waiting for their webhook. A failed one is tried again after 10 s, 30 s, 1, 2, 5, 10 and 15 min, then given up (and listed in the history)."
      empty={deliveries.length === 0 ? "Every message was delivered." : undefined}
    >
      <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="delivery-list">
        {deliveries.map((d) => (
          <li key={d.id} className="py-2 text-sm">
            <p>
              <span className="font-medium">{d.status === "firing" ? "Firing" : "Resolved"}</span> to {d.webhook}: {d.summary}
            </p>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              {d.attempts === 0 ? "not tried yet" : `${d.attempts} attempt${d.attempts === 1 ? "" : "s"}, next try `}
              {d.attempts > 0 && <RelativeTime at={d.next_at} />}
            </p>
            {d.last_error && <p className="text-xs text-red-800 dark:text-red-300">Last error: {d.last_error}</p>}
          </li>
        ))}
      </ul>
    </Section>
  );
}

const HISTORY_LABEL: Record<AlertHistoryEntry["type"], string> = {
  firing: "Fired",
  resolved: "Resolved",
  delivered: "Delivered",
  delivery_failed: "Delivery failed",
  delivery_dropped: "Delivery dropped",
};

function History({ history, total }: { history: AlertHistoryEntry[]; total: number }) {
  return (
    <Section
      id="alert-history"
      title="Recent history"
      count={history.length < total ? `${formatNumber(history.length)} of ${formatNumber(total)}` : formatNumber(total)}
      empty={history.length === 0 ? "Nothing has fired yet." : undefined}
    >
      <ol className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="alert-history">
        {history.map((h, i) => (
          <li key={`${h.ts}-${i}`} className="grid gap-x-3 py-2 text-sm sm:grid-cols-[9rem_1fr]">
            <span className="text-xs text-slate-600 dark:text-slate-400">
              <RelativeTime at={h.ts} />
            </span>
            <span className="min-w-0 break-words">
              <span className={`font-medium ${h.type === "firing" || h.type === "delivery_failed" || h.type === "delivery_dropped" ? "text-red-800 dark:text-red-300" : ""}`}>
                {HISTORY_LABEL[h.type]}
              </span>
              {h.webhook ? ` (${h.webhook}${h.attempts && h.attempts > 1 ? `, attempt ${h.attempts}` : ""})` : ""}: {h.summary}
              {h.error && <span className="block text-xs text-red-800 dark:text-red-300">{h.error}</span>}
            </span>
          </li>
        ))}
      </ol>
    </Section>
  );
}

function RulesTable({ config, urlsMasked }: { config: AlertConfig; urlsMasked: boolean }) {
  const hooks = new Map(config.webhooks.map((w) => [w.id, w.name ?? w.id]));
  return (
    <>
      {config.rules.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No rules yet.</p>
      ) : (
        <div className="-mx-4 overflow-x-auto px-4">
          <table className="w-full text-sm" data-testid="rules-table">
            <caption className="sr-only">Alert rules</caption>
            <thead className="text-left text-xs text-slate-600 uppercase dark:text-slate-400">
              <tr>
                <th scope="col" className="py-1 pr-3 font-medium">
                  Rule
                </th>
                <th scope="col" className="py-1 pr-3 font-medium">
                  Fires when
                </th>
                <th scope="col" className="py-1 pr-3 font-medium">
                  Sends to
                </th>
              </tr>
            </thead>
            <tbody>
              {config.rules.map((r: AlertRule) => (
                <tr key={r.id} className="border-t border-slate-200 align-top dark:border-slate-800">
                  <th scope="row" className="py-2 pr-3 text-left font-medium">
                    {r.name}
                    <span className="block text-xs font-normal text-slate-600 dark:text-slate-400">
                      {KIND_LABEL[r.kind]} · {r.id}
                      {!r.enabled && " · disabled"}
                    </span>
                  </th>
                  <td className="py-2 pr-3">
                    {subjectText(r)}: {conditionText(r)}
                  </td>
                  <td className="py-2 pr-3">{r.webhooks.length === 0 ? "every webhook" : r.webhooks.map((id) => hooks.get(id) ?? id).join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3 className="mt-4 mb-1 text-sm font-semibold">Webhooks</h3>
      {config.webhooks.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No webhooks: firing alerts are shown here and in /metrics only.</p>
      ) : (
        <ul className="text-sm" data-testid="webhook-list">
          {config.webhooks.map((w) => (
            <li key={w.id} className="py-0.5">
              <span className="font-medium">{w.name ?? w.id}</span> ({w.format === "slack" ? "Slack-compatible text" : "JSON"}):{" "}
              <code className="font-mono text-xs break-all">{w.url}</code>
            </li>
          ))}
        </ul>
      )}
      {urlsMasked && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Webhook addresses are shown in full to admins only (they often hold a secret).</p>}
    </>
  );
}

type Phase = "view" | "edit" | "review" | "saving";

function RulesEditor({
  config,
  gen,
  schema,
  onDone,
}: {
  config: AlertConfig;
  gen: number;
  schema: Record<string, unknown>;
  onDone: (note: { kind: "ok" | "error" | "warn"; text: string }) => void;
}) {
  const qc = useQueryClient();
  const validator = useMemo(() => makeValidator(), []);
  const original = useMemo(() => JSON.stringify(config, null, 2), [config]);
  const [text, setText] = useState(original);
  const [phase, setPhase] = useState<Phase>("edit");
  const [serverError, setServerError] = useState<{ message: string; details: ErrorDetail[]; stale: boolean } | null>(null);
  const [kind, setKind] = useState<AlertRule["kind"]>("dead_letters_growth");

  const parsed = parseJsonObject(text);
  const issues = parsed.ok ? validateValue(validator, schema, parsed.value) : [];
  const changes = parsed.ok ? diffConfig(byIds(config), byIds(parsed.value)) : [];
  const canReview = parsed.ok && issues.length === 0 && changes.length > 0;

  const insertTemplate = () => {
    if (!parsed.ok) return;
    const rules = Array.isArray(parsed.value.rules) ? (parsed.value.rules as Array<{ id?: string }>) : [];
    const taken = new Set(rules.map((r) => r.id ?? ""));
    setText(JSON.stringify({ ...parsed.value, rules: [...rules, ruleTemplate(kind, taken)] }, null, 2));
  };

  const save = async () => {
    if (!parsed.ok) return;
    setPhase("saving");
    setServerError(null);
    try {
      const data = await apiPut("/alerts/rules", AlertRulesSchema, parsed.value, { headers: { "If-Match": `"${gen}"` } });
      await qc.invalidateQueries({ queryKey: queryKeys.alerts.all });
      onDone({ kind: "ok", text: `Saved: the alert rules are at generation ${data.gen}.` });
    } catch (err) {
      const stale = err instanceof ApiError && err.status === 412;
      setServerError({ message: errorMessage(err), details: err instanceof ApiError ? (err.details ?? []) : [], stale });
      setPhase(stale ? "review" : "edit");
    }
  };

  return (
    <div className="mt-4" data-testid="rules-editor">
      {phase === "edit" || phase === "saving" ? (
        <>
          <RawJsonEditor
            label="Alert rules (JSON)"
            hint="The whole document: webhooks (id, url, format json or slack) and rules (id, name, kind, what it watches, its threshold, webhooks: [] for every one). Checked as you type; nothing is saved before you review it."
            text={text}
            onChange={(t) => {
              setText(t);
              setServerError(null);
            }}
            parseError={parsed.ok ? null : parsed.message}
            issues={issues}
            disabled={phase === "saving"}
          />
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <label className="text-sm" htmlFor="rule-kind">
              Add a rule of kind
            </label>
            <select
              id="rule-kind"
              className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
              value={kind}
              onChange={(e) => setKind(e.target.value as AlertRule["kind"])}
            >
              {ALERT_KINDS_LIST.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABEL[k]}
                </option>
              ))}
            </select>
            <button type="button" className="btn" onClick={insertTemplate} disabled={!parsed.ok}>
              Add
            </button>
          </div>
        </>
      ) : (
        <div data-testid="rules-review">
          <h3 className="mb-2 text-sm font-semibold">Review the changes</h3>
          <ChangeList changes={changes} schema={null} caption={`${changes.length} change${changes.length === 1 ? "" : "s"} to generation ${gen}`} />
        </div>
      )}
      {serverError && (
        <div className="mt-3">
          <ResultNote kind="error">
            {serverError.message}
            {serverError.details.length > 0 && (
              <ul className="mt-1 list-disc pl-5">
                {serverError.details.slice(0, 10).map((d, i) => (
                  <li key={i}>
                    <code className="font-mono">{d.path || "/"}</code>: {d.message}
                  </li>
                ))}
              </ul>
            )}
          </ResultNote>
        </div>
      )}
      <div className="mt-3 flex flex-wrap gap-2">
        {phase === "edit" && (
          <button type="button" className="btn-primary" disabled={!canReview} onClick={() => setPhase("review")}>
            Review changes…
          </button>
        )}
        {phase === "review" && !serverError?.stale && (
          <button type="button" className="btn-primary" onClick={() => void save()}>
            Save
          </button>
        )}
        {phase === "review" && serverError?.stale && (
          <button
            type="button"
            className="btn-primary"
            onClick={() => {
              void qc.invalidateQueries({ queryKey: queryKeys.alerts.rules() });
              onDone({ kind: "warn", text: "Someone else saved the rules first: reloaded theirs. Apply your change again." });
            }}
          >
            Reload theirs
          </button>
        )}
        {phase === "review" && (
          <button type="button" className="btn" onClick={() => setPhase("edit")}>
            Back to editing
          </button>
        )}
        {phase === "saving" && <span className="text-sm">Saving…</span>}
        <button type="button" className="btn-ghost" onClick={() => onDone({ kind: "ok", text: "" })} disabled={phase === "saving"}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function Rules() {
  const rules = useQuery(queries.alertRules());
  const [editing, setEditing] = useState(false);
  const [note, setNote] = useState<{ kind: "ok" | "error" | "warn"; text: string } | null>(null);
  const admin = useSession().can("admin");
  return (
    <section aria-labelledby="rules-heading" className="card mt-6 min-w-0">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <h2 id="rules-heading" className="text-base font-semibold">
          Rules{rules.data ? <span className="ml-2 text-xs font-normal text-slate-600 dark:text-slate-400">generation {rules.data.gen}</span> : null}
        </h2>
        <Can role="admin">
          {!editing && rules.data && (
            <button
              type="button"
              className="btn"
              onClick={() => {
                setNote(null);
                setEditing(true);
              }}
            >
              Edit rules…
            </button>
          )}
        </Can>
      </div>
      {note?.text && (
        <div className="mb-3">
          <ResultNote kind={note.kind} onDismiss={() => setNote(null)}>
            {note.text}
          </ResultNote>
        </div>
      )}
      {rules.isPending ? (
        <LoadingState label="Loading the rules…" />
      ) : rules.isError ? (
        <ErrorState error={rules.error} title="The alert rules cannot be read" onRetry={() => void rules.refetch()} />
      ) : editing && admin ? (
        <RulesEditor
          key={rules.data.gen}
          config={rules.data.config as AlertConfig}
          gen={rules.data.gen}
          schema={rules.data.schema}
          onDone={(n) => {
            setNote(n);
            setEditing(false);
          }}
        />
      ) : (
        <RulesTable config={rules.data.config as AlertConfig} urlsMasked={rules.data.urls_masked} />
      )}
    </section>
  );
}

export function AlertsView() {
  const status = useQuery(queries.alertsStatus());
  return (
    <>
      <PageHeader title="Alerts" description="Rules the console checks every 10 s (one console process does, whichever leads), what fires now, and where the messages went." />
      {status.isPending ? (
        <LoadingState label="Loading the alerts…" />
      ) : status.isError ? (
        <ErrorState error={status.error} title="The alerts cannot be read right now" onRetry={() => void status.refetch()} />
      ) : (
        <>
          <Firing firing={status.data.firing} />
          <Deliveries deliveries={status.data.deliveries} />
        </>
      )}
      <Rules />
      {status.data && <History history={status.data.history} total={status.data.history_total} />}
    </>
  );
}
