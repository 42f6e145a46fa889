import type { Backend } from "@fleet/backend";
import type { MemoryBackend } from "@fleet/backend/memory";
import type { RawValue } from "@fleet/schema";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as poolItem from "@/app/api/v1/pools/[name]/items/[id]/route";
import * as queue from "@/app/api/v1/queues/[name]/route";
import * as dead from "@/app/api/v1/queues/[name]/dead/route";
import * as stream from "@/app/api/v1/streams/[name]/route";
import { toRawValue } from "@/server/api/serialize";
import { switchBackendUrl } from "@/server/api/test/harness";
import { closeBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";

import {
  base64ByteLength,
  base64IsPrefix,
  base64ToBlob,
  cutJsonField,
  deadLetterLoader,
  downloadName,
  findSameValue,
  kvValueLoader,
  listLimitFor,
  poolPayloadLoader,
  previewBytesFor,
  queueItemLoader,
  sameValue,
  streamEntryLoader,
  ValueGoneError,
} from "./full-value";

const raw = (s: string | Buffer, preview?: number) => toRawValue(Buffer.isBuffer(s) ? s : Buffer.from(s), preview);
const b64 = (s: string | Buffer) => (Buffer.isBuffer(s) ? s : Buffer.from(s)).toString("base64");

describe("matching a preview to a full value", () => {
  it("counts the bytes of base64 text", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 6, 100]) expect(base64ByteLength(b64(Buffer.alloc(n, 7)))).toBe(n);
  });

  it("tells a byte prefix from base64 text, whatever the length mod 3", () => {
    const full = Buffer.from("The quick brown fox jumps over the lazy dog");
    for (let n = 0; n <= full.length; n++) {
      expect(base64IsPrefix(b64(full.subarray(0, n)), b64(full)), `prefix of ${n}`).toBe(true);
      if (n > 0) {
        const other = Buffer.from(full.subarray(0, n));
        other[n - 1] = other[n - 1]! ^ 1; // the last byte differs: sits in a padded group for n % 3 != 0
        expect(base64IsPrefix(b64(other), b64(full)), `changed last byte of ${n}`).toBe(false);
      }
    }
    expect(base64IsPrefix(b64("abcd"), b64("abc"))).toBe(false);
  });

  it("sameValue: same length and one begins the other, in either order", () => {
    const text = `${"x".repeat(5000)}END`;
    const preview = raw(text);
    const whole = raw(text, 10_000);
    expect(preview.truncated).toBe(true);
    expect(sameValue(preview, whole)).toBe(true);
    expect(sameValue(whole, preview)).toBe(true);
    // same start, other length: another value
    expect(sameValue(preview, raw(`${"x".repeat(5000)}END!`, 10_000))).toBe(false);
    // same length, other start
    expect(sameValue(preview, raw(`y${"x".repeat(4999)}END`, 10_000))).toBe(false);
    // same start within the preview, other end: cannot be told apart from the preview alone
    expect(sameValue(preview, raw(`${"x".repeat(5000)}FIN`, 10_000))).toBe(true);
    expect(sameValue(raw(Buffer.from([0xff, 0xfe, 1, 2]), 2), raw(Buffer.from([0xff, 0xfe, 1, 2])))).toBe(true);
  });

  it("findSameValue searches outward from where the row was and honours `also`", () => {
    const vals = ["a1", "b2", "a1", "c3", "a1"].map((s) => ({ s, v: raw(s) }));
    const of = (x: { v: RawValue }) => x.v;
    expect(findSameValue(vals, of, raw("a1"), 3)).toBe(vals[2]);
    expect(findSameValue(vals, of, raw("a1"), 4)).toBe(vals[4]);
    expect(findSameValue(vals, of, raw("a1"), 1)).toBe(vals[0]);
    expect(findSameValue(vals, of, raw("a1"), 0)).toBe(vals[0]);
    expect(findSameValue(vals, of, raw("c3"), 0)).toBe(vals[3]);
    expect(findSameValue(vals, of, raw("a1"), 3, (x) => x !== vals[2] && x !== vals[4])).toBe(vals[0]);
    expect(findSameValue(vals, of, raw("zz"), 2)).toBeNull();
    expect(findSameValue([], of, raw("a1"), 5)).toBeNull();
    expect(findSameValue(vals, of, raw("c3"), 99)).toBe(vals[3]);
    expect(findSameValue([{ v: null }], (x) => x.v, raw("a1"))).toBeNull();
  });

  it("sizes preview_bytes and list limits within the API's bounds", () => {
    expect(previewBytesFor(100_000, 8 << 20)).toBe(100_000);
    expect(previewBytesFor(30 << 20, 8 << 20)).toBe(8 << 20);
    expect(previewBytesFor(30 << 20, 64 << 20)).toBe(16 << 20);
    expect(previewBytesFor(0, 8 << 20)).toBe(1);
    expect(listLimitFor(0)).toBe(17);
    expect(listLimitFor(990)).toBe(1000);
  });
});

describe("download helpers", () => {
  it("decodes base64 into a Blob of the right bytes, across slices", async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 5);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const blob = base64ToBlob(bytes.toString("base64"));
    expect(blob.type).toBe("application/octet-stream");
    expect(blob.size).toBe(bytes.length);
    expect(Buffer.from(await blob.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("names files safely, with the kind's extension and a partial marker", () => {
    expect(downloadName("kv-cfg-big", "json")).toBe("kv-cfg-big.json");
    expect(downloadName("payload of a/b:c", "text")).toBe("payload-of-a-b-c.txt");
    expect(downloadName("../../etc/passwd", "binary")).toBe("etc-passwd.bin");
    expect(downloadName("", "json")).toBe("value.json");
    expect(downloadName("body", "json", 16777216)).toBe("body-first-16777216-bytes.json");
    expect(downloadName("x".repeat(300), "text").length).toBe(84);
  });
});

// The loaders against the real route handlers (in-memory backend): fetch is answered by them.
describe("loaders", () => {
  let backend: Backend;
  let n = 0;
  const routes: Array<[RegExp, (r: Request) => Promise<Response>]> = [
    [/^\/api\/v1\/kv\/[^/]+\/[^/]+$/, kvKey.GET],
    [/^\/api\/v1\/pools\/[^/]+\/items\/[^/]+$/, poolItem.GET],
    [/^\/api\/v1\/queues\/[^/]+\/dead$/, dead.GET],
    [/^\/api\/v1\/queues\/[^/]+$/, queue.GET],
    [/^\/api\/v1\/streams\/[^/]+$/, stream.GET],
  ];
  const asked: string[] = [];

  beforeAll(() => {
    process.env.FLEET_INSECURE_NO_AUTH = "1";
    vi.stubGlobal("fetch", async (input: string, init?: RequestInit) => {
      const url = new URL(input, "http://127.0.0.1:3000");
      asked.push(`${url.pathname}${url.search}`);
      const hit = routes.find(([re]) => re.test(url.pathname));
      if (!hit) throw new Error(`no route for ${url.pathname}`);
      return hit[1](new Request(url, { method: init?.method ?? "GET", headers: init?.headers }));
    });
  });
  beforeEach(async () => {
    n += 1;
    backend = await switchBackendUrl(`memory://full-value-${process.pid}-${n}`);
    asked.length = 0;
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await closeBackend();
    delete process.env.FLEET_BACKEND_URL;
    delete process.env.FLEET_INSECURE_NO_AUTH;
    resetServerEnv();
  });

  const big = (tag: string, size = 50_000) => `{"tag": "${tag}", "fill": "${"x".repeat(size)}", "end": "END-${tag}"}`;

  it("kv: the whole value, capped; a changed or deleted key says so", async () => {
    await backend.kvSet("cfg", "k", big("kv"), null);
    const preview = raw(big("kv"));
    const whole = await kvValueLoader("cfg", "k", preview)(8 << 20);
    expect(whole).toMatchObject({ truncated: false, text: big("kv") });
    expect(asked.at(-1)).toBe(`/api/v1/kv/cfg/k?preview_bytes=${preview.bytes}`);
    const capped = await kvValueLoader("cfg", "k", preview)(10_000);
    expect(capped).toMatchObject({ truncated: true, bytes: preview.bytes });
    expect(base64ByteLength(capped.base64)).toBe(10_000);
    await backend.kvSet("cfg", "k", big("kv2"), null);
    await expect(kvValueLoader("cfg", "k", preview)(8 << 20)).rejects.toThrow(/changed since/);
    await backend.kvDel("cfg", "k");
    await expect(kvValueLoader("cfg", "k", preview)(8 << 20)).rejects.toBeInstanceOf(ValueGoneError);
  });

  it("pool: one item's payload; a removed or replaced item says so", async () => {
    await backend.poolPut("proxies", "p/1", big("pool"), {});
    const preview = raw(big("pool"));
    expect(await poolPayloadLoader("proxies", "p/1", preview)(8 << 20)).toMatchObject({ text: big("pool"), truncated: false });
    expect(asked.at(-1)).toMatch(/^\/api\/v1\/pools\/proxies\/items\/p%2F1\?preview_bytes=/);
    await backend.poolPut("proxies", "p/1", big("other"), {});
    await expect(poolPayloadLoader("proxies", "p/1", preview)(8 << 20)).rejects.toThrow(/changed since/);
    await backend.poolRemove("proxies", "p/1");
    await expect(poolPayloadLoader("proxies", "p/1", preview)(8 << 20)).rejects.toThrow(/no longer in the pool/);
  });

  it("dead letters: read at the index, checked by ref", async () => {
    await backend.queueDead("jobs", '{"id": "small"}');
    await backend.queueDead("jobs", big("dead"));
    const page = await dead.GET(new Request("http://127.0.0.1:3000/api/v1/queues/jobs/dead"));
    const row = ((await page.json()) as { items: Array<{ ref: string; index: number; body: RawValue }> }).items[1]!;
    expect(await deadLetterLoader("jobs", row.index, row.ref, row.body)(8 << 20)).toMatchObject({ text: big("dead"), truncated: false });
    expect(asked.at(-1)).toBe(`/api/v1/queues/jobs/dead?offset=1&limit=1&preview_bytes=${row.body.bytes}`);
    await backend.dlqDelete("jobs", { all: true });
    await backend.queueDead("jobs", big("dead"));
    // the same letter now sits at index 0: index 1 holds nothing
    await expect(deadLetterLoader("jobs", row.index, row.ref, row.body)(8 << 20)).rejects.toThrow("This dead letter has moved");
    await backend.queueDead("jobs", big("dead2"));
    // index 1 holds another letter of the same size
    await expect(deadLetterLoader("jobs", 1, row.ref, row.body)(8 << 20)).rejects.toThrow("This dead letter has moved");
  });

  it("queue items: found again after the list moved; gone when taken", async () => {
    for (let i = 0; i < 3; i++) await backend.queuePush("jobs", `{"id": "t${i}"}`);
    await backend.queuePush("jobs", big("pending"));
    const preview = raw(big("pending"));
    // a high-priority task arrives ahead of it: position 3 becomes 4
    await backend.queuePush("jobs", '{"id": "urgent"}', { priority: "high" });
    const whole = await queueItemLoader("jobs", 3, { section: "pending", priority: "normal" }, preview)(8 << 20);
    expect(whole).toMatchObject({ text: big("pending"), truncated: false });
    expect(asked.at(-1)).toBe(`/api/v1/queues/jobs?limit=20&preview_bytes=${preview.bytes}`);
    // the wrong priority does not match
    await expect(queueItemLoader("jobs", 3, { section: "pending", priority: "low" }, preview)(8 << 20)).rejects.toThrow(/gone from where it was/);

    const mem = (backend as MemoryBackend).raw;
    const now = Date.now() / 1000;
    mem.zadd("fleet:queue:jobs:processing", now + 600, "p1");
    mem.hset("fleet:queue:jobs:processing:body", { p1: big("processing") });
    mem.zadd("fleet:queue:jobs:scheduled", now + 60, big("scheduled"));
    const proc = await queueItemLoader("jobs", 0, { section: "processing", id: "p1" }, raw(big("processing")))(8 << 20);
    expect(proc.text).toBe(big("processing"));
    await expect(queueItemLoader("jobs", 0, { section: "processing", id: "p2" }, raw(big("processing")))(8 << 20)).rejects.toBeInstanceOf(ValueGoneError);
    const sched = await queueItemLoader("jobs", 0, { section: "scheduled", readyAt: now + 60 }, raw(big("scheduled")))(8 << 20);
    expect(sched.text).toBe(big("scheduled"));

    // every pending task taken by workers: the big one is gone
    for (let i = 0; i < 5; i++) await backend.queueReserve("jobs", 0, 60);
    await expect(queueItemLoader("jobs", 3, { section: "pending", priority: "normal" }, preview)(8 << 20)).rejects.toThrow(/gone from where it was/);
  });

  it("stream entries: matched by score and bytes", async () => {
    const now = Math.floor(Date.now() / 1000);
    await backend.streamPush("s", big("old"), { score: now - 10, maxLen: 100, ttlSeconds: 3600 });
    await backend.streamPush("s", big("new"), { score: now, maxLen: 100, ttlSeconds: 3600 });
    const preview = raw(big("old"));
    // newest first: the old entry is at position 1
    expect(await streamEntryLoader("s", "newest", 1, now - 10, preview)(8 << 20)).toMatchObject({ text: big("old") });
    expect(asked.at(-1)).toBe(`/api/v1/streams/s?limit=18&order=newest&preview_bytes=${preview.bytes}`);
    await expect(streamEntryLoader("s", "newest", 1, now - 11, preview)(8 << 20)).rejects.toThrow(/gone from the stream/);
    await backend.streamPop("s", 2);
    await expect(streamEntryLoader("s", "newest", 1, now - 10, preview)(8 << 20)).rejects.toBeInstanceOf(ValueGoneError);
  });
});

describe("cutJsonField", () => {
  const body = '{"id": "t1", "attempts": 3, "meta": {"last_error": "nested"}, "last_error": "HTTP \\"502\\"", "ok": true, "n": null, "payload": {"blob": "xxxx';
  it("reads top-level scalars of a cut document, never nested ones", () => {
    expect(cutJsonField(body, "id")).toBe("t1");
    expect(cutJsonField(body, "attempts")).toBe(3);
    expect(cutJsonField(body, "last_error")).toBe('HTTP "502"');
    expect(cutJsonField(body, "ok")).toBe(true);
    expect(cutJsonField(body, "n")).toBeNull();
    expect(cutJsonField(body, "payload")).toBeUndefined();
    expect(cutJsonField(body, "blob")).toBeUndefined();
    expect(cutJsonField(body, "missing")).toBeUndefined();
    expect(cutJsonField('{"meta": {"last_error": "nested"}}', "last_error")).toBeUndefined();
  });

  it("gives up on what the cut took away or on text that is not an object", () => {
    expect(cutJsonField('{"id": "t1", "last_error": "HTTP 5', "last_error")).toBeUndefined();
    expect(cutJsonField('{"id": "t1", "attempts": 1', "attempts")).toBeUndefined();
    expect(cutJsonField('["last_error", "x"]', "last_error")).toBeUndefined();
    expect(cutJsonField("plain text", "id")).toBeUndefined();
    expect(cutJsonField('  {"id":"x","v":[1,{"id":"inner"}],"w":2', "w")).toBeUndefined();
    expect(cutJsonField('  {"id":"x","v":[1,{"id":"inner"}],"w":2,', "w")).toBe(2);
  });
});
