// Password hashes: node's built-in scrypt (no dependency), stored in a self-describing
// format so the cost can be raised later without breaking existing hashes:
//   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

export const SCRYPT_DEFAULTS = { N: 1 << 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;

// Bounds for what a configured hash may ask of the server: a typo must not make every
// sign-in allocate gigabytes.
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;

export interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize("NFC"), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function scryptOptions(N: number, r: number, p: number): ScryptOptions {
  // scrypt needs 128 * N * r bytes; node's default cap (32 MiB) is exactly the default cost.
  return { N, r, p, maxmem: 128 * N * r + 16 * 1024 * 1024 };
}

const B64URL = /^[A-Za-z0-9_-]+={0,2}$|^[A-Za-z0-9+/]+={0,2}$/;

/** Parses an encoded hash; throws a message naming what is wrong (never the hash itself). */
export function parseHash(encoded: string): ParsedHash {
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") throw new Error("is not a scrypt$N$r$p$salt$hash password hash (make one with `pnpm hash-password`)");
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const N = Number(n);
  const R = Number(r);
  const P = Number(p);
  if (!Number.isInteger(N) || N < 2 || N > MAX_N || (N & (N - 1)) !== 0) throw new Error(`has scrypt N=${n}: it must be a power of two from 2 to ${MAX_N}`);
  if (!Number.isInteger(R) || R < 1 || R > MAX_R) throw new Error(`has scrypt r=${r}: it must be 1 to ${MAX_R}`);
  if (!Number.isInteger(P) || P < 1 || P > MAX_P) throw new Error(`has scrypt p=${p}: it must be 1 to ${MAX_P}`);
  if (!B64URL.test(salt) || !B64URL.test(hash)) throw new Error("has a salt or hash that is not base64");
  const saltBuf = Buffer.from(salt, salt.includes("+") || salt.includes("/") ? "base64" : "base64url");
  const hashBuf = Buffer.from(hash, hash.includes("+") || hash.includes("/") ? "base64" : "base64url");
  if (saltBuf.length < 8) throw new Error("has a salt shorter than 8 bytes");
  if (hashBuf.length < 16 || hashBuf.length > 128) throw new Error("has a hash that is not 16 to 128 bytes long");
  return { N, r: R, p: P, salt: saltBuf, hash: hashBuf };
}

export async function hashPassword(password: string, cost: { N?: number; r?: number; p?: number } = {}): Promise<string> {
  const N = cost.N ?? SCRYPT_DEFAULTS.N;
  const r = cost.r ?? SCRYPT_DEFAULTS.r;
  const p = cost.p ?? SCRYPT_DEFAULTS.p;
  const salt = randomBytes(SCRYPT_DEFAULTS.saltBytes);
  const key = await scrypt(password, salt, SCRYPT_DEFAULTS.keyBytes, scryptOptions(N, r, p));
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

let checks = 0;

/** How many passwords this process has checked (verifyPassword calls): what the throttle tests count. */
export function passwordChecks(): number {
  return checks;
}

/** Constant-time comparison of the derived key; false for any malformed hash. */
export async function verifyPassword(password: string, parsed: ParsedHash): Promise<boolean> {
  checks += 1;
  const key = await scrypt(password, parsed.salt, parsed.hash.length, scryptOptions(parsed.N, parsed.r, parsed.p));
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

let dummy: Promise<ParsedHash> | undefined;

/**
 * A hash of a random password with the default cost. Sign-in of an unknown user is
 * checked against it, so the answer takes as long as for a known user with a wrong
 * password and says nothing about which names exist.
 */
export function dummyHash(): Promise<ParsedHash> {
  dummy ??= hashPassword(randomBytes(16).toString("hex")).then(parseHash);
  return dummy;
}
