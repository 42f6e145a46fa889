import { describe, expect, it } from "vitest";

import * as rollout from "@/app/api/v1/automations/[type]/config/route";
import * as config from "@/app/api/v1/workers/[type]/[id]/config/route";

import { oversizedBody, published, type Harness } from "./harness";

const CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    slots: { type: "integer", minimum: 1, maximum: 64 },
    mode: { enum: ["fast", "careful"] },
    proxy: { type: "object", properties: { host: { type: "string" }, port: { type: "integer" } }, additionalProperties: false },
    email: { type: "string", format: "email" },
  },
  required: ["slots"],
  additionalProperties: false,
};

async function seed(h: Harness): Promise<void> {
  await h.backend.catalogSet("scraper", JSON.stringify({ config: CONFIG_SCHEMA, output: null, task_payload: null }));
  for (const id of ["w1", "w2"]) {
    await h.backend.workerRegister("scraper", id, { hostname: id });
    await h.backend.workerSetConfig("scraper", id, { slots: 4, proxy: { host: "p", port: 1 } });
  }
}

export function configSuite(h: Harness): void {
  describe("PATCH/PUT /workers/{type}/{id}/config", () => {
    it("merges a patch (RFC 7386), bumps the generation, answers the ETag and stores Python JSON", async () => {
      await seed(h);
      let res: Awaited<ReturnType<typeof h.call>> | undefined;
      const events = await published(h, async () => {
        res = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", {
          body: { proxy: { host: null, port: 8080 }, mode: "fast" },
        });
      });
      expect(res!.status).toBe(200);
      expect(res!.json).toEqual({ config: { slots: 4, proxy: { port: 8080 }, mode: "fast" }, config_gen: 2 });
      expect(res!.headers.get("etag")).toBe('"2"');
      expect((await h.plant.get("wkr:scraper:w1:config"))!.toString()).toBe('{"slots": 4, "proxy": {"port": 8080}, "mode": "fast"}');
      expect((await h.plant.get("wkr:scraper:w1:gen"))!.toString()).toBe("2");
      expect(events).toContainEqual({ topic: "fleet.config", payload: { automation_type: "scraper", worker_id: "w1", config_gen: 2 } });
    });

    it("intent=pause / resume (extension) is checked against the write and recorded in the audit entry", async () => {
      await seed(h);
      const paused = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config?intent=pause", { body: { slots: 0 }, headers: { "If-Match": '"1"' } });
      // slots 0 breaks this schema's minimum (1): a pause is still a config write, validated as one
      expect(paused.status).toBe(422);
      await h.backend.catalogSet(
        "scraper",
        JSON.stringify({ config: { ...CONFIG_SCHEMA, properties: { ...CONFIG_SCHEMA.properties, slots: { type: "integer", minimum: 0 } } }, output: null, task_payload: null }),
      );
      const ok = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config?intent=pause", { body: { slots: 0 }, headers: { "If-Match": '"1"' } });
      expect(ok.status).toBe(200);
      expect(ok.json.config_gen).toBe(2);
      let entry = JSON.parse((await h.backend.auditRange(0, 1)).items[0]!.toString());
      expect(entry).toMatchObject({ action: "worker.config.patch", target: "worker:scraper/w1", outcome: "done", details: { intent: "pause", slots_before: 4, slots_after: 0 } });
      expect(entry.before.slots).toBe(4);
      // a write that is not what its intent says is refused, and changes nothing
      await h.unchanged(async () => {
        expect((await h.call(config.PATCH, "PATCH", "/workers/scraper/w2/config?intent=pause", { body: { slots: 2 } })).status).toBe(400);
        expect((await h.call(config.PATCH, "PATCH", "/workers/scraper/w2/config?intent=resume", { body: { slots: 2 } })).status).toBe(400);
        expect((await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config?intent=resume", { body: { slots: 0 } })).status).toBe(400);
        expect((await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config?intent=stop", { body: { slots: 0 } })).status).toBe(400);
      });
      const resumed = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config?intent=resume", { body: { slots: 4 }, headers: { "If-Match": '"2"' } });
      expect(resumed.status).toBe(200);
      entry = JSON.parse((await h.backend.auditRange(0, 1)).items[0]!.toString());
      expect(entry.details).toEqual({ intent: "resume", slots_before: 0, slots_after: 4 });
    });

    it("PUT replaces the whole config", async () => {
      await seed(h);
      const res = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { body: { slots: 9 } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ config: { slots: 9 }, config_gen: 2 });
    });

    it("accepts a matching If-Match and answers 412 for a stale one, writing nothing", async () => {
      await seed(h);
      const ok = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", { body: { slots: 5 }, headers: { "If-Match": '"1"' } });
      expect(ok.status).toBe(200);
      expect(ok.json.config_gen).toBe(2);
      await h.unchanged(async () => {
        const stale = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", { body: { slots: 6 }, headers: { "If-Match": '"1"' } });
        expect(stale.status).toBe(412);
        expect(stale.json.error.code).toBe("precondition_failed");
        const stalePut = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { body: { slots: 6 }, headers: { "If-Match": 'W/"7"' } });
        expect(stalePut.status).toBe(412);
        const bad = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { body: { slots: 6 }, headers: { "If-Match": "two" } });
        expect(bad.status).toBe(400);
      });
    });

    it("answers 412 when the generation moves after an If-Match check, 409 without If-Match", async () => {
      await seed(h);
      const b = h.backend;
      const original = b.workerSetConfig.bind(b);
      // another writer slips in between the route's read and its compare-and-set
      const interleave = () => {
        b.workerSetConfig = async (t, id, cfg, opts) => {
          b.workerSetConfig = original;
          await original(t, id, { slots: 33 });
          return original(t, id, cfg, opts);
        };
      };
      try {
        interleave();
        const withIfMatch = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { body: { slots: 7 }, headers: { "If-Match": '"1"' } });
        expect(withIfMatch.status).toBe(412);
        interleave();
        const without = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { body: { slots: 8 } });
        expect(without.status).toBe(409);
        expect(without.json.error.code).toBe("conflict");
      } finally {
        b.workerSetConfig = original;
      }
      // only the other writer's two writes landed
      expect((await h.plant.get("wkr:scraper:w1:config"))!.toString()).toBe('{"slots": 33}');
      expect((await h.plant.get("wkr:scraper:w1:gen"))!.toString()).toBe("3");
    });

    it("answers 422 listing every failing field, writing nothing", async () => {
      await seed(h);
      await h.unchanged(async () => {
        const res = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", {
          body: { slots: 100, mode: "reckless", extra: true, proxy: { port: "x" }, email: "nope" },
        });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe("validation_failed");
        const details = res.json.error.details as Array<{ path: string; message: string }>;
        expect(details).toContainEqual({ path: "/slots", message: "must be <= 64" });
        expect(details.map((d) => d.path).sort()).toEqual(["/email", "/extra", "/mode", "/proxy/port", "/slots"]);
        const missing = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", { body: { slots: null } });
        expect(missing.status).toBe(422);
        expect(missing.json.error.details).toEqual([{ path: "/slots", message: "is required" }]);
        const notObject = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { body: [1, 2] });
        expect(notObject.status).toBe(422);
      });
    });

    it("refuses (422) a value the catalog's pattern would take minutes to check, in well under a second, writing nothing", async () => {
      await seed(h);
      // a pattern that backtracks exponentially: thirty-two a's and a "!" take ~15 s in the engine's matcher, forty ~100 s
      await h.backend.catalogSet(
        "scraper",
        JSON.stringify({
          config: { ...CONFIG_SCHEMA, properties: { ...CONFIG_SCHEMA.properties, name: { type: "string", pattern: "^(a+)+$" } } },
          output: null,
          task_payload: null,
        }),
      );
      const crafted = `${"a".repeat(32)}!`;
      await h.unchanged(async () => {
        const t0 = performance.now();
        const res = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", { body: { name: crafted } });
        expect(performance.now() - t0).toBeLessThan(5000);
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe("validation_failed");
        expect(res.json.error.details).toEqual([{ path: "", message: expect.stringMatching(/could not be checked against the catalog's schema within \d+ ms/) }]);
        // a fleet-wide write: the same answer, naming the worker
        const fleet = await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config", { body: { name: crafted } });
        expect(fleet.status).toBe(422);
        expect(fleet.json.error.details).toEqual([{ path: "", message: expect.stringMatching(/^worker w1: could not be checked/) }]);
      });
      // values the pattern matches or refuses quickly go through as before
      const ok = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", { body: { name: "aaaa" } });
      expect(ok.status).toBe(200);
      const refused = await h.call(config.PATCH, "PATCH", "/workers/scraper/w2/config", { body: { name: "ab" } });
      expect(refused.status).toBe(422);
      expect(refused.json.error.details).toEqual([{ path: "/name", message: 'must match pattern "^(a+)+$"' }]);
    });

    it("answers 400 for malformed JSON, 413 over 1 MiB and 404 for an unknown worker, writing nothing", async () => {
      await seed(h);
      await h.unchanged(async () => {
        const malformed = await h.call(config.PATCH, "PATCH", "/workers/scraper/w1/config", { rawBody: '{"slots": ' });
        expect(malformed.status).toBe(400);
        expect(malformed.json.error.code).toBe("bad_request");
        const empty = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { rawBody: "" });
        expect(empty.status).toBe(400);
        const big = await h.call(config.PUT, "PUT", "/workers/scraper/w1/config", { rawBody: oversizedBody() });
        expect(big.status).toBe(413);
        expect(big.json.error.code).toBe("payload_too_large");
        const unknown = await h.call(config.PUT, "PUT", "/workers/scraper/nobody/config", { body: { slots: 1 } });
        expect(unknown.status).toBe(404);
      });
    });

    it("a type without a catalog entry accepts any object", async () => {
      await h.backend.workerRegister("free", "w", {});
      const res = await h.call(config.PUT, "PUT", "/workers/free/w/config", { body: { anything: ["goes", 1, null] } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ config: { anything: ["goes", 1, null] }, config_gen: 1 });
    });

    it("refuses to patch a corrupt config (409) but lets PUT replace it", async () => {
      await h.backend.workerRegister("free", "w", {});
      await h.plant.set("wkr:free:w:config", "[broken");
      await h.unchanged(async () => {
        expect((await h.call(config.PATCH, "PATCH", "/workers/free/w/config", { body: { a: 1 } })).status).toBe(409);
      });
      const res = await h.call(config.PUT, "PUT", "/workers/free/w/config", { body: { a: 1 } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ config: { a: 1 }, config_gen: 1 });
    });
  });

  describe("PATCH /automations/{type}/config", () => {
    it("rolls a patch out to every worker of the type", async () => {
      await seed(h);
      await h.backend.workerRegister("other", "o1", {});
      let res: Awaited<ReturnType<typeof h.call>> | undefined;
      const events = await published(h, async () => {
        res = await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config", { body: { mode: "careful", proxy: null } });
      });
      expect(res!.status).toBe(200);
      expect(res!.json).toEqual({
        workers: [
          { worker_id: "w1", config_gen: 2 },
          { worker_id: "w2", config_gen: 2 },
        ],
      });
      for (const id of ["w1", "w2"]) {
        expect((await h.plant.get(`wkr:scraper:${id}:config`))!.toString()).toBe('{"slots": 4, "mode": "careful"}');
      }
      expect((await h.plant.get("wkr:other:o1:gen"))!.toString()).toBe("0");
      expect(events.filter((e) => e.topic === "fleet.config")).toHaveLength(2);
    });

    it("skip_unchanged=true (extension) writes only the workers the patch changes; their generations alone go up", async () => {
      await seed(h);
      await h.backend.workerSetConfig("scraper", "w2", { slots: 4, proxy: { host: "p", port: 1 }, mode: "careful" });
      let res: Awaited<ReturnType<typeof h.call>> | undefined;
      const events = await published(h, async () => {
        res = await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config?skip_unchanged=true", { body: { mode: "careful" } });
      });
      expect(res!.status).toBe(200);
      expect(res!.json).toEqual({ workers: [{ worker_id: "w1", config_gen: 2 }] });
      expect((await h.plant.get("wkr:scraper:w1:config"))!.toString()).toBe('{"slots": 4, "proxy": {"host": "p", "port": 1}, "mode": "careful"}');
      expect((await h.plant.get("wkr:scraper:w2:gen"))!.toString()).toBe("2");
      expect(events.filter((e) => e.topic === "fleet.config")).toEqual([{ topic: "fleet.config", payload: { automation_type: "scraper", worker_id: "w1", config_gen: 2 } }]);
      // nothing to change anywhere: no worker written (the audit trail still records the request)
      const none = await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config?skip_unchanged=true", { body: { mode: "careful" } });
      expect(none.json).toEqual({ workers: [] });
      for (const id of ["w1", "w2"]) expect((await h.plant.get(`wkr:scraper:${id}:gen`))!.toString()).toBe("2");
      // without the parameter every worker is written, as API.md says
      const all = await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config", { body: { mode: "careful" } });
      expect(all.json).toEqual({
        workers: [
          { worker_id: "w1", config_gen: 3 },
          { worker_id: "w2", config_gen: 3 },
        ],
      });
      expect((await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config?skip_unchanged=yes", { body: { mode: "x" } })).status).toBe(400);
    });

    it("validates every merged config first and writes nothing when one fails", async () => {
      await seed(h);
      await h.backend.workerSetConfig("scraper", "w2", { slots: 60 });
      await h.unchanged(async () => {
        // slots 70 breaks the maximum for both workers; bogus is listed once per worker
        const res = await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config", { body: { slots: 70, bogus: 1 } });
        expect(res.status).toBe(422);
        const details = res.json.error.details as Array<{ path: string; message: string }>;
        expect(details).toContainEqual({ path: "/slots", message: "worker w1: must be <= 64" });
        expect(details).toContainEqual({ path: "/slots", message: "worker w2: must be <= 64" });
        expect(details).toContainEqual({ path: "/bogus", message: "worker w2: is not allowed here" });
      });
    });

    it("answers 404 for an unknown automation and 400 for malformed JSON", async () => {
      await seed(h);
      await h.unchanged(async () => {
        expect((await h.call(rollout.PATCH, "PATCH", "/automations/nothing/config", { body: { a: 1 } })).status).toBe(404);
        expect((await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config", { rawBody: "{" })).status).toBe(400);
        expect((await h.call(rollout.PATCH, "PATCH", "/automations/scraper/config", { rawBody: oversizedBody() })).status).toBe(413);
      });
    });
  });
}
