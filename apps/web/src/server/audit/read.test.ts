// decodeAuditEntry reads one stored entry as AuditItemSchema says; a filtered read of the audit
// trail reads the (capped) list in chunks, never in one LRANGE of all of it (issue 11: an entry
// can be large), and so does an unfiltered page of many entries; an entry pushed while either
// reads shows no older entry twice.
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { AuditItemSchema, AuditQuerySchema } from "@fleet/schema";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { AUDIT_CHUNK_BYTES, AUDIT_FIRST_CHUNK, AUDIT_READ_CHUNK, decodeAuditEntry, readAudit } from "./read";

const entry = (o: unknown) => decodeAuditEntry(Buffer.from(JSON.stringify(o)));
const good = { ts: 1, actor: "ada", role: "admin", via: "session", action: "worker.delete", target: "worker:a/1", method: "DELETE", path: "/api/v1/workers/a/1", status: 200 };

describe("decodeAuditEntry", () => {
  it("reads an entry as AuditItemSchema says, keeping members it does not know", () => {
    const item = entry({ ...good, outcome: "done", id: "x" });
    expect(AuditItemSchema.parse(item)).toEqual({ ...good, outcome: "done", id: "x" });
    expect(item.corrupt).toBeUndefined();
  });

  it("names what does not fit (an unknown outcome, a field of the wrong type) and still answers the schema", () => {
    const item = entry({ ...good, outcome: "maybe", actor: 7, details: [1] });
    expect(item.corrupt).toEqual(["actor", "details", "outcome"]);
    expect(item.outcome).toBeUndefined();
    expect(item.actor).toBeNull();
    expect(AuditItemSchema.safeParse(item).success).toBe(true);
  });

  it("reads an entry holding Python's NaN / Infinity tokens (a change of a Python worker's config) and shows them as the API shows them", () => {
    const item = decodeAuditEntry(pyJsonBytes({ ...good, id: "x", before: { limit: NaN }, after: { limit: Infinity, xs: [-Infinity] }, details: { note: NaN }, changes_total: 1 }));
    expect(item.corrupt).toBeUndefined();
    expect(item).toMatchObject({ before: { limit: "NaN" }, after: { limit: "Infinity", xs: ["-Infinity"] }, details: { note: "NaN" }, changes_total: 1 });
    expect(AuditItemSchema.safeParse(item).success).toBe(true);
    // a non-finite time, status or count is none
    const odd = decodeAuditEntry(pyJsonBytes({ ...good, ts: NaN, status: Infinity, changes_total: NaN }));
    expect(odd.corrupt).toEqual(["ts", "status", "changes_total"]);
    expect(odd).toMatchObject({ ts: null, status: null });
    expect(AuditItemSchema.safeParse(odd).success).toBe(true);
  });

  it("shows an entry that is no JSON object as its text", () => {
    const item = decodeAuditEntry(Buffer.from("[1, 2]"));
    expect(item).toMatchObject({ raw: "[1, 2]", corrupt: ["entry"], actor: null });
    expect(AuditItemSchema.safeParse(item).success).toBe(true);
  });
});

/** `n` entries of ~100 KiB (a fleet write's changes can take that much) by "ada", targets "big 0".. */
async function appendBig(backend: Backend, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const big = { id: `big${i}`, ts: 1_800_000_000 + i, actor: "ada", role: "admin", via: "token", action: "workers.bulk.config", target: `big ${i}` };
    await backend.auditAppend(pyJsonBytes({ ...big, details: { pad: "x".repeat(100 * 1024) } }), 10_000);
  }
}

const item = (i: number, actor: string) => pyJsonBytes({ id: `e${i}`, ts: 1_700_000_000 + i, actor, role: "admin", via: "token", action: "pool.delete", target: `pool ${i}` });

describe("readAudit reads the trail in chunks", () => {
  let backend: Backend;
  let ranges: Array<[number, number]>;
  let onRange: (() => Promise<void>) | null;

  beforeEach(async () => {
    const inner = createMemoryBackend();
    ranges = [];
    onRange = null;
    backend = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === "auditRange") {
          return async (offset: number, limit: number) => {
            ranges.push([offset, limit]);
            const got = await target.auditRange(offset, limit);
            if (onRange) await onRange();
            return got;
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    // 1,300 entries, oldest first, every third by "ada"
    for (let i = 0; i < 1300; i++) await backend.auditAppend(item(i, i % 3 === 0 ? "ada" : "bob"), 10_000);
  });
  afterEach(async () => {
    await backend.close();
  });

  it(`reads the trail in chunks, ${AUDIT_READ_CHUNK} small entries at a time after the first, and finds every match`, async () => {
    const res = await readAudit(backend, AuditQuerySchema.parse({ actor: "ada", limit: 1000 }));
    expect(res.total).toBe(Math.ceil(1300 / 3));
    expect(res.items.every((i) => i.actor === "ada")).toBe(true);
    expect(ranges).toEqual([
      [0, AUDIT_FIRST_CHUNK],
      [AUDIT_FIRST_CHUNK, AUDIT_READ_CHUNK],
      [AUDIT_FIRST_CHUNK + AUDIT_READ_CHUNK, AUDIT_READ_CHUNK],
      [AUDIT_FIRST_CHUNK + 2 * AUDIT_READ_CHUNK, AUDIT_READ_CHUNK],
    ]);
  });

  it("asks for fewer large entries at a time: each LRANGE after the first answers about AUDIT_CHUNK_BYTES", async () => {
    // 300 entries of ~100 KiB (a fleet write's changes can take that much) on top of the small ones
    await appendBig(backend, 300);
    const res = await readAudit(backend, AuditQuerySchema.parse({ actor: "ada", limit: 1000 }));
    expect(res.total).toBe(Math.ceil(1300 / 3) + 300);
    const fits = Math.floor(AUDIT_CHUNK_BYTES / (100 * 1024 + 200));
    expect(ranges[1]![1]).toBeGreaterThanOrEqual(fits - 1);
    expect(ranges[1]![1]).toBeLessThanOrEqual(fits);
    // back to 500 a time once the entries are small again, and nothing skipped between chunks
    expect(ranges.at(-1)![1]).toBe(AUDIT_READ_CHUNK);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![0] + ranges[i - 1]![1]);
  });

  it("an unfiltered page of the usual size is one LRANGE", async () => {
    const res = await readAudit(backend, AuditQuerySchema.parse({ limit: 50, offset: 20 }));
    expect(ranges).toEqual([[20, 50]]);
    expect(res.total).toBe(1300);
    expect(res.items.map((i) => i.target)).toEqual(Array.from({ length: 50 }, (_, k) => `pool ${1300 - 21 - k}`));
  });

  it("an unfiltered page of 1,000 is read in chunks and holds the same entries as one LRANGE would", async () => {
    const whole = (await backend.auditRange(150, 1000)).items.map((b) => decodeAuditEntry(b).target);
    ranges.length = 0;
    const res = await readAudit(backend, AuditQuerySchema.parse({ limit: 1000, offset: 150 }));
    expect(ranges).toEqual([
      [150, AUDIT_FIRST_CHUNK],
      [150 + AUDIT_FIRST_CHUNK, AUDIT_READ_CHUNK],
      [150 + AUDIT_FIRST_CHUNK + AUDIT_READ_CHUNK, 1000 - AUDIT_FIRST_CHUNK - AUDIT_READ_CHUNK],
    ]);
    expect(res.total).toBe(1300);
    expect(res.items.map((i) => i.target)).toEqual(whole);
    // the end of the trail ends the page early
    ranges.length = 0;
    const tail = await readAudit(backend, AuditQuerySchema.parse({ limit: 1000, offset: 1000 }));
    expect(tail.items).toHaveLength(300);
    expect(tail.items.at(-1)!.target).toBe("pool 0");
  });

  it("an unfiltered page of large entries asks for about AUDIT_CHUNK_BYTES per LRANGE after the first", async () => {
    await appendBig(backend, 300);
    ranges.length = 0;
    const res = await readAudit(backend, AuditQuerySchema.parse({ limit: 1000 }));
    expect(res.items).toHaveLength(1000);
    expect(res.items[0]!.target).toBe("big 299");
    const fits = Math.floor(AUDIT_CHUNK_BYTES / (100 * 1024 + 200));
    expect(ranges[0]).toEqual([0, AUDIT_FIRST_CHUNK]);
    for (const [, size] of ranges.slice(1, 3)) expect(size).toBeLessThanOrEqual(fits);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![0] + ranges[i - 1]![1]);
  });

  it("an entry pushed between two chunks of an unfiltered page shows no entry twice, and the page stays full", async () => {
    let pushed = 0;
    onRange = async () => {
      if (pushed < 3) await backend.auditAppend(item(5000 + pushed++, "carol"), 10_000);
    };
    const res = await readAudit(backend, AuditQuerySchema.parse({ limit: 1000 }));
    const targets = res.items.map((i) => i.target);
    expect(new Set(targets).size).toBe(targets.length);
    expect(targets).toHaveLength(1000);
  });

  it("an entry pushed between two chunks shifts the older ones down, and none is listed twice", async () => {
    let pushed = 0;
    onRange = async () => {
      if (pushed < 3) await backend.auditAppend(item(5000 + pushed++, "carol"), 10_000);
    };
    const res = await readAudit(backend, AuditQuerySchema.parse({ actor: "ada", limit: 1000 }));
    const targets = res.items.map((i) => i.target);
    expect(new Set(targets).size).toBe(targets.length);
    expect(res.total).toBe(Math.ceil(1300 / 3));
  });
});
