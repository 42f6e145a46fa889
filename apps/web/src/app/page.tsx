import Link from "next/link";

import { FleetBackendError, maskUrl } from "@fleet/backend";

import { serverEnv } from "@/server/env";
import { checkBackend } from "@/server/health";

// Reads the backend at request time; never prerendered with the build machine's env.
export const dynamic = "force-dynamic";

// Placeholder overview: the real one (worker counts, queue depths) replaces this page.
const SECTIONS = [
  { href: "/workers", title: "Workers", text: "Every worker, its state, config and stats" },
  { href: "/automations", title: "Automations", text: "Automation types, their schemas and task submission" },
  { href: "/queues", title: "Queues", text: "Pending, processing, scheduled and dead-lettered tasks" },
  { href: "/pools", title: "Pools", text: "Resource pools and their claims" },
  { href: "/streams", title: "Streams", text: "Output streams of the automations" },
  { href: "/locks", title: "Locks", text: "Held locks and their TTLs" },
  { href: "/counters", title: "Counters", text: "Named counters" },
  { href: "/kv", title: "Key-value", text: "Namespaced keys and values" },
] as const;

type BackendStatus = { up: true; kind: string; version: string; latencyMs: number } | { up: false; reason: string };

async function backendStatus(): Promise<BackendStatus> {
  try {
    const { backend, info } = await checkBackend();
    return { up: true, kind: backend.kind, version: info.version, latencyMs: info.latencyMs };
  } catch (err) {
    // Backend errors name the URL with its password masked; anything else stays in the log.
    if (err instanceof FleetBackendError) return { up: false, reason: err.message };
    console.error("backend status check failed", err);
    return { up: false, reason: "unexpected error; see the server log" };
  }
}

export default async function HomePage() {
  const url = maskUrl(serverEnv().FLEET_BACKEND_URL);
  const status = await backendStatus();

  return (
    <main className="mx-auto max-w-4xl px-6 py-10">
      <h1 className="text-3xl font-semibold tracking-tight">Fleet Console</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        Workers, queues, pools and streams of a Fleet cluster, read from its Redis.
      </p>

      <section aria-labelledby="backend-heading" className="mt-8 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
        <h2 id="backend-heading" className="text-sm font-medium uppercase tracking-wide text-slate-500">
          Backend
        </h2>
        <p className="mt-1 font-mono text-sm" data-testid="backend-url">
          {url}
        </p>
        {status.up ? (
          <p className="mt-1 text-sm text-emerald-700 dark:text-emerald-400" data-testid="backend-status">
            Connected: {status.kind} {status.version}, {status.latencyMs.toFixed(1)} ms
          </p>
        ) : (
          <p className="mt-1 text-sm text-red-700 dark:text-red-400" data-testid="backend-status" role="alert">
            Unavailable: {status.reason}
          </p>
        )}
      </section>

      <nav aria-label="Console sections" className="mt-8">
        <ul className="grid gap-3 sm:grid-cols-2">
          {SECTIONS.map((s) => (
            <li key={s.href}>
              <Link
                href={s.href}
                className="block rounded-lg border border-slate-200 p-4 hover:border-slate-400 dark:border-slate-800 dark:hover:border-slate-600"
              >
                <span className="font-medium">{s.title}</span>
                <span className="mt-1 block text-sm text-slate-600 dark:text-slate-400">{s.text}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>

      <p className="mt-8 text-sm text-slate-500">
        API: <a className="underline" href="/api/v1/health">/api/v1/health</a>
      </p>
    </main>
  );
}
