"use client";
// One schema-driven form for the config editors and the task submission form:
// react-jsonschema-form with plain-word errors and live validation, so problems show
// before anything is sent. The browser checks with an interpreting validator: Ajv (what
// the server validates with, draft 2020-12) compiles schemas with `new Function`, which
// the console's Content-Security-Policy forbids.
import { useMemo } from "react";
import Form from "@rjsf/core";
import type { ErrorSchema, RJSFSchema, RJSFValidationError, UiSchema, ValidatorType } from "@rjsf/utils";

import { formTemplates, formWidgets } from "./form-theme";
import { InterpretingValidator } from "./interpreting-validator";
import { transformErrors } from "./messages";

/** A validator for one schema. */
export function makeValidator(): ValidatorType {
  return new InterpretingValidator();
}

export interface ValidationIssue {
  /** `slots`, `limits › max`; "" for the value as a whole. */
  where: string;
  message: string;
}

/** Validates a value the way the form does; the problems in plain words (empty when valid). */
export function validateValue(validator: ValidatorType, schema: RJSFSchema, value: unknown): ValidationIssue[] {
  const { errors } = validator.validateFormData(value, schema, undefined, transformErrors);
  const stripped = (errors as RJSFValidationError[]).map((e) => {
    const where = e.stack.endsWith(`: ${e.message}`) ? e.stack.slice(0, -(e.message!.length + 2)) : "";
    return { where, message: e.message ?? "Is not valid." };
  });
  return stripped;
}

/** Whether a schema is something a form can be generated from (an object with properties). */
export function isFormable(schema: unknown): schema is RJSFSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  const s = schema as Record<string, unknown>;
  return (s.type === "object" || s.type === undefined) && typeof s.properties === "object" && s.properties !== null;
}

export interface SchemaFormProps {
  schema: RJSFSchema;
  validator: ValidatorType;
  formData: unknown;
  onChange: (data: unknown) => void;
  extraErrors?: ErrorSchema;
  disabled?: boolean;
  /** Prefix of the generated field ids, so two forms on one page never share one. */
  idPrefix: string;
  uiSchema?: UiSchema;
  /**
   * One field shown inside a card that already names and explains it (the rollout form):
   * its label is kept for assistive technology only, its description is not repeated, and
   * the root lays its fields out in one column.
   */
  compact?: boolean;
}

export interface FormContext {
  compact?: boolean;
}

export function SchemaForm({ schema, validator, formData, onChange, extraErrors, disabled, idPrefix, uiSchema, compact = false }: SchemaFormProps) {
  const formContext = useMemo<FormContext>(() => ({ compact }), [compact]);
  const ui = useMemo<UiSchema>(() => ({ "ui:submitButtonOptions": { norender: true }, ...uiSchema }), [uiSchema]);
  return (
    <Form
      schema={schema}
      uiSchema={ui}
      validator={validator}
      formData={formData}
      onChange={(e) => onChange(e.formData)}
      onSubmit={() => undefined}
      templates={formTemplates}
      widgets={formWidgets}
      transformErrors={transformErrors}
      extraErrors={extraErrors}
      liveValidate="onChange"
      showErrorList={false}
      noHtml5Validate
      disabled={disabled}
      idPrefix={idPrefix}
      formContext={formContext}
      experimental_defaultFormStateBehavior={{ emptyObjectFields: "populateAllDefaults", arrayMinItems: { populate: "never" } }}
    />
  );
}
