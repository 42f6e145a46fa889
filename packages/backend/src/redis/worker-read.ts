// The batched worker reads behind workersGet and workersIndex (README.md, "The Redis
// implementation"): per automation type, chunks of WORKERS_PER_CALL workers, each chunk one
// MULTI of an MGET of the workers' string keys and one workers-read-n.lua call, all sent back
// to back. Replies are read by field name, never by offset: the MGET's values through
// STRING_VALUES (the one table that also makes its keys), the script's through the field
// names it answers first (so a field added to the script, anywhere, shifts nothing here).
import type { ChainableCommander, Command, Redis } from "ioredis";
import { lastSeenFromRaw, parseObjectField, workerRecordFromRaw, workerStateFromRaw } from "../codec";
import { CorruptDataError } from "../errors";
import { keys, type WorkerField } from "../keys";
import { markCorrupt } from "../shared";
import type { WorkerIndexEntry, WorkerRecord, WorkerRef } from "../types";
import { callScript } from "./connection";
import type { RedisContext } from "./context";
import { EncodedCommand, keyAround, RespArgs, type KeyAround } from "./encoded-command";
import { unpack, type Packed } from "./msgpack";
import { asBuffer, asNumber } from "./replies";
import { luaScripts } from "./scripts.generated";

/**
 * Workers per MULTI in workersGet and workersIndex. Chunks let Redis work on the next one
 * while the client decodes the last, and keep each MULTI short, since Redis runs it alone.
 * A page of 1,000 rows is four chunks: with two (500 a chunk) Redis and the decoding mostly
 * took turns, and a page took ~30 % longer (bench/README.md, issue 11 point 6); below ~100
 * the calls' own cost shows. On 10,000 workers 250 reads the index as fast as 500 or 1,000.
 */
export const WORKERS_PER_CALL = 250;

/** Values laid out `fields.length` per worker in one flat array, read by field name (positions computed once). */
export class NamedRows<F extends string> {
  readonly width: number;
  private readonly at: Record<F, number>;

  constructor(readonly fields: readonly F[]) {
    this.width = fields.length;
    this.at = Object.fromEntries(fields.map((f, i) => [f, i])) as Record<F, number>;
  }

  /** Where `field` of the `row`th worker is. */
  index(row: number, field: F): number {
    return row * this.width + this.at[field];
  }

  get<T>(values: readonly T[], row: number, field: F): T {
    return values[this.index(row, field)]!;
  }

  /** The row and field at a flat index. */
  locate(i: number): { row: number; field: F } {
    return { row: Math.floor(i / this.width), field: this.fields[i % this.width]! };
  }
}

/** The worker string keys the MGET reads, each worker's in this order; `gen` is WorkerRecord's `config_gen`. */
const STRING_VALUES = new NamedRows(["hardware", "config", "gen", "stats"] as const);
const STRING_CORRUPT = { hardware: "hardware", config: "config", gen: "config_gen", stats: "stats" } as const;
/** The index read's MGET: the hardware alone, asked only when hostnames are. */
const HARDWARE_VALUE = new NamedRows(["hardware"] as const);

/** The fields each mode of workers-read-n.lua answers per worker (the script names them in its reply; see its header). */
export const WORKERS_READ_FIELDS = {
  full: ["member", "state", "last_seen", "last_error", "history", "wrong"],
  row: ["member", "state", "last_seen", "last_error", "wrong"],
  index: ["member", "state", "last_seen", "has_last_error", "wrong"],
} as const;
type ReadMode = keyof typeof WORKERS_READ_FIELDS;
type ReadField<M extends ReadMode> = (typeof WORKERS_READ_FIELDS)[M][number];

/** workers-read-n.lua's `wrong` bit for the state hash (a wrong-typed history only reads as empty). */
const WRONG_STATE = 1;

/** Layouts seen in script replies, by their names joined: built once each. */
const layouts = new Map<string, NamedRows<string>>();

/**
 * The rows of one workers-read-n.lua reply (`{ names, values }`, unpacked), read by the names
 * the script gave; every field `mode` needs must be named, and the values must hold `n` rows.
 */
export function scriptRows<M extends ReadMode>(reply: Packed, mode: M, n: number): { rows: NamedRows<ReadField<M>>; values: Packed[] } {
  const [names, values] = Array.isArray(reply) && reply.length === 2 ? reply : [null, null];
  if (!Array.isArray(names) || !Array.isArray(values)) throw new CorruptDataError("workers-read-n.lua answered something other than { fields, values }");
  const fields = names.map((x) => (Buffer.isBuffer(x) ? x.toString("latin1") : String(x)));
  const id = fields.join(",");
  let rows = layouts.get(id);
  if (!rows) {
    rows = new NamedRows(fields);
    layouts.set(id, rows);
  }
  const missing = WORKERS_READ_FIELDS[mode].filter((f) => !fields.includes(f));
  if (missing.length > 0) throw new CorruptDataError(`workers-read-n.lua (${mode}) did not answer ${missing.join(", ")}`);
  if (values.length !== rows.width * n) throw new CorruptDataError(`workers-read-n.lua answered ${values.length} values, expected ${rows.width * n}`);
  return { rows: rows as NamedRows<string> as NamedRows<ReadField<M>>, values };
}

/** EVAL of workers-read-n.lua up to its keys: the text, the key count, wkrs:<type>. */
function workersReadArgs(type: string, workerKeys: number, keyBytes: number): RespArgs {
  const lua = luaScripts.workersRead.lua;
  return new RespArgs(lua.length + keyBytes + 256)
    .add(lua)
    .add(String(workerKeys + 1))
    .add(keys.workerTypeIndex(type));
}

/** The fixed parts of `wkr:<type>:<id>:<field>` for each field, from the one module that owns key names. */
function workerKeysAround(type: string, fields: readonly WorkerField[]): KeyAround[] {
  return fields.map((f) => keyAround((id) => keys.worker(type, id, f)));
}

/** Bytes one encoded worker key is likely to take (room for the longest field, `$<len>\r\n`, `\r\n` and some UTF-8). */
function keyBytesEstimate(type: string, ids: string[]): number {
  return 48 + 2 * (type.length + (ids[0]?.length ?? 0));
}

/** Positions of `refs` grouped by automation type, in chunks of at most `size`. */
function chunksByType(refs: WorkerRef[], size: number): Array<{ type: string; positions: number[] }> {
  const byType = new Map<string, number[]>();
  refs.forEach((ref, i) => {
    const list = byType.get(ref.automationType);
    if (list) list.push(i);
    else byType.set(ref.automationType, [i]);
  });
  const chunks: Array<{ type: string; positions: number[] }> = [];
  for (const [type, positions] of byType) {
    for (let i = 0; i < positions.length; i += size) chunks.push({ type, positions: positions.slice(i, i + size) });
  }
  return chunks;
}

/** The state hash's fields as workerRecordFromRaw takes them (absent ones, false in the reply, left out). */
function stateHash(state: Packed, lastSeen: Packed, lastError: Packed): Record<string, Buffer> {
  const hash: Record<string, Buffer> = {};
  if (state instanceof Buffer) hash.state = state;
  if (lastSeen instanceof Buffer) hash.last_seen = lastSeen;
  if (lastError instanceof Buffer) hash.last_error = lastError;
  return hash;
}

/**
 * Reads workers per automation type in chunks; results come back in the order given.
 * Each chunk is one MULTI: an MGET of the string keys and one workers-read-n.lua call for
 * the state hash, history length and membership (a snapshot per chunk). Every chunk goes
 * out back to back on the one connection and is decoded as it arrives. A value MGET
 * returned as nil may be a key of another type: only those are looked at again, in one
 * more call per chunk that has any.
 */
export async function readWorkers(ctx: RedisContext, r: Redis, refs: WorkerRef[]): Promise<WorkerRecord[]>;
/** Without `history` (workersRows): no stats:history key is sent or read, and `historyLen` reads 0 (the caller drops it). */
export async function readWorkers(ctx: RedisContext, r: Redis, refs: WorkerRef[], opts: { history: boolean; sizes?: number[] }): Promise<WorkerRecord[]>;
/** `sizes`, when given, gets each worker's bytes read (its values' lengths), in the order of `refs`. */
export async function readWorkers(ctx: RedisContext, r: Redis, refs: WorkerRef[], opts: { history: boolean; sizes?: number[] } = { history: true }): Promise<WorkerRecord[]> {
  const out = new Array<WorkerRecord>(refs.length);
  const mode = opts.history ? "full" : "row";
  const scriptFields: WorkerField[] = opts.history ? ["state", "stats:history"] : ["state"];
  await Promise.all(
    chunksByType(refs, WORKERS_PER_CALL).map(async ({ type, positions }) => {
      const n = positions.length;
      const ids = positions.map((pos) => refs[pos]!.workerId);
      const keyBytes = keyBytesEstimate(type, ids);
      const mget = new RespArgs(STRING_VALUES.width * n * keyBytes);
      const script = workersReadArgs(type, scriptFields.length * n, scriptFields.length * n * keyBytes);
      const stringKeys = workerKeysAround(type, STRING_VALUES.fields);
      const scriptKeys = workerKeysAround(type, scriptFields);
      for (const id of ids) {
        mget.addKeys(id, stringKeys);
        script.addKeys(id, scriptKeys);
      }
      const { strings, reply } = await readChunk(ctx, r, mget, script.add(mode));
      const { rows, values } = scriptRows(reply, mode, n);
      const wrongStrings = await wrongTypeStrings(r, strings, (k) => {
        const { row, field } = STRING_VALUES.locate(k);
        return keys.worker(type, ids[row]!, field);
      });
      for (let i = 0; i < n; i++) {
        const ref = refs[positions[i]!]!;
        if (opts.sizes) opts.sizes[positions[i]!] = rowBytes(strings, rows as NamedRows<string>, values, i);
        const rec = workerRecordFromRaw(ref.automationType, ref.workerId, {
          registered: rows.get(values, i, "member") === 1,
          hardware: STRING_VALUES.get(strings, i, "hardware"),
          config: STRING_VALUES.get(strings, i, "config"),
          gen: STRING_VALUES.get(strings, i, "gen"),
          stats: STRING_VALUES.get(strings, i, "stats"),
          state: stateHash(rows.get(values, i, "state"), rows.get(values, i, "last_seen"), rows.get(values, i, "last_error")),
          historyLen: mode === "full" ? ((rows as NamedRows<ReadField<"full">>).get(values, i, "history") as number) : 0,
        });
        // a key of the wrong type reads as corrupt rather than failing the whole page
        if (wrongStrings !== null) {
          for (const field of STRING_VALUES.fields) if (wrongStrings.has(STRING_VALUES.index(i, field))) markCorrupt(rec, STRING_CORRUPT[field]);
        }
        if ((rows.get(values, i, "wrong") as number) & WRONG_STATE) markCorrupt(rec, "state");
        out[positions[i]!] = rec;
      }
    }),
  );
  return out;
}

/** The bytes of one worker's values in a chunk's replies (what they took in Redis, near enough). */
function rowBytes(strings: Array<Buffer | null>, rows: NamedRows<string>, values: Packed[], i: number): number {
  let n = 0;
  for (const field of STRING_VALUES.fields) n += STRING_VALUES.get(strings, i, field)?.length ?? 0;
  for (const field of ["state", "last_seen", "last_error"]) {
    const v = rows.get(values, i, field);
    if (v instanceof Buffer) n += v.length;
  }
  return n;
}

export async function readWorkersIndex(ctx: RedisContext, r: Redis, refs: WorkerRef[], withHostname: boolean, withLastError = false): Promise<WorkerIndexEntry[]> {
  // the "row" mode reads the same key per worker and answers last_error's text as well
  const mode = withLastError ? "row" : "index";
  const out = new Array<WorkerIndexEntry>(refs.length);
  await Promise.all(
    chunksByType(refs, WORKERS_PER_CALL).map(async ({ type, positions }) => {
      const n = positions.length;
      const ids = positions.map((pos) => refs[pos]!.workerId);
      const keyBytes = keyBytesEstimate(type, ids);
      const mget = withHostname ? new RespArgs(n * keyBytes) : null;
      const script = workersReadArgs(type, n, n * keyBytes);
      const hardwareKey = workerKeysAround(type, HARDWARE_VALUE.fields);
      const stateKey = workerKeysAround(type, ["state"]);
      for (const id of ids) {
        mget?.addKeys(id, hardwareKey);
        script.addKeys(id, stateKey);
      }
      const { strings, reply } = await readChunk(ctx, r, mget, script.add(mode));
      const { rows: named, values } = scriptRows(reply, mode, n);
      const rows = named as NamedRows<string>;
      const wrongStrings = mget ? await wrongTypeStrings(r, strings, (k) => keys.worker(type, ids[HARDWARE_VALUE.locate(k).row]!, "hardware")) : null;
      for (let i = 0; i < n; i++) {
        const ref = refs[positions[i]!]!;
        // Decoded here rather than through workerIndexEntryFromRaw (which builds a whole
        // WorkerRecord per entry): the same rules field by field, contract-tested against
        // workersGet (test/contract-workers.ts), for 10,000 entries on every first page.
        const st = rows.get(values, i, "state");
        const ls = rows.get(values, i, "last_seen");
        // the index needs only whether the hash holds a last_error, not its text (unless asked)
        const le = withLastError ? rows.get(values, i, "last_error") : null;
        const hasState = st instanceof Buffer || ls instanceof Buffer || (withLastError ? le instanceof Buffer : rows.get(values, i, "has_last_error") === 1);
        const corrupt: string[] = [];
        let hostname: string | null = null;
        if (mget) {
          const h = parseObjectField(HARDWARE_VALUE.get(strings, i, "hardware"), "hardware", corrupt)?.hostname;
          if (typeof h === "string") hostname = h;
        }
        let state: WorkerIndexEntry["state"] = null;
        let lastSeen: number | null = null;
        if (hasState) {
          state = st instanceof Buffer ? workerStateFromRaw(st) : null;
          if (state === null) corrupt.push("state");
          lastSeen = ls instanceof Buffer ? lastSeenFromRaw(ls) : null;
          if (lastSeen === null) corrupt.push("last_seen");
        }
        const entry: WorkerIndexEntry = {
          automationType: ref.automationType,
          workerId: ref.workerId,
          registered: rows.get(values, i, "member") === 1,
          state,
          lastSeen,
          hostname,
          corrupt,
        };
        if (withLastError) entry.lastError = le instanceof Buffer && le.length > 0 ? le.toString("utf8") : null;
        if (wrongStrings?.has(HARDWARE_VALUE.index(i, "hardware"))) markCorrupt(entry, "hardware");
        if ((rows.get(values, i, "wrong") as number) & WRONG_STATE) markCorrupt(entry, "state");
        out[positions[i]!] = entry;
      }
    }),
  );
  return out;
}

/**
 * One chunk's MULTI: the MGET (when given), then the workers-read-n.lua call. The script
 * goes as EVAL with its text: Redis caches it by hash, so no NOSCRIPT can ever fail a
 * MULTI, and a few KB per chunk are nothing beside its keys.
 */
async function readChunk(ctx: RedisContext, r: Redis, mget: RespArgs | null, script: RespArgs): Promise<{ strings: Array<Buffer | null>; reply: Packed }> {
  const m = r.multi() as unknown as ChainableCommander & { sendCommand(c: Command): unknown };
  if (mget) m.sendCommand(new EncodedCommand("mget", mget));
  m.sendCommand(new EncodedCommand("eval", script));
  const replies = await ctx.conn.execValues(m);
  const strings = mget ? (replies[0] as Array<Buffer | null>) : [];
  if (strings.length !== (mget?.count ?? 0)) throw new CorruptDataError(`MGET answered ${strings.length} values, expected ${mget?.count ?? 0}`);
  return { strings, reply: unpack(asBuffer(replies[replies.length - 1]) ?? Buffer.alloc(0)) };
}

/** Positions of the nil MGET values whose key (`keyAt`) exists with another type; null when there are none. */
async function wrongTypeStrings(r: Redis, values: Array<Buffer | null>, keyAt: (i: number) => string): Promise<Set<number> | null> {
  const nil: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i] === null) nil.push(i);
  if (nil.length === 0) return null;
  const flags = (await callScript(r, "keysWrongType", nil.map(keyAt), [])) as unknown[];
  const wrong = new Set<number>();
  nil.forEach((pos, j) => {
    if (asNumber(flags[j]) === 1) wrong.add(pos);
  });
  return wrong.size > 0 ? wrong : null;
}
