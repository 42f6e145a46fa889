"use client";

import { useState } from "react";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const CHILD_PAGE = 100;

/**
 * A collapsible JSON tree rendered as text (never HTML). Objects and arrays deeper than
 * `expandDepth` start collapsed; long arrays show CHILD_PAGE entries at a time.
 */
export function JsonView({ value, expandDepth = 2, className }: { value: unknown; expandDepth?: number; className?: string }) {
  return (
    <div className={`pl-4 font-mono text-xs leading-5 break-all ${className ?? ""}`}>
      <Node value={value as Json} depth={0} expandDepth={expandDepth} name={null} last />
    </div>
  );
}

function Scalar({ value }: { value: Json }) {
  if (value === null) return <span className="text-slate-500 dark:text-slate-400">null</span>;
  if (typeof value === "string") return <span className="whitespace-pre-wrap text-emerald-700 dark:text-emerald-400">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="text-blue-700 dark:text-sky-400">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="text-purple-700 dark:text-purple-400">{String(value)}</span>;
  return <span>{String(value)}</span>;
}

function Key({ name }: { name: string | number | null }) {
  if (name === null) return null;
  if (typeof name === "number") return <span className="text-slate-500 dark:text-slate-400">{name}: </span>;
  return <span className="text-slate-700 dark:text-slate-300">{JSON.stringify(name)}: </span>;
}

function Node({ value, depth, expandDepth, name, last }: { value: Json; depth: number; expandDepth: number; name: string | number | null; last: boolean }) {
  const isArray = Array.isArray(value);
  const isObject = value !== null && typeof value === "object";
  const [open, setOpen] = useState(depth < expandDepth);
  const [shown, setShown] = useState(CHILD_PAGE);
  const comma = last ? "" : ",";

  if (!isObject) {
    return (
      <div style={{ paddingLeft: depth ? "1.25rem" : 0 }}>
        <Key name={name} />
        <Scalar value={value} />
        {comma}
      </div>
    );
  }

  const entries: [string | number, Json][] = isArray ? (value as Json[]).map((v, i) => [i, v]) : Object.entries(value as Record<string, Json>);
  const [openB, closeB] = isArray ? ["[", "]"] : ["{", "}"];
  const summary = isArray ? `${entries.length} item${entries.length === 1 ? "" : "s"}` : `${entries.length} key${entries.length === 1 ? "" : "s"}`;

  if (entries.length === 0) {
    return (
      <div style={{ paddingLeft: depth ? "1.25rem" : 0 }}>
        <Key name={name} />
        {openB}
        {closeB}
        {comma}
      </div>
    );
  }

  return (
    <div style={{ paddingLeft: depth ? "1.25rem" : 0 }}>
      <button
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        className="-ml-4 inline-flex w-4 justify-center rounded text-slate-500 hover:text-slate-900 dark:text-slate-400 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:text-slate-100"
        aria-label={`${open ? "Collapse" : "Expand"} ${name === null ? "value" : String(name)} (${summary})`}
      >
        {open ? "▾" : "▸"}
      </button>
      <Key name={name} />
      {openB}
      {!open && (
        <>
          <button type="button" onClick={() => setOpen(true)} className="mx-1 rounded px-1 text-slate-500 hover:bg-slate-100 dark:text-slate-400 dark:hover:bg-slate-800">
            {summary}
          </button>
          {closeB}
          {comma}
        </>
      )}
      {open && (
        <>
          {entries.slice(0, shown).map(([k, v], i) => (
            <Node key={String(k)} value={v} depth={depth + 1} expandDepth={expandDepth} name={isArray ? (k as number) : k} last={i === entries.length - 1} />
          ))}
          {entries.length > shown && (
            <div style={{ paddingLeft: "1.25rem" }}>
              <button type="button" className="link" onClick={() => setShown((s) => s + CHILD_PAGE * 10)}>
                show {Math.min(CHILD_PAGE * 10, entries.length - shown)} more of {entries.length - shown} hidden
              </button>
            </div>
          )}
          <div>
            {closeB}
            {comma}
          </div>
        </>
      )}
    </div>
  );
}
