/**
 * Masks the secret of a backend URL for messages and logs: everything between `//` and the
 * LAST `@` is credentials (a password may itself hold `@`, `:` or `/`), of which only a
 * user name before the first `:` stays visible. `scripts/mask-url.sh` does the same for
 * `pnpm start`; a test keeps the two in step.
 */
export function maskUrl(url: string): string {
  const sep = url.indexOf("://");
  if (sep < 0 || !/^[a-z][a-z0-9+.-]*$/i.test(url.slice(0, sep))) return url;
  const start = sep + 3;
  const at = url.lastIndexOf("@");
  if (at < start) return url;
  const userinfo = url.slice(start, at);
  const colon = userinfo.indexOf(":");
  const shown = colon < 0 ? "***" : `${userinfo.slice(0, colon)}:***`;
  return `${url.slice(0, start)}${shown}${url.slice(at)}`;
}

class FleetBackendErrorClass extends Error {
  override name = "FleetBackendError";
}

/** Redis could not be reached (connect or command timeout, refused, closed). */
class BackendUnavailableErrorClass extends FleetBackendErrorClass {
  override name = "BackendUnavailableError";
  readonly code = "backend_unavailable" as const;
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`Fleet backend at ${maskUrl(url)} is unavailable: ${reason}`);
  }
}

/**
 * The URL leads to a Redis Cluster node. Fleet's schema keeps a task's keys (its queue's
 * lists, `:processing`, `:processing:body`, `:scheduled`, `:dead`) without hash tags, so the
 * Lua scripts and MULTI blocks that change them together cannot run on a cluster, where keys
 * of one call must share a slot. Refused at connect, before anything is read or written.
 */
class ClusterNotSupportedErrorClass extends FleetBackendErrorClass {
  override name = "ClusterNotSupportedError";
  readonly code = "cluster_not_supported" as const;
  constructor(url: string) {
    super(
      `Fleet backend at ${maskUrl(url)} is a Redis Cluster node, which Fleet cannot use: its multi-key scripts and transactions ` +
        "(a task's queue, processing and body keys change together) have no hash tags, so their keys fall in different slots. " +
        "Use a standalone Redis, or a primary with replicas under Redis Sentinel (redis+sentinel://).",
    );
  }
}

/** `backendFromUrl` got a scheme it does not support. */
class UnsupportedBackendUrlErrorClass extends FleetBackendErrorClass {
  override name = "UnsupportedBackendUrlError";
  constructor(url: string) {
    const scheme = url.includes("://") ? url.split("://", 1)[0] : url;
    super(`no backend for scheme '${scheme}' in ${maskUrl(url)}; supported: redis://, rediss://, redis+sentinel://, rediss+sentinel://, memory://`);
  }
}

/** A config write carried an expected generation that is no longer current. Nothing was written. */
class StaleGenerationErrorClass extends FleetBackendErrorClass {
  override name = "StaleGenerationError";
  constructor(
    readonly expectedGen: number,
    readonly currentGen: number | null,
  ) {
    super(`config generation is ${currentGen ?? "unreadable"}, not ${expectedGen}: someone else changed it`);
  }
}

/** The named thing (worker, item) does not exist. */
class NotFoundErrorClass extends FleetBackendErrorClass {
  override name = "NotFoundError";
}

/** Data in Redis has the wrong type for the operation (WRONGTYPE, a non-integer counter). */
class CorruptDataErrorClass extends FleetBackendErrorClass {
  override name = "CorruptDataError";
}

/**
 * One set of error classes per process, whatever the bundler does: a Next production build
 * compiles this module into more than one chunk graph (instrumentation.ts, the route
 * handlers), and an error made by one copy would not be `instanceof` the other copy's class
 * (a down Redis answering 500 instead of 503). The first copy to load registers its classes on
 * globalThis; every copy exports those, so `instanceof` holds across copies and nothing needs
 * to recognise an error by its name. test/one-error-class.test.ts loads a second copy.
 */
const SHARED = Symbol.for("@fleet/backend/errors");
const classes = {
  FleetBackendErrorClass,
  BackendUnavailableErrorClass,
  ClusterNotSupportedErrorClass,
  UnsupportedBackendUrlErrorClass,
  StaleGenerationErrorClass,
  NotFoundErrorClass,
  CorruptDataErrorClass,
};
const shared = ((globalThis as { [SHARED]?: typeof classes })[SHARED] ??= classes);

export const FleetBackendError = shared.FleetBackendErrorClass;
export type FleetBackendError = FleetBackendErrorClass;
export const BackendUnavailableError = shared.BackendUnavailableErrorClass;
export type BackendUnavailableError = BackendUnavailableErrorClass;
export const ClusterNotSupportedError = shared.ClusterNotSupportedErrorClass;
export type ClusterNotSupportedError = ClusterNotSupportedErrorClass;
export const UnsupportedBackendUrlError = shared.UnsupportedBackendUrlErrorClass;
export type UnsupportedBackendUrlError = UnsupportedBackendUrlErrorClass;
export const StaleGenerationError = shared.StaleGenerationErrorClass;
export type StaleGenerationError = StaleGenerationErrorClass;
export const NotFoundError = shared.NotFoundErrorClass;
export type NotFoundError = NotFoundErrorClass;
export const CorruptDataError = shared.CorruptDataErrorClass;
export type CorruptDataError = CorruptDataErrorClass;

// Argument checks both implementations share, so they refuse the same calls the same way.

/**
 * A pool claim's hold: Python's `SET ... NX EX hold` fails in Redis for hold <= 0 (it claims
 * nothing), so both backends refuse it before touching anything. Fractions are allowed (PX).
 */
export function checkHoldSeconds(holdSeconds: number): void {
  if (!(holdSeconds > 0) || !Number.isFinite(holdSeconds)) throw new RangeError(`hold seconds must be a positive number, got ${holdSeconds}`);
}

/** A counter value: an integer JavaScript holds exactly (Python's counter_set takes an int). */
export function checkCounterValue(value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`counter value must be an integer, got ${value}`);
}
