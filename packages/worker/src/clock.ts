// Wall time is injectable so tests and simulated hosts (a skewed clock) can control `last_seen`.
export interface Clock {
  /** Unix seconds (float). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() / 1000 };

/** A clock running `offsetSeconds` off the system clock (negative = behind). */
export function skewedClock(offsetSeconds: number): Clock {
  return { now: () => Date.now() / 1000 + offsetSeconds };
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new AbortError(String(signal.reason ?? "aborted"));
}

export class AbortError extends Error {
  override name = "AbortError";
}
