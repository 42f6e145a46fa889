import { KvKeyListSchema, KvKeysQuerySchema, type KvKeyList } from "@fleet/schema";
import { z } from "zod";

import { badRequest } from "@/server/api/errors";
import { KvNamespaceParamSchema, requireExistingOrKnown } from "@/server/api/resources";
import { route } from "@/server/api/route";
import { getDiscovery } from "@/server/backend";

/** Slots of the key space the look for a namespace the discovery does not know may take (all of a small database). */
const KV_PROBE_SLOTS = 20_000;

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * A namespace's keys, never read whole (issue 11). A namespace the name discovery holds
 * (up to 10,000 keys) is answered from its key names, sorted, by offset or by an offset
 * cursor (`o<n>`); a larger one only by a SCAN cursor (`s<...>`), a page at a time. The
 * TTLs and sizes of the page's keys are read live; a key gone since is left out.
 */
export const GET = route({
  path: "/kv/[ns]",
  role: "viewer",
  params: z.object({ ns: KvNamespaceParamSchema }),
  query: KvKeysQuerySchema,
  response: KvKeyListSchema,
  handler: async ({ backend, params, query }): Promise<KvKeyList> => {
    const discovery = await getDiscovery();
    const { ns } = params;
    // DBSIZE (O(1)) beside the cache: a down Redis answers 503 at once, not after the discovery's wait
    const [known] = await Promise.all([discovery.kvKeys(ns), backend.keyCount()]);
    if (known.count === 0) {
      // Not (yet) seen by the discovery: one small look before answering 404, so that a
      // namespace written by another program a moment ago is found on a small database
      // (and on a large one within the discovery's bound).
      const probe = query.cursor === undefined || query.cursor === "0" ? await backend.kvKeysPage(ns, "0", query.limit, { budget: KV_PROBE_SLOTS }) : null;
      if (probe && probe.keys.length > 0) {
        for (const k of probe.keys) discovery.learnKvKey(ns, k.key);
        return {
          total: probe.keys.length,
          keys: probe.keys.map((k) => ({ key: k.key, ttl_ms: k.ttlMs, bytes: k.bytes })),
          ...(query.cursor !== undefined ? { next_cursor: null } : {}),
        };
      }
      await requireExistingOrKnown(backend, "kv namespace", ns, false);
      return query.cursor === undefined ? { total: 0, keys: [] } : { total: 0, keys: [], next_cursor: null };
    }
    const cursor = query.cursor;
    if (known.keys !== null && (cursor === undefined || cursor === "0" || cursor.startsWith("o"))) {
      const offset = cursor === undefined ? query.offset : cursor === "0" ? 0 : Number(cursor.slice(1));
      const names = known.keys.slice(offset, offset + query.limit);
      const keys = await backend.kvKeySummaries(ns, names);
      if (keys.length < names.length) {
        const present = new Set(keys.map((k) => k.key));
        for (const k of names) if (!present.has(k)) discovery.forgetKvKey(ns, k);
      }
      const total = known.count - (names.length - keys.length);
      const body: KvKeyList = { total, keys: keys.map((k) => ({ key: k.key, ttl_ms: k.ttlMs, bytes: k.bytes })) };
      if (cursor !== undefined) body.next_cursor = offset + query.limit < known.keys.length ? `o${offset + query.limit}` : null;
      return body;
    }
    // A large namespace (or a SCAN cursor): one page by SCAN. Without a cursor this is the
    // first page; an offset cannot be honoured without reading everything before it.
    if (cursor === undefined && query.offset > 0) {
      throw badRequest(`The namespace '${ns}' has about ${known.count} keys: page it with cursor=0 and then each answer's next_cursor, not with offset.`);
    }
    let from = "0";
    if (cursor?.startsWith("s")) from = Buffer.from(cursor.slice(1), "base64url").toString("utf8");
    else if (cursor?.startsWith("o")) {
      throw badRequest(`The namespace '${ns}' grew too large for offsets while it was paged: start again with cursor=0.`);
    }
    let page: Awaited<ReturnType<typeof backend.kvKeysPage>>;
    try {
      // the namespace's share of the database sizes the first SCAN step
      const keyCount = discovery.status().keyCount;
      page = await backend.kvKeysPage(ns, from, query.limit, keyCount > 0 ? { density: known.count / keyCount } : {});
    } catch (err) {
      if (err instanceof RangeError) throw badRequest("cursor is not a next_cursor of an earlier answer.");
      throw err;
    }
    return {
      total: known.count,
      keys: page.keys.map((k) => ({ key: k.key, ttl_ms: k.ttlMs, bytes: k.bytes })),
      next_cursor: page.cursor === "0" ? null : `s${Buffer.from(page.cursor, "utf8").toString("base64url")}`,
    };
  },
});
