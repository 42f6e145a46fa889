// Shared UI building blocks; see README.md beside this file.
export { ConfirmDialog } from "./confirm-dialog";
export { CopyButton } from "./copy-button";
export { CorruptBadge } from "./corrupt-badge";
export { WrongTypeNote } from "./wrong-type-note";
export { DataTable, SortHeader, useWindowedRows, type Column } from "./data-table";
export { JsonView } from "./json-view";
export { PageHeader, type Crumb } from "./page-header";
export { RawValueView, classifyRaw, hexDump } from "./raw-value-view";
export { Countdown, RelativeTime } from "./relative-time";
export { EmptyState, ErrorState, LoadingState } from "./states";
export { StatusBadge } from "./status-badge";
export { useNow } from "./use-now";
export { ItemTable } from "./item-table";
export { PayloadPreview, bodyField } from "./payload-preview";
export { ActionNoteSlot, InlineEmpty, LimitSelect, Num, ResultNote, Section, Stat, TaskId, type ActionNote } from "./ui-bits";
