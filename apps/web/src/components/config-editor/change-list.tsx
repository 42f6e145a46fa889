"use client";
// The review's heart: each changed setting with its old value beside the new one, named
// by the schema's titles. Values are text (JSON), never markup.
import { hasPath, type ConfigChange } from "./diff";
import { schemaAt, titleAt } from "./schema-info";

const MAX_CHARS = 400;

function Value({ value }: { value: unknown }) {
  const text = JSON.stringify(value, null, typeof value === "object" && value !== null ? 2 : undefined) ?? "undefined";
  const shown = text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}… (${text.length} characters)` : text;
  return <code className="whitespace-pre-wrap break-all font-mono text-[0.8125rem]">{shown}</code>;
}

function Muted({ children }: { children: React.ReactNode }) {
  return <span className="italic text-slate-500 dark:text-slate-400">{children}</span>;
}

export function ChangeList({
  changes,
  schema,
  stored,
  caption,
}: {
  changes: ConfigChange[];
  schema: unknown;
  /** The config as stored, to tell a value that was set from one that is only the default. */
  stored?: unknown;
  caption?: string;
}) {
  if (changes.length === 0) return <p className="text-slate-600 dark:text-slate-400">No changes.</p>;
  return (
    <table className="w-full table-fixed border-collapse text-left text-sm">
      {caption && <caption className="mb-2 text-left font-medium">{caption}</caption>}
      <thead>
        <tr className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500 dark:border-slate-700 dark:text-slate-400">
          <th scope="col" className="w-[34%] py-1.5 pr-3 font-medium">
            Setting
          </th>
          <th scope="col" className="w-[33%] py-1.5 pr-3 font-medium">
            Before
          </th>
          <th scope="col" className="w-[33%] py-1.5 font-medium">
            After
          </th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => {
          const key = c.path.join("\u0000");
          const fieldSchema = schemaAt(schema, c.path);
          const def = fieldSchema && fieldSchema.default !== undefined ? fieldSchema.default : undefined;
          const wasDefault = stored !== undefined && c.kind !== "added" && !hasPath(stored, c.path);
          return (
            <tr key={key} className="border-b border-slate-100 align-top last:border-0 dark:border-slate-800" data-testid="config-change">
              <th scope="row" className="py-2 pr-3 font-medium">
                <span className="break-words">{titleAt(schema, c.path)}</span>
                {titleAt(schema, c.path) !== c.path.join(".") && (
                  <span className="block break-all font-mono text-xs font-normal text-slate-500 dark:text-slate-400">{c.path.join(".")}</span>
                )}
              </th>
              <td className="py-2 pr-3 text-red-800 dark:text-red-300">
                {c.kind === "added" ? (
                  <Muted>not set{def !== undefined ? ` (default ${JSON.stringify(def)})` : ""}</Muted>
                ) : (
                  <>
                    <Value value={c.before} />
                    {wasDefault && <Muted> (default)</Muted>}
                  </>
                )}
              </td>
              <td className="py-2 text-emerald-800 dark:text-emerald-300">
                {c.kind === "removed" ? <Muted>removed{def !== undefined ? ` (falls back to default ${JSON.stringify(def)})` : ""}</Muted> : <Value value={c.after} />}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
