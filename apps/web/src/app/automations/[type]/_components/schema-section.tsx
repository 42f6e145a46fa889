"use client";
// A catalog schema rendered for reading: a table of its fields (type, bounds, default,
// description), with the raw JSON Schema one click away.
import { schemaFields } from "@/components/config-editor";
import { CopyButton, JsonView } from "@/components";

const FIELD_COLUMNS = ["Field", "Type", "Bounds", "Default", "Description"] as const;
export function SchemaSection({ name, title, schema, hint }: { name: string; title: string; schema: unknown; hint: string }) {
  const fields = schema === null || schema === undefined ? [] : schemaFields(schema);
  const headingId = `schema-${name}`;
  const description =
    typeof schema === "object" && schema !== null && typeof (schema as Record<string, unknown>).description === "string"
      ? ((schema as Record<string, unknown>).description as string)
      : null;
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <div>
        <h3 id={headingId} className="text-base font-semibold">
          {title}
        </h3>
        <p className="text-sm text-slate-600 dark:text-slate-400">{description ?? hint}</p>
      </div>
      {schema === null || schema === undefined ? (
        <p className="text-sm italic text-slate-500 dark:text-slate-400">Not declared: anything is accepted.</p>
      ) : fields.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">This schema names no fields; see the raw schema below.</p>
      ) : (
        <>
          {/* Phones get one card per field; wider screens the table. */}
          <ul className="flex flex-col divide-y divide-slate-100 rounded-lg border border-slate-200 sm:hidden dark:divide-slate-800 dark:border-slate-800">
            {fields.map((f) => (
              <li key={f.path.join("\u0000")} className="flex flex-col gap-1 px-3 py-2.5 text-sm" style={{ paddingLeft: `${0.75 + (f.path.length - 1) * 1}rem` }}>
                <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
                  <span className="font-medium">{f.title ?? f.path[f.path.length - 1]}</span>
                  <span className="font-mono text-xs text-slate-500 dark:text-slate-400">{f.path.join(".")}</span>
                  {f.required && (
                    <span className="rounded bg-amber-100 px-1 py-px text-[0.6875rem] font-medium text-amber-900 dark:bg-amber-900/40 dark:text-amber-200">required</span>
                  )}
                </div>
                {f.description && <p className="text-slate-700 dark:text-slate-300">{f.description}</p>}
                <p className="flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-600 dark:text-slate-400">
                  <span className="font-mono">{f.type}</span>
                  {f.bounds && <span>{f.bounds}</span>}
                  {f.default !== null && (
                    <span className="break-all">
                      default <span className="font-mono">{f.default}</span>
                    </span>
                  )}
                </p>
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto rounded-lg border border-slate-200 sm:block dark:border-slate-800">
            <table className="w-full min-w-[40rem] border-collapse text-left text-sm">
              <caption className="sr-only">{title}: fields</caption>
              <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-900 dark:text-slate-400">
                <tr>
                  {FIELD_COLUMNS.map((c) => (
                    <th key={c} scope="col" className="px-3 py-2 font-medium">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                {fields.map((f) => (
                  <tr key={f.path.join("\u0000")} className="align-baseline">
                    <th scope="row" className="px-3 py-2 font-normal" style={{ paddingLeft: `${0.75 + (f.path.length - 1) * 1}rem` }}>
                      <span className="font-medium">{f.title ?? f.path[f.path.length - 1]}</span>
                      {f.required && (
                        <span className="ml-1.5 rounded bg-amber-100 px-1 py-px text-[0.6875rem] font-medium text-amber-900 dark:bg-amber-900/40 dark:text-amber-200">
                          required
                        </span>
                      )}
                      <span className="block break-all font-mono text-xs text-slate-500 dark:text-slate-400">{f.path.join(".")}</span>
                    </th>
                    <td className="px-3 py-2 font-mono text-xs">{f.type}</td>
                    <td className="px-3 py-2 text-xs">{f.bounds ?? <span className="text-slate-400">—</span>}</td>
                    <td className="max-w-[12rem] wrap-break-word px-3 py-2 font-mono text-xs">{f.default ?? <span className="font-sans text-slate-400">—</span>}</td>
                    <td className="px-3 py-2 text-slate-700 dark:text-slate-300">{f.description ?? <span className="text-slate-400">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {schema !== null && schema !== undefined && (
        <details className="group rounded-lg border border-slate-200 px-3 py-2 dark:border-slate-800">
          <summary className="cursor-pointer text-sm font-medium text-slate-700 dark:text-slate-300">Raw JSON Schema</summary>
          <div className="mt-2 flex justify-end">
            <CopyButton text={JSON.stringify(schema, null, 2)} label={`Copy the ${title.toLowerCase()}`} />
          </div>
          <JsonView value={schema} expandDepth={3} className="mt-1" />
        </details>
      )}
    </section>
  );
}
