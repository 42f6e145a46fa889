"use client";
// A native modal <dialog> that follows an `open` prop: showModal() when it becomes true (focus
// moves in, the rest of the page is inert, Escape is a `cancel` event), close() when false.
import { useEffect, useRef, type RefObject } from "react";

export function useModalDialog(open: boolean): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return ref;
}
