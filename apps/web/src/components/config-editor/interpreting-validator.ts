// rjsf's ValidatorType on top of json-schema-check (no code generation, so it runs under
// the console's CSP). The error handling mirrors @rjsf/validator-ajv8's: Ajv-shaped
// errors become RJSFValidationErrors placed on the field they are about (a missing
// required property on the property itself), then transformErrors, then the ErrorSchema.
import {
  createErrorHandler,
  getDefaultFormState,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";

import { checkSchema, type SchemaError } from "./json-schema-check";

function unescapePointer(seg: string): string {
  return seg.replaceAll("~1", "/").replaceAll("~0", "~");
}

export function toRjsfError(e: SchemaError): RJSFValidationError {
  const segs = e.instancePath === "" ? [] : e.instancePath.slice(1).split("/").map(unescapePointer);
  let property = segs.length > 0 ? `.${segs.join(".")}` : "";
  if (typeof e.params.missingProperty === "string") property = `${property}.${e.params.missingProperty}`;
  return {
    name: e.keyword,
    property,
    message: e.message,
    params: e.params,
    stack: `${property} ${e.message}`.trim(),
    schemaPath: e.schemaPath,
  };
}

// rjsf's own defaults (form data typed `any`) for every generic below
export class InterpretingValidator implements ValidatorType {
  validateFormData(formData: unknown, schema: RJSFSchema, customValidate?: CustomValidator, transformErrors?: ErrorTransformer, uiSchema?: UiSchema): ValidationData<unknown> {
    let errors = checkSchema(schema, formData).map(toRjsfError);
    if (typeof transformErrors === "function") errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema(errors);
    if (typeof customValidate !== "function") return { errors, errorSchema };
    const full = getDefaultFormState(this, schema, formData, schema, true);
    const handler = customValidate(full, createErrorHandler(full), uiSchema, errorSchema);
    return validationDataMerge({ errors, errorSchema }, unwrapErrorHandler(handler));
  }

  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    return checkSchema(schema, formData, rootSchema).length === 0;
  }

  rawValidation<Result = SchemaError>(schema: RJSFSchema, formData?: unknown): { errors?: Result[]; validationError?: Error } {
    const errors = checkSchema(schema, formData);
    return { errors: errors.length > 0 ? (errors as Result[]) : undefined };
  }

  reset(): void {}
}
