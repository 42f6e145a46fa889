// Cross-site protection in every mode (issue 12, point 6): without authentication (the
// loopback demo, FLEET_INSECURE_NO_AUTH=1) a cross-site `text/plain` POST used to delete
// every dead letter, and a foreign Host header was served (DNS rebinding). Every mutation
// now needs a same-origin browser (or no browser at all) and a JSON body; every request
// needs an allowed Host. In-memory backends: what is checked here is the mode, not Redis.
import type { Backend } from "@fleet/backend";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import * as health from "@/app/api/v1/health/route";
import * as counter from "@/app/api/v1/counters/[name]/route";
import * as dlqDelete from "@/app/api/v1/queues/[name]/dead/delete/route";
import * as queues from "@/app/api/v1/queues/route";
import * as sweep from "@/app/api/v1/queues/[name]/sweep/route";
import * as lock from "@/app/api/v1/locks/[name]/route";
import { sha1 } from "@/server/api/test/harness";
import { closeBackend, getBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";

import { handleSession, handleSignIn, handleSignOut } from "./handlers";
import { hostAllowed, hostProblem, parseAllowedHosts, parseHostPort } from "./hosts";
import { PASSWORDS, bearer, clearAuth, configureAuth, type Handler } from "./test/auth-env";

const CONSOLE = "http://127.0.0.1:3000";

let memoryCounter = 0;

/** Only `vars` set (plus a fresh in-memory backend), every auth variable cleared first. */
async function useEnv(vars: Record<string, string>): Promise<Backend> {
  await clearAuth();
  memoryCounter += 1;
  process.env.FLEET_BACKEND_URL = `memory://csrf-modes-${process.pid}-${memoryCounter}`;
  for (const [k, v] of Object.entries(vars)) process.env[k] = v;
  resetServerEnv();
  return getBackend();
}

afterEach(async () => {
  await closeBackend();
});

afterAll(async () => {
  await clearAuth();
});

interface Sent {
  status: number;
  code: string | undefined;
  message: string | undefined;
}

/** Sends a raw request as a browser or a script would, with exactly these headers and body. */
async function send(handler: Handler, method: string, path: string, headers: Record<string, string>, body?: string, base = CONSOLE): Promise<Sent> {
  const res = await handler(new Request(`${base}/api/v1${path}`, { method, headers, body }), { params: Promise.resolve({}) });
  const text = await res.text();
  let json: { error?: { code?: string; message?: string } } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    /* not JSON */
  }
  return { status: res.status, code: json.error?.code, message: json.error?.message };
}

const deadLetter = (id: string) => `{"id": "${id}", "payload": {}}`;

// What a hostile page can make a browser send to the console without a CORS preflight,
// and what the console's own pages send.
const HOSTILE: Array<{ what: string; headers: Record<string, string>; body?: string; status: number; code: string }> = [
  {
    what: "a cross-site form (text/plain)",
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "text/plain" },
    body: '{"all": true}',
    status: 403,
    code: "forbidden",
  },
  {
    what: "a cross-site form from an old browser (Origin only)",
    headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
    body: "all=true",
    status: 403,
    code: "forbidden",
  },
  {
    what: "a cross-site fetch that says JSON",
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "application/json" },
    body: '{"all": true}',
    status: 403,
    code: "forbidden",
  },
  {
    what: "a same-site page of another port",
    headers: { origin: "http://127.0.0.1:8080", "sec-fetch-site": "same-site", "content-type": "application/json" },
    body: '{"all": true}',
    status: 403,
    code: "forbidden",
  },
  { what: "a sandboxed page (Origin: null)", headers: { origin: "null", "content-type": "text/plain" }, body: '{"all": true}', status: 403, code: "forbidden" },
  {
    what: "a same-origin text/plain body",
    headers: { origin: CONSOLE, "sec-fetch-site": "same-origin", "content-type": "text/plain" },
    body: '{"all": true}',
    status: 415,
    code: "unsupported_media_type",
  },
  { what: "a script's text/plain body", headers: { "content-type": "text/plain;charset=UTF-8" }, body: '{"all": true}', status: 415, code: "unsupported_media_type" },
  { what: "a script's body without Content-Type", headers: { "content-length": "13" }, body: '{"all": true}', status: 415, code: "unsupported_media_type" },
];

const MODES: Array<{ name: string; vars: Record<string, string> }> = [
  { name: "the loopback demo (no authentication)", vars: {} },
  { name: "FLEET_INSECURE_NO_AUTH=1", vars: { FLEET_INSECURE_NO_AUTH: "1" } },
];

for (const mode of MODES) {
  describe(`mutations with ${mode.name}`, () => {
    it.each(HOSTILE)("refuse $what ($status) and delete nothing", async (h) => {
      const b = await useEnv(mode.vars);
      for (const id of ["d1", "d2"]) await b.queueDead("jobs", deadLetter(id));
      const res = await send(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", h.headers, h.body);
      expect(res.status, res.message).toBe(h.status);
      expect(res.code).toBe(h.code);
      expect(res.message).toMatch(/refused because/);
      expect(await b.dlqLength("jobs")).toBe(2);
    });

    it("accept the console's own pages and scripts sending JSON", async () => {
      const b = await useEnv(mode.vars);
      for (const id of ["d1", "d2", "d3"]) await b.queueDead("jobs", deadLetter(id));
      const page = await send(
        dlqDelete.POST,
        "POST",
        "/queues/jobs/dead/delete",
        { origin: CONSOLE, "sec-fetch-site": "same-origin", "x-fleet-csrf": "1", "content-type": "application/json" },
        JSON.stringify({ refs: [sha1(deadLetter("d1"))] }),
      );
      expect(page.status, page.message).toBe(200);
      // a script (curl) names no origin: no browser is involved, so no page can have sent it
      const script = await send(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", { "content-type": "application/json; charset=utf-8" }, '{"all": true}');
      expect(script.status, script.message).toBe(200);
      expect(await b.dlqLength("jobs")).toBe(0);
    });

    it("need no Content-Type without a body, but refuse a cross-site one and a form type", async () => {
      const b = await useEnv(mode.vars);
      await b.counterSet("hits", 3);
      expect((await send(counter.DELETE, "DELETE", "/counters/hits", { origin: "https://evil.example" })).status).toBe(403);
      expect((await send(sweep.POST, "POST", "/queues/jobs/sweep", { "sec-fetch-site": "cross-site" })).status).toBe(403);
      const form = await send(counter.DELETE, "DELETE", "/counters/hits", { "content-type": "application/x-www-form-urlencoded" });
      expect(form.status).toBe(415);
      expect((await b.counterList()).map((c) => c.name)).toEqual(["hits"]);
      const ok = await send(counter.DELETE, "DELETE", "/counters/hits", { origin: CONSOLE, "sec-fetch-site": "same-origin", "x-fleet-csrf": "1" });
      expect(ok.status, ok.message).toBe(200);
      expect(await b.counterList()).toEqual([]);
    });
  });
}

describe("mutations with a bearer token", () => {
  it("skip the origin check but still need a JSON body", async () => {
    await clearAuth();
    const b = await configureAuth(`memory://csrf-modes-token-${process.pid}`);
    for (const id of ["d1", "d2"]) await b.queueDead("jobs", deadLetter(id));
    const plain = await send(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", { ...bearer("operator"), "content-type": "text/plain" }, '{"all": true}', "http://console.test");
    expect(plain.status).toBe(415);
    expect(await b.dlqLength("jobs")).toBe(2);
    const json = await send(
      dlqDelete.POST,
      "POST",
      "/queues/jobs/dead/delete",
      { ...bearer("operator"), origin: "https://elsewhere.example", "content-type": "application/json" },
      '{"all": true}',
      "http://console.test",
    );
    expect(json.status, json.message).toBe(200);
    expect(await b.dlqLength("jobs")).toBe(0);
  });

  it("sign-in refuses a text/plain body, even from the console's origin", async () => {
    await clearAuth();
    await configureAuth(`memory://csrf-modes-signin-${process.pid}`);
    const res = await handleSignIn(
      new Request("http://console.test/api/v1/auth/signin", {
        method: "POST",
        headers: { origin: "http://console.test", "sec-fetch-site": "same-origin", "x-fleet-csrf": "1", "content-type": "text/plain" },
        body: JSON.stringify({ username: "ada", password: PASSWORDS.ada }),
      }),
    );
    expect(res.status).toBe(415);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("the Host allow-list (DNS rebinding)", () => {
  const at = (host: string, extra: Record<string, string> = {}) => ({ host, ...extra });

  it("by default serves loopback names and IP addresses only, on any port, for every route", async () => {
    await useEnv({});
    for (const host of ["127.0.0.1:3000", "localhost:3000", "[::1]:3000", "localhost", "127.0.0.2:8080", "app.localhost:3000", "10.1.2.3:3000", "[fd00::5]:3000"]) {
      const res = await send(queues.GET, "GET", "/queues", at(host));
      expect(res.status, host).toBe(200);
    }
    for (const host of ["evil.example:3000", "evil.example", "127.0.0.1.evil.example:3000", "localhost.evil.example", "console.internal"]) {
      const res = await send(queues.GET, "GET", "/queues", at(host));
      expect(res.status, host).toBe(421);
      expect(res.code).toBe("misdirected_request");
      expect(res.message).toContain("FLEET_ALLOWED_HOSTS");
    }
  });

  it("refuses a rebound page's same-origin mutation and every other entry point", async () => {
    const b = await useEnv({ FLEET_INSECURE_NO_AUTH: "1" });
    for (const id of ["d1", "d2"]) await b.queueDead("jobs", deadLetter(id));
    // evil.example resolves to the console: to the browser this is same-origin
    const rebound = { host: "evil.example:3000", origin: "http://evil.example:3000", "sec-fetch-site": "same-origin", "x-fleet-csrf": "1", "content-type": "application/json" };
    const res = await send(dlqDelete.POST, "POST", "/queues/jobs/dead/delete", rebound, '{"all": true}', "http://evil.example:3000");
    expect(res.status).toBe(421);
    expect(await b.dlqLength("jobs")).toBe(2);
    expect((await send(lock.DELETE, "DELETE", "/locks/x", rebound)).status).toBe(421);
    const req = (path: string, method = "GET", body?: string) => new Request(`http://evil.example:3000/api/v1${path}`, { method, headers: rebound, body });
    expect((await health.GET(req("/health"))).status).toBe(421);
    expect((await handleSession(req("/auth/session"))).status).toBe(421);
    expect((await handleSignOut(req("/auth/signout", "POST"))).status).toBe(421);
    // a forwarded host must be allowed too
    expect((await send(queues.GET, "GET", "/queues", { host: "127.0.0.1:3000", "x-forwarded-host": "evil.example" })).status).toBe(421);
  });

  it("serves exactly FLEET_ALLOWED_HOSTS when set, or anything with '*'", async () => {
    await useEnv({ FLEET_ALLOWED_HOSTS: "console.example.com, ops.example.com:8443,[::1]" });
    expect((await send(queues.GET, "GET", "/queues", at("console.example.com"))).status).toBe(200);
    expect((await send(queues.GET, "GET", "/queues", at("CONSOLE.example.com:443"))).status).toBe(200);
    expect((await send(queues.GET, "GET", "/queues", at("ops.example.com:8443"))).status).toBe(200);
    expect((await send(queues.GET, "GET", "/queues", at("ops.example.com:8080"))).status).toBe(421);
    expect((await send(queues.GET, "GET", "/queues", at("[::1]:3000"))).status).toBe(200);
    const local = await send(queues.GET, "GET", "/queues", at("127.0.0.1:3000"));
    expect(local.status).toBe(421);
    expect(local.message).toContain("not in FLEET_ALLOWED_HOSTS");
    await useEnv({ FLEET_ALLOWED_HOSTS: "*" });
    expect((await send(queues.GET, "GET", "/queues", at("anything.example:1"))).status).toBe(200);
  });

  it("parses host lists and names the variable on a bad entry", () => {
    expect(parseHostPort("Console.Example.com:8443")).toEqual({ host: "console.example.com", port: 8443 });
    expect(parseHostPort("[::1]:3000")).toEqual({ host: "::1", port: 3000 });
    expect(parseHostPort("10.0.0.1")).toEqual({ host: "10.0.0.1", port: null });
    for (const bad of ["", "a b", "::1", "[::1", "host:0", "host:99999", "host:x", "evil.example/x", "user@host", "[not-v6]:1"]) {
      expect(parseHostPort(bad), bad).toBeNull();
    }
    expect(() => parseAllowedHosts("ok.example,bad host")).toThrow(/FLEET_ALLOWED_HOSTS: 'bad host'/);
    expect(() => parseAllowedHosts("*,ok.example")).toThrow(/alone/);
    expect(parseAllowedHosts(undefined)).toEqual({ list: null });
    expect(hostAllowed({ list: null }, { host: "localhost", port: 1 })).toBe(true);
    expect(hostProblem(new Headers({ host: "a b" }), "http://x/", { list: null })).toMatch(/not a host name/);
  });
});
