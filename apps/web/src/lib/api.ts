// The browser's one way to call /api/v1: every page goes through apiFetch so errors arrive
// in one shape (ApiError) and a 503 anywhere raises the "backend unavailable" banner.
import type { ErrorDetail } from "@fleet/schema";

export const API_BASE = "/api/v1";

/**
 * Cross-site request protection for cookie-authenticated mutations: the server
 * (src/server/auth/csrf.ts) wants this header and a same-origin request on every one.
 */
export const CSRF_HEADER_NAME = "X-Fleet-Csrf";
export const CSRF_HEADER_VALUE = "1";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  /** Redis (or the network path to the console) is down: retrying later may help. */
  readonly backendUnavailable: boolean;

  constructor(status: number, code: string, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.backendUnavailable = status === 503 || code === "backend_unavailable" || code === "network_error";
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

/** Encodes one path segment: names may hold `:`, `/`, `%` and any UTF-8. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

/** `?a=1&b=x` from the defined, non-empty entries; "" when none. */
export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === "") continue;
    sp.set(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : "";
}

// ---------- backend availability, shared with the shell's banner

type Availability = { unavailable: boolean; message: string | null };
let availability: Availability = { unavailable: false, message: null };
const availabilityListeners = new Set<() => void>();

export const backendAvailability = {
  get: (): Availability => availability,
  subscribe(fn: () => void): () => void {
    availabilityListeners.add(fn);
    return () => availabilityListeners.delete(fn);
  },
  set(next: Availability): void {
    if (next.unavailable === availability.unavailable && next.message === availability.message) return;
    availability = next;
    for (const fn of availabilityListeners) fn();
  },
};

// ---------- fetch

export interface ApiInit extends Omit<RequestInit, "body"> {
  /** Serialized as JSON. */
  body?: unknown;
}

function isMutation(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

/**
 * Calls `/api/v1<path>` and returns the parsed JSON body, or throws ApiError built from the
 * error envelope (or a synthetic one when the answer is not the envelope).
 */
export async function apiFetch<T>(path: string, init: ApiInit = {}): Promise<T> {
  return (await apiFetchWithHeaders<T>(path, init)).data;
}

/** apiFetch plus the response headers (ETag of a config write, for instance). */
export async function apiFetchWithHeaders<T>(path: string, init: ApiInit = {}): Promise<{ data: T; headers: Headers; status: number }> {
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  headers.set("Accept", "application/json");
  let body: BodyInit | undefined;
  if (init.body !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(init.body);
  }
  if (isMutation(method)) headers.set(CSRF_HEADER_NAME, CSRF_HEADER_VALUE);

  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, { ...init, method, headers, body, credentials: "same-origin", cache: "no-store" });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    const e = new ApiError(0, "network_error", "The console did not answer. Check that it is running and reachable.");
    backendAvailability.set({ unavailable: true, message: e.message });
    throw e;
  }

  const text = await res.text();
  let parsed: unknown;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }

  if (!res.ok) {
    const env = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    const code = typeof env?.code === "string" ? env.code : `http_${res.status}`;
    const message = typeof env?.message === "string" ? env.message : `The console answered ${res.status} ${res.statusText || ""}`.trim();
    const details = Array.isArray(env?.details) ? (env.details as ErrorDetail[]) : [];
    const err = new ApiError(res.status, code, message, details);
    if (err.backendUnavailable) backendAvailability.set({ unavailable: true, message });
    if (res.status === 401) redirectToSignIn();
    throw err;
  }
  // Any answer that reached Redis proves it is back.
  if (availability.unavailable) backendAvailability.set({ unavailable: false, message: null });
  return { data: parsed as T, headers: res.headers, status: res.status };
}

/** The session expired or was revoked: back to the sign-in page, returning here afterwards. */
function redirectToSignIn(): void {
  if (typeof window === "undefined" || window.location.pathname.startsWith("/signin")) return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(here === "/" ? "/signin" : `/signin?next=${encodeURIComponent(here)}`);
}

export const apiGet = <T>(path: string, signal?: AbortSignal) => apiFetch<T>(path, { signal });
export const apiPost = <T>(path: string, body?: unknown, init: ApiInit = {}) => apiFetch<T>(path, { ...init, method: "POST", body });
export const apiPut = <T>(path: string, body?: unknown, init: ApiInit = {}) => apiFetch<T>(path, { ...init, method: "PUT", body });
export const apiPatch = <T>(path: string, body?: unknown, init: ApiInit = {}) => apiFetch<T>(path, { ...init, method: "PATCH", body });
export const apiDelete = <T>(path: string, init: ApiInit = {}) => apiFetch<T>(path, { ...init, method: "DELETE" });

/** A sentence for an error of any kind, for ErrorState and toasts. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
