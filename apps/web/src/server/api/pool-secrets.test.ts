// Pools (issue 19.8) through the routes on both backends: the free count in GET /pools, secrets
// masked in every read (list page, single item, full payload), revealed only by POST .../reveal
// to an operator (viewer 403), recorded in the audit trail with the paths and never the values.
// The Redis run uses a redis-server of its own (the audit trail is the fixed fleet:console:audit).
import type { Backend } from "@fleet/backend";
import { startPrivateRedis, type PrivateRedis } from "@fleet/backend/testing/private-redis";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { GET as getPools } from "@/app/api/v1/pools/route";
import { GET as getPool } from "@/app/api/v1/pools/[name]/route";
import { GET as getItem } from "@/app/api/v1/pools/[name]/items/[id]/route";
import { POST as reveal } from "@/app/api/v1/pools/[name]/items/[id]/reveal/route";
import { bearer, call, clearAuth, configureAuth } from "@/server/auth/test/auth-env";

let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await clearAuth();
  await server?.stop();
});

const SECRET = JSON.stringify({ site: "forum.example", cookies: [{ name: "sid", value: "s3cr3t-cookie" }], ua: "Mozilla/5.0" });

for (const kind of ["memory", "redis"] as const) {
  describe(`[${kind}] pool secrets and free counts`, () => {
    let backend: Backend;
    beforeEach(async () => {
      if (kind === "redis") {
        const r = new Redis(server.url(), { maxRetriesPerRequest: 1 });
        await r.flushdb();
        r.disconnect();
      }
      backend = await configureAuth(kind === "redis" ? server.url() : `memory://pool-secrets-${Math.random().toString(36).slice(2)}`);
      await backend.poolPut("cookies", "a", SECRET, { site: "forum.example", token: "t0k3n" }, null);
      await backend.poolPut("cookies", "b", "plain proxy 10.0.0.1:8080", {}, null);
      await backend.poolPut("cookies", "c", "x", {}, null);
      await backend.poolClaimAny("cookies", { site: "forum.example" }, 60);
    });

    it("counts free items in the list", async () => {
      const res = await call(getPools, "GET", "/pools", { headers: bearer("viewer") });
      expect(res.json.pools).toEqual([{ name: "cookies", size: 3, live: 3, expired: 0, claimed: 1, free: 2 }]);
    });

    it("masks secrets for everyone in every read; an operator reveals one item, audited; a viewer cannot", async () => {
      for (const path of ["/pools/cookies", "/pools/cookies/items/a", "/pools/cookies/items/a?preview_bytes=1048576"]) {
        const res = await call(path.includes("items") ? getItem : getPool, "GET", path, { headers: bearer("admin") });
        expect(res.status).toBe(200);
        expect(res.text).not.toContain("s3cr3t");
        expect(res.text).not.toContain("t0k3n");
        expect(Buffer.from(res.text).toString("base64")).not.toContain(Buffer.from("s3cr3t").toString("base64"));
        const item = path.includes("items") ? res.json : res.json.items.find((i: { id: string }) => i.id === "a");
        expect(item.masked).toEqual(["$.cookies", "tags.token"]);
        expect(Buffer.from(item.payload.base64, "base64").toString()).not.toContain("s3cr3t");
        expect(item.payload.json.site).toBe("forum.example");
      }
      const plain = await call(getItem, "GET", "/pools/cookies/items/b", { headers: bearer("viewer") });
      expect(plain.json.masked).toBeUndefined();
      expect(plain.json.payload.text).toBe("plain proxy 10.0.0.1:8080");

      const refused = await call(reveal, "POST", "/pools/cookies/items/a/reveal", { headers: bearer("viewer") });
      expect(refused.status).toBe(403);
      expect(refused.text).not.toContain("s3cr3t");

      const before = (await backend.auditRange(0, 1)).total;
      const shown = await call(reveal, "POST", "/pools/cookies/items/a/reveal", { headers: bearer("operator") });
      expect(shown.status).toBe(200);
      expect(shown.json.payload.text).toBe(SECRET);
      expect(shown.json.tags).toEqual({ site: "forum.example", token: "t0k3n" });
      expect(shown.json.masked).toBeUndefined();
      const { total, items } = await backend.auditRange(0, 1);
      expect(total).toBe(before + 1);
      const entry = JSON.parse(items[0]!.toString());
      expect(entry).toMatchObject({ action: "pool.item.reveal", target: "pool:cookies/a", outcome: "done", role: "operator", details: { masked: ["$.cookies", "tags.token"] } });
      expect(items[0]!.toString()).not.toContain("s3cr3t");

      const missing = await call(reveal, "POST", "/pools/cookies/items/nope/reveal", { headers: bearer("operator") });
      expect(missing.status).toBe(404);
    });
  });
}
