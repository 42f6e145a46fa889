"use client";

import { useSearchParams } from "next/navigation";
import { Suspense, useEffect, useId, useState, type FormEvent } from "react";
import type { SignInBody } from "@fleet/schema";

import { CSRF_HEADER_NAME, CSRF_HEADER_VALUE, errorFromAnswer } from "@/lib/api";
import { useSession } from "@/lib/session";

import { safeNext } from "./safe-next";

function Form() {
  const session = useSession();
  const params = useSearchParams();
  const next = safeNext(params.get("next"));
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();

  // Already signed in (or no sign-in needed): nothing to do here.
  const done = session.user !== null;
  useEffect(() => {
    if (done) window.location.replace(next);
  }, [done, next]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Plain fetch, not apiFetch: a 401 here is an answer to show, not a reason to redirect.
      const res = await fetch("/api/v1/auth/signin", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", [CSRF_HEADER_NAME]: CSRF_HEADER_VALUE },
        body: JSON.stringify({ username, password } satisfies SignInBody),
        credentials: "same-origin",
        cache: "no-store",
      });
      if (res.ok) {
        window.location.assign(next);
        return;
      }
      setError(errorFromAnswer(res, await res.json().catch(() => null)).message);
      setPassword("");
    } catch {
      setError("The console did not answer. Check that it is running and reachable.");
    } finally {
      setBusy(false);
    }
  }

  if (done) return <p role="status">Signed in as {session.user?.name}; opening the console…</p>;

  return (
    <form onSubmit={submit} className="card mx-auto mt-[8vh] grid w-full max-w-sm gap-4 p-6" aria-describedby={error ? errorId : undefined}>
      <div className="flex items-center gap-3">
        <span aria-hidden className="grid size-9 shrink-0 place-items-center rounded-md bg-slate-900 text-sm font-semibold text-white dark:bg-slate-100 dark:text-slate-900">
          FC
        </span>
        <h1 className="text-xl font-semibold">Sign in to Fleet Console</h1>
      </div>
      {!session.password_sign_in && (
        <p className="text-sm text-slate-600 dark:text-slate-400">This console has no password users; it is reached through its sign-in proxy or with API tokens.</p>
      )}
      <label className="grid gap-1 text-sm font-medium">
        User name
        <input className="field" name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} autoFocus />
      </label>
      <label className="grid gap-1 text-sm font-medium">
        Password
        <input className="field" name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {error && (
        <p id={errorId} role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
          {error}
        </p>
      )}
      <button type="submit" className="btn-primary" disabled={busy || !session.password_sign_in}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

export function SignInForm() {
  return (
    <Suspense fallback={null}>
      <Form />
    </Suspense>
  );
}
