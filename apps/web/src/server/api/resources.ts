// Helpers shared by the resource routes: the 404 rule of ../shared/API.md, paging, and
// announcing the console's own writes on the bus.
import { decodeUtf8, pyJsonBytes, type Backend } from "@fleet/backend";
import { z } from "zod";

import { noteAction } from "@/server/audit/audit";

import { badRequest, notFound } from "./errors";

/** Code-unit order: stable across locales and cheap for 10,000 names. */
export function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function page<T>(items: T[], q: { limit: number; offset: number }): T[] {
  return items.slice(q.offset, q.offset + q.limit);
}

/**
 * An automation is known when the catalog declares it or a worker of that type is
 * registered. A queue, pool, stream or kv namespace named after a known automation
 * answers 200 with zeros even before it has any key.
 */
export async function isKnownAutomation(backend: Backend, name: string): Promise<boolean> {
  const [catalog, refs] = await Promise.all([backend.catalogGet(name), backend.workerList(name)]);
  return catalog !== null || refs.length > 0;
}

/** Throws 404 unless `exists` or the name is a known automation. */
export async function requireExistingOrKnown(backend: Backend, kind: string, name: string, exists: boolean): Promise<void> {
  if (exists) return;
  if (await isKnownAutomation(backend, name)) return;
  throw notFound(`There is no ${kind} named '${name}' (no key in Redis, and no automation of that name).`);
}

/**
 * Tells every console (and anything else listening) what this one changed. The write
 * has already happened when this runs, so a failed publish is logged, not answered.
 */
export async function announceAdmin(backend: Backend, action: string, fields: Record<string, unknown>): Promise<void> {
  // the audit entry of this request (written by the route wrapper) carries the same fields
  noteAction(fields);
  await publish(backend, "fleet.admin", { action, ...fields });
}

export async function announceConfig(backend: Backend, automationType: string, workerId: string, configGen: number): Promise<void> {
  await publish(backend, "fleet.config", { automation_type: automationType, worker_id: workerId, config_gen: configGen });
}

async function publish(backend: Backend, topic: string, message: Record<string, unknown>): Promise<void> {
  try {
    await backend.eventPublish(topic, pyJsonBytes(message));
  } catch (err) {
    console.warn(`[api] could not publish on event:${topic}`, err);
  }
}

/** A stored value that is not what it should be, shown as text when it is UTF-8, else base64. */
export function rawForDisplay(buf: Buffer): string {
  return decodeUtf8(buf) ?? `base64:${buf.toString("base64")}`;
}

/** kv namespaces run to the first `:` of the key, so a namespace cannot contain one. */
export const KvNamespaceParamSchema = z.string().refine((ns) => !ns.includes(":"), "a kv namespace cannot contain ':'");

export function assertKvNamespace(ns: string): void {
  if (ns.includes(":")) throw badRequest(`'${ns}' is not a kv namespace: a namespace cannot contain ':' (it ends at the first ':' of the key).`);
}
