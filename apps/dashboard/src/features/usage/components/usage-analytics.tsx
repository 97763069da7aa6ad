import { lazy, Suspense, useId, useMemo, useState } from 'react';
import type { AnalyticsGroup, AnalyticsGroupBy, AnalyticsResponse } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { QueryView } from '../../../components/ui/query-view';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { formatMoney } from '../../../lib/money';
import { Link } from '../../../lib/router';
import { useAnalytics } from '../api/get-analytics';
import { analyticsCsvColumns, analyticsRows, csvFileName, GROUP_BY_OPTIONS, groupColumn } from '../lib/analytics-rows';
import type { AnalyticsRow } from '../lib/analytics-rows';
import { buildCsv } from '../lib/csv';
import { presetRange, RANGE_PRESETS, rangeProblem } from '../lib/date-range';
import type { DateRange, RangePresetId } from '../lib/date-range';
import type { ChartMetric } from './analytics-chart';

const AnalyticsChart = lazy(() => import('./analytics-chart').then((module) => ({ default: module.AnalyticsChart })));

const METRICS: { value: ChartMetric; label: string }[] = [
  { value: 'cost', label: 'Spend' },
  { value: 'totalTokens', label: 'Tokens' },
  { value: 'requests', label: 'Requests' },
];

const count = new Intl.NumberFormat('en-US');
const PERIOD_OPTIONS: { value: RangePresetId | 'custom'; label: string }[] = [
  ...RANGE_PRESETS.map((preset) => ({ value: preset.id, label: preset.label })),
  { value: 'custom', label: 'Custom dates' },
];

function downloadCsv(text: string, fileName: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** A row's numbers (or the totals'), each labelled with its column for the stacked phone layout. */
function SumCells({ sums }: { sums: Omit<AnalyticsGroup, 'key'> }) {
  return (
    <>
      <td className="numeric" data-label="Requests">
        {count.format(sums.requests)}
      </td>
      <td className="numeric" data-label="Prompt tokens">
        {count.format(sums.promptTokens)}
      </td>
      <td className="numeric" data-label="Completion tokens">
        {count.format(sums.completionTokens)}
      </td>
      <td className="numeric" data-label="Total tokens">
        {count.format(sums.totalTokens)}
      </td>
      <td className="numeric" data-label="Spend">
        {formatMoney(sums.cost)}
      </td>
    </>
  );
}

interface UsageAnalyticsProps {
  /** Names of the apps the user authorized, by client id: app groups come keyed by client id. */
  appNames?: ReadonlyMap<string, string>;
}

/** Spend, tokens and requests over a date range, by day, model, key or app: a chart, a table and a CSV file. */
export function UsageAnalytics({ appNames }: UsageAnalyticsProps) {
  const id = useId();
  const [preset, setPreset] = useState<RangePresetId | 'custom'>('30d');
  const [range, setRange] = useState<DateRange>(() => presetRange('30d'));
  const [groupBy, setGroupBy] = useState<AnalyticsGroupBy>('day');
  const [metric, setMetric] = useState<ChartMetric>('cost');
  const problem = rangeProblem(range);
  const analytics = useAnalytics(range, groupBy, { enabled: problem === null });

  // The figures on screen belong to the answer's own range and grouping (the previous one while loading).
  const shown = analytics.data;
  const rows: AnalyticsRow[] = useMemo(
    () => (shown && shown.groupBy === groupBy ? analyticsRows(shown, range, appNames) : []),
    [shown, range, groupBy, appNames],
  );

  // The chart and the CSV file have every day; the table leaves out the days without calls.
  const tableRows = groupBy === 'day' ? rows.filter((row) => row.requests > 0) : rows;

  const choosePreset = (value: RangePresetId | 'custom') => {
    setPreset(value);
    if (value !== 'custom') setRange(presetRange(value));
  };

  const exportCsv = () => downloadCsv(buildCsv(analyticsCsvColumns(groupBy), rows), csvFileName(groupBy, range));

  const renderFigures = ({ totals }: AnalyticsResponse) => (
    <>
      <dl className="details" aria-live="polite">
        <div>
          <dt>Spend</dt>
          <dd className="balance-figure">{formatMoney(totals.cost)}</dd>
        </div>
        <div>
          <dt>Requests</dt>
          <dd>{count.format(totals.requests)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{count.format(totals.totalTokens)}</dd>
        </div>
      </dl>
      {totals.requests === 0 ? (
        <p className="muted">
          No calls in this range{groupBy === 'key' ? ' with an API key' : groupBy === 'app' ? ' by an OAuth app' : ''}.
          Try a model in the <Link href="/playground">Playground</Link>.
        </p>
      ) : (
        <>
          <fieldset className="fieldset segmented" aria-describedby={`${id}-metric-hint`}>
            <legend className="field-label">Chart</legend>
            <div className="segmented-options">
              {METRICS.map((option) => (
                <label key={option.value} className="segmented-option">
                  <input
                    type="radio"
                    name={`${id}-metric`}
                    value={option.value}
                    checked={metric === option.value}
                    onChange={() => setMetric(option.value)}
                  />
                  <span>{option.label}</span>
                </label>
              ))}
            </div>
            <p id={`${id}-metric-hint`} className="visually-hidden">
              What the bars measure.
            </p>
          </fieldset>
          <Suspense fallback={<p className="muted chart-placeholder">Drawing the chart…</p>}>
            <AnalyticsChart rows={rows} groupBy={groupBy} metric={metric} />
          </Suspense>
        </>
      )}
      <div className="card-heading-row">
        <h3 id={`${id}-table`} className="subheading">
          {GROUP_BY_OPTIONS.find((option) => option.value === groupBy)?.heading}
        </h3>
        <Button variant="secondary" onClick={exportCsv} disabled={analytics.isPlaceholderData}>
          Export CSV
        </Button>
      </div>
      {groupBy === 'day' ? (
        <p className="muted small">Days without calls are left out of the table; the CSV file has every day.</p>
      ) : null}
      <div className="table-scroll">
        <table
          className="data-table stack-on-phone"
          aria-labelledby={`${id}-table`}
          aria-busy={analytics.isPlaceholderData || undefined}
        >
          <thead>
            <tr>
              <th scope="col">{groupColumn(groupBy)}</th>
              <th scope="col" className="numeric">
                Requests
              </th>
              <th scope="col" className="numeric">
                Prompt tokens
              </th>
              <th scope="col" className="numeric">
                Completion tokens
              </th>
              <th scope="col" className="numeric">
                Total tokens
              </th>
              <th scope="col" className="numeric">
                Spend
              </th>
            </tr>
          </thead>
          <tbody>
            {tableRows.map((row) => (
              <tr key={row.key}>
                <th scope="row" className="data-table-name" data-label={groupColumn(groupBy)}>
                  {groupBy === 'model' ? <code className="mono">{row.label}</code> : row.label}
                </th>
                <SumCells sums={row} />
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <SumCells sums={totals} />
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );

  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="card-title">
        Analytics
      </h2>
      <div className="filter-row">
        <SelectField label="Period" value={preset} options={PERIOD_OPTIONS} onChange={choosePreset} />
        <TextField
          label="From"
          type="date"
          value={range.from}
          max={range.to}
          aria-invalid={problem !== null || undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => {
            setPreset('custom');
            setRange({ ...range, from: event.target.value });
          }}
        />
        <TextField
          label="To"
          type="date"
          value={range.to}
          min={range.from}
          aria-invalid={problem !== null || undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => {
            setPreset('custom');
            setRange({ ...range, to: event.target.value });
          }}
        />
        <SelectField label="Group by" value={groupBy} options={GROUP_BY_OPTIONS} onChange={setGroupBy} />
      </div>
      <p className="field-hint">Days are UTC calendar days; both dates are included.</p>
      {problem ? (
        <p id={`${id}-problem`} className="field-errors" role="alert">
          {problem}
        </p>
      ) : null}
      {problem ? null : (
        <QueryView query={analytics} what="usage">
          {renderFigures}
        </QueryView>
      )}
    </section>
  );
}
