// Failed sign-ins slow down (issue 12.5), counted in the backend (Redis: every console
// replica sees the same counts) and counted BEFORE the password is checked: an attempt
// first reserves its place in two budgets, atomically (signin-reserve-2.lua); only then is
// its password hashed; a right password gives the reservation back. So 48 guesses sent at
// once are counted one after the other, and all but the first few are refused (429)
// without any hashing.
//
//   - one user name from one address: 3 failures free, then each further attempt waits
//     1 s, 2 s, 4 s ... up to 5 minutes; forgotten 30 minutes after the last one; a success
//     clears it;
//   - one address, whatever the names: 30 failures in a window of 15 minutes (from the
//     first failure) free, then the same waits, up to 5 minutes; the window ends and the
//     count with it. Successes do not count. IPv6 addresses count by their /64 (a single
//     host usually holds a whole /64).
//
// Nothing locks anybody out for ever: every wait is at most 5 minutes, every count
// expires, and an attempt refused while waiting is not counted (it neither lengthens the
// wait nor is its password checked).
import { createHash } from "node:crypto";
import { isIP } from "node:net";

import type { Backend, SignInPolicy } from "@fleet/backend";

import { logText } from "@/server/log-text";

export const SIGN_IN_POLICY: SignInPolicy = Object.freeze({
  pairFree: 3,
  pairForgetMs: 30 * 60_000,
  addressFree: 30,
  addressWindowMs: 15 * 60_000,
  baseDelayMs: 1000,
  maxDelayMs: 5 * 60_000,
});

/** The address a budget is kept for: IPv4 as is, IPv6 by its /64, `unknown` without a peer. */
export function addressBudgetId(address: string | null): string {
  if (address === null) return "unknown";
  if (isIP(address) !== 6) return address;
  // expand `::` so that the first four groups are the /64
  const [head, tail] = address.toLowerCase().split("::") as [string, string | undefined];
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** One user name from one address: a digest, so names of any shape make keys of one shape. */
export function pairBudgetId(user: string, address: string | null): string {
  return createHash("sha256")
    .update(`${user.normalize("NFC").toLowerCase()}\u0000${addressBudgetId(address)}`)
    .digest("base64url")
    .slice(0, 32);
}

export type Reservation = { allowed: true; settle: (outcome: "success" | "failure" | "refund") => Promise<void> } | { allowed: false; waitMs: number };

export class SignInThrottle {
  constructor(
    private readonly backend: Backend,
    readonly policy: SignInPolicy = SIGN_IN_POLICY,
  ) {}

  /** Counts the attempt (as a failure, until settled) or says how long to wait. */
  async reserve(user: string, address: string | null): Promise<Reservation> {
    const pair = pairBudgetId(user, address);
    const addr = addressBudgetId(address);
    const r = await this.backend.signInReserve(pair, addr, this.policy);
    if (!r.allowed) return r;
    return {
      allowed: true,
      settle: async (outcome) => {
        if (outcome === "failure") return; // already counted
        try {
          await this.backend.signInSettle(pair, addr, outcome, this.policy);
        } catch (err) {
          // the attempt stays counted as a failure: slower sign-ins, never more guesses
          console.error(`[auth] could not settle a sign-in attempt of ${logText(user, 64)}:`, err instanceof Error ? err.message : err);
        }
      },
    };
  }
}
