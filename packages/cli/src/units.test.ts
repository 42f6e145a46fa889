// The CLI's pure parts: building a merge patch from --set, splitting an SSE stream, tables
// that no stored value can break, URL and token checks, HTTP status -> exit code.
import { describe, expect, it } from "vitest";

import type { BulkJob } from "@fleet/schema";

import { checkToken, parseBaseUrl } from "./client";
import { jobOutcome, newerJob } from "./commands/bulk";
import { taskIdFilter } from "./commands/search";
import { setPatch } from "./commands/config";
import { sseFrames } from "./commands/tail";
import { EXIT, exitCodeForStatus, UsageError } from "./exit-codes";
import { printable, table } from "./format";

describe("--set KEY=VALUE", () => {
  it("parses JSON values, keeps other text as strings, and nests dotted keys", () => {
    const patch: Record<string, unknown> = {};
    for (const s of ["slots=4", "mode=fast", "flag=true", "proxy.region=eu", "proxy.port=8080", "list=[1,2]", "empty=", 'quoted="4"', "eq=a=b"]) setPatch(patch, s, "config patch");
    expect(patch).toEqual({ slots: 4, mode: "fast", flag: true, proxy: { region: "eu", port: 8080 }, list: [1, 2], empty: "", quoted: "4", eq: "a=b" });
  });

  it("refuses an assignment without a key or an =", () => {
    for (const bad of ["slots", "=4", "a..b=1", ".a=1"]) expect(() => setPatch({}, bad, "config patch"), bad).toThrow(UsageError);
  });
});

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

describe("sseFrames", () => {
  it("splits frames across chunk boundaries, joins multi-line data, drops comments, takes CRLF", async () => {
    const frames = [];
    for await (const f of sseFrames(streamOf([": hello\n\nid: 1\nevent: bus\nda", 'ta: {"a":\ndata: 1}\n\n', "id: 2\r\nevent: workers\r\ndata: {}\r\n\r\n", ": heartbeat\n\n"])))
      frames.push(f);
    expect(frames).toEqual([
      { id: "1", event: "bus", data: '{"a":\n1}' },
      { id: "2", event: "workers", data: "{}" },
    ]);
  });
});

describe("table", () => {
  it("aligns columns, right-aligns numbers and cuts long cells", () => {
    const out = table(
      [
        { n: "a", v: 1, t: "short" },
        { n: "longer", v: 1234, t: "x".repeat(30) },
      ],
      [
        { header: "NAME", value: (r) => r.n },
        { header: "N", value: (r) => String(r.v), align: "right" },
        { header: "TEXT", value: (r) => r.t, max: 10 },
      ],
    );
    expect(out.split("\n")).toEqual(["NAME       N  TEXT", "a          1  short", "longer  1234  xxxxxxxxx…"]);
  });

  it("shows control characters of stored values as escapes, never raw", () => {
    expect(printable("a\nb\tc\u001b[31mred\u0007")).toBe("a\\nb\\tc\\u001b[31mred\\u0007");
  });
});

describe("FLEET_URL and FLEET_TOKEN", () => {
  it("takes a console URL with or without /api/v1 and refuses what is not one", () => {
    expect(parseBaseUrl("http://console:3000/api/v1/").href).toBe("http://console:3000/");
    expect(parseBaseUrl("https://ops.example/fleet/").pathname).toBe("/fleet");
    expect(() => parseBaseUrl("console:3000")).toThrow(/http:\/\/ or https:\/\//);
    expect(() => parseBaseUrl("not a url")).toThrow(/not a URL/);
    expect(() => parseBaseUrl("http://u:pw@console")).toThrow(/must not carry credentials/);
  });

  it("trims a token, treats an empty one as none, and refuses one a header cannot carry without showing it", () => {
    expect(checkToken("  abc.DEF-123\n")).toBe("abc.DEF-123");
    expect(checkToken("   ")).toBeUndefined();
    expect(checkToken(undefined)).toBeUndefined();
    try {
      checkToken("sec ret-token");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).not.toContain("sec ret");
    }
  });
});

describe("exit codes", () => {
  it("map HTTP statuses to what a script acts on", () => {
    expect([400, 401, 403, 404, 409, 412, 413, 415, 421, 422, 429, 500, 502, 503].map(exitCodeForStatus)).toEqual([
      EXIT.ERROR,
      EXIT.UNAUTHORIZED,
      EXIT.UNAUTHORIZED,
      EXIT.NOT_FOUND,
      EXIT.CONFLICT,
      EXIT.CONFLICT,
      EXIT.ERROR,
      EXIT.ERROR,
      EXIT.ERROR,
      EXIT.ERROR,
      EXIT.UNAVAILABLE,
      EXIT.ERROR,
      EXIT.UNAVAILABLE,
      EXIT.UNAVAILABLE,
    ]);
    expect(EXIT).toEqual({ OK: 0, ERROR: 1, USAGE: 2, NOT_FOUND: 3, CONFLICT: 4, UNAUTHORIZED: 5, UNAVAILABLE: 6 });
  });
});

describe("bulk jobs", () => {
  const job: BulkJob = {
    id: "j",
    queue: "q",
    action: "requeue-dead",
    q: null,
    where: "attempts >= 3",
    rate: 200,
    expected: 12,
    created_at: 1,
    created_by: "vera",
    role: "operator",
    state: "done",
    scanned: 40,
    done: 12,
    missing: 0,
    note: "",
  };
  it("ends with the exit code a script acts on: done 0, matches gone 3, cancelled 4, failed 1", () => {
    expect(jobOutcome(job)).toEqual({ text: "requeued 12 dead letters of queue q (12 at the preview), 40 read: done", code: EXIT.OK });
    expect(jobOutcome({ ...job, done: 10, missing: 2 })).toEqual({
      text: "requeued 10 dead letters of queue q (12 at the preview; 2 gone before they could be requeued), 40 read: done",
      code: EXIT.NOT_FOUND,
    });
    expect(jobOutcome({ ...job, state: "cancelled", done: 3, note: "cancelled by ada" }).code).toBe(EXIT.CONFLICT);
    expect(jobOutcome({ ...job, state: "failed", note: "the job's record does not parse" }).code).toBe(EXIT.ERROR);
  });
  it("never goes back to an older reading of a job", () => {
    const running = { ...job, state: "running" as const, done: 5, scanned: 20 };
    expect(newerJob(job, running)).toBe(job);
    expect(newerJob(running, { ...running, done: 4, scanned: 10 })).toBe(running);
    expect(newerJob(running, job)).toBe(job);
  });
  it("a task id is its text or the number it reads as", () => {
    expect(taskIdFilter("abc")).toBe('id = "abc"');
    expect(taskIdFilter("42")).toBe('(id = "42" or id = 42)');
    expect(taskIdFilter('a"b')).toBe('id = "a\\"b"');
  });
});
