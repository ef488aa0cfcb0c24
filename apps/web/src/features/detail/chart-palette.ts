import { useMemo } from 'react';
import { useThemeMode } from '../../lib/theme';
import { modelColourVariable } from './detail-rules';

export interface ChartPalette {
  text: string;
  grid: string;
  /** The colour of the model at this index of ChartData.models. */
  model: (index: number) => string;
  line: string;
}

// Light-theme values of the same variables, for a first paint before Semi's stylesheet applies.
const FALLBACK = { text: 'rgba(28, 31, 35, 0.62)', grid: 'rgba(28, 31, 35, 0.08)', data: '#5769ff' };

/**
 * Semi's theme colours as concrete values. SVG presentation attributes (recharts' fill, stroke)
 * do not resolve CSS variables reliably, so they are read from the body, where Semi switches its
 * palette between light and dark, and read again whenever the theme changes.
 */
export function useChartPalette(): ChartPalette {
  const [mode] = useThemeMode();
  return useMemo(() => {
    const style = getComputedStyle(document.body);
    const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    const models = Array.from({ length: 20 }, (_, index) => read(modelColourVariable(index), FALLBACK.data));
    return {
      text: read('--semi-color-text-2', FALLBACK.text),
      grid: read('--semi-color-border', FALLBACK.grid),
      model: (index: number) => models[index % models.length]!,
      line: read('--semi-color-primary', FALLBACK.data),
    };
    // `mode` is not read inside, but the body's variables change with it.
  }, [mode]);
}
