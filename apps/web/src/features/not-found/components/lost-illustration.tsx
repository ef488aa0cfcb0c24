/** "404" with a compass as the zero; colours come from Semi variables so it follows light and dark mode. */
export function LostIllustration() {
  const digit = {
    fontSize: 88,
    fontWeight: 700,
    fill: 'var(--semi-color-primary-light-active)',
    fontFamily: 'system-ui, sans-serif',
    textAnchor: 'middle' as const,
  };
  return (
    <svg width="240" height="150" viewBox="0 0 240 150" role="img" aria-hidden="true">
      <ellipse cx="120" cy="136" rx="96" ry="8" fill="var(--semi-color-fill-1)" />
      <text x="48" y="108" {...digit}>
        4
      </text>
      <text x="192" y="108" {...digit}>
        4
      </text>
      <circle cx="120" cy="76" r="38" fill="var(--semi-color-bg-2)" stroke="var(--semi-color-primary)" strokeWidth="6" />
      <circle cx="120" cy="76" r="28" fill="none" stroke="var(--semi-color-border)" strokeWidth="2" strokeDasharray="2 6" />
      <g transform="rotate(35 120 76)">
        <path d="M120 48l8 28h-16z" fill="var(--semi-color-danger)" />
        <path d="M120 104l8-28h-16z" fill="var(--semi-color-text-2)" />
      </g>
      <circle cx="120" cy="76" r="4" fill="var(--semi-color-bg-2)" stroke="var(--semi-color-text-1)" strokeWidth="2" />
    </svg>
  );
}
