import { describe, expect, it } from "vitest";
import type { RawValue } from "@fleet/schema";

import { deadLetterFacts, parseWhen } from "./dead-letter-facts";

const raw = (json: unknown): RawValue => {
  const text = JSON.stringify(json);
  return { json, text, base64: Buffer.from(text).toString("base64"), bytes: text.length, truncated: false } as RawValue;
};

describe("deadLetterFacts", () => {
  it("reads Fleet's attempts and last_error, and nothing it does not say", () => {
    expect(deadLetterFacts(raw({ id: "x", payload: {}, attempts: 3, last_error: "HTTP 503" }))).toEqual({
      error: "HTTP 503",
      attempts: 3,
      failedAt: null,
      failedAtField: null,
      worker: null,
      workerField: null,
    });
  });
  it("reads when and where it failed when the body says so", () => {
    const f = deadLetterFacts(raw({ id: "x", attempts: 5, last_error: "boom", failed_at: 1700000000.5, last_worker: "scrape-eu-01" }));
    expect(f).toMatchObject({ failedAt: 1700000000.5, failedAtField: "failed_at", worker: "scrape-eu-01", workerField: "last_worker" });
    expect(deadLetterFacts(raw({ dead_at: "2024-01-02T03:04:05Z", worker_id: "w9" }))).toMatchObject({ failedAt: 1704164645, worker: "w9" });
  });
  it("ignores what does not parse, and bodies that are not JSON objects", () => {
    expect(deadLetterFacts(raw({ failed_at: "soon", attempts: "many", worker: "" }))).toMatchObject({ failedAt: null, attempts: null, worker: null });
    expect(deadLetterFacts(raw([1, 2]))).toMatchObject({ error: null, attempts: null });
    expect(deadLetterFacts(null).error).toBeNull();
  });
  it("takes large numbers as milliseconds", () => {
    expect(parseWhen("1700000000000")).toBe(1700000000);
    expect(parseWhen("0")).toBeNull();
  });
});
