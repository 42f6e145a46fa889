"use client";
// "When X changes, do Y": the effect the pages use to reset what belongs to the thing shown
// (a selection to its page, an editor to its key, a preview to its search) when another one
// is shown. `key` names that thing; `fn` runs after the first render whose key differs from
// the previous render's, never on the first render. `fn` always sees the latest props and
// state (useEffectEvent), so it is not a dependency: the key is the trigger, and the effect
// reads it.
import { useEffect, useEffectEvent, useRef } from "react";

export function useOnChange(key: string, fn: () => void): void {
  const last = useRef(key);
  const run = useEffectEvent(fn);
  useEffect(() => {
    if (last.current === key) return;
    last.current = key;
    run();
  }, [key]);
}
