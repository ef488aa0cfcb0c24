import type { PricingVendor } from '../api';

/**
 * A vendor's mark, drawn as a lettered badge in its brand colour: the answer names a
 * @lobehub/icons icon (as new-api's does), but that package needs React 19 and antd, so the
 * console draws its own from the icon's name instead of loading anything at run time.
 */
const MARKS: Record<string, { letters: string; color: string }> = {
  OpenAI: { letters: 'AI', color: '#10a37f' },
  Claude: { letters: 'A', color: '#d97757' },
  Gemini: { letters: 'G', color: '#4285f4' },
  DeepSeek: { letters: 'DS', color: '#4d6bfe' },
  Qwen: { letters: 'Qw', color: '#615ced' },
  Moonshot: { letters: 'K', color: '#1f2937' },
  Zhipu: { letters: 'Z', color: '#3859ff' },
  Minimax: { letters: 'M', color: '#f23f5d' },
  Wenxin: { letters: '文', color: '#2932e1' },
  Hunyuan: { letters: '混', color: '#0055e9' },
  Doubao: { letters: '豆', color: '#7b5cff' },
  XAI: { letters: 'x', color: '#111827' },
  Mistral: { letters: 'M', color: '#fa520f' },
  Meta: { letters: 'M', color: '#0668e1' },
  Cohere: { letters: 'Co', color: '#39594d' },
  Jina: { letters: 'J', color: '#009191' },
  Yi: { letters: 'Yi', color: '#00513a' },
  Spark: { letters: '星', color: '#0070f0' },
  Midjourney: { letters: 'MJ', color: '#111827' },
  Suno: { letters: 'S', color: '#111827' },
  Kling: { letters: '可', color: '#0ba7e6' },
  Vidu: { letters: 'V', color: '#111827' },
  Cloudflare: { letters: 'CF', color: '#f38020' },
};

/** Vendors the console has no mark for get their initial in a colour picked from their name. */
const FALLBACK_COLORS = ['#6366f1', '#0ea5e9', '#14b8a6', '#f59e0b', '#ec4899', '#8b5cf6', '#64748b'];

function markOf(vendor: PricingVendor | undefined): { letters: string; color: string } {
  if (!vendor) return { letters: '?', color: '#94a3b8' };
  // new-api's icon names carry a variant after the dot (Claude.Color).
  const known = vendor.icon ? MARKS[vendor.icon.split('.')[0]!] : undefined;
  if (known) return known;
  let hash = 0;
  for (const char of vendor.name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { letters: [...vendor.name][0]?.toUpperCase() ?? '?', color: FALLBACK_COLORS[hash % FALLBACK_COLORS.length]! };
}

interface VendorIconProps {
  vendor: PricingVendor | undefined;
  size?: number;
  /** What a screen reader hears; the badge is decorative when the name is written beside it. */
  label?: string;
}

export function VendorIcon({ vendor, size = 20, label }: VendorIconProps) {
  const { letters, color } = markOf(vendor);
  return (
    <span
      className="mg-vendor-icon"
      style={{ width: size, height: size, fontSize: Math.round(size * (letters.length > 1 ? 0.42 : 0.55)), background: color }}
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      // Drawn by CSS from the attribute, so the letters never join the text of a button or row beside them.
      data-letters={letters}
      data-testid="vendor-icon"
    />
  );
}
