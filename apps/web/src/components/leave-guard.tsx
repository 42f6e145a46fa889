"use client";
// Asks before unsaved work is lost (see src/lib/leave-guard.ts): closing or reloading the tab
// gets the browser's own "Leave site?" question; an in-app link is held back and a dialog asks
// whether to stay or leave and discard. Mounted once, in the shell.
import { useRouter } from "next/navigation";
import { useEffect, useState, useSyncExternalStore } from "react";

import { emptyLeaveGuard, leaveGuardStore, leavingDestination } from "@/lib/leave-guard";

import { ConfirmDialog } from "./confirm-dialog";

export function LeaveGuard() {
  const router = useRouter();
  const unsaved = useSyncExternalStore(leaveGuardStore.subscribe, leaveGuardStore.get, emptyLeaveGuard);
  const [destination, setDestination] = useState<string | null>(null);
  const active = unsaved.length > 0;

  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers ask only when returnValue is set.
      e.returnValue = "";
    };
    // On window, in the capture phase: before Next's <Link> (a React handler on the document)
    // starts a client-side navigation.
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented) return;
      const to = leavingDestination(e, window.location);
      if (to === null) return;
      e.preventDefault();
      e.stopPropagation();
      setDestination(to);
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    window.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      window.removeEventListener("click", onClick, true);
    };
  }, [active]);

  // Saved (or discarded) meanwhile: nothing left to ask about.
  useEffect(() => {
    if (!active) setDestination(null);
  }, [active]);

  return (
    <ConfirmDialog
      open={destination !== null && active}
      title="Leave without saving?"
      confirmLabel="Leave and discard"
      cancelLabel="Stay on this page"
      onCancel={() => setDestination(null)}
      onConfirm={() => {
        const to = destination;
        setDestination(null);
        if (to !== null) router.push(to);
      }}
    >
      <p>You have unsaved changes to {unsaved.join(" and to ")}. If you leave this page they are lost.</p>
    </ConfirmDialog>
  );
}
