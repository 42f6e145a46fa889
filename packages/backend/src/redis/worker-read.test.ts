// The worker reads decode by field name: a reply's values are found through the names it
// gives, so fields added, moved or reordered shift nothing (the script's own field list is
// checked against Redis in redis-backend.test.ts).
import { describe, expect, it } from "vitest";
import { CorruptDataError } from "../errors";
import type { Packed } from "./msgpack";
import { NamedRows, scriptRows, WORKERS_READ_FIELDS } from "./worker-read";

const b = (s: string) => Buffer.from(s);
/** A reply as workers-read-n.lua would pack it with these fields, one row per record. */
function reply(fields: readonly string[], rows: Array<Record<string, Packed>>): Packed {
  return [fields.map(b), rows.flatMap((r) => fields.map((f) => r[f] ?? false))];
}

const worker = { member: 1, state: b("IDLE"), last_seen: b("12.5"), last_error: b("boom"), history: 3, wrong: 0 };
const other = { member: 0, state: false, last_seen: false, last_error: false, history: 0, wrong: 1 };

describe("NamedRows", () => {
  it("finds each field of each row by name, and the row and field of a flat index", () => {
    const rows = new NamedRows(["a", "b", "c"] as const);
    const values = ["a0", "b0", "c0", "a1", "b1", "c1"];
    expect(rows.get(values, 1, "b")).toBe("b1");
    expect(rows.index(1, "c")).toBe(5);
    expect(rows.locate(4)).toEqual({ row: 1, field: "b" });
  });
});

describe("scriptRows", () => {
  it("reads the values by the names the script gives, in any order, extra fields ignored", () => {
    const asIs = scriptRows(reply(WORKERS_READ_FIELDS.full, [worker, other]), "full", 2);
    const moved = ["wrong", "added", "history", "last_error", "member", "state", "also_added", "last_seen"];
    const reordered = scriptRows(reply(moved, [worker, other]), "full", 2);
    for (const { rows, values } of [asIs, reordered]) {
      expect([0, 1].map((i) => rows.get(values, i, "member"))).toEqual([1, 0]);
      expect(rows.get(values, 0, "state")).toEqual(b("IDLE"));
      expect(rows.get(values, 0, "last_seen")).toEqual(b("12.5"));
      expect(rows.get(values, 0, "last_error")).toEqual(b("boom"));
      expect(rows.get(values, 0, "history")).toBe(3);
      expect(rows.get(values, 1, "wrong")).toBe(1);
    }
  });

  it("refuses a reply that lacks a field the mode needs, holds the wrong number of values, or has another shape", () => {
    const lacking = WORKERS_READ_FIELDS.index.filter((f) => f !== "has_last_error");
    expect(() => scriptRows(reply(lacking, [{ member: 1 }]), "index", 1)).toThrow(CorruptDataError);
    expect(() => scriptRows(reply(lacking, [{ member: 1 }]), "index", 1)).toThrow(/has_last_error/);
    expect(() => scriptRows(reply(WORKERS_READ_FIELDS.full, [worker]), "full", 2)).toThrow(/expected 12/);
    expect(() => scriptRows([1, 2, 3], "full", 1)).toThrow(CorruptDataError);
    expect(() => scriptRows(null, "full", 1)).toThrow(CorruptDataError);
  });
});
