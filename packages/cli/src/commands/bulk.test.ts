// bulk jobs in a terminal: the exit code a job's end gives, and never an older reading of it.
import type { BulkJob } from "@fleet/schema";
import { describe, expect, it } from "vitest";

import { EXIT } from "../exit-codes";
import { jobOutcome, newerJob } from "./bulk";

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
});
