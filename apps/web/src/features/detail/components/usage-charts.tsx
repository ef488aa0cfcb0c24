import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { abbreviateNumber } from '../../../lib/quota';
import type { ChartPalette } from '../chart-palette';
import { axisDigits, maxBucketQuota, type ChartData } from '../detail-rules';
import { ChartCard } from './chart-card';

const HEIGHT = 320;

// HTML (not SVG), so Semi's variables apply directly and follow the theme.
const tooltipStyle: CSSProperties = {
  background: 'var(--semi-color-bg-3)',
  border: '1px solid var(--semi-color-border)',
  borderRadius: 'var(--semi-border-radius-medium)',
  color: 'var(--semi-color-text-0)',
};
const tooltipLabelStyle: CSSProperties = { color: 'var(--semi-color-text-0)', fontWeight: 600 };

interface ChartProps {
  data: ChartData;
  palette: ChartPalette;
}

interface QuotaChartProps extends ChartProps {
  total: number;
  /** Quota in the console's money format; `digits` for the tooltip's finer amounts. */
  formatQuota: (quota: number, digits?: number) => string;
}

/** Quota per time bucket, one stacked bar segment per model. */
export function QuotaChart({ data, palette, total, formatQuota }: QuotaChartProps) {
  const { t } = useTranslation('detail');
  const axisTick = { fill: palette.text, fontSize: 12 };
  const highest = maxBucketQuota(data);
  const digits = axisDigits(highest, formatQuota);
  // Wide enough for the longest label (about 8 px a character at 12 px).
  const axisWidth = Math.max(72, 16 + 8 * formatQuota(highest, digits).length);
  return (
    <ChartCard title={t('charts.quota')} subtitle={t('charts.total', { value: formatQuota(total) })} testId="detail-chart-quota">
      <ResponsiveContainer width="100%" height={HEIGHT}>
        <BarChart data={data.buckets} margin={{ top: 8, right: 8, left: 8, bottom: 0 }}>
          <CartesianGrid stroke={palette.grid} vertical={false} />
          <XAxis dataKey="label" tick={axisTick} stroke={palette.grid} minTickGap={16} />
          <YAxis tick={axisTick} stroke={palette.grid} tickFormatter={(value: number) => formatQuota(value, digits)} width={axisWidth} />
          <Tooltip
            cursor={{ fill: palette.grid }}
            contentStyle={tooltipStyle}
            labelStyle={tooltipLabelStyle}
            formatter={(value) => formatQuota(Number(value), 4)}
          />
          <Legend itemSorter={null} wrapperStyle={{ color: palette.text }} />
          {data.models.map((model, index) => (
            <Bar
              key={model}
              name={model}
              dataKey={(bucket: ChartData['buckets'][number]) => bucket.quota[model] ?? 0}
              stackId="quota"
              fill={palette.model(index)}
              maxBarSize={48}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** Calls per model as a ring, in the models' colours of the quota chart. */
export function CallsChart({ data, palette, total }: ChartProps & { total: number }) {
  const { t } = useTranslation('detail');
  const colourOf = (model: string) => palette.model(Math.max(data.models.indexOf(model), 0));
  return (
    <ChartCard title={t('charts.calls')} subtitle={t('charts.total', { value: total.toLocaleString('en-US') })} testId="detail-chart-calls">
      <ResponsiveContainer width="100%" height={HEIGHT}>
        <PieChart>
          <Tooltip
            contentStyle={tooltipStyle}
            itemStyle={{ color: 'var(--semi-color-text-0)' }}
            formatter={(value) => t('charts.callsUnit', { value: Number(value).toLocaleString('en-US') })}
          />
          <Legend itemSorter={null} wrapperStyle={{ color: palette.text }} />
          <Pie data={data.calls} dataKey="count" nameKey="model" innerRadius="50%" outerRadius="78%" paddingAngle={data.calls.length > 1 ? 1 : 0} stroke="none">
            {data.calls.map((entry) => (
              <Cell key={entry.model} fill={colourOf(entry.model)} />
            ))}
          </Pie>
        </PieChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** Tokens of all models per time bucket. */
export function TokensChart({ data, palette, total }: ChartProps & { total: number }) {
  const { t } = useTranslation('detail');
  const axisTick = { fill: palette.text, fontSize: 12 };
  return (
    <ChartCard title={t('charts.tokens')} subtitle={t('charts.total', { value: total.toLocaleString('en-US') })} testId="detail-chart-tokens">
      <ResponsiveContainer width="100%" height={HEIGHT}>
        <LineChart data={data.buckets} margin={{ top: 8, right: 16, left: 8, bottom: 0 }}>
          <CartesianGrid stroke={palette.grid} vertical={false} />
          <XAxis dataKey="label" tick={axisTick} stroke={palette.grid} minTickGap={16} />
          <YAxis tick={axisTick} stroke={palette.grid} tickFormatter={(value: number) => abbreviateNumber(value)} width={56} />
          <Tooltip contentStyle={tooltipStyle} labelStyle={tooltipLabelStyle} formatter={(value) => Number(value).toLocaleString('en-US')} />
          <Legend itemSorter={null} wrapperStyle={{ color: palette.text }} />
          <Line type="monotone" dataKey="tokens" name={t('charts.tokensSeries')} stroke={palette.line} strokeWidth={2} dot={data.buckets.length <= 60} />
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
