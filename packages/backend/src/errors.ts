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

export class FleetBackendError extends Error {
  override name = "FleetBackendError";
}

/** Redis could not be reached (connect or command timeout, refused, closed). */
export class BackendUnavailableError extends FleetBackendError {
  override name = "BackendUnavailableError";
  readonly code = "backend_unavailable" as const;
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`Fleet backend at ${maskUrl(url)} is unavailable: ${reason}`);
  }
}

/** `backendFromUrl` got a scheme it does not support. */
export class UnsupportedBackendUrlError extends FleetBackendError {
  override name = "UnsupportedBackendUrlError";
  constructor(url: string) {
    const scheme = url.includes("://") ? url.split("://", 1)[0] : url;
    super(`no backend for scheme '${scheme}' in ${maskUrl(url)}; supported: redis://, rediss://, memory://`);
  }
}

/** A config write carried an expected generation that is no longer current. Nothing was written. */
export class StaleGenerationError extends FleetBackendError {
  override name = "StaleGenerationError";
  constructor(
    readonly expectedGen: number,
    readonly currentGen: number | null,
  ) {
    super(`config generation is ${currentGen ?? "unreadable"}, not ${expectedGen}: someone else changed it`);
  }
}

/** The named thing (worker, item) does not exist. */
export class NotFoundError extends FleetBackendError {
  override name = "NotFoundError";
}

/** Data in Redis has the wrong type for the operation (WRONGTYPE, a non-integer counter). */
export class CorruptDataError extends FleetBackendError {
  override name = "CorruptDataError";
}
