// The cursor that reads a moving part of a queue (./list-cursor.ts), over the memory backend,
// the part moved between every two reads as workers, producers and other actions move it.
import { keys, type QueueScanPart } from "@fleet/backend";
import { createMemoryBackend, type MemoryBackend } from "@fleet/backend/memory";
import { describe, expect, it } from "vitest";

import { advance, newCursor, nextChunk, parseCursor, serializeCursor, type CursorState } from "./list-cursor";

const body = (i: number) => Buffer.from(JSON.stringify({ id: `t${i}` }));
const idOf = (b: Buffer) => (JSON.parse(b.toString("utf8")) as { id: string }).id;

/** Reads the whole part through the cursor, calling `between` after every chunk; the ids examined, in order. */
async function readAll(
  be: MemoryBackend,
  part: QueueScanPart,
  between: (round: number) => void,
  state: CursorState = newCursor(),
  chunk = 100,
): Promise<{ seen: string[]; state: CursorState }> {
  const seen: string[] = [];
  for (let round = 0; round < 10_000; round++) {
    const c = await nextChunk((s, n) => be.queueScan("q", part, s, n), part, state, chunk);
    if (c.entries.length === 0) return { seen, state };
    seen.push(...c.entries.map((e) => idOf(e.body)));
    advance(part, state, c.entries);
    between(round);
  }
  throw new Error("the scan did not end");
}

describe("the cursor of a moving part", () => {
  it("a list popped from its head between reads: every entry left is examined once, none skipped", async () => {
    const be = createMemoryBackend();
    await be.queuePushMany(
      "q",
      Array.from({ length: 3000 }, (_, i) => ({ body: body(i) })),
    );
    const popped: string[] = [];
    const { seen } = await readAll(be, "normal", (round) => {
      // workers take 37 (then more and more) from the head between two reads
      for (let i = 0; i < 37 + round * 5; i++) {
        const b = be.raw.lpop(keys.queue("q"));
        if (b) popped.push(idOf(b));
      }
    });
    expect(new Set(seen).size).toBe(seen.length);
    const all = Array.from({ length: 3000 }, (_, i) => `t${i}`);
    // each entry was examined or popped first (or both: examined, then popped)
    expect(all.filter((id) => !seen.includes(id) && !popped.includes(id))).toEqual([]);
    expect(seen.length + popped.filter((id) => !seen.includes(id)).length).toBe(3000);
  });

  it("what is pushed after the scan began is not read, so a scan ends whatever the producers do", async () => {
    const be = createMemoryBackend();
    await be.queuePushMany(
      "q",
      Array.from({ length: 500 }, (_, i) => ({ body: body(i) })),
    );
    let n = 500;
    const { seen } = await readAll(be, "normal", () => {
      for (let i = 0; i < 200; i++) be.raw.rpush(keys.queue("q"), body(n++));
    });
    expect(seen).toEqual(Array.from({ length: 500 }, (_, i) => `t${i}`));
  });

  it("the entries it last examined removed from the middle: read again from the head, nothing skipped", async () => {
    const be = createMemoryBackend();
    await be.queuePushMany(
      "q",
      Array.from({ length: 1000 }, (_, i) => ({ body: body(i) })),
    );
    let removedOnce = false;
    let n = 1000;
    const removed: string[] = [];
    const state = newCursor();
    const { seen } = await readAll(
      be,
      "normal",
      () => {
        if (removedOnce) return;
        removedOnce = true;
        // another action removes the last 10 entries the scan read (its anchors among them), and a producer pushes
        const list = be.raw.lrange(keys.queue("q"));
        const gone = new Set(list.slice(90, 100).map(idOf));
        removed.push(...gone);
        be.raw.lreplace(
          keys.queue("q"),
          list.filter((b) => !gone.has(idOf(b))),
        );
        be.raw.rpush(keys.queue("q"), body(n++));
      },
      state,
    );
    expect(state.lost).toBe(1);
    const left = Array.from({ length: 1000 }, (_, i) => `t${i}`).filter((id) => !removed.includes(id));
    // every entry still there was examined; the first 90 twice (the part was read again from its head)
    expect(left.filter((id) => !seen.includes(id))).toEqual([]);
    expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual(left.slice(0, 90));
    // the end is known less well once the place was lost: at most as many later ones as went meanwhile
    expect(seen.filter((id) => Number(id.slice(1)) >= 1000).length).toBeLessThanOrEqual(removed.length);
  });

  it("one anchor removed, an older one still there: goes on after the older one (a few read twice), no read from the head", async () => {
    const be = createMemoryBackend();
    await be.queuePushMany(
      "q",
      Array.from({ length: 400 }, (_, i) => ({ body: body(i) })),
    );
    let done = false;
    const state = newCursor();
    const { seen } = await readAll(
      be,
      "normal",
      () => {
        if (done) return;
        done = true;
        // the newest anchor (t99) goes, and two entries before the older ones: they moved toward the head
        const list = be.raw.lrange(keys.queue("q"));
        be.raw.lreplace(
          keys.queue("q"),
          list.filter((b) => !["t99", "t5", "t6"].includes(idOf(b))),
        );
      },
      state,
    );
    expect(state.lost).toBe(0);
    expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
    expect(Array.from({ length: 400 }, (_, i) => `t${i}`).filter((id) => !seen.includes(id))).toEqual([]);
  });

  it("a scan's own removals (a bulk job's takes) and a body whose fate is unknown", async () => {
    const be = createMemoryBackend();
    await be.queuePushMany(
      "q",
      Array.from({ length: 300 }, (_, i) => ({ body: body(i) })),
    );
    const state = newCursor();
    const c = await nextChunk((s, n) => be.queueScan("q", "normal", s, n), "normal", state, 100);
    expect(state.end).toBe(300);
    // the scan took every even one of the first 100; t51 was not found where it was looked for
    const list = be.raw.lrange(keys.queue("q"));
    be.raw.lreplace(
      keys.queue("q"),
      list.filter((_, i) => i >= 100 || i % 2 === 1),
    );
    advance("normal", state, c.entries, new Set(c.entries.filter((e) => e.index % 2 === 0).map((e) => e.index)), 51);
    expect(state.end).toBe(250);
    // the anchors are the odd ones before t51: the next read starts with t51
    const next = await nextChunk((s, n) => be.queueScan("q", "normal", s, n), "normal", state, 100);
    expect(idOf(next.entries[0]!.body)).toBe("t51");
    expect(state.lost).toBe(0);
  });

  it("a cursor kept as text (a job's record) resumes by the anchors' refs alone", async () => {
    const be = createMemoryBackend();
    await be.queuePushMany(
      "q",
      Array.from({ length: 300 }, (_, i) => ({ body: body(i) })),
    );
    const state = newCursor();
    const c = await nextChunk((s, n) => be.queueScan("q", "normal", s, n), "normal", state, 100);
    advance("normal", state, c.entries);
    const text = serializeCursor(state);
    const resumed = parseCursor(text);
    expect(resumed.anchors.every((a) => a.key === undefined && /^[0-9a-f]{40}$/.test(a.ref))).toBe(true);
    for (let i = 0; i < 30; i++) be.raw.lpop(keys.queue("q"));
    const next = await nextChunk((s, n) => be.queueScan("q", "normal", s, n), "normal", resumed, 100);
    expect(idOf(next.entries[0]!.body)).toBe("t100");
    expect(parseCursor("not json")).toEqual(newCursor());
    expect(parseCursor('{"a": [[1, "zz"], ["x", "y"]], "e": "3"}')).toEqual(newCursor());
  });

  it("a sorted set whose lower ranks go (reservations acked) and gain (new ones): each entry there throughout once", async () => {
    const be = createMemoryBackend();
    const raw = be.raw;
    for (let i = 0; i < 1500; i++) {
      raw.zadd(keys.queueProcessing("q"), 1000 + i, `t${i}`);
      raw.hset(keys.queueProcessingBody("q"), { [`t${i}`]: body(i) });
    }
    const acked: string[] = [];
    let n = 1500;
    const { seen } = await readAll(be, "processing", (round) => {
      // the 20 earliest deadlines are acked, 5 reservations with later ones come
      const low = raw.zrange(keys.queueProcessing("q")).slice(0, 20);
      for (const m of low) {
        raw.zrem(keys.queueProcessing("q"), m.member);
        acked.push(m.member.toString("utf8"));
      }
      for (let i = 0; i < 5; i++) {
        raw.zadd(keys.queueProcessing("q"), 5000 + round * 10 + i, `t${n}`);
        raw.hset(keys.queueProcessingBody("q"), { [`t${n}`]: body(n) });
        n++;
      }
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(Array.from({ length: 1500 }, (_, i) => `t${i}`).filter((id) => !seen.includes(id) && !acked.includes(id))).toEqual([]);
  });
});
