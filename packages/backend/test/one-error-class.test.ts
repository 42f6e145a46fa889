// A bundle may load src/errors.ts more than once (a Next production build compiles it into the
// instrumentation's chunk graph and the route handlers'); an error made by one copy must still
// be `instanceof` the classes the other copy exports, or a down Redis answers 500, not 503.
import { describe, expect, it } from "vitest";

import * as errors from "../src/errors";

describe("the backend's error classes", () => {
  it("are one set per process, however many copies of the module load", async () => {
    // a query string makes vite load and run the module again, as a second chunk would
    const second = "../src/errors?second-copy"; // not a literal: tsc would look for such a file
    const copy = (await import(/* @vite-ignore */ second)) as typeof errors;
    expect(copy).not.toBe(errors);
    const own = { ...errors };
    const theirs = { ...copy };
    for (const name of [
      "FleetBackendError",
      "BackendUnavailableError",
      "ClusterNotSupportedError",
      "UnsupportedBackendUrlError",
      "StaleGenerationError",
      "NotFoundError",
      "CorruptDataError",
    ] as const) {
      expect(theirs[name], name).toBe(own[name]);
    }
    const made = new copy.BackendUnavailableError("redis://:pw@h:1/0", "connection refused");
    expect(made).toBeInstanceOf(errors.BackendUnavailableError);
    expect(made).toBeInstanceOf(errors.FleetBackendError);
    expect(made.message).not.toContain("pw");
    expect(new errors.NotFoundError("x")).not.toBeInstanceOf(copy.CorruptDataError);
  });
});
