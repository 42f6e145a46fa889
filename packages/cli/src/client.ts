// The HTTP client of `fleet`: one request to the console's API (../shared/API.md), its answer
// checked against the shape @fleet/schema gives it, every failure turned into a CliError with
// the exit code a script can act on. The token goes into the Authorization header and nowhere
// else: no message, error or log line ever holds it.
import { ClientErrorEnvelopeSchema } from "@fleet/schema";
import type { z } from "zod";

import { CliError, EXIT, UsageError, exitCodeForStatus } from "./exit-codes";

export const DEFAULT_URL = "http://127.0.0.1:3000";

export interface ClientOptions {
  /** The console's base URL (FLEET_URL), with or without `/api/v1`. */
  url: string;
  /** An API token (FLEET_TOKEN); none: the console must have authentication off. */
  token?: string;
  /** How long to wait for an answer (its headers, for a stream). */
  timeoutMs: number;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  /** The answer as parsed by its schema. */
  data: T;
  /** The JSON as received (with fields this CLI does not know), for --json. */
  raw: unknown;
}

export interface RequestOptions<T> {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  schema: z.ZodType<T>;
}

/** The base URL, checked: http(s), no query or fragment, `/api/v1` taken off. */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`FLEET_URL (or --url) is not a URL: ${JSON.stringify(maskUrl(text))}; e.g. ${DEFAULT_URL}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`FLEET_URL (or --url) must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new UsageError("FLEET_URL (or --url) must not carry credentials; put an API token in FLEET_TOKEN instead");
  }
  url.search = "";
  url.hash = "";
  url.pathname = url.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return url;
}

/** A URL as it may be shown: without user info. */
export function maskUrl(text: string): string {
  return text.replace(/\/\/[^/@]*@/, "//***@");
}

/** The token, checked without ever showing it: what a header may carry. */
export function checkToken(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const t = token.trim();
  if (t === "") return undefined;
  if (!/^[\x21-\x7e]+$/.test(t)) {
    throw new UsageError("FLEET_TOKEN is not a valid API token: it must be printable ASCII without spaces (the token itself is not shown)");
  }
  return t;
}

/** A path segment, encoded (names may contain `/`, `%`, `:` and any UTF-8). */
export const seg = encodeURIComponent;

export class FleetClient {
  readonly base: URL;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  constructor(opts: ClientOptions) {
    this.base = parseBaseUrl(opts.url);
    this.token = checkToken(opts.token);
    this.timeoutMs = opts.timeoutMs;
  }

  /** `GET /workers` -> http://host/api/v1/workers?… */
  url(path: string, query: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(this.base.href);
    url.pathname = `${this.base.pathname.replace(/\/+$/, "")}/api/v1${path}`;
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
    return url;
  }

  private headers(extra: Record<string, string> = {}): Headers {
    const h = new Headers(extra);
    if (this.token !== undefined) h.set("Authorization", `Bearer ${this.token}`);
    return h;
  }

  /** Sends one request and waits at most `timeoutMs` for its answer's headers. */
  async fetch(method: string, url: URL, init: { headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {}): Promise<Response> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error("timeout")), this.timeoutMs);
    const where = `${method} ${url.pathname}`;
    const signal = init.signal ? AbortSignal.any([abort.signal, init.signal]) : abort.signal;
    try {
      return await fetch(url, { method, headers: this.headers(init.headers), body: init.body, signal, redirect: "manual" });
    } catch (err) {
      if (abort.signal.aborted) {
        throw new CliError(`${where}: no answer from ${this.base.origin} within ${Math.round(this.timeoutMs / 1000)} s`, EXIT.UNAVAILABLE);
      }
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
      throw new CliError(`cannot reach the console at ${this.base.origin} (${why}); is it running, and is FLEET_URL right?`, EXIT.UNAVAILABLE);
    } finally {
      // only the wait for the headers is timed: a stream's body stays open past them
      clearTimeout(timer);
    }
  }

  async request<T>(method: string, path: string, opts: RequestOptions<T>): Promise<Answer<T>> {
    const url = this.url(path, opts.query);
    const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["Content-Type"] = "application/json";
    }
    // the whole exchange, body included, within the timeout (fetch() alone times the headers)
    const res = await this.fetch(method, url, { headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    const text = await readText(res, `${method} ${url.pathname}`);
    if (!res.ok) throw this.failure(method, url, res, text);
    const raw = parseJson(text, res, `${method} ${url.pathname}`);
    const parsed = opts.schema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.length > 0 ? i.path.join(".") : "the answer"}: ${i.message}`)
        .join("; ");
      throw new CliError(
        `unexpected answer from ${method} ${url.pathname} (${res.status}): ${issues}. Is ${this.base.origin} a Fleet Console of a version this CLI knows?`,
        EXIT.ERROR,
      );
    }
    return { status: res.status, headers: res.headers, data: parsed.data, raw };
  }

  /** An error answer as a CliError: the envelope's code and message, or what came instead. */
  failure(method: string, url: URL, res: Response, text: string): CliError {
    const where = `${method} ${url.pathname}`;
    const code = exitCodeForStatus(res.status);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    // codes are added, never renamed: one this CLI does not know yet is still an envelope
    const envelope = ClientErrorEnvelopeSchema.safeParse(json);
    let message: string;
    if (envelope.success) {
      const e = envelope.data.error;
      message = `${where}: ${res.status} ${e.code}: ${e.message}`;
      for (const d of (e.details ?? []).slice(0, 20)) message += `\n  ${d.path || "(body)"}: ${d.message}`;
    } else {
      const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
      message = `${where}: unexpected answer ${res.status} ${res.statusText} (${res.headers.get("content-type") ?? "no content type"})${snippet ? `: ${snippet}` : ""}`;
    }
    if (res.status === 401) {
      message += this.token === undefined ? "\n  set FLEET_TOKEN to an API token (FLEET_AUTH_TOKENS on the console)" : "\n  FLEET_TOKEN is not a token this console accepts";
    }
    if (res.status === 429) {
      const after = res.headers.get("retry-after");
      if (after) message += `\n  try again in ${after} s`;
    }
    return new CliError(message, code);
  }
}

async function readText(res: Response, where: string): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    throw new CliError(`${where}: the answer was cut off (${err instanceof Error ? err.message : String(err)})`, EXIT.UNAVAILABLE);
  }
}

function parseJson(text: string, res: Response, where: string): unknown {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("json")) {
    throw new CliError(`unexpected answer from ${where} (${res.status}): ${type || "no content type"} instead of JSON`, EXIT.ERROR);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`unexpected answer from ${where} (${res.status}): the body is not valid JSON`, EXIT.ERROR);
  }
}
