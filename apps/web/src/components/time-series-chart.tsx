"use client";

import { useEffect, useMemo, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

import { clockTime, localDateTime } from "@/lib/format";
import { useTheme } from "@/lib/theme";

// Time-axis steps in seconds. uPlot's own list jumps from 1 min to 5 min, so a few minutes of
// history got a single tick; 2 min (and 2 h, 12 h) fill the gaps.
const TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 2 * 86400, 7 * 86400, 30 * 86400];

const PALETTE = ["#0284c7", "#059669", "#d97706", "#7c3aed", "#dc2626", "#0891b2", "#65a30d", "#db2777"];

function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  const abs = Math.abs(v);
  if (abs >= 1e9) return `${(v / 1e9).toFixed(2)}G`;
  if (abs >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${(v / 1e3).toFixed(1)}k`;
  return Number.isInteger(v) ? String(v) : v.toFixed(abs < 1 ? 3 : 1);
}

export interface ChartSeries {
  label: string;
  values: readonly (number | null)[];
  colorIndex?: number;
}

/**
 * Numeric series over time (uPlot: stays fast with thousands of points): one (`values`) or
 * several sharing the time axis (`series`). The legend shows the time and values under the
 * cursor; charts sharing `syncKey` move their cursors together. Gaps (null) stay gaps.
 */
export function TimeSeriesChart({
  title,
  rawKey,
  hint,
  times,
  values,
  series,
  colorIndex = 0,
  height = 160,
  syncKey,
  format = formatValue,
  testId = "stats-chart",
}: {
  /** A plain name ("Task time, slowest 5% (ms)"): the caption, the legend and the chart's accessible name. */
  title: string;
  /** The field's own name (`latency_p95_ms`), shown small beside the title. */
  rawKey?: string;
  /** One line of explanation under the title. */
  hint?: string;
  /** Unix seconds, ascending. */
  times: readonly number[];
  values?: readonly (number | null)[];
  /** Several series on one chart; `values` is ignored when given. */
  series?: readonly ChartSeries[];
  colorIndex?: number;
  height?: number;
  syncKey?: string;
  /** How values are written on the axis and in the legend. */
  format?: (v: number | null | undefined) => string;
  testId?: string;
}) {
  const lines: readonly ChartSeries[] = useMemo(() => series ?? [{ label: title, values: values ?? [], colorIndex }], [series, title, values, colorIndex]);
  const shape = lines.map((l) => `${l.label}:${l.colorIndex ?? 0}`).join("|");
  const wrap = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const { dark } = useTheme();

  // Build once per theme; data changes go through setData (no re-creation, no flicker).
  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt per theme and series shape only; new data goes through setData below
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const axis = dark ? "#94a3b8" : "#475569";
    const grid = dark ? "rgba(148,163,184,0.15)" : "rgba(100,116,139,0.15)";

    // A chart as narrow as a phone gets less height: a dozen of them stack one under another.
    const heightFor = (width: number) => (width < 420 ? Math.min(height, 120) : height);
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: heightFor(el.clientWidth),
      cursor: { sync: syncKey ? { key: syncKey } : undefined, drag: { x: true, y: false } },
      legend: { show: true, live: true },
      hooks: {
        // Not hovering, the legend shows the newest point (its time and values) rather than a row of dashes.
        setLegend: [
          (u) => {
            const n = u.data[0]?.length ?? 0;
            if ((u.legend.idx === null || u.legend.idx === undefined) && n > 0) u.setLegend({ idx: n - 1 });
          },
        ],
      },
      scales: { x: { time: true } },
      axes: [
        {
          stroke: axis,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          size: 32,
          space: 50,
          incrs: TIME_INCRS,
          // Time of day only (seconds when ticks are closer than a minute); the legend has the date.
          values: (_u, splits, _axis, _space, incr) => splits.map((v) => clockTime(v, { seconds: incr < 60 })),
        },
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, size: 52, values: (_u, splits) => splits.map((v) => format(v)) },
      ],
      series: [
        // Today's points by their clock time (the legend stays one line under a narrow chart), older ones with the date.
        { label: "time", value: (_u, v) => (v === null ? "—" : new Date(v * 1000).toDateString() === new Date().toDateString() ? clockTime(v) : localDateTime(v)) },
        ...lines.map((l, i) => {
          const color = PALETTE[(l.colorIndex ?? i) % PALETTE.length]!;
          return {
            label: l.label,
            stroke: color,
            width: 1.5,
            // one series: filled under; several: lines only, so none hides another
            fill: lines.length === 1 ? `${color}22` : undefined,
            spanGaps: false,
            points: { show: false },
            value: (_u: uPlot, v: number | null) => format(v),
          };
        }),
      ],
    };
    const u = new uPlot(opts, [[...times], ...lines.map((l) => [...l.values])] as uPlot.AlignedData, el);
    plot.current = u;
    if (times.length > 0) u.setLegend({ idx: times.length - 1 });
    const ro = new ResizeObserver(() => {
      u.setSize({ width: Math.max(200, el.clientWidth), height: heightFor(el.clientWidth) });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [dark, title, height, shape, syncKey]);

  useEffect(() => {
    const u = plot.current;
    if (!u) return;
    u.setData([[...times], ...lines.map((l) => [...l.values])] as uPlot.AlignedData);
    // The cursor off the chart: the legend follows the newest point.
    if (times.length > 0 && !((u.cursor.left ?? -1) >= 0)) u.setLegend({ idx: times.length - 1 });
  }, [times, lines]);

  // one series: its last value, as before; several: the last known value of each, named
  const single = values ?? [];
  const latest = !series
    ? single.length > 0
      ? format(single[single.length - 1])
      : ""
    : lines
        .map((l) => {
          for (let i = l.values.length - 1; i >= 0; i--) if (l.values[i] !== null && l.values[i] !== undefined) return `${l.label} ${format(l.values[i])}`;
          return null;
        })
        .filter(Boolean)
        .join(", ");

  return (
    <figure className="min-w-0">
      <figcaption className="mb-1 text-xs">
        <span className="flex flex-wrap items-baseline gap-x-2">
          <span className="font-medium text-slate-800 dark:text-slate-200">{title}</span>
          {rawKey && rawKey !== title && <code className="font-mono text-[0.6875rem] text-slate-500 dark:text-slate-400">{rawKey}</code>}
        </span>
        {hint && <span className="block text-slate-500 dark:text-slate-400">{hint}</span>}
      </figcaption>
      <div
        ref={wrap}
        role="img"
        aria-label={`${title} over time, ${times.length} points${latest ? `, latest ${latest}` : ""}`}
        data-testid={testId}
        data-points={times.length}
        className="fleet-chart w-full"
      />
    </figure>
  );
}
