import { describe, expect, it } from "vitest";
import { CatalogDocSchema, ConfigGenTextSchema, CounterTextSchema, LockTokenSchema, PoolItemDocSchema, TaskBodySchema, WorkerStateHashSchema } from "./redis";
import { DeadLetterActionBodySchema, ErrorEnvelopeSchema, LimitSchema, SubmitTasksBodySchema } from "./api";

describe("Redis value formats", () => {
  it("parses a state hash as Python writes it and rejects a bad one", () => {
    expect(WorkerStateHashSchema.parse({ state: "RUNNING", last_seen: "1732912345.25", last_error: "" }).state).toBe("RUNNING");
    expect(WorkerStateHashSchema.safeParse({ state: "BUSY", last_seen: "1", last_error: "" }).success).toBe(false);
    expect(WorkerStateHashSchema.safeParse({ state: "IDLE", last_seen: "yesterday", last_error: "" }).success).toBe(false);
    expect(WorkerStateHashSchema.safeParse({ state: "IDLE", last_seen: "1.0" }).success).toBe(false);
  });
  it("parses gens and counters as integers", () => {
    expect(ConfigGenTextSchema.parse("12")).toBe(12);
    expect(ConfigGenTextSchema.safeParse("1.5").success).toBe(false);
    expect(CounterTextSchema.parse("-3")).toBe(-3);
    expect(CounterTextSchema.safeParse("x").success).toBe(false);
  });
  it("parses pool items, task bodies, catalog docs and lock tokens", () => {
    expect(PoolItemDocSchema.parse({ p: "aGk=", t: { region: "eu" }, x: null }).t).toEqual({ region: "eu" });
    expect(PoolItemDocSchema.safeParse({ p: "not base64!", t: {}, x: null }).success).toBe(false);
    expect(TaskBodySchema.parse({ id: "a".repeat(32), payload: { url: "x" }, attempts: 2 }).attempts).toBe(2);
    expect(TaskBodySchema.safeParse({ payload: {} }).success).toBe(false);
    expect(CatalogDocSchema.parse({ config: { type: "object" }, output: null, task_payload: true }).output).toBeNull();
    expect(LockTokenSchema.safeParse("0123456789abcdef0123456789abcdef").success).toBe(true);
    expect(LockTokenSchema.safeParse("short").success).toBe(false);
  });
});

describe("API inputs", () => {
  it("bounds limit to 0..1000", () => {
    expect(LimitSchema.parse("1000")).toBe(1000);
    expect(LimitSchema.safeParse("1001").success).toBe(false);
    expect(LimitSchema.safeParse("-1").success).toBe(false);
    expect(LimitSchema.safeParse("ten").success).toBe(false);
  });
  it("accepts one task or a batch of at most 1000", () => {
    expect(SubmitTasksBodySchema.parse({ payload: { a: 1 } })).toEqual({ payload: { a: 1 }, priority: "normal" });
    const many = { tasks: Array.from({ length: 1001 }, () => ({ payload: {} })) };
    expect(SubmitTasksBodySchema.safeParse(many).success).toBe(false);
    expect(SubmitTasksBodySchema.safeParse({ payload: { a: 1 }, priority: "urgent" }).success).toBe(false);
  });
  it("takes dead-letter refs or all", () => {
    expect(DeadLetterActionBodySchema.safeParse({ refs: ["a".repeat(40)] }).success).toBe(true);
    expect(DeadLetterActionBodySchema.safeParse({ all: true }).success).toBe(true);
    expect(DeadLetterActionBodySchema.safeParse({ all: false }).success).toBe(false);
    expect(DeadLetterActionBodySchema.safeParse({ refs: [] }).success).toBe(false);
  });
  it("has one error envelope", () => {
    const e = { error: { code: "validation_failed", message: "slots is too big", details: [{ path: "/slots", message: "must be <= 64" }] } };
    expect(ErrorEnvelopeSchema.parse(e)).toEqual(e);
    expect(ErrorEnvelopeSchema.safeParse({ error: { code: "oops", message: "" } }).success).toBe(false);
  });
});
