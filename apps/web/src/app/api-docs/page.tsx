// /api-docs: the HTTP API reference, rendered on the server from the same OpenAPI document
// GET /api/v1/openapi.json serves (src/server/api/openapi). Plain HTML: no script of its
// own, nothing fetched from elsewhere, so it needs nothing beyond the page CSP.
import type { Metadata } from "next";

import { PageHeader } from "@/components/page-header";
import { openApiDocument, ROLE_EXTENSION, EVENTS_EXTENSION, type JsonSchema, type OpenApiOperation } from "@/server/api/openapi/document";

import { SchemaText, constraints, schemaAnchor } from "./_components/schema-text";

export const metadata: Metadata = { title: "API reference" };
export const dynamic = "force-dynamic";

const METHOD_STYLE: Record<string, string> = {
  get: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  post: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  put: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  patch: "bg-violet-100 text-violet-900 dark:bg-violet-950 dark:text-violet-200",
  delete: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
};

const ROLE_STYLE: Record<string, string> = {
  public: "border-slate-300 text-slate-700 dark:border-slate-600 dark:text-slate-300",
  viewer: "border-slate-300 text-slate-700 dark:border-slate-600 dark:text-slate-300",
  operator: "border-amber-400 text-amber-900 dark:border-amber-700 dark:text-amber-200",
  admin: "border-red-400 text-red-900 dark:border-red-800 dark:text-red-200",
};

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function resolveRef(doc: JsonSchema, value: JsonSchema): JsonSchema {
  const ref = value.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return value;
  let node: unknown = doc;
  for (const key of ref.slice(2).split("/")) node = (node as JsonSchema | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")];
  return (node as JsonSchema | undefined) ?? value;
}

export default async function ApiDocsPage() {
  const doc = await openApiDocument();
  const { paths, tags, components, info } = doc;
  const errorResponses = components.responses;
  const server = doc.servers[0]!.url;

  const byTag = new Map<string, Array<{ path: string; method: string; op: OpenApiOperation }>>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { path, method, op }]);
    }
  }

  return (
    <div className="max-w-5xl">
      <PageHeader
        title="API reference"
        description={
          <>
            Every operation of the HTTP API under <code className="font-mono">{server}</code>, generated from the console&apos;s route table and schemas. The same document as
            OpenAPI 3.1:{" "}
            <a className="link" href={`${server}/openapi.json`}>
              {server}/openapi.json
            </a>
            .
          </>
        }
      />
      <div className="card mb-6 space-y-2 text-sm text-slate-700 dark:text-slate-300">
        <p>
          <Prose text={info.description} />
        </p>
        <p>
          Scripts authenticate with <code className="font-mono">Authorization: Bearer &lt;token&gt;</code> (tokens come from <code className="font-mono">FLEET_AUTH_TOKENS</code>);
          the <code className="font-mono">fleet</code> command-line tool wraps the common operations.
        </p>
      </div>

      <section aria-labelledby="errors" className="mb-8">
        <h2 id="errors" className="mb-2 text-sm font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">
          Errors
        </h2>
        <p className="mb-2 text-sm text-slate-700 dark:text-slate-300">
          Every error answers <code className="font-mono">{'{"error": {"code", "message", "details"}}'}</code> (
          <a className="link" href={`#${schemaAnchor("ErrorEnvelope")}`}>
            ErrorEnvelope
          </a>
          ). Each operation lists the statuses it can answer:
        </p>
        <ul className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
          {Object.entries(errorResponses).map(([name, r]) => (
            <li key={name} className="text-slate-700 dark:text-slate-300">
              <Prose text={r.description} />
            </li>
          ))}
        </ul>
      </section>

      <nav aria-label="API sections" className="mb-8">
        <h2 className="mb-2 text-sm font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">Sections</h2>
        <ul className="flex flex-wrap gap-2 text-sm">
          {tags
            .filter((t) => byTag.has(t.name))
            .map((t) => (
              <li key={t.name}>
                <a className="link" href={`#tag-${slug(t.name)}`}>
                  {t.name} ({byTag.get(t.name)!.length})
                </a>
              </li>
            ))}
          <li>
            <a className="link" href="#schemas">
              Schemas ({Object.keys(components.schemas).length})
            </a>
          </li>
        </ul>
      </nav>

      {tags
        .filter((t) => byTag.has(t.name))
        .map((t) => (
          <section key={t.name} aria-labelledby={`tag-${slug(t.name)}`} className="mb-10">
            <h2 id={`tag-${slug(t.name)}`} className="text-xl font-semibold tracking-tight">
              {t.name}
            </h2>
            <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">{t.description}</p>
            <div className="space-y-4">
              {byTag.get(t.name)!.map(({ path, method, op }) => (
                <OperationCard key={`${method} ${path}`} doc={doc} path={path} method={method} op={op} />
              ))}
            </div>
          </section>
        ))}

      <section aria-labelledby="schemas" className="mb-10">
        <h2 id="schemas" className="text-xl font-semibold tracking-tight">
          Schemas
        </h2>
        <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">The shapes the operations above refer to by name.</p>
        <div className="space-y-4">
          {Object.entries(components.schemas).map(([name, schema]) => (
            <section key={name} aria-labelledby={schemaAnchor(name)} className="card">
              <h3 id={schemaAnchor(name)} className="mb-2 font-mono text-sm font-semibold">
                {name}
              </h3>
              <SchemaText schema={schema} />
            </section>
          ))}
        </div>
      </section>
    </div>
  );
}

function OperationCard({ doc, path, method, op }: { doc: JsonSchema; path: string; method: string; op: OpenApiOperation }) {
  const role = op[ROLE_EXTENSION];
  const events = op[EVENTS_EXTENSION];
  const params = op.parameters ?? [];
  return (
    <article aria-labelledby={`op-${op.operationId}`} className="card" data-testid="api-operation">
      <h3 id={`op-${op.operationId}`} className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`rounded px-1.5 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_STYLE[method] ?? ""}`}>{method}</span>
        <code className="font-mono font-semibold break-all">{path}</code>
      </h3>
      <p className="mt-1 text-sm">
        <Prose text={op.summary} />
      </p>
      <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
        <div className="flex items-center gap-1">
          <dt>Role</dt>
          <dd>
            <span data-testid="api-role" className={`rounded border px-1.5 py-0.5 font-medium ${ROLE_STYLE[role] ?? ""}`}>
              {role}
            </span>
          </dd>
        </div>
        <div className="flex items-center gap-1">
          <dt>Operation id</dt>
          <dd>
            <code className="font-mono">{op.operationId}</code>
          </dd>
        </div>
        {op["x-fleet-extension"] === true && (
          <div className="flex items-center gap-1">
            <dt className="sr-only">Contract</dt>
            <dd>console extension (not in API.md)</dd>
          </div>
        )}
      </dl>
      {op.description && (
        <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
          <Prose text={op.description} />
        </p>
      )}

      {params.length > 0 && (
        <div className="mt-3">
          <h4 className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">Parameters</h4>
          {/* focusable: on a phone the table may scroll sideways, and a keyboard must reach it */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll box takes focus so a keyboard can scroll it (axe: scrollable-region-focusable) */}
          <div className="overflow-x-auto" tabIndex={0} role="group" aria-label={`Parameters of ${op.operationId}`}>
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-slate-600 dark:text-slate-400">
                <tr>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Name
                  </th>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    In
                  </th>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Type
                  </th>
                  <th scope="col" className="py-1 font-medium">
                    Description
                  </th>
                </tr>
              </thead>
              <tbody>
                {params.map((p) => (
                  <tr key={`${p.in}:${p.name}`} className="border-t border-slate-100 align-top dark:border-slate-800">
                    <td className="py-1 pr-3 font-mono text-xs">
                      {p.name}
                      {p.required ? <span className="text-red-700 dark:text-red-300"> (required)</span> : null}
                    </td>
                    <td className="py-1 pr-3 text-xs">{p.in}</td>
                    <td className="py-1 pr-3 font-mono text-xs">{paramType(p.schema ?? {})}</td>
                    <td className="py-1 text-xs">
                      <Prose text={p.description ?? ""} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}

      {op.requestBody && (
        <div className="mt-3">
          <h4 className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">
            Request body{op.requestBody.required ? "" : " (optional)"}: {Object.keys(op.requestBody.content).join(", ")}
          </h4>
          <SchemaText schema={Object.values(op.requestBody.content)[0]!.schema} />
        </div>
      )}

      <div className="mt-3">
        <h4 className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">Responses</h4>
        <ul className="space-y-2 text-sm">
          {Object.entries(op.responses)
            .filter(([status]) => status.startsWith("2"))
            .map(([status, raw]) => {
              const r = resolveRef(doc, raw);
              const content = (r.content ?? {}) as Record<string, { schema?: JsonSchema }>;
              const [type, body] = Object.entries(content)[0] ?? [];
              return (
                <li key={status}>
                  <span className="font-mono font-semibold text-emerald-800 dark:text-emerald-300">{status}</span>{" "}
                  <span className="text-slate-700 dark:text-slate-300">{String(r.description ?? "")}</span>
                  {type && (
                    <div className="mt-1">
                      <span className="text-xs text-slate-600 dark:text-slate-400">{type}</span>
                      {body?.schema && type.includes("json") ? <SchemaText schema={body.schema} /> : null}
                    </div>
                  )}
                </li>
              );
            })}
        </ul>
        <p className="mt-2 text-xs text-slate-700 dark:text-slate-300">
          Errors:{" "}
          {Object.keys(op.responses)
            .filter((status) => !status.startsWith("2"))
            .map((status) => `${status} ${errorCode(doc, op.responses[status]!)}`)
            .join(" · ")}
        </p>
        {events && (
          <div className="mt-3">
            <h4 className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">Event frames</h4>
            <ul className="space-y-1 text-sm">
              {Object.entries(events).map(([name, schema]) => (
                <li key={name}>
                  <code className="font-mono">event: {name}</code> — data: <SchemaInline schema={schema} />
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </article>
  );
}

/** Text with `code` spans, as the document's descriptions write them. */
function Prose({ text }: { text: string }) {
  return (
    <>
      {text.split(/(`[^`]+`)/).map((part, i) =>
        part.startsWith("`") && part.endsWith("`") && part.length > 2 ? (
          <code key={i} className="font-mono">
            {part.slice(1, -1)}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** `not_found` from an error response's description ("404 `not_found`: ..."). */
function errorCode(doc: JsonSchema, raw: JsonSchema): string {
  const description = String(resolveRef(doc, raw).description ?? "");
  return /`([a-z_]+)`/.exec(description)?.[1] ?? "";
}

function SchemaInline({ schema }: { schema: JsonSchema }) {
  const ref = typeof schema.$ref === "string" ? schema.$ref.split("/").pop()! : null;
  return ref ? (
    <a className="link font-mono" href={`#${schemaAnchor(ref)}`}>
      {ref}
    </a>
  ) : (
    <code className="font-mono">object</code>
  );
}

function paramType(schema: JsonSchema): string {
  const base = Array.isArray(schema.enum)
    ? schema.enum.map((v) => String(v)).join(" | ")
    : typeof schema.$ref === "string"
      ? schema.$ref.split("/").pop()!
      : String(schema.type ?? "any");
  const note = constraints(schema);
  return note ? `${base} (${note})` : base;
}
