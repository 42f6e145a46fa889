"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { DeletedSchema } from "@fleet/schema";

import { ActionNoteSlot, InlineEmpty, Section } from "@/components/ui-bits";
import { ConfirmDialog, ErrorState, LoadingState } from "@/components";
import { ApiError, apiDelete, errorMessage, seg } from "@/lib/api";
import { queries, queryKeys } from "@/lib/query";
import { Can } from "@/lib/session";

import { Ttl } from "./ttl";

export function LocksSection() {
  const client = useQueryClient();
  const { data, error, isPending, refetch, dataUpdatedAt } = useQuery(queries.locks());
  const [ask, setAsk] = useState<string | null>(null);
  const [note, setNote] = useState<{ kind: "ok" | "warn"; text: string } | null>(null);

  const release = useMutation({
    mutationFn: (name: string) => apiDelete(`/locks/${seg(name)}`, DeletedSchema),
    onSuccess: (_r, name) => {
      setAsk(null);
      setNote({ kind: "ok", text: `Lock “${name}” released.` });
    },
    onError: (err, name) => {
      if (err instanceof ApiError && err.status === 404) {
        setAsk(null);
        setNote({ kind: "warn", text: `Lock “${name}” was already gone (it may have expired).` });
      }
    },
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.locks.all }),
  });

  const locks = data?.locks ?? [];
  return (
    <Section id="locks" title="Locks" count={data ? locks.length : undefined} description="Held by a worker until released or until their time runs out.">
      <ActionNoteSlot note={note} onDismiss={() => setNote(null)} />
      {isPending ? (
        <LoadingState label="Loading locks…" />
      ) : error ? (
        <ErrorState error={error} onRetry={() => void refetch()} />
      ) : locks.length === 0 ? (
        <InlineEmpty>No lock is held right now.</InlineEmpty>
      ) : (
        <ul
          className="divide-y divide-slate-200 overflow-hidden rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900/40"
          aria-label="Locks"
        >
          {locks.map((l) => (
            <li key={l.name} className="flex flex-wrap items-center gap-x-4 gap-y-1 px-3 py-2 text-sm">
              <code className="min-w-0 flex-1 font-mono wrap-break-word">{l.name}</code>
              <span className="whitespace-nowrap">
                <Ttl ttlMs={l.ttl_ms} asOf={dataUpdatedAt} noneLabel="held, no expiry" />
              </span>
              <Can role="admin">
                <button
                  type="button"
                  className="btn text-xs"
                  aria-label={`Force release ${l.name}`}
                  onClick={() => {
                    release.reset();
                    setAsk(l.name);
                  }}
                >
                  Force release
                </button>
              </Can>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={ask !== null}
        title={`Force-release lock “${ask ?? ""}”?`}
        confirmLabel="Force release 1 lock"
        busy={release.isPending}
        error={release.error && !(release.error instanceof ApiError && release.error.status === 404) ? errorMessage(release.error) : undefined}
        onConfirm={() => ask !== null && release.mutate(ask)}
        onCancel={() => setAsk(null)}
      >
        Whoever holds it loses it at once and another worker may take it while the first is still working. Use this for a lock left behind by a crashed worker.
      </ConfirmDialog>
    </Section>
  );
}
