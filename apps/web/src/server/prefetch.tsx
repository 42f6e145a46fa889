// A page's first paint with its data in it (issue 11.7): the server asks the page's first
// queries of their own API route handlers, in-process, and hands the answers to the page's
// query cache (TanStack's HydrationBoundary), so the HTML already shows the rows and the
// browser does not wait for its scripts, then for the API, before anything is on screen.
import "server-only";

import { dehydrate, HydrationBoundary, QueryClient, type DehydratedState } from "@tanstack/react-query";
import { headers } from "next/headers";
import type { ReactNode } from "react";

import { API_BASE } from "@/lib/api";
import type { Endpoint } from "@/lib/query-keys";

/** A route module's GET (src/app/api/v1/.../route.ts). */
export type RouteGet = (request: Request) => Promise<Response>;

/** Headers that describe one hop or a body, not the request: not handed on. */
const NOT_FORWARDED = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "content-type", "expect", "te", "trailer"]);

/**
 * Each endpoint's answer, asked of its route's GET with the page request's own headers: the
 * same host check, sign-in and role as the browser's fetch would meet, the same query
 * parsing, response check and serialization, so the cache holds exactly what the browser
 * would have been answered. Answers other than 200 are left out (the page then asks for them
 * itself and shows what it gets, as without a prefetch); so is a handler that throws.
 */
export async function prefetchState(list: ReadonlyArray<readonly [Endpoint, RouteGet]>): Promise<DehydratedState> {
  const incoming = await headers();
  const forwarded = new Headers();
  for (const [k, v] of incoming) if (!NOT_FORWARDED.has(k)) forwarded.set(k, v);
  const host = incoming.get("host") ?? "localhost";
  const client = new QueryClient();
  await Promise.all(
    list.map(async ([endpoint, get]) => {
      try {
        const res = await get(new Request(`http://${host}${API_BASE}${endpoint.path}`, { headers: forwarded }));
        if (res.status !== 200) {
          await res.body?.cancel();
          return;
        }
        client.setQueryData(endpoint.queryKey, await res.json());
      } catch (err) {
        console.error(`[prefetch] ${endpoint.path}:`, err);
      }
    }),
  );
  return dehydrate(client);
}

/** Renders `children` with the endpoints' answers in the query cache (see prefetchState). */
export async function Prefetch({ endpoints, children }: { endpoints: ReadonlyArray<readonly [Endpoint, RouteGet]>; children: ReactNode }) {
  return <HydrationBoundary state={await prefetchState(endpoints)}>{children}</HydrationBoundary>;
}
