// The config editors: one worker's config (the worker page) and the fleet-wide rollout
// (the automation page); the schema-driven form and schema helpers they are built on.
export { ConfigEditor, ModeSwitch, type ConfigEditorProps } from "./config-editor";
export { ConfigRolloutEditor } from "./rollout-editor";
export { SchemaForm, isFormable, makeValidator, validateValue, type ValidationIssue } from "./schema-form";
export { parseJsonObject, RawJsonEditor } from "./raw-json-editor";
export { schemaFields, schemaAt, titleAt, type SchemaField } from "./schema-info";
export { useEditorSchema, withDefaults, configIssues, pretty } from "./shared";
export { detailsToErrorSchema, humanizeServerMessage, plainMessage } from "./messages";
export { diffConfig, mergePatchBetween, applyMergePatch, type ConfigChange } from "./diff";
export { EditorDialog } from "./editor-dialog";
export { ChangeList } from "./change-list";
export { AppliedStatus, OfflineWarning, appliedState, reportedGeneration } from "./worker-notes";
