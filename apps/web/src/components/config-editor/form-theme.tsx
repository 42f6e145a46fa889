"use client";
// react-jsonschema-form styled with Tailwind: labels and help from `title` and
// `description`, enums as selects, booleans as switches, numbers with their bounds, and
// errors in plain words right under the field they are about. Descriptions and titles
// are rendered as text (never markdown or HTML): schemas are data too.
import { useCallback, type ChangeEvent, type FocusEvent } from "react";
import {
  ariaDescribedByIds,
  descriptionId,
  enumOptionSelectedValue,
  enumOptionValueDecoder,
  enumOptionValueEncoder,
  errorId,
  getInputProps,
  helpId,
  type BaseInputTemplateProps,
  type DescriptionFieldProps,
  type FieldErrorProps,
  type FieldHelpProps,
  type FieldTemplateProps,
  type IconButtonProps,
  type ObjectFieldTemplateProps,
  type RegistryWidgetsType,
  type SubmitButtonProps,
  type TemplatesType,
  type TitleFieldProps,
  type WidgetProps,
} from "@rjsf/utils";

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm " +
  "placeholder:text-slate-400 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/40 " +
  "disabled:cursor-not-allowed disabled:bg-slate-100 disabled:text-slate-500 " +
  "aria-[invalid=true]:border-red-500 aria-[invalid=true]:ring-red-500/30 " +
  "dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:disabled:bg-slate-800";

function short(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** "0 to 64", "at least 1", "up to 300 characters": the bounds a person must respect. */
export function boundsText(schema: Record<string, unknown>): string | null {
  const t = schema.type;
  // zod's int() emits the safe-integer range as bounds: not worth showing.
  const bounded = (v: unknown): v is number => typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER;
  schema = Object.fromEntries(Object.entries(schema).filter(([k, v]) => !["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].includes(k) || bounded(v)));
  if (t === "number" || t === "integer") {
    const lo = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum : undefined;
    const hi = typeof schema.maximum === "number" ? schema.maximum : typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum : undefined;
    const loX = typeof schema.exclusiveMinimum === "number";
    const hiX = typeof schema.exclusiveMaximum === "number";
    const whole = t === "integer" ? "whole number " : "number ";
    // Thousands separators: 86,400,000 reads at a glance, 86400000 does not.
    const fmt = (n: number | undefined) => (n === undefined ? "" : n.toLocaleString("en-US", { maximumFractionDigits: 20 }));
    if (lo !== undefined && hi !== undefined) return `A ${whole}from ${fmt(lo)}${loX ? " (exclusive)" : ""} to ${fmt(hi)}${hiX ? " (exclusive)" : ""}`;
    if (lo !== undefined) return `A ${whole}${loX ? "above" : "of at least"} ${fmt(lo)}`;
    if (hi !== undefined) return `A ${whole}${hiX ? "below" : "of at most"} ${fmt(hi)}`;
    return t === "integer" ? "A whole number" : null;
  }
  if (t === "string") {
    const lo = typeof schema.minLength === "number" ? schema.minLength : undefined;
    const hi = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
    if (lo !== undefined && hi !== undefined) return `${lo} to ${hi} characters`;
    if (hi !== undefined) return `Up to ${hi} characters`;
    if (lo !== undefined) return `At least ${lo} characters`;
  }
  return null;
}

function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, children, errors, help, hidden, required, displayLabel, schema, rawErrors, fieldPathId, registry } = props;
  if (hidden) return <div className="hidden">{children}</div>;
  const compact = (registry.formContext as { compact?: boolean } | undefined)?.compact === true;
  // Compact (a card names and explains the field already): the label only for screen readers.
  const rawDescription = compact ? undefined : props.rawDescription;
  const isBoolean = schema.type === "boolean";
  const isObjectOrArray = schema.type === "object" || schema.type === "array";
  const bounds = boundsText(schema as Record<string, unknown>);
  const hasDefault = schema.default !== undefined && !isObjectOrArray;
  const invalid = (rawErrors?.length ?? 0) > 0;
  // rjsf hides the label of booleans (its checkbox carries one); our switch does not.
  const showLabel = (displayLabel || isBoolean) && label !== "";
  if (isObjectOrArray) {
    return (
      <div className="sm:col-span-2" data-field={fieldPathId.path.join(".")}>
        {children}
        {errors}
        {help}
      </div>
    );
  }
  return (
    <div className={`-mx-1 flex flex-col gap-1.5 rounded-lg p-1 ${invalid ? "bg-red-50/60 dark:bg-red-950/30" : ""}`} data-field={fieldPathId.path.join(".")}>
      {showLabel && (
        // The asterisk sits outside the label so the field's name stays the title alone;
        // `required` on the input tells assistive technology.
        <div className={compact ? "sr-only" : "text-sm font-medium text-slate-800 dark:text-slate-200"}>
          <label htmlFor={id}>{label}</label>
          {required && (
            <span className="ml-0.5 text-red-600" aria-hidden="true" title="required">
              *
            </span>
          )}
        </div>
      )}
      {isBoolean ? (
        <div className="flex items-start gap-3">
          {children}
          {showLabel && rawDescription ? (
            <p id={descriptionId(id)} className="text-sm text-slate-600 dark:text-slate-400">
              {rawDescription}
            </p>
          ) : null}
        </div>
      ) : (
        <>
          {displayLabel && rawDescription ? (
            <p id={descriptionId(id)} className="text-sm text-slate-600 dark:text-slate-400">
              {rawDescription}
            </p>
          ) : null}
          {children}
        </>
      )}
      {(bounds || hasDefault) && (
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {bounds}
          {bounds && hasDefault ? " · " : ""}
          {hasDefault ? `default ${short(schema.default)}` : ""}
        </p>
      )}
      {errors}
      {help}
    </div>
  );
}

function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps) {
  const list = errors.filter((e) => !!e);
  if (list.length === 0) return null;
  return (
    <ul id={errorId(fieldPathId)} className="flex flex-col gap-0.5 text-sm font-medium text-red-700 dark:text-red-400" role="alert">
      {list.map((e, i) => (
        <li key={i} className="flex gap-1.5">
          <span aria-hidden="true">⚠</span>
          <span>{e}</span>
        </li>
      ))}
    </ul>
  );
}

function FieldHelpTemplate({ help, fieldPathId }: FieldHelpProps) {
  if (!help) return null;
  return (
    <p id={helpId(fieldPathId)} className="text-xs text-slate-500 dark:text-slate-400">
      {typeof help === "string" ? help : help}
    </p>
  );
}

function DescriptionFieldTemplate({ id, description }: DescriptionFieldProps) {
  if (!description) return null;
  return (
    <p id={id} className="text-sm text-slate-600 dark:text-slate-400">
      {typeof description === "string" ? description : description}
    </p>
  );
}

function TitleFieldTemplate({ id, title, required }: TitleFieldProps) {
  return (
    <legend id={id} className="mb-1 text-sm font-semibold text-slate-900 dark:text-slate-100">
      {title}
      {required && (
        <span className="ml-0.5 text-red-600" aria-hidden="true">
          *
        </span>
      )}
    </legend>
  );
}

function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { title, description, properties, fieldPathId, schema, formData, onAddProperty, registry, disabled, readonly } = props;
  const isRoot = fieldPathId.path.length === 0;
  const { AddButton } = registry.templates.ButtonTemplates;
  const expandable = !!schema.additionalProperties && !isRoot;
  const compact = (registry.formContext as { compact?: boolean } | undefined)?.compact === true;
  const grid = <div className={`grid grid-cols-1 gap-x-6 gap-y-4 ${compact ? "" : "sm:grid-cols-2"}`}>{properties.filter((p) => !p.hidden).map((p) => p.content)}</div>;
  if (isRoot) {
    return (
      <div id={fieldPathId.$id} className="flex flex-col gap-4">
        {grid}
        {schema.additionalProperties !== false && typeof schema.additionalProperties === "object" && (
          <div>
            <AddButton onClick={onAddProperty} disabled={disabled || readonly} registry={registry} />
          </div>
        )}
      </div>
    );
  }
  return (
    <fieldset id={fieldPathId.$id} className="rounded-lg border border-slate-200 p-4 dark:border-slate-700">
      {title && <TitleFieldTemplate id={`${fieldPathId.$id}__title`} title={title} schema={schema} registry={registry} />}
      {description && (
        <p id={descriptionId(fieldPathId)} className="mb-3 text-sm text-slate-600 dark:text-slate-400">
          {description}
        </p>
      )}
      {grid}
      {expandable && formData !== undefined && (
        <div className="mt-3">
          <AddButton onClick={onAddProperty} disabled={disabled || readonly} registry={registry} />
        </div>
      )}
    </fieldset>
  );
}

function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { id, htmlName, value, readonly, disabled, autofocus, onBlur, onFocus, onChange, onChangeOverride, options, schema, rawErrors, type, placeholder, required } = props;
  const inputProps = getInputProps(schema, type, options);
  const numeric = inputProps.type === "number" || inputProps.type === "integer";
  const inputValue = numeric ? (value || value === 0 ? value : "") : value == null ? "" : value;
  const handleChange = useCallback(({ target: { value: v } }: ChangeEvent<HTMLInputElement>) => onChange(v === "" ? options.emptyValue : v), [onChange, options]);
  const handleBlur = useCallback(({ target }: FocusEvent<HTMLInputElement>) => onBlur(id, target.value), [onBlur, id]);
  const handleFocus = useCallback(({ target }: FocusEvent<HTMLInputElement>) => onFocus(id, target.value), [onFocus, id]);
  const invalid = (rawErrors?.length ?? 0) > 0;
  return (
    <input
      id={id}
      name={htmlName || id}
      className={`${inputClass} ${numeric ? "max-w-xs tabular-nums" : ""}`}
      readOnly={readonly}
      disabled={disabled}
      autoFocus={autofocus}
      placeholder={placeholder}
      required={required}
      value={inputValue as string | number}
      {...inputProps}
      onChange={onChangeOverride || handleChange}
      onBlur={handleBlur}
      onFocus={handleFocus}
      aria-invalid={invalid}
      aria-describedby={ariaDescribedByIds(id)}
    />
  );
}

function CheckboxWidget({ id, value, disabled, readonly, autofocus, onChange, onBlur, onFocus, htmlName, label, hideLabel, rawErrors }: WidgetProps) {
  const checked = value === true;
  return (
    <span className="inline-flex items-center gap-2">
      <input
        type="checkbox"
        role="switch"
        aria-checked={checked}
        id={id}
        name={htmlName || id}
        checked={checked}
        disabled={disabled || readonly}
        autoFocus={autofocus}
        onChange={(e) => onChange(e.target.checked)}
        onBlur={(e) => onBlur(id, e.target.checked)}
        onFocus={(e) => onFocus(id, e.target.checked)}
        aria-describedby={ariaDescribedByIds(id)}
        aria-invalid={(rawErrors?.length ?? 0) > 0}
        // Hidden label text keeps the switch named even when the field label is not shown.
        aria-label={hideLabel ? label : undefined}
        className={
          "relative h-6 w-11 shrink-0 cursor-pointer appearance-none rounded-full bg-slate-300 transition-colors " +
          "before:absolute before:left-0.5 before:top-0.5 before:h-5 before:w-5 before:rounded-full before:bg-white before:shadow before:transition-transform " +
          "checked:bg-sky-600 checked:before:translate-x-5 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-2 " +
          "disabled:cursor-not-allowed disabled:opacity-50 dark:bg-slate-600 dark:checked:bg-sky-500 dark:focus-visible:ring-offset-slate-900"
        }
      />
      <span className="w-7 text-xs font-medium text-slate-600 dark:text-slate-400" aria-hidden="true">
        {checked ? "On" : "Off"}
      </span>
    </span>
  );
}

function SelectWidget({
  schema,
  id,
  options,
  value,
  required,
  disabled,
  readonly,
  multiple = false,
  autofocus,
  onChange,
  onBlur,
  onFocus,
  placeholder,
  htmlName,
  rawErrors,
}: WidgetProps) {
  const { enumOptions, enumDisabled, emptyValue: optEmptyVal } = options;
  const emptyValue = multiple ? [] : "";
  const selectValue = enumOptionSelectedValue(value, enumOptions, multiple, undefined, emptyValue);
  const decode = (e: { target: HTMLSelectElement }) => {
    const v = multiple
      ? Array.from(e.target.options)
          .filter((o) => o.selected)
          .map((o) => o.value)
      : e.target.value;
    return enumOptionValueDecoder(v, enumOptions, undefined, optEmptyVal);
  };
  const showPlaceholder = !multiple && schema.default === undefined;
  return (
    <select
      id={id}
      name={htmlName || id}
      multiple={multiple}
      className={`${inputClass} max-w-xs`}
      value={selectValue as string | string[]}
      required={required}
      disabled={disabled || readonly}
      autoFocus={autofocus}
      onChange={(e) => onChange(decode(e))}
      onBlur={(e) => onBlur(id, decode(e))}
      onFocus={(e) => onFocus(id, decode(e))}
      aria-describedby={ariaDescribedByIds(id)}
      aria-invalid={(rawErrors?.length ?? 0) > 0}
    >
      {showPlaceholder && <option value="">{placeholder || "— choose —"}</option>}
      {Array.isArray(enumOptions) &&
        enumOptions.map(({ value: v, label: l }, i) => (
          <option key={String(v)} value={enumOptionValueEncoder(v, i, undefined)} disabled={enumDisabled?.includes(v)}>
            {l}
          </option>
        ))}
    </select>
  );
}

function TextareaWidget({ id, value, disabled, readonly, autofocus, onChange, onBlur, onFocus, options, htmlName, placeholder, rawErrors }: WidgetProps) {
  return (
    <textarea
      id={id}
      name={htmlName || id}
      className={`${inputClass} font-mono`}
      value={value ?? ""}
      rows={typeof options.rows === "number" ? options.rows : 4}
      disabled={disabled}
      readOnly={readonly}
      autoFocus={autofocus}
      placeholder={placeholder}
      onChange={(e) => onChange(e.target.value === "" ? options.emptyValue : e.target.value)}
      onBlur={(e) => onBlur(id, e.target.value)}
      onFocus={(e) => onFocus(id, e.target.value)}
      aria-describedby={ariaDescribedByIds(id)}
      aria-invalid={(rawErrors?.length ?? 0) > 0}
    />
  );
}

const smallButton =
  "inline-flex items-center gap-1 rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-700 " +
  "hover:bg-slate-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 " +
  "dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700";

/** One of rjsf's item buttons, drawn as a small labelled button. */
function IconButton({ text, aria, props }: { text: string; aria: string; props: IconButtonProps }) {
  const { iconType: _i, icon: _c, registry: _r, uiSchema: _u, className: _cl, ...rest } = props;
  return (
    <button type="button" className={smallButton} aria-label={aria} title={aria} {...rest}>
      {text}
    </button>
  );
}

const AddButton = (p: IconButtonProps) => <IconButton text="+ Add" aria="Add an item" props={p} />;
const CopyButton = (p: IconButtonProps) => <IconButton text="Copy" aria="Copy this item" props={p} />;
const MoveDownButton = (p: IconButtonProps) => <IconButton text="↓" aria="Move down" props={p} />;
const MoveUpButton = (p: IconButtonProps) => <IconButton text="↑" aria="Move up" props={p} />;
const RemoveButton = (p: IconButtonProps) => <IconButton text="Remove" aria="Remove this item" props={p} />;
const ClearButton = (p: IconButtonProps) => <IconButton text="Clear" aria="Clear" props={p} />;

function SubmitButton(_props: SubmitButtonProps) {
  // The editors own their buttons (review first, then save): rjsf's submit is not used.
  return null;
}

export const formTemplates: Partial<TemplatesType> = {
  FieldTemplate,
  FieldErrorTemplate,
  FieldHelpTemplate,
  DescriptionFieldTemplate,
  TitleFieldTemplate,
  ObjectFieldTemplate,
  BaseInputTemplate,
  ButtonTemplates: {
    SubmitButton,
    AddButton,
    CopyButton,
    MoveDownButton,
    MoveUpButton,
    RemoveButton,
    ClearButton,
  },
};

export const formWidgets: RegistryWidgetsType = {
  CheckboxWidget,
  SelectWidget,
  TextareaWidget,
};
