// The one error envelope of ../shared/API.md and the mapping from every failure a route
// can meet (our own checks, zod, the backend) to it.
import { BackendUnavailableError, ClusterNotSupportedError, CorruptDataError, NotFoundError, StaleGenerationError, maskUrl } from "@fleet/backend";
import { ERROR_STATUS, type ErrorCode, type ErrorDetail, type ErrorEnvelope } from "@fleet/schema";
import type { z } from "zod";

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new ApiError("bad_request", message, details);
export const notFound = (message: string) => new ApiError("not_found", message);
export const conflict = (message: string) => new ApiError("conflict", message);
export const preconditionFailed = (message: string) => new ApiError("precondition_failed", message);
export const payloadTooLarge = (message: string) => new ApiError("payload_too_large", message);
export const validationFailed = (message: string, details: ErrorDetail[]) => new ApiError("validation_failed", message, details);

/** RFC 6901 JSON Pointer of a path; the root is "". */
export function jsonPointer(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** Every zod issue as `{path, message}`, the path prefixed (e.g. `/tasks/3`). */
export function zodDetails(error: z.ZodError, prefix = ""): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      // one detail per unknown key, at the key itself, so a form can point at it
      for (const key of issue.keys) out.push({ path: prefix + jsonPointer([...issue.path, key]), message: "is not allowed here" });
      continue;
    }
    out.push({ path: prefix + jsonPointer(issue.path), message: issue.message });
  }
  return out;
}

/**
 * A JSON answer, its text given to Response as it is: Response encodes it once
 * (TextEncoder), where a Buffer was encoded by Node and then copied whole by Response: on a
 * 320 KB page of 1,000 workers that was ~1.5 ms of ~13 (issue 11 point 6; 10k workers read
 * through ten pages 149 -> 132 ms, alternating builds). Content-Length is counted, not
 * encoded; Next's server sends route answers chunked whatever it says (send-response.js
 * drops it), other runtimes use it.
 */
export function jsonResponse(status: number, body: unknown, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("Content-Type", "application/json; charset=utf-8");
  if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
  const text = JSON.stringify(body);
  h.set("Content-Length", String(Buffer.byteLength(text, "utf8")));
  return new Response(text, { status, headers: h });
}

export function errorResponse(code: ErrorCode, message: string, details?: ErrorDetail[]): Response {
  const body: ErrorEnvelope = { error: { code, message, ...(details && details.length > 0 ? { details } : {}) } };
  return jsonResponse(ERROR_STATUS[code], body);
}

/**
 * Any thrown value -> the envelope. Unknown errors become a generic 500 that leaks
 * nothing (no stack, no Redis reply text); the detail goes to the server log.
 */
export function toErrorResponse(err: unknown, where: string): Response {
  if (err instanceof ApiError) return errorResponse(err.code, err.message, err.details);
  if (err instanceof BackendUnavailableError) {
    // its message already names the URL with the password masked; mask again in case
    return errorResponse("backend_unavailable", maskMessage(err.message, err.url));
  }
  // a Redis Cluster behind the URL (normally refused at start): it will never work, say why
  if (err instanceof ClusterNotSupportedError) return errorResponse("backend_unavailable", err.message);
  if (err instanceof NotFoundError) return errorResponse("not_found", err.message);
  if (err instanceof StaleGenerationError) return errorResponse("conflict", err.message);
  if (err instanceof CorruptDataError) {
    // a read says what it could not read; a write, that it changed nothing
    const read = /^(GET|HEAD) /.test(where);
    return errorResponse(
      "conflict",
      read ? `The stored data cannot be read as Fleet writes it: ${err.message}.` : `The stored data cannot be changed this way: ${err.message}. Nothing was changed.`,
    );
  }
  console.error(`[api] ${where} failed`, err);
  return errorResponse("internal", "The server could not complete this request; the cause is in the server log.");
}

/**
 * Redis could not be reached. Plain `instanceof`: @fleet/backend keeps one set of error classes
 * per process, however many copies of its errors module a bundle holds (its errors.ts).
 */
export function isBackendUnavailable(err: unknown): err is BackendUnavailableError {
  return err instanceof BackendUnavailableError;
}

function maskMessage(message: string, url: string): string {
  return url && message.includes(url) ? message.split(url).join(maskUrl(url)) : message;
}
