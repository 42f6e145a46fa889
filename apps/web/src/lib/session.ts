// Who the browser is signed in as, for the pages: `useSession()` and `<Can role="operator">`.
// The root layout reads the session on the server and hands it to <SessionProvider>, so
// pages know the role from the first paint. Hiding a control is a courtesy: the server
// checks every request's role itself (src/server/api/authorize.ts).
"use client";

import { roleAtLeast, SignOutResultSchema, type Role, type SessionInfo } from "@fleet/schema";
import { createContext, createElement, useCallback, useContext, useMemo, type ReactNode } from "react";

import { apiPost } from "./api";

export interface Session extends SessionInfo {
  role: Role | null;
  /** Whether the signed-in user has at least `role`. */
  can: (role: Role) => boolean;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionInfo | null>(null);

export function SessionProvider({ initial, children }: { initial: SessionInfo; children: ReactNode }) {
  return createElement(SessionContext.Provider, { value: initial }, children);
}

export function useSession(): Session {
  const info = useContext(SessionContext);
  const signOut = useCallback(async () => {
    try {
      await apiPost("/auth/signout", SignOutResultSchema);
    } finally {
      // a full load: every cached query belonged to the old session
      window.location.assign("/signin");
    }
  }, []);
  return useMemo(() => {
    // Without a provider (a page rendered outside the root layout) nothing is allowed.
    const base: SessionInfo = info ?? { mode: "auth", user: null, expires_at: null, password_sign_in: false };
    const role = base.user?.role ?? null;
    return { ...base, role, can: (need: Role) => roleAtLeast(role, need), signOut };
  }, [info, signOut]);
}

/**
 * Renders `children` only when the signed-in user has at least `role`; else `fallback`
 * (nothing by default). Wrap every control that changes something.
 */
export function Can({ role, children, fallback = null }: { role: Role; children: ReactNode; fallback?: ReactNode }): ReactNode {
  const { can } = useSession();
  return can(role) ? children : fallback;
}
