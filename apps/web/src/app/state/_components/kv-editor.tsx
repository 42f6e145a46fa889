"use client";

import { KvValueSchema, type KvPutInput, type RawValue } from "@fleet/schema";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";

import { classifyRaw } from "@/components";
import { apiPut, errorMessage, seg } from "@/lib/api";
import { queryKeys } from "@/lib/query";

const MAX_TTL = 10 * 365 * 86400;

/** The parsed JSON, or why the text is not JSON, in plain words. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (text.trim() === "") return { ok: false, problem: 'Enter a JSON value, e.g. {"a": 1}, "text", 42 or null.' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, problem: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}. Text needs double quotes, e.g. "hello".` };
  }
}

/** "" when empty (no expiry) or a whole number of seconds the API accepts; else why not. */
export function ttlProblem(text: string): string {
  const t = text.trim();
  if (t === "") return "";
  if (!/^\d+$/.test(t) || Number(t) <= 0) return "A whole number of seconds above zero, or empty for no expiry.";
  if (Number(t) > MAX_TTL) return "At most ten years (315,360,000 seconds).";
  return "";
}

function initialText(v: RawValue | undefined): string {
  if (!v) return "";
  return classifyRaw(v) === "json" ? JSON.stringify(v.json ?? null, null, 2) : (v.text ?? "");
}

/** Edits (or creates, with keyName null) a kv value: JSON text checked before anything is sent. */
export function KvEditor({
  ns,
  keyName,
  current,
  ttlMs = null,
  asOf = Date.now(),
  onSaved,
  onCancel,
}: {
  ns: string;
  keyName: string | null;
  current?: RawValue;
  ttlMs?: number | null;
  asOf?: number;
  onSaved: (key: string) => void;
  onCancel: () => void;
}) {
  const client = useQueryClient();
  const [newKey, setNewKey] = useState("");
  const [text, setText] = useState(() => initialText(current));
  // Saving without a TTL would drop the expiry: start from what is left of the current one.
  const [ttl, setTtl] = useState(() => {
    if (ttlMs === null) return "";
    const left = Math.ceil((asOf + ttlMs - Date.now()) / 1000);
    return left > 0 ? String(left) : "";
  });
  const [touched, setTouched] = useState(false);
  const ids = { value: useId(), valueErr: useId(), ttl: useId(), ttlErr: useId(), key: useId(), keyErr: useId() };
  const parsed = parseJsonText(text);
  const ttlErr = ttlProblem(ttl);
  const keyErr = keyName === null && newKey.trim() === "" ? "Give the key a name." : "";
  const notJsonBefore = current !== undefined && classifyRaw(current) !== "json";

  const save = useMutation({
    mutationFn: ({ key, value, ttlSeconds }: { key: string; value: unknown; ttlSeconds: number | null }) =>
      apiPut(`/kv/${seg(ns)}/${seg(key)}`, KvValueSchema, (ttlSeconds === null ? { value } : { value, ttl_seconds: ttlSeconds }) satisfies KvPutInput),
    onSuccess: (r, vars) => {
      client.setQueryData(queryKeys.kv.value(ns, vars.key), r);
      onSaved(vars.key);
    },
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.kv.keys(ns) });
      void client.invalidateQueries({ queryKey: queryKeys.kv.namespaces() });
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!parsed.ok || ttlErr || keyErr) return;
    save.mutate({ key: keyName ?? newKey.trim(), value: parsed.value, ttlSeconds: ttl.trim() === "" ? null : Number(ttl.trim()) });
  };

  const showValueErr = touched && !parsed.ok;
  return (
    <form onSubmit={submit} noValidate className="space-y-3 text-sm">
      {keyName === null && (
        <div>
          <label htmlFor={ids.key} className="mb-1 block font-medium">
            Key
          </label>
          <input
            id={ids.key}
            className="field w-full font-mono"
            value={newKey}
            onChange={(e) => setNewKey(e.target.value)}
            aria-invalid={touched && keyErr ? true : undefined}
            aria-describedby={touched && keyErr ? ids.keyErr : undefined}
            autoFocus
          />
          {touched && keyErr && (
            <p id={ids.keyErr} className="mt-1 text-xs text-red-700 dark:text-red-400">
              {keyErr}
            </p>
          )}
        </div>
      )}
      <div>
        <label htmlFor={ids.value} className="mb-1 block font-medium">
          Value (JSON)
        </label>
        {notJsonBefore && <p className="mb-1 text-xs text-amber-800 dark:text-amber-300">The stored value is not JSON; it is shown as text. Saving stores valid JSON.</p>}
        <textarea
          id={ids.value}
          className="field block min-h-48 w-full font-mono text-xs leading-5"
          spellCheck={false}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setTouched(true);
          }}
          aria-invalid={showValueErr ? true : undefined}
          aria-describedby={showValueErr ? ids.valueErr : undefined}
          autoFocus={keyName !== null}
        />
        {showValueErr && !parsed.ok && (
          <p id={ids.valueErr} className="mt-1 text-xs text-red-700 dark:text-red-400">
            {parsed.problem}
          </p>
        )}
      </div>
      <div>
        <label htmlFor={ids.ttl} className="mb-1 block font-medium">
          Expires after (seconds)
        </label>
        <input
          id={ids.ttl}
          className="field w-48 tabular-nums"
          inputMode="numeric"
          placeholder="never"
          value={ttl}
          onChange={(e) => {
            setTtl(e.target.value);
            setTouched(true);
          }}
          aria-invalid={touched && ttlErr ? true : undefined}
          aria-describedby={`${ids.ttl}-hint${touched && ttlErr ? ` ${ids.ttlErr}` : ""}`}
        />
        <p id={`${ids.ttl}-hint`} className="mt-1 text-xs text-slate-500">
          Empty: the key never expires.{ttlMs !== null ? " Prefilled with the time it has left." : ""}
        </p>
        {touched && ttlErr && (
          <p id={ids.ttlErr} className="mt-1 text-xs text-red-700 dark:text-red-400">
            {ttlErr}
          </p>
        )}
      </div>
      {save.error && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
          {errorMessage(save.error)}
        </p>
      )}
      <div className="flex gap-2">
        <button type="submit" className="btn-primary" disabled={save.isPending || (touched && (!parsed.ok || ttlErr !== "" || keyErr !== ""))}>
          {save.isPending ? "Saving…" : "Save"}
        </button>
        <button type="button" className="btn" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
