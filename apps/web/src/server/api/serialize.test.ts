import type { WorkerRecord } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import { jsonForBrowser, parseCatalogDoc, toAutomation, toRawValue, toWorker, workerStatus } from "./serialize";

const record = (over: Partial<WorkerRecord> = {}): WorkerRecord => ({
  automationType: "t",
  workerId: "w",
  registered: true,
  hardware: { hostname: "h" },
  config: {},
  configGen: 0,
  state: "RUNNING",
  lastSeen: 1000,
  lastError: null,
  stats: null,
  historyLen: 0,
  corrupt: [],
  ...over,
});

describe("workerStatus / toWorker", () => {
  it("is the lower-cased state while last_seen is within the threshold", () => {
    expect(workerStatus("RUNNING", 1000, 1060, 60)).toBe("running");
    expect(workerStatus("IDLE", 1000, 1000, 60)).toBe("idle");
    expect(workerStatus("ERROR", 1000, 1030, 60)).toBe("error");
  });

  it("is offline past the threshold or without a readable last_seen", () => {
    expect(workerStatus("RUNNING", 1000, 1060.001, 60)).toBe("offline");
    expect(workerStatus("RUNNING", null, 1000, 60)).toBe("offline");
  });

  it("is error for a live worker whose state is missing or unreadable", () => {
    expect(workerStatus(null, 1000, 1001, 60)).toBe("error");
  });

  it("lists corrupt fields only when there are some", () => {
    expect(toWorker(record(), 1001, 60)).not.toHaveProperty("corrupt");
    expect(toWorker(record({ corrupt: ["config"], config: null }), 1001, 60).corrupt).toEqual(["config"]);
  });
});

describe("toRawValue", () => {
  it("describes JSON, text and binary values", () => {
    expect(toRawValue(Buffer.from('{"a": 1}'))).toEqual({ json: { a: 1 }, text: '{"a": 1}', base64: "eyJhIjogMX0=", bytes: 8, truncated: false });
    expect(toRawValue(Buffer.from("plain"))).toMatchObject({ json: null, text: "plain" });
    expect(toRawValue(Buffer.from([0xff]))).toEqual({ json: null, text: null, base64: "/w==", bytes: 1, truncated: false });
  });

  it("truncates to the preview and never cuts a UTF-8 character in half", () => {
    const value = Buffer.from(`${"a".repeat(9)}€€`); // € is 3 bytes: 9 + 6 = 15 bytes
    const raw = toRawValue(value, 11);
    expect(raw).toMatchObject({ text: "aaaaaaaaa", bytes: 15, truncated: true });
    expect(Buffer.from(raw.base64, "base64").toString()).toBe("aaaaaaaaa");
    expect(toRawValue(value, 12)).toMatchObject({ text: "aaaaaaaaa€", truncated: true });
    // a truncated JSON document is not JSON any more
    expect(toRawValue(Buffer.from('{"a": "long"}'), 5)).toMatchObject({ json: null, text: '{"a":', truncated: true });
  });

  it("still cuts binary data at the preview size", () => {
    const raw = toRawValue(Buffer.alloc(10, 0x80), 4);
    expect(Buffer.from(raw.base64, "base64")).toHaveLength(4);
  });
});

describe("catalog documents", () => {
  it("reads missing schema members as null and flags unreadable documents", () => {
    expect(parseCatalogDoc(Buffer.from('{"config": {"type": "object"}}'))).toEqual({
      doc: { config: { type: "object" }, output: null, task_payload: null },
      corrupt: false,
    });
    expect(parseCatalogDoc(Buffer.from("[]"))).toEqual({ doc: null, corrupt: true });
    expect(parseCatalogDoc(null)).toEqual({ doc: null, corrupt: false });
  });

  it("builds an Automation with counts from the workers' statuses", () => {
    const a = toAutomation({
      automationType: "t",
      catalog: Buffer.from("nope"),
      workers: [{ status: "running" }, { status: "offline" }, { status: "running" }],
      queue: null,
      streamLength: 3,
    });
    expect(a).toEqual({
      automation_type: "t",
      schemas: null,
      workers: { total: 3, running: 2, idle: 0, error: 0, offline: 1 },
      queue: null,
      stream: { length: 3 },
      corrupt: ["schemas"],
    });
  });
});

describe("jsonForBrowser: Python's NaN and Infinity", () => {
  it("turns non-finite numbers into the strings of Python's tokens, deep, copying only what changes", () => {
    const clean = { a: [1, { b: "NaN" }], c: null };
    expect(jsonForBrowser(clean)).toBe(clean);
    const doc = { a: [1, NaN, { b: Infinity }], c: -Infinity, d: { e: 1 } };
    const out = jsonForBrowser(doc);
    expect(out).toEqual({ a: [1, "NaN", { b: "Infinity" }], c: "-Infinity", d: { e: 1 } });
    expect(out.d).toBe(doc.d);
    expect(doc.a[1]).toBeNaN();
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it("shows Python-written values: workers, raw values", () => {
    const w = toWorker(record({ stats: { rate: NaN }, hardware: { t: Infinity }, config: { x: -Infinity } }), 1000, 60);
    expect(w).toMatchObject({ stats: { rate: "NaN" }, hardware: { t: "Infinity" }, config: { x: "-Infinity" } });
    expect(w.corrupt).toBeUndefined();
    const raw = toRawValue(Buffer.from('{"id": "a", "payload": {"v": NaN}}'));
    expect(raw).toMatchObject({ json: { id: "a", payload: { v: "NaN" } }, text: '{"id": "a", "payload": {"v": NaN}}' });
  });
});
