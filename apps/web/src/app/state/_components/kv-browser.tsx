"use client";

import { DeletedSchema, type RawValue } from "@fleet/schema";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { ActionNoteSlot, Section } from "@/components/ui-bits";
import { useOnChange } from "@/components/use-on-change";
import { useDebouncedParam, useQueryState } from "@/lib/use-query-state";
import { ConfirmDialog, ErrorState, LoadingState, RawValueView } from "@/components";
import { ApiError, apiDelete, errorMessage, qs, seg } from "@/lib/api";
import { formatBytes, formatNumber } from "@/lib/format";
import { kvValueLoader, sameValue } from "@/lib/full-value";
import { queries, queryKeys } from "@/lib/query";
import { useSession } from "@/lib/session";

import { KvEditor } from "./kv-editor";
import { Ttl } from "./ttl";

/** Keys expiring together cause one refetch; a server still listing a key at zero, at most one this often. */
const EXPIRY_REFETCH_MS = 2_000;
/** The API reads request bodies up to 1 MiB: a larger value cannot be saved from here. */
const EDIT_MAX_BYTES = 1024 * 1024 - 64;

function stateHref(ns: string | null, key: string | null): string {
  return `/state${qs({ ns, key })}#kv`;
}

const panel = "min-w-0 rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900/40";
const panelHead =
  "flex items-center justify-between gap-2 border-b border-slate-200 px-3 py-2 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:border-slate-800 dark:text-slate-400";
const itemCls = (active: boolean) =>
  `flex items-center justify-between gap-2 px-3 py-2 text-sm focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-500 ${
    active ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "hover:bg-slate-50 dark:hover:bg-slate-800/60"
  }`;

/** Namespaces → keys → value, with the selection in the URL (`?ns=…&key=…`). */
export function KvBrowser() {
  const [sp, setParams] = useQueryState();
  const ns = sp.get("ns");
  const key = sp.get("key");
  const canAdmin = useSession().can("admin");
  const creating = sp.get("new") === "1" && canAdmin;
  const [filter, setFilter] = useDebouncedParam(sp.get("kq") ?? "", (v) => setParams({ kq: v }));
  const client = useQueryClient();
  const [note, setNote] = useState<{ kind: "ok" | "warn"; text: string } | null>(null);

  const namespaces = useQuery(queries.kvNamespaces());
  const keys = useInfiniteQuery({ ...queries.kvKeys(ns ?? ""), enabled: ns !== null });
  const value = useQuery({ ...queries.kvValue(ns ?? "", key ?? ""), enabled: ns !== null && key !== null });
  const [editing, setEditing] = useState(false);

  // A countdown reached zero: fetch the list (and the open value) again so the key leaves it.
  const { refetch: refetchKeys } = keys;
  const { refetch: refetchValue } = value;
  const expiryTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastExpiryRefetch = useRef(0);
  const valueExpired = useRef(false);
  const onKeyExpired = useCallback(
    (alsoValue = false) => {
      if (alsoValue) valueExpired.current = true;
      if (expiryTimer.current !== null) return;
      const wait = Math.max(250, lastExpiryRefetch.current + EXPIRY_REFETCH_MS - Date.now());
      expiryTimer.current = setTimeout(() => {
        expiryTimer.current = null;
        lastExpiryRefetch.current = Date.now();
        void refetchKeys({ cancelRefetch: false });
        if (valueExpired.current) {
          valueExpired.current = false;
          void refetchValue({ cancelRefetch: false });
        }
      }, wait);
    },
    [refetchKeys, refetchValue],
  );
  const onValueExpired = useCallback(() => onKeyExpired(true), [onKeyExpired]);
  useEffect(
    () => () => {
      if (expiryTimer.current !== null) clearTimeout(expiryTimer.current);
    },
    [],
  );
  const [askDelete, setAskDelete] = useState(false);
  // The whole value, once "Show all" fetched it: a truncated value is edited only from it.
  const [fullValue, setFullValue] = useState<RawValue | null>(null);
  // Another key was chosen (link, back button): leave the editor of the previous one.
  useOnChange(JSON.stringify([ns, key]), () => {
    setEditing(false);
    setFullValue(null);
  });

  const del = useMutation({
    mutationFn: () => apiDelete(`/kv/${seg(ns ?? "")}/${seg(key ?? "")}`, DeletedSchema),
    onSuccess: () => {
      setAskDelete(false);
      setNote({ kind: "ok", text: `Deleted “${key}” from ${ns}.` });
      setParams({ key: null });
    },
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.kv.all }),
  });

  // Every page loaded so far, each key once (a SCAN-paged namespace may answer a key twice).
  const loadedKeys = useMemo(() => {
    const seen = new Set<string>();
    return (keys.data?.pages ?? [])
      .flatMap((p) => p.keys)
      .filter((k) => {
        if (seen.has(k.key)) return false;
        seen.add(k.key);
        return true;
      });
  }, [keys.data]);
  const keysTotal = keys.data?.pages[0]?.total ?? 0;
  const keyList = useMemo(() => {
    const f = (sp.get("kq") ?? "").toLowerCase();
    return f ? loadedKeys.filter((k) => k.key.toLowerCase().includes(f)) : loadedKeys;
  }, [loadedKeys, sp]);

  // On phones one level shows at a time; wide screens show all three side by side.
  const level = key !== null || creating ? 2 : ns !== null ? 1 : 0;
  const showOn = (l: number) => (l === level ? "" : "hidden lg:block");

  const nsList = namespaces.data?.namespaces ?? [];
  const shownValue = value.data?.value;
  const editValue = shownValue?.truncated ? (fullValue !== null && sameValue(fullValue, shownValue) ? fullValue : null) : (shownValue ?? null);
  const editBlocked =
    shownValue && shownValue.bytes > EDIT_MAX_BYTES
      ? `Too large to edit here (${formatBytes(shownValue.bytes)}): the API takes values up to 1 MiB. Download it to work on it elsewhere.`
      : editValue === null || editValue.truncated
        ? "Only a preview of this large value is loaded: choose “Show all” below to load it whole, then edit."
        : null;

  return (
    <Section id="kv" title="Key-value store" description="Shared values by namespace. Values are JSON; some carry a time to live.">
      <ActionNoteSlot note={note} onDismiss={() => setNote(null)} />
      <div className="grid gap-3 lg:grid-cols-[minmax(12rem,16rem)_minmax(16rem,24rem)_1fr]">
        {/* namespaces */}
        <nav aria-label="Namespaces" className={`${panel} ${showOn(0)}`}>
          <div className={panelHead}>
            <span>Namespaces</span>
            {namespaces.data && <span className="tabular-nums">{formatNumber(nsList.length)}</span>}
          </div>
          {namespaces.isPending ? (
            <LoadingState label="Loading namespaces…" className="px-3" />
          ) : namespaces.error ? (
            <ErrorState error={namespaces.error} onRetry={() => void namespaces.refetch()} className="m-2" />
          ) : nsList.length === 0 ? (
            <p className="px-3 py-6 text-center text-sm text-slate-500">The store is empty.</p>
          ) : (
            <ul className="max-h-[28rem] overflow-auto">
              {nsList.map((n) => (
                <li key={n.ns}>
                  <Link href={stateHref(n.ns, null)} scroll={false} aria-current={n.ns === ns ? "page" : undefined} className={itemCls(n.ns === ns)}>
                    <span className="min-w-0 truncate font-mono" title={n.ns}>
                      {n.ns}
                    </span>
                    <span className="shrink-0 text-xs tabular-nums opacity-70">{formatNumber(n.keys)}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </nav>

        {/* keys */}
        <div className={`${panel} ${showOn(1)}`} role="region" aria-label={ns ? `Keys of ${ns}` : "Keys"}>
          <div className={panelHead}>
            <span className="flex min-w-0 items-center gap-2">
              {ns !== null && (
                <Link href={stateHref(null, null)} scroll={false} className="link normal-case lg:hidden">
                  ← Namespaces
                </Link>
              )}
              <span className="truncate">
                {ns ? (
                  <>
                    Keys of <span className="font-mono normal-case">{ns}</span>
                  </>
                ) : (
                  "Keys"
                )}
              </span>
            </span>
            {ns !== null && canAdmin && (
              <Link href={`/state${qs({ ns, new: 1 })}#kv`} scroll={false} className="btn-ghost text-xs normal-case">
                + New key
              </Link>
            )}
          </div>
          {ns === null ? (
            <p className="px-3 py-6 text-center text-sm text-slate-500">Choose a namespace.</p>
          ) : keys.isPending ? (
            <LoadingState label="Loading keys…" className="px-3" />
          ) : keys.error ? (
            <ErrorState
              error={keys.error}
              title={keys.error instanceof ApiError && keys.error.status === 404 ? `There is no namespace “${ns}”` : undefined}
              onRetry={() => void keys.refetch()}
              className="m-2"
            />
          ) : (
            <>
              <div className="border-b border-slate-200 p-2 dark:border-slate-800">
                <label className="sr-only" htmlFor="kv-key-filter">
                  Filter keys
                </label>
                <input id="kv-key-filter" type="search" className="field w-full" placeholder="Filter keys" value={filter} onChange={(e) => setFilter(e.target.value)} />
              </div>
              {keyList.length === 0 ? (
                <p className="px-3 py-6 text-center text-sm text-slate-500">
                  {loadedKeys.length > 0 ? "No key matches." : keys.hasNextPage ? "No keys in this stretch of the store yet." : "No keys."}
                </p>
              ) : (
                <ul className="max-h-[28rem] overflow-auto" aria-label="Keys">
                  {keyList.map((k) => (
                    <li key={k.key}>
                      <Link href={stateHref(ns, k.key)} scroll={false} aria-current={k.key === key ? "page" : undefined} className={itemCls(k.key === key)}>
                        <span className="min-w-0 truncate font-mono" title={k.key}>
                          {k.key}
                        </span>
                        <span className="flex shrink-0 flex-col items-end text-xs tabular-nums opacity-80">
                          <span>{formatBytes(k.bytes)}</span>
                          {k.ttl_ms !== null && (
                            <span title="Time to live">
                              <Ttl ttlMs={k.ttl_ms} asOf={keys.dataUpdatedAt} onExpire={onKeyExpired} />
                            </span>
                          )}
                        </span>
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
              {keys.hasNextPage && (
                <div className="flex items-center justify-between gap-2 border-t border-slate-200 px-3 py-2 text-xs text-slate-500 dark:border-slate-800">
                  <span className="tabular-nums">
                    {formatNumber(loadedKeys.length)} of {keysTotal > loadedKeys.length ? `about ${formatNumber(keysTotal)}` : "more"} loaded
                    {filter ? " (the filter looks at these)" : ""}
                  </span>
                  <button type="button" className="btn-ghost text-xs" disabled={keys.isFetchingNextPage} onClick={() => void keys.fetchNextPage()}>
                    {keys.isFetchingNextPage ? "Loading…" : "More keys"}
                  </button>
                </div>
              )}
            </>
          )}
        </div>

        {/* value */}
        <div className={`${panel} ${showOn(2)}`} role="region" aria-label={key ? `Value of ${key}` : "Value"}>
          <div className={panelHead}>
            <span className="flex min-w-0 items-center gap-2">
              {ns !== null && (key !== null || creating) && (
                <Link href={stateHref(ns, null)} scroll={false} className="link normal-case lg:hidden">
                  ← Keys
                </Link>
              )}
              <span className="truncate">{creating ? "New key" : key ? <span className="font-mono normal-case">{key}</span> : "Value"}</span>
            </span>
          </div>
          <div className="p-3">
            {creating && ns !== null ? (
              <KvEditor
                ns={ns}
                keyName={null}
                onCancel={() => setParams({ new: null })}
                onSaved={(k) => {
                  setNote({ kind: "ok", text: `Saved “${k}” in ${ns}.` });
                  setParams({ new: null, key: k });
                }}
              />
            ) : ns === null || key === null ? (
              <p className="py-6 text-center text-sm text-slate-500">Choose a key to see its value.</p>
            ) : value.isPending ? (
              <LoadingState label="Loading the value…" />
            ) : value.error ? (
              <ErrorState
                error={value.error}
                title={value.error instanceof ApiError && value.error.status === 404 ? `“${key}” is not there (deleted or expired)` : undefined}
                onRetry={() => void value.refetch()}
              />
            ) : editing && editValue !== null ? (
              <KvEditor
                ns={ns}
                keyName={key}
                current={editValue}
                ttlMs={value.data.ttl_ms}
                asOf={value.dataUpdatedAt}
                onCancel={() => setEditing(false)}
                onSaved={() => {
                  setEditing(false);
                  setNote({ kind: "ok", text: `Saved “${key}” in ${ns}.` });
                }}
              />
            ) : (
              <>
                <div className="mb-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
                  <span>
                    <span className="text-slate-500">Expires: </span>
                    <Ttl ttlMs={value.data.ttl_ms} asOf={value.dataUpdatedAt} noneLabel="never" onExpire={onValueExpired} />
                  </span>
                  <span>
                    <span className="text-slate-500">Size: </span>
                    {formatBytes(value.data.value.bytes)}
                  </span>
                  <span className="ml-auto flex gap-1">
                    <button type="button" className="btn text-xs" onClick={() => void value.refetch()} disabled={value.isFetching}>
                      {value.isFetching ? "Reloading…" : "Reload"}
                    </button>
                    {canAdmin && (
                      <>
                        <button type="button" className="btn text-xs" onClick={() => setEditing(true)} disabled={editBlocked !== null} title={editBlocked ?? undefined}>
                          Edit
                        </button>
                        <button
                          type="button"
                          className="btn text-xs"
                          onClick={() => {
                            del.reset();
                            setAskDelete(true);
                          }}
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </span>
                </div>
                {editBlocked !== null && canAdmin && shownValue?.truncated && <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">{editBlocked}</p>}
                <RawValueView
                  key={`${ns}\u0000${key}`}
                  value={value.data.value}
                  label="value"
                  loadFull={value.data.value.truncated ? kvValueLoader(ns, key, value.data.value) : undefined}
                  fileName={`kv-${ns}-${key}`}
                  onFullValue={setFullValue}
                />
              </>
            )}
          </div>
        </div>
      </div>
      <ConfirmDialog
        open={askDelete}
        title={`Delete key “${key ?? ""}”?`}
        confirmLabel="Delete 1 key"
        busy={del.isPending}
        error={del.error ? errorMessage(del.error) : undefined}
        onConfirm={() => del.mutate()}
        onCancel={() => setAskDelete(false)}
      >
        The value is removed from namespace {ns} for good.
      </ConfirmDialog>
    </Section>
  );
}
