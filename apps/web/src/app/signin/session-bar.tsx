// The strip above the shell: who is signed in (with the audit link for admins and a
// sign-out button), or, when nobody has to sign in, a banner that says so plainly.
"use client";

import Link from "next/link";

import { useSession } from "@/lib/session";

export function SessionBar() {
  const session = useSession();

  if (session.mode === "insecure") {
    return (
      <div role="status" data-testid="no-auth-banner" className="border-b border-red-300 bg-red-50 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-1 px-4 py-1.5">
          <span>
            <strong>Authentication is off</strong> (FLEET_INSECURE_NO_AUTH=1): everyone who can reach this console is an admin.
          </span>
          <Link href="/audit" className="link ml-auto">
            Audit trail
          </Link>
        </div>
      </div>
    );
  }
  if (session.mode === "open") {
    return (
      <div
        role="status"
        data-testid="no-auth-banner"
        className="border-b border-amber-300 bg-amber-100 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
      >
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-3 gap-y-1 px-4 py-1.5">
          <span>
            <strong>No authentication:</strong> this demo console on loopback lets anyone on this machine act as admin.
          </span>
          <Link href="/audit" className="link ml-auto">
            Audit trail
          </Link>
        </div>
      </div>
    );
  }
  if (!session.user) return null;
  const { name, role, via } = session.user;
  return (
    <div data-testid="user-menu" className="border-b border-slate-200 bg-slate-100 text-sm text-slate-700 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-end gap-x-3 gap-y-1 px-4 py-1">
        <span>
          Signed in as <strong className="text-slate-900 dark:text-white">{name}</strong>{" "}
          <span data-testid="user-role" className="rounded bg-slate-200 px-1.5 py-0.5 text-xs font-medium dark:bg-slate-800">
            {role}
          </span>
          {via === "proxy" && <span className="ml-1 text-xs text-slate-500">(via the sign-in proxy)</span>}
        </span>
        {session.can("admin") && (
          <Link href="/audit" className="link">
            Audit trail
          </Link>
        )}
        {via === "session" && (
          <button type="button" className="btn-ghost py-0.5" onClick={() => void session.signOut()}>
            Sign out
          </button>
        )}
      </div>
    </div>
  );
}
