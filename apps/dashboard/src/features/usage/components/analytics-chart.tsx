// Loaded on demand (React.lazy in usage-analytics.tsx): recharts is the largest dependency of the dashboard.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AnalyticsGroupBy } from '@switchyard/shared-dto';

import { formatMoney } from '../../../lib/money';
import type { AnalyticsRow } from '../lib/analytics-rows';

export type ChartMetric = 'cost' | 'totalTokens' | 'requests';

export const METRIC_LABELS: Record<ChartMetric, string> = {
  cost: 'Spend (USD)',
  totalTokens: 'Tokens',
  requests: 'Requests',
};

const MAX_BARS = 12;
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
const dayLabel = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

function formatValue(metric: ChartMetric, value: number): string {
  // The one money formatter of the dashboard: the axis, the tooltip and the table below say the same figures.
  if (metric === 'cost') return formatMoney(value);
  return compact.format(value);
}

function formatDay(label: string): string {
  const date = new Date(`${label}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? label : dayLabel.format(date);
}

interface AnalyticsChartProps {
  rows: AnalyticsRow[];
  groupBy: AnalyticsGroupBy;
  metric: ChartMetric;
}

/**
 * Bars over time (by day) or per group (model, key, app; the 12 largest). The table beside it carries the same
 * numbers for screen readers, so the drawing itself is one labelled image.
 */
export function AnalyticsChart({ rows, groupBy, metric }: AnalyticsChartProps) {
  const overTime = groupBy === 'day';
  const data = (overTime ? rows : rows.slice(0, MAX_BARS)).map((row) => ({ label: row.label, value: row[metric] }));
  const height = overTime ? 280 : Math.max(160, data.length * 36 + 40);
  const summary = `${METRIC_LABELS[metric]} by ${groupBy}${overTime ? '' : `, the ${data.length} largest`}. The table below has every number.`;

  return (
    <div className="chart" role="img" aria-label={summary}>
      <ResponsiveContainer width="100%" height={height}>
        {overTime ? (
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke="var(--border)" />
            <XAxis
              dataKey="label"
              tickFormatter={formatDay}
              tick={{ fill: 'var(--muted)', fontSize: 12 }}
              stroke="var(--border)"
              minTickGap={16}
            />
            <YAxis
              tickFormatter={(value: number) => formatValue(metric, value)}
              tick={{ fill: 'var(--muted)', fontSize: 12 }}
              stroke="var(--border)"
              width={84}
            />
            <Tooltip
              cursor={{ fill: 'var(--accent-soft)' }}
              contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' }}
              labelFormatter={(label) => formatDay(String(label))}
              formatter={(value) => [formatValue(metric, Number(value)), METRIC_LABELS[metric]]}
            />
            <Bar dataKey="value" fill="var(--accent)" radius={[3, 3, 0, 0]} isAnimationActive={false} />
          </BarChart>
        ) : (
          <BarChart
            data={data}
            layout="vertical"
            margin={{ top: 0, right: 16, bottom: 0, left: 0 }}
            accessibilityLayer={false}
          >
            <CartesianGrid horizontal={false} stroke="var(--border)" />
            <XAxis
              type="number"
              tickFormatter={(value: number) => formatValue(metric, value)}
              tick={{ fill: 'var(--muted)', fontSize: 12 }}
              stroke="var(--border)"
            />
            <YAxis
              type="category"
              dataKey="label"
              width={130}
              tick={{ fill: 'var(--text)', fontSize: 12 }}
              stroke="var(--border)"
            />
            <Tooltip
              cursor={{ fill: 'var(--accent-soft)' }}
              contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' }}
              formatter={(value) => [formatValue(metric, Number(value)), METRIC_LABELS[metric]]}
            />
            <Bar dataKey="value" fill="var(--accent)" radius={[0, 3, 3, 0]} isAnimationActive={false} />
          </BarChart>
        )}
      </ResponsiveContainer>
    </div>
  );
}
