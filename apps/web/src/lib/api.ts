// The browser's one way to call /api/v1: every page goes through apiFetch so errors arrive
// in one shape (ApiError), a 503 anywhere raises the "backend unavailable" banner, and every
// answer is parsed by its @fleet/schema schema (the one the route checks it against), so the
// pages see the shapes the schemas promise and nothing else.
import { ClientErrorEnvelopeSchema, type ErrorDetail } from "@fleet/schema";
import type { z } from "zod";

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
 * The ApiError of an answer that is not 2xx: from its error envelope, or a synthetic one when
 * the body is not one (a proxy's page, an empty body). `parsed` is the body as JSON, if it was.
 */
export function errorFromAnswer(res: Pick<Response, "status" | "statusText">, parsed: unknown): ApiError {
  const env = ClientErrorEnvelopeSchema.safeParse(parsed);
  if (env.success) return new ApiError(res.status, env.data.error.code, env.data.error.message, env.data.error.details ?? []);
  return new ApiError(res.status, `http_${res.status}`, `The console answered ${res.status} ${res.statusText || ""}`.trim());
}

/** The code of an ApiError for an answer that does not match its schema. */
export const UNEXPECTED_ANSWER = "unexpected_answer";

/**
 * Calls `/api/v1<path>` and returns its JSON body as `schema` parses it, or throws ApiError:
 * built from the error envelope (errorFromAnswer), or `unexpected_answer` when a 2xx body
 * does not match the schema (a console of another version behind the same address, a proxy).
 */
export async function apiFetch<S extends z.ZodType>(path: string, schema: S, init: ApiInit = {}): Promise<z.output<S>> {
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
    const err = errorFromAnswer(res, parsed);
    if (err.backendUnavailable) backendAvailability.set({ unavailable: true, message: err.message });
    if (res.status === 401) redirectToSignIn();
    throw err;
  }
  // Any answer that reached Redis proves it is back.
  if (availability.unavailable) backendAvailability.set({ unavailable: false, message: null });
  const checked = schema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    throw new ApiError(
      res.status,
      UNEXPECTED_ANSWER,
      `The console's answer to ${method} ${path.split("?")[0]} does not have the expected shape (${where}${issue?.message ?? "invalid"}).`,
    );
  }
  return checked.data;
}

/** The session expired or was revoked: back to the sign-in page, returning here afterwards. */
function redirectToSignIn(): void {
  if (typeof window === "undefined" || window.location.pathname.startsWith("/signin")) return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(here === "/" ? "/signin" : `/signin?next=${encodeURIComponent(here)}`);
}

export const apiGet = <S extends z.ZodType>(path: string, schema: S, signal?: AbortSignal) => apiFetch(path, schema, { signal });
export const apiPost = <S extends z.ZodType>(path: string, schema: S, body?: unknown, init: ApiInit = {}) => apiFetch(path, schema, { ...init, method: "POST", body });
export const apiPut = <S extends z.ZodType>(path: string, schema: S, body?: unknown, init: ApiInit = {}) => apiFetch(path, schema, { ...init, method: "PUT", body });
export const apiPatch = <S extends z.ZodType>(path: string, schema: S, body?: unknown, init: ApiInit = {}) => apiFetch(path, schema, { ...init, method: "PATCH", body });
export const apiDelete = <S extends z.ZodType>(path: string, schema: S, init: ApiInit = {}) => apiFetch(path, schema, { ...init, method: "DELETE" });

/** A sentence for an error of any kind, for ErrorState and toasts. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
