"use client";
// What the worker editor and the rollout editor share: the schema kept referentially
// stable across refetches (rjsf and Ajv compile per schema object), the validator built
// for it, and the form's defaults.
import { useMemo } from "react";
import { getDefaultFormState, type RJSFSchema, type ValidatorType } from "@rjsf/utils";

import { isPlainObject, stripUndefined, type JsonObject } from "./diff";
import { isFormable, makeValidator, validateValue, type ValidationIssue } from "./schema-form";

export const FORM_DEFAULTS_BEHAVIOR = { emptyObjectFields: "populateAllDefaults", arrayMinItems: { populate: "never" } } as const;

export interface EditorSchema {
  /** The catalog's config schema as declared (null: the type has no catalog schema). */
  declared: unknown;
  /** The schema values are checked against, or null when anything (an object) goes. */
  validation: RJSFSchema | null;
  /** The schema a form can be generated from, or null: raw JSON mode only. */
  form: RJSFSchema | null;
  validator: ValidatorType;
}

export function useEditorSchema(declared: unknown): EditorSchema {
  const key = JSON.stringify(declared ?? null);
  return useMemo(() => {
    const parsed: unknown = JSON.parse(key);
    const validation: RJSFSchema | null = parsed === null || parsed === true ? null : parsed === false ? { not: {} } : isPlainObject(parsed) ? (parsed as RJSFSchema) : null;
    return { declared: parsed, validation, form: isFormable(parsed) ? parsed : null, validator: makeValidator() };
  }, [key]);
}

/** The config as the form shows it: stored values, and the schema's defaults where none is stored. */
export function withDefaults(s: EditorSchema, config: JsonObject): JsonObject {
  if (!s.form) return stripUndefined(config) as JsonObject;
  const filled = getDefaultFormState(s.validator, s.form, config, s.form, false, FORM_DEFAULTS_BEHAVIOR);
  return isPlainObject(filled) ? (stripUndefined(filled) as JsonObject) : (stripUndefined(config) as JsonObject);
}

/** Problems of a whole config: not an object, or what the schema rejects. */
export function configIssues(s: EditorSchema, value: unknown): ValidationIssue[] {
  if (!isPlainObject(value)) return [{ where: "", message: "The config must be a JSON object." }];
  return s.validation ? validateValue(s.validator, s.validation, value) : [];
}

export function pretty(value: unknown): string {
  return JSON.stringify(stripUndefined(value), null, 2);
}
