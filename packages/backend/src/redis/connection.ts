// One ioredis client tuned to fail fast: a down Redis must answer a console request
// with BackendUnavailableError within a couple of seconds, never hang it, and the
// client must find Redis again by itself when it returns.
import type { WorkerCacheOptions } from "./worker-cache";
import type { ConnectionOptions as TlsOptions } from "node:tls";
import { Redis, ReplyError, type ChainableCommander, type RedisOptions } from "ioredis";
import { BackendUnavailableError, ClusterNotSupportedError, CorruptDataError, FleetBackendError, maskUrl } from "../errors";
import { luaScripts, type LuaScriptName } from "./scripts.generated";

export interface RedisConnectionOptions {
  /** How long a request waits for a (re)connection before giving up. Default 1500 ms. */
  connectTimeoutMs?: number;
  /** How long one command (or one command of a pipeline) may take. Default 1500 ms. */
  commandTimeoutMs?: number;
  /** TLS settings for `rediss://` (e.g. `{ ca }` for a private CA); ignored for `redis://`. */
  tls?: TlsOptions;
  /** The copy of worker reads kept true by CLIENT TRACKING (./worker-cache.ts); `{ bytes: 0 }` turns it off. */
  workerCache?: WorkerCacheOptions;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 1500;
export const DEFAULT_COMMAND_TIMEOUT_MS = 1500;

const SUPPORTED = /^rediss?:\/\//i;
const SENTINEL = /^rediss?\+sentinel:\/\//i;

/** Whether `url` names a Sentinel-managed primary (`redis+sentinel://`, `rediss+sentinel://`). */
export function isSentinelUrl(url: string): boolean {
  return SENTINEL.test(url);
}

/**
 * `redis+sentinel://[[user]:password@]host1:26379,host2:26379/<master-name>[/<db>][?sentinel_password=...]`
 * (`rediss+sentinel://` for TLS to the sentinels and the primary). The password is the
 * primary's; the sentinels use `sentinel_password` when given, else none.
 */
export function parseSentinelUrl(url: string): {
  tls: boolean;
  username?: string;
  password?: string;
  sentinelPassword?: string;
  sentinels: Array<{ host: string; port: number }>;
  name: string;
  db: number;
} {
  const bad = (why: string) => new TypeError(`${why}: ${maskUrl(url)} (expected redis+sentinel://[:password@]host:port[,host:port...]/<master-name>[/<db>])`);
  const scheme = url.slice(0, url.indexOf("://")).toLowerCase();
  let rest = url.slice(url.indexOf("://") + 3);
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let auth = "";
  const at = rest.lastIndexOf("@", rest.indexOf("/") >= 0 ? rest.indexOf("/") : rest.length);
  if (at >= 0) {
    auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  const slash = rest.indexOf("/");
  if (slash < 0) throw bad("no master name");
  const hostList = rest.slice(0, slash);
  const [name, dbText, ...extra] = rest.slice(slash + 1).split("/");
  const db = dbText === undefined || dbText === "" ? "0" : dbText;
  if (!name || extra.length > 0) throw bad("the path must be /<master-name>[/<db>]");
  if (!/^\d+$/.test(db)) throw bad(`the database must be a number, not '${db}'`);
  const sentinels = hostList.split(",").map((hp) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:,[\]]+)(?::(\d{1,5}))?$/.exec(hp);
    if (!m) throw bad(`'${hp}' is not host:port`);
    const port = m[2] ? Number(m[2]) : 26379;
    if (port < 1 || port > 65535) throw bad(`port ${port} is out of range`);
    return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
  });
  if (sentinels.length === 0) throw bad("no sentinel address");
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw bad("the credentials are not valid percent-encoding");
    }
  };
  const colon = auth.indexOf(":");
  const username = colon >= 0 ? decode(auth.slice(0, colon)) : decode(auth);
  const password = colon >= 0 ? decode(auth.slice(colon + 1)) : undefined;
  const params = new URLSearchParams(query);
  for (const k of params.keys()) if (k !== "sentinel_password") throw bad(`unknown parameter '${k}'`);
  const sentinelPassword = params.get("sentinel_password") ?? undefined;
  return {
    tls: scheme === "rediss+sentinel",
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(sentinelPassword ? { sentinelPassword } : {}),
    sentinels,
    name: decode(name),
    db: Number(db),
  };
}

export function redisOptions(url: string, opts: RedisConnectionOptions): RedisOptions {
  if (SENTINEL.test(url)) return sentinelOptions(url, opts);
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

function sentinelOptions(url: string, opts: RedisConnectionOptions): RedisOptions {
  const s = parseSentinelUrl(url);
  const connectTimeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  return {
    sentinels: s.sentinels,
    name: s.name,
    role: "master",
    db: s.db,
    ...(s.username ? { username: s.username } : {}),
    ...(s.password ? { password: s.password } : {}),
    ...(s.sentinelPassword ? { sentinelPassword: s.sentinelPassword } : {}),
    ...(s.tls ? { tls: opts.tls ?? {}, enableTLSForSentinelMode: true, sentinelTLS: opts.tls ?? {} } : {}),
    lazyConnect: true,
    connectTimeout,
    commandTimeout: opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    sentinelCommandTimeout: connectTimeout,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000),
    // all sentinels unreachable: keep asking, a second apart at most
    sentinelRetryStrategy: (times: number) => Math.min(100 * times, 1000),
    // learn of a failover from the sentinels' +switch-master at once, not at the next error
    failoverDetector: true,
  };
}

export function isReplyError(err: unknown): err is Error {
  return err instanceof ReplyError || (err instanceof Error && err.name === "ReplyError");
}

/** A reply saying a key holds another Redis type than the command works on. */
export function isWrongTypeError(err: unknown): boolean {
  return isReplyError(err) && err.message.startsWith("WRONGTYPE");
}

/**
 * The keys a failed command named, for messages: a plain command's first argument (LLEN,
 * HGETALL, ZRANGE...), a script's KEYS; never a value.
 */
function keysOfFailedCommand(err: Error): string[] {
  const command = (err as Error & { command?: { name?: string; args?: unknown[] } }).command;
  const name = command?.name?.toLowerCase();
  const args = command?.args ?? [];
  const text = (v: unknown) => (typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : null);
  if (!name || /^(multi|exec|fcall)/.test(name)) return [];
  const named = name === "eval" || name === "evalsha" ? args.slice(2, 2 + Math.min(6, Number(args[1]) || 0)) : args.slice(0, 1);
  return named.map(text).filter((k): k is string => k !== null);
}

/** Turns what ioredis throws into the contract's errors. */
export function mapRedisError(url: string, err: unknown): Error {
  if (err instanceof FleetBackendError) return err;
  if (isReplyError(err)) {
    // a MULTI whose commands were refused as they were queued (MASTERDOWN, LOADING, READONLY
    // on a replica...) fails as a whole with EXECABORT: the reason is the first refusal
    const previous = (err as Error & { previousErrors?: unknown[] }).previousErrors?.[0];
    if (err.message.startsWith("EXECABORT") && previous !== undefined) return mapRedisError(url, previous);
    if (err.message.includes("WRONGTYPE")) {
      const named = keysOfFailedCommand(err);
      const which = named.length === 0 ? "a key" : named.length === 1 ? `the key ${named[0]}` : `one of the keys ${named.join(", ")}`;
      return new CorruptDataError(`${which} holds another Redis type than Fleet writes there (${err.message.split("\n")[0]})`);
    }
    // READONLY: a primary demoted to replica by a failover still answering this connection
    if (/^(LOADING|MASTERDOWN|NOAUTH|WRONGPASS|READONLY)/.test(err.message)) return new BackendUnavailableError(url, err.message);
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
    const options = { ...redisOptions(rawUrl, opts), ...extra };
    this.client = isSentinelUrl(rawUrl) ? new Redis(options) : new Redis(rawUrl, options);
    // Without a listener ioredis logs every failed reconnect as an unhandled error.
    this.client.on("error", (err: Error) => {
      this.lastError = err.message;
    });
    this.client.on("ready", () => {
      this.lastError = null;
      // every (re)connection may lead elsewhere (a failover, a moved DNS name): check it again
      this.clusterChecked = null;
    });
    for (const [name, s] of Object.entries(luaScripts)) {
      this.client.defineCommand(name, s.numberOfKeys === null ? { lua: s.lua } : { lua: s.lua, numberOfKeys: s.numberOfKeys });
    }
  }

  get url(): string {
    return maskUrl(this.rawUrl);
  }

  private waiting: Promise<void> | null = null;
  /** The once-per-connection check that this is not a cluster node (see ClusterNotSupportedError). */
  private clusterChecked: Promise<void> | null = null;

  private checkNotCluster(r: Redis): Promise<void> {
    this.clusterChecked ??= r.info("cluster").then(
      (info) => {
        if (/^cluster_enabled:1\s*$/m.test(info)) throw new ClusterNotSupportedError(this.rawUrl);
      },
      (err: unknown) => {
        this.clusterChecked = null; // a failed probe is not an answer: ask again next time
        throw err;
      },
    );
    return this.clusterChecked;
  }

  /** Resolves once the client is ready; fails after connectTimeoutMs. Concurrent callers share one wait. */
  async ready(): Promise<Redis> {
    const r = this.client;
    if (r.status === "ready") {
      await this.checkNotCluster(r);
      return r;
    }
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
    await this.checkNotCluster(r);
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
    nameFailedCommands(p, res);
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

/**
 * Errors inside a MULTI come back without the command they answer (a pipeline's carry it):
 * give them theirs, from the queue of commands sent, so that messages can name the key.
 * Only for messages; when ioredis keeps its queue elsewhere, nothing happens.
 */
function nameFailedCommands(p: ChainableCommander, res: PipelineResults): void {
  if (!res.some(([err]) => err && !("command" in err))) return;
  const queue = (p as unknown as { _queue?: Array<{ name: string; args: unknown[] }> })._queue;
  if (!Array.isArray(queue)) return;
  const sent = queue.filter((c) => c.name !== "multi" && c.name !== "exec");
  if (sent.length !== res.length) return;
  res.forEach(([err], i) => {
    if (err && !("command" in err)) Object.assign(err, { command: { name: sent[i]!.name, args: sent[i]!.args } });
  });
}

type ScriptTarget = Redis | ChainableCommander;
type ScriptArg = string | Buffer | number;

/**
 * Calls a script registered with defineCommand (EVALSHA, falling back to EVAL on NOSCRIPT).
 * On a pipeline it queues the call and returns the pipeline's own promise-less chain.
 */
export function callScript(target: ScriptTarget, name: LuaScriptName, keys: string[], args: ScriptArg[], opts: { buffer?: boolean } = {}): Promise<unknown> {
  const method = (target as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[opts.buffer ? `${name}Buffer` : name];
  if (typeof method !== "function") throw new TypeError(`script ${name} is not registered`);
  // Arrays, not spread arguments: ioredis flattens them one level (Command's args.flat()),
  // and spreading tens of thousands of keys into a call costs more than the call itself.
  return luaScripts[name].numberOfKeys === null ? method.call(target, keys.length, keys, args) : method.call(target, keys, args);
}
