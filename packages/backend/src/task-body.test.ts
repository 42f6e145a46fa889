import { describe, expect, it } from "vitest";
import { TASK_ID_CASES } from "../test/task-ids";
import { pyFloatRepr } from "./pyjson";
import { parseTaskEnvelope, pyFloatStr, setTopLevelMembers, taskIdOfBody, withAttemptsReset, withTaskFailure } from "./task-body";

const b = (s: string) => Buffer.from(s, "utf8");

describe("taskIdOfBody: one task-id rule", () => {
  for (const c of TASK_ID_CASES) {
    it(`${c.name} -> ${c.id === null ? "no id" : JSON.stringify(c.id.length > 40 ? `${c.id.slice(0, 40)}...` : c.id)}`, () => {
      expect(taskIdOfBody(c.body)).toBe(c.id);
      const env = parseTaskEnvelope(c.body);
      expect(env?.id ?? null).toBe(c.id);
    });
  }

  it("prints floats as Python's str() does", () => {
    expect([NaN, Infinity, -Infinity, 1, 1e-7, 1e16, -0].map(pyFloatStr)).toEqual(["nan", "inf", "-inf", "1.0", "1e-07", "1e+16", "-0.0"]);
    // a random double written by JSON.stringify reads back as Python's repr of it
    for (let i = 0; i < 2000; i++) {
      const x = (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 40 - 20);
      expect(taskIdOfBody(b(`{"id": ${String(x).includes(".") || /e/.test(String(x)) ? String(x) : `${x}.0`}}`))).toBe(pyFloatRepr(x));
    }
  });

  it("parses the document with Python's NaN and Infinity", () => {
    const env = parseTaskEnvelope(b('{"id": NaN, "payload": {"x": Infinity, "y": [-Infinity, 1.5]}, "attempts": 2}'))!;
    expect(env.id).toBe("nan");
    expect(env.doc).toEqual({ id: NaN, payload: { x: Infinity, y: [-Infinity, 1.5] }, attempts: 2 });
  });
});

describe("lossless body edits", () => {
  it("changes only attempts and last_error, keeping big integers, 1.0, key order and escapes", () => {
    const body = b('{"id": "t", "payload": {"big": 12345678901234567890, "f": 1.0, "2": "b", "1": "a", "s": "\\u00e9 é", "n": NaN}}');
    const out = withTaskFailure(body, 1, "boom ☃")!;
    expect(out.toString()).toBe(
      '{"id": "t", "payload": {"big": 12345678901234567890, "f": 1.0, "2": "b", "1": "a", "s": "\\u00e9 é", "n": NaN}, "attempts": 1, "last_error": "boom \\u2603"}',
    );
    const again = withTaskFailure(out, 2, 'second "try"')!;
    expect(again.toString()).toBe(
      '{"id": "t", "payload": {"big": 12345678901234567890, "f": 1.0, "2": "b", "1": "a", "s": "\\u00e9 é", "n": NaN}, "attempts": 2, "last_error": "second \\"try\\""}',
    );
  });

  it("replaces values in place, whatever the formatting around them", () => {
    const body = b('{\n  "attempts" :3 ,\n  "id":"x",\n  "last_error":null\n}\n');
    expect(withTaskFailure(body, 4, "e")!.toString()).toBe('{\n  "attempts" :4 ,\n  "id":"x",\n  "last_error":"e"\n}\n');
    expect(setTopLevelMembers(b("{ }"), [["a", "1"]])!.toString()).toBe('{ "a": 1}');
    expect(setTopLevelMembers(b('{"a": {"b": [1, 2]}  }'), [["c", "true"]])!.toString()).toBe('{"a": {"b": [1, 2]}, "c": true  }');
    expect(setTopLevelMembers(b('{"a": {"b": [1, 2]}}'), [["a", "null"]])!.toString()).toBe('{"a": null}');
  });

  it("edits the member Python reads when a key is repeated, and only top-level ones", () => {
    const body = b('{"attempts": 1, "payload": {"attempts": 9}, "attempts": 2}');
    expect(withTaskFailure(body, 3, "x")!.toString()).toBe('{"attempts": 1, "payload": {"attempts": 9}, "attempts": 3, "last_error": "x"}');
  });

  it("refuses what is not a JSON object", () => {
    expect(setTopLevelMembers(b("[1]"), [["a", "1"]])).toBeNull();
    expect(setTopLevelMembers(Buffer.from([0xff]), [["a", "1"]])).toBeNull();
    expect(setTopLevelMembers(b('{"a": 1,}'), [["a", "1"]])).toBeNull();
    expect(() => withTaskFailure(b("{}"), -1, "x")).toThrow(RangeError);
  });
});

describe("withAttemptsReset: a requeued dead letter gets its attempts back", () => {
  it("sets attempts to 0 and keeps last_error and every other byte", () => {
    const body = b('{"id": 12345678901234567890, "payload": {"f": 1.0}, "attempts": 5, "last_error": "boom"}');
    expect(withAttemptsReset(body).toString()).toBe('{"id": 12345678901234567890, "payload": {"f": 1.0}, "attempts": 0, "last_error": "boom"}');
  });

  it("leaves a body without attempts, or that is not a JSON object, byte for byte", () => {
    for (const x of [b('{"id": "a", "payload": 1.0}'), b("not json"), Buffer.from([0xff, 0x00]), b('{"payload": {"attempts": 3}}')]) {
      expect(withAttemptsReset(x)).toEqual(x);
    }
  });

  it("keeps them when asked", () => {
    const body = b('{"id": "a", "attempts": 5}');
    expect(withAttemptsReset(body, { keepAttempts: true })).toEqual(body);
  });
});
