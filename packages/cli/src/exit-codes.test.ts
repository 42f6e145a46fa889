import { describe, expect, it } from "vitest";
import { EXIT, exitCodeForStatus } from "./exit-codes";

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
