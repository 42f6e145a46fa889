// Refusals in the audit trail (issue 12.9): mutations refused for want of credentials
// (401), of a role or of a same-origin request (403), and failed or throttled sign-ins, as
// entries with `"outcome": "refused"` and the action `refused.<what was tried>`
// (`refused.dead.delete`, `refused.auth.signin`), the reason and the client address.
//
// Budgeted per actor, so that no loop can fill the capped trail and push older entries
// out: a signed-in user (or token, or proxy user) is one actor; anybody else is their
// address (IPv6 by its /64), never the user name they type. Each actor gets
// REFUSALS_PER_MINUTE entries a minute; the next refusal becomes one `refused.suppressed`
// entry saying that further ones are counted, not listed, and the first refusal of that
// actor in a later minute (within a day) is preceded by a `refused.suppressed` entry with
// how many were not listed (`details.suppressed`). Recording never changes the answer:
// when the trail cannot be written the refusal is only logged.
import { getBackend } from "@/server/backend";
import type { Principal } from "@/server/auth/roles";
import { peerAddress } from "@/server/auth/peer";
import { addressBudgetId } from "@/server/auth/throttle";
import { logText } from "@/server/log-text";

import { appendAudit, newAuditId, type AuditEntry } from "./audit";

export const REFUSALS_PER_MINUTE = 10;
const WINDOW_SECONDS = 60;

export interface Refusal {
  /** Who was refused, when they proved who they are (a 403); null for anybody else. */
  principal: Principal | null;
  /** What was tried: `dead.delete`, `auth.signin`. */
  action: string;
  target: string;
  status: number;
  reason: string;
}

/** The actor a refusal budget is kept for. */
export function refusalActor(principal: Principal | null, address: string | null): string {
  return principal ? `${principal.via ?? "none"}:${principal.name}` : `addr:${addressBudgetId(address)}`;
}

function baseEntry(request: Request, principal: Principal | null, address: string | null): Omit<AuditEntry, "action" | "target" | "status" | "outcome"> {
  let path = "";
  try {
    path = new URL(request.url).pathname;
  } catch {
    path = "";
  }
  return {
    id: newAuditId(),
    ts: Math.round(Date.now()) / 1000,
    actor: principal?.name ?? "anonymous",
    role: principal?.role ?? "none",
    via: principal?.via ?? "none",
    method: request.method,
    path,
    details: { address: address ?? "unknown" },
  };
}

export async function recordRefusal(request: Request, r: Refusal): Promise<void> {
  const address = peerAddress(request.headers);
  const actor = refusalActor(r.principal, address);
  const base = baseEntry(request, r.principal, address);
  try {
    const backend = await getBackend();
    const slot = await backend.auditRefusalSlot(actor, REFUSALS_PER_MINUTE, WINDOW_SECONDS);
    if (slot.suppressedBefore > 0) {
      await appendAudit(backend, {
        ...base,
        id: newAuditId(),
        action: "refused.suppressed",
        target: "",
        status: 429,
        outcome: "suppressed",
        details: {
          ...base.details,
          suppressed: slot.suppressedBefore,
          window_start: slot.windowStartMs / 1000,
          window_end: (slot.windowStartMs + WINDOW_SECONDS * 1000) / 1000,
          reason: `${slot.suppressedBefore} more refusal${slot.suppressedBefore === 1 ? "" : "s"} of this actor in that minute were counted, not listed`,
        },
      });
    }
    if (slot.decision === "suppress") return;
    if (slot.decision === "marker") {
      const end = (slot.windowStartMs + WINDOW_SECONDS * 1000) / 1000;
      await appendAudit(backend, {
        ...base,
        action: "refused.suppressed",
        target: "",
        status: 429,
        outcome: "suppressed",
        details: {
          ...base.details,
          window_start: slot.windowStartMs / 1000,
          window_end: end,
          reason: `more than ${REFUSALS_PER_MINUTE} refusals of this actor within a minute: further ones until ${new Date(end * 1000).toISOString()} are counted, not listed; their number follows with this actor's next refusal after then`,
        },
      });
      return;
    }
    await appendAudit(backend, {
      ...base,
      action: `refused.${r.action}`,
      target: r.target,
      status: r.status,
      outcome: "refused",
      details: { ...base.details, reason: r.reason.slice(0, 300) },
    });
  } catch (err) {
    console.error(`[audit] could not record a refusal of ${logText(actor)} (${logText(r.action)}):`, err instanceof Error ? err.message : err);
  }
}
