import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { BackendUnavailableError, maskUrl } from "./errors";

const MASK_SH = fileURLToPath(new URL("../../../scripts/mask-url.sh", import.meta.url));

const CASES: Array<[string, string]> = [
  ["redis://:s3cret@redis-host:6379/0", "redis://:***@redis-host:6379/0"],
  ["redis://app:s3cret@redis-host:6379/0", "redis://app:***@redis-host:6379/0"],
  // a password holding `@` (and `:` or `/`): everything up to the LAST `@` is credentials
  ["redis://app:p@ss@redis-host:6379/0", "redis://app:***@redis-host:6379/0"],
  ["rediss://:a@b@c@redis-host:6380/2", "rediss://:***@redis-host:6380/2"],
  ["redis://:pa:ss/wo@rd@10.0.0.5:6379", "redis://:***@10.0.0.5:6379"],
  // a user name alone may be a secret (a token)
  ["redis://tok@en@redis-host:6379", "redis://***@redis-host:6379"],
  ["redis://redis-host:6379/0", "redis://redis-host:6379/0"],
  ["memory://demo", "memory://demo"],
  ["not a url", "not a url"],
];

describe("maskUrl", () => {
  it.each(CASES)("%s -> %s", (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it("never lets any part of a password through", () => {
    for (const password of ["p@ss", "@@@", "a:b@c", "x/y@z", "plain"]) {
      const shown = maskUrl(`redis://app:${password}@redis-host:6379/0`);
      expect(shown).toBe("redis://app:***@redis-host:6379/0");
    }
  });

  it("is what BackendUnavailableError says", () => {
    const err = new BackendUnavailableError("redis://app:p@ss@redis-host:6379/0", "refused");
    expect(err.message).not.toContain("ss@");
    expect(err.message).toContain("redis://app:***@redis-host:6379/0");
  });

  it("agrees with scripts/mask-url.sh, which pnpm start uses", () => {
    for (const [url, masked] of CASES) {
      expect(execFileSync("bash", [MASK_SH, url], { encoding: "utf8" }).trimEnd(), url).toBe(masked);
    }
  });
});
