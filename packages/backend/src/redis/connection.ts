// One ioredis client tuned to fail fast: a down Redis must answer a console request
// with BackendUnavailableError within a couple of seconds, never hang it, and the
// client must find Redis again by itself when it returns.
import type { ConnectionOptions as TlsOptions } from "node:tls";
import { Redis, ReplyError, type ChainableCommander, type RedisOptions } from "ioredis";
import { BackendUnavailableError, CorruptDataError, FleetBackendError, maskUrl } from "../errors";
import { luaScripts, type LuaScriptName } from "./scripts.generated";

export interface RedisConnectionOptions {
  /** How long a request waits for a (re)connection before giving up. Default 1500 ms. */
  connectTimeoutMs?: number;
  /** How long one command (or one command of a pipeline) may take. Default 1500 ms. */
  commandTimeoutMs?: number;
  /** TLS settings for `rediss://` (e.g. `{ ca }` for a private CA); ignored for `redis://`. */
  tls?: TlsOptions;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 1500;
export const DEFAULT_COMMAND_TIMEOUT_MS = 1500;

const SUPPORTED = /^rediss?:\/\//i;

export function redisOptions(url: string, opts: RedisConnectionOptions): RedisOptions {
  if (!SUPPORTED.test(url)) throw new TypeError(`not a redis:// or rediss:// URL: ${maskUrl(url)}`);
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/^\//, "");
  if (path !== "" && !/^\d+$/.test(path)) {
    throw new TypeError(`the path of a Redis URL is the database number, not '${path}': ${maskUrl(url)}`);
  }
  const connectTimeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const tls = parsed.protocol.toLowerCase() === "rediss:" ? { tls: opts.tls ?? {} } : {};
  return {
    ...tls,
    lazyConnect: true,
    connectTimeout,
    commandTimeout: opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    // Queueing commands while disconnected is what makes a client hang; we wait for
    // readiness ourselves, bounded, and then send.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    // Keep trying forever, but never more than a second apart, so recovery is quick.
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000),
  };
}

export function isReplyError(err: unknown): err is Error {
  return err instanceof ReplyError || (err instanceof Error && err.name === "ReplyError");
}

/** Turns what ioredis throws into the contract's errors. */
export function mapRedisError(url: string, err: unknown): Error {
  if (err instanceof FleetBackendError) return err;
  if (isReplyError(err)) {
    if (err.message.includes("WRONGTYPE")) return new CorruptDataError(`a key has the wrong type: ${err.message}`);
    if (/^(LOADING|MASTERDOWN|NOAUTH|WRONGPASS)/.test(err.message)) return new BackendUnavailableError(url, err.message);
    return err;
  }
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new BackendUnavailableError(url, reason);
}

export type PipelineResults = Array<[Error | null, unknown]>;

/**
 * Owns one ioredis client. `run` waits (bounded) for readiness, then runs the callback
 * and maps every failure to the contract's errors.
 */
export class RedisConnection {
  readonly client: Redis;
  private lastError: string | null = null;
  private closed = false;
  private readonly connectTimeoutMs: number;

  constructor(
    readonly rawUrl: string,
    opts: RedisConnectionOptions = {},
    extra: RedisOptions = {},
  ) {
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.client = new Redis(rawUrl, { ...redisOptions(rawUrl, opts), ...extra });
    // Without a listener ioredis logs every failed reconnect as an unhandled error.
    this.client.on("error", (err: Error) => {
      this.lastError = err.message;
    });
    this.client.on("ready", () => {
      this.lastError = null;
    });
    for (const [name, s] of Object.entries(luaScripts)) {
      this.client.defineCommand(name, s.numberOfKeys === null ? { lua: s.lua } : { lua: s.lua, numberOfKeys: s.numberOfKeys });
    }
  }

  get url(): string {
    return maskUrl(this.rawUrl);
  }

  private waiting: Promise<void> | null = null;

  /** Resolves once the client is ready; fails after connectTimeoutMs. Concurrent callers share one wait. */
  async ready(): Promise<Redis> {
    const r = this.client;
    if (r.status === "ready") return r;
    if (this.closed) throw new BackendUnavailableError(this.rawUrl, "the backend was closed");
    if (r.status === "wait") r.connect().catch(() => undefined);
    this.waiting ??= new Promise<void>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        r.off("ready", onReady);
        r.off("end", onEnd);
        this.waiting = null;
      };
      const fail = (why: string) => {
        settle();
        reject(new BackendUnavailableError(this.rawUrl, this.lastError ? `${why} (${this.lastError})` : why));
      };
      const onReady = () => {
        settle();
        resolve();
      };
      const onEnd = () => fail("the connection ended");
      const timer = setTimeout(() => fail(`no connection within ${this.connectTimeoutMs} ms`), this.connectTimeoutMs);
      r.on("ready", onReady);
      r.on("end", onEnd);
    });
    await this.waiting;
    return r;
  }

  async run<T>(fn: (r: Redis) => Promise<T>): Promise<T> {
    try {
      const r = await this.ready();
      return await fn(r);
    } catch (err) {
      throw mapRedisError(this.rawUrl, err);
    }
  }

  /** Executes a pipeline or MULTI; a connectivity failure of any command fails the whole call. */
  async exec(p: ChainableCommander): Promise<PipelineResults> {
    let res: PipelineResults | null;
    try {
      res = (await p.exec()) as PipelineResults | null;
    } catch (err) {
      throw mapRedisError(this.rawUrl, err);
    }
    if (!res) throw new BackendUnavailableError(this.rawUrl, "the transaction was aborted");
    for (const [err] of res) {
      if (err && !isReplyError(err)) throw mapRedisError(this.rawUrl, err);
    }
    return res;
  }

  /** `exec`, then every reply, throwing the first command error. */
  async execValues(p: ChainableCommander): Promise<unknown[]> {
    const res = await this.exec(p);
    return res.map(([err, v]) => {
      if (err) throw mapRedisError(this.rawUrl, err);
      return v;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.client.status === "ready") await this.client.quit();
    } catch {
      // quitting a broken connection may fail; disconnect below is enough
    } finally {
      this.client.disconnect();
    }
  }
}

type ScriptTarget = Redis | ChainableCommander;
type ScriptArg = string | Buffer | number;

/**
 * Calls a script registered with defineCommand (EVALSHA, falling back to EVAL on NOSCRIPT).
 * On a pipeline it queues the call and returns the pipeline's own promise-less chain.
 */
export function callScript(
  target: ScriptTarget,
  name: LuaScriptName,
  keys: string[],
  args: ScriptArg[],
  opts: { buffer?: boolean } = {},
): Promise<unknown> {
  const method = (target as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[opts.buffer ? `${name}Buffer` : name];
  if (typeof method !== "function") throw new TypeError(`script ${name} is not registered`);
  // Arrays, not spread arguments: ioredis flattens them one level (Command's args.flat()),
  // and spreading tens of thousands of keys into a call costs more than the call itself.
  return luaScripts[name].numberOfKeys === null ? method.call(target, keys.length, keys, args) : method.call(target, keys, args);
}
