"use client";
// The engineers' mode: the config as JSON text, checked as it is typed (parse errors and
// the same schema validation the form uses), with problems listed right under the text.
import { useId } from "react";

import { inputClass } from "./form-theme";
import type { ValidationIssue } from "./schema-form";

export type ParseResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/** Parses the text as a JSON object, with a message a person can act on when it is not one. */
export function parseJsonObject(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `This is not valid JSON: ${msg.replace(/^JSON\.parse: /, "")}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: 'The config must be a JSON object: { "name": value, … }.' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

export function RawJsonEditor({
  label,
  text,
  onChange,
  parseError,
  issues,
  disabled,
  hint,
}: {
  label: string;
  text: string;
  onChange: (text: string) => void;
  parseError: string | null;
  issues: ValidationIssue[];
  disabled?: boolean;
  hint?: string;
}) {
  const id = useId();
  const errId = `${id}-errors`;
  const hintId = `${id}-hint`;
  const invalid = parseError !== null || issues.length > 0;
  // Grows with the text; five lines to start keep an empty payload ("{}") from looking like an essay box.
  const lines = Math.min(28, Math.max(5, text.split("\n").length + 1));
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      {hint && (
        <p id={hintId} className="text-sm text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
      <textarea
        id={id}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        rows={lines}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        disabled={disabled}
        aria-invalid={invalid}
        aria-describedby={[hint ? hintId : "", invalid ? errId : ""].filter(Boolean).join(" ") || undefined}
        className={`${inputClass} font-mono text-[0.8125rem] leading-5`}
      />
      {invalid && (
        <ul id={errId} role="alert" className="flex flex-col gap-0.5 text-sm font-medium text-red-700 dark:text-red-400">
          {parseError !== null ? (
            <li>⚠ {parseError}</li>
          ) : (
            issues.map((i, n) => (
              <li key={n}>
                ⚠ {i.where ? <code className="font-mono">{i.where}</code> : null}
                {i.where ? ": " : ""}
                {i.message}
              </li>
            ))
          )}
        </ul>
      )}
    </div>
  );
}
