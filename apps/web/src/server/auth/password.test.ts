import { describe, expect, it } from "vitest";
import { hashPassword, parseHash, verifyPassword } from "./password";

describe("password hashes", () => {
  it("are scrypt$N$r$p$salt$hash, salted, and verify only the right password", async () => {
    const a = await hashPassword("hunter2-hunter2", { N: 1024 });
    const b = await hashPassword("hunter2-hunter2", { N: 1024 });
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("hunter2-hunter2", parseHash(a))).toBe(true);
    expect(await verifyPassword("hunter2-hunter3", parseHash(a))).toBe(false);
    expect(await verifyPassword("", parseHash(a))).toBe(false);
  });

  it("use the default cost N=2^15 and verify a hash made by `pnpm hash-password`", async () => {
    expect(parseHash(await hashPassword("x")).N).toBe(32768);
    // printf %s 'correct horse battery' | pnpm hash-password
    const made = "scrypt$32768$8$1$DEB2X0RlVBt1D35SwJKETg$QxcNHipWMO1NlvY3Lwdto6A9wAzh0Dm-ql0KYLqKBZE";
    expect(await verifyPassword("correct horse battery", parseHash(made))).toBe(true);
    expect(await verifyPassword("correct horse batterY", parseHash(made))).toBe(false);
  });

  it("refuse malformed or abusive parameters without echoing the hash", () => {
    for (const bad of [
      "plain",
      "bcrypt$2b$10$x",
      "scrypt$1000$8$1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
      "scrypt$4194304$8$1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
      "scrypt$1024$8$1$!!$aGFzaA",
    ]) {
      expect(() => parseHash(bad), bad).toThrow();
      try {
        parseHash(bad);
      } catch (err) {
        expect((err as Error).message).not.toContain(bad);
      }
    }
  });
});
