import { pyJsonBytes } from "@fleet/backend";
import { DeletedSchema, KvPutBodySchema, KvValueSchema, PreviewQuerySchema } from "@fleet/schema";
import { z } from "zod";

import { notFound } from "@/server/api/errors";
import { KvNamespaceParamSchema, announceAdmin } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { toRawValue } from "@/server/api/serialize";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const params = z.object({ ns: KvNamespaceParamSchema, key: z.string() });

export const GET = route({
  path: "/kv/[ns]/[key]",
  role: "viewer",
  params,
  query: PreviewQuerySchema,
  response: KvValueSchema,
  handler: async ({ backend, params, query }) => {
    const entry = await backend.kvGetEntry(params.ns, params.key);
    if (entry === null) throw notFound(`There is no kv key '${params.key}' in namespace '${params.ns}'.`);
    return { value: toRawValue(entry.value, query.preview_bytes), ttl_ms: entry.ttlMs };
  },
});

/** Stores the JSON text of `value` as Python's json.dumps writes it (a string is stored quoted). */
export const PUT = route({
  path: "/kv/[ns]/[key]",
  role: "admin",
  params,
  body: KvPutBodySchema,
  response: KvValueSchema,
  handler: async ({ backend, params, body }) => {
    const bytes = pyJsonBytes(body.value);
    const ttl = body.ttl_seconds ?? null;
    await backend.kvSet(params.ns, params.key, bytes, ttl);
    await announceAdmin(backend, "kv.set", { ns: params.ns, key: params.key });
    return { value: toRawValue(bytes), ttl_ms: ttl === null ? null : ttl * 1000 };
  },
});

export const DELETE = route({
  path: "/kv/[ns]/[key]",
  role: "admin",
  params,
  response: DeletedSchema,
  handler: async ({ backend, params }) => {
    const deleted = await backend.kvDel(params.ns, params.key);
    if (!deleted) throw notFound(`There is no kv key '${params.key}' in namespace '${params.ns}'.`);
    await announceAdmin(backend, "kv.delete", { ns: params.ns, key: params.key });
    return { deleted: true };
  },
});
