/**
 * The model pricing editor's rules (spec 01 §3 "Model pricing row", §5, §9), pure so they are
 * unit-tested without a browser. The five options are maps from model name to a number:
 * ModelPrice (USD per call), ModelRatio, CompletionRatio, CacheRatio (what a prompt token
 * served from the upstream's cache costs, relative to the model ratio) and CreateCacheRatio (what
 * a prompt token written into that cache costs). The visual table shows one row per
 * name found in any of them; a fixed price wins over the ratios, so a row saved with a price is
 * kept in ModelPrice only (as new-api's visual editor stores it).
 */

export const PRICING_KEYS = ['ModelPrice', 'ModelRatio', 'CompletionRatio', 'CacheRatio', 'CreateCacheRatio'] as const;
export type PricingKey = (typeof PRICING_KEYS)[number];

export type PriceMap = Record<string, number>;
export type PricingMaps = Record<PricingKey, PriceMap>;

/** The visual table's page size (spec 01 §9). */
export const PRICING_PAGE_SIZE = 10;

export interface ModelPricingRow {
  name: string;
  /** Fixed USD per call (ModelPrice). */
  price?: number;
  /** ModelRatio: 1 is $2 per 1M input tokens. */
  ratio?: number;
  /** CompletionRatio: output tokens cost this many times the input price. */
  completionRatio?: number;
  /** CacheRatio: cached prompt tokens cost this many times the input price (1 when unset). */
  cacheRatio?: number;
  /** CreateCacheRatio: prompt tokens written into the cache cost this many times the input price (1.25 when unset). */
  createCacheRatio?: number;
}

/** What the relay bills a cache write at for a model CreateCacheRatio does not list (new-api's). */
export const CREATE_CACHE_RATIO_FALLBACK = 1.25;

export type MapProblem = { kind: 'json' } | { kind: 'shape' } | { kind: 'value'; model: string };
export type ParsedMap = { ok: true; map: PriceMap } | { ok: false; problem: MapProblem };

/** An option's text as the map the server accepts: a JSON object of non-negative numbers. */
export function parsePriceMap(text: string): ParsedMap {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    return { ok: false, problem: { kind: 'json' } };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, problem: { kind: 'shape' } };
  const map: PriceMap = {};
  for (const [model, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return { ok: false, problem: { kind: 'value', model } };
    map[model] = value;
  }
  return { ok: true, map };
}

/** How an option's text is written when the table changes it (the server's own layout). */
export const stringifyPriceMap = (map: PriceMap): string => JSON.stringify(map, null, 2);

/** Same names with the same numbers, in any order. */
export function samePriceMap(a: PriceMap, b: PriceMap): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => Object.hasOwn(b, name) && b[name] === a[name]);
}

/** One row per model name in any map, in the order the names first appear (prices, ratios, completion ratios, cache ratios, cache-creation ratios). */
export function rowsFromMaps(maps: PricingMaps): ModelPricingRow[] {
  const rows = new Map<string, ModelPricingRow>();
  const rowOf = (name: string) => {
    let row = rows.get(name);
    if (!row) rows.set(name, (row = { name }));
    return row;
  };
  for (const [name, value] of Object.entries(maps.ModelPrice)) rowOf(name).price = value;
  for (const [name, value] of Object.entries(maps.ModelRatio)) rowOf(name).ratio = value;
  for (const [name, value] of Object.entries(maps.CompletionRatio)) rowOf(name).completionRatio = value;
  for (const [name, value] of Object.entries(maps.CacheRatio)) rowOf(name).cacheRatio = value;
  for (const [name, value] of Object.entries(maps.CreateCacheRatio)) rowOf(name).createCacheRatio = value;
  return [...rows.values()];
}

/** A row with a price and ratios at once (typed so in the JSON): the server bills the price. */
export const hasConflict = (row: ModelPricingRow): boolean =>
  row.price !== undefined &&
  (row.ratio !== undefined || row.completionRatio !== undefined || row.cacheRatio !== undefined || row.createCacheRatio !== undefined);

/** What each map holds for a row: a fixed price excludes the ratios. */
function rowValues(row: ModelPricingRow): Record<PricingKey, number | undefined> {
  if (row.price !== undefined) {
    return { ModelPrice: row.price, ModelRatio: undefined, CompletionRatio: undefined, CacheRatio: undefined, CreateCacheRatio: undefined };
  }
  return {
    ModelPrice: undefined,
    ModelRatio: row.ratio,
    CompletionRatio: row.completionRatio,
    CacheRatio: row.cacheRatio,
    CreateCacheRatio: row.createCacheRatio,
  };
}

/**
 * The maps after a row is added (`previousName` null) or edited (renamed when its name changed).
 * An edited name keeps its place in each map it stays in; a new entry goes last. Other rows are
 * left exactly as they were, conflicts included.
 */
export function upsertRow(maps: PricingMaps, previousName: string | null, row: ModelPricingRow): PricingMaps {
  const values = rowValues(row);
  const next = {} as PricingMaps;
  for (const key of PRICING_KEYS) {
    const value = values[key];
    const map: PriceMap = {};
    let placed = false;
    for (const [name, current] of Object.entries(maps[key])) {
      if (name === previousName || name === row.name) {
        if (value !== undefined && !placed) {
          map[row.name] = value;
          placed = true;
        }
        continue;
      }
      map[name] = current;
    }
    if (value !== undefined && !placed) map[row.name] = value;
    next[key] = map;
  }
  return next;
}

/** The maps without a model. */
export function deleteRow(maps: PricingMaps, name: string): PricingMaps {
  const next = {} as PricingMaps;
  for (const key of PRICING_KEYS) {
    const { [name]: _removed, ...rest } = maps[key];
    next[key] = rest;
  }
  return next;
}

/**
 * The option text to put in the card's draft after the table changed a map: undefined when the
 * map did not change, the stored text itself when the edit brought it back to what is saved (so
 * the card no longer counts it as a change), else the new map written out.
 */
export function nextOptionText(stored: string | undefined, current: PriceMap, next: PriceMap): string | undefined {
  if (samePriceMap(current, next)) return undefined;
  if (stored !== undefined) {
    const saved = parsePriceMap(stored);
    if (saved.ok && samePriceMap(saved.map, next)) return stored;
  }
  return stringifyPriceMap(next);
}

export type NumberProblem = 'notNumber' | 'negative';
export type ParsedNumber = { ok: true; value: number | undefined } | { ok: false; problem: NumberProblem };

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A typed price or ratio: empty is "not set"; anything but a plain decimal is 请输入数字. */
export function parseNumberInput(text: string): ParsedNumber {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: undefined };
  if (!DECIMAL.test(trimmed)) return { ok: false, problem: 'notNumber' };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { ok: false, problem: 'notNumber' };
  if (value < 0) return { ok: false, problem: 'negative' };
  return { ok: true, value };
}

/** The add/edit form, as typed. */
export interface RowDraft {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
  cacheRatio: string;
  createCacheRatio: string;
}

export type NameProblem = 'required' | 'duplicate';
export interface RowDraftErrors {
  name?: NameProblem;
  price?: NumberProblem;
  ratio?: NumberProblem;
  completionRatio?: NumberProblem;
  cacheRatio?: NumberProblem;
  createCacheRatio?: NumberProblem;
  /** Neither a price nor a ratio: the relay could not bill the model. */
  row?: 'noPrice';
}

export const fixedPriceTyped = (draft: RowDraft): boolean => draft.price.trim() !== '';

export const draftFromRow = (row: ModelPricingRow | null): RowDraft => ({
  name: row?.name ?? '',
  price: row?.price === undefined ? '' : String(row.price),
  ratio: row?.ratio === undefined ? '' : String(row.ratio),
  completionRatio: row?.completionRatio === undefined ? '' : String(row.completionRatio),
  cacheRatio: row?.cacheRatio === undefined ? '' : String(row.cacheRatio),
  createCacheRatio: row?.createCacheRatio === undefined ? '' : String(row.createCacheRatio),
});

/** A name taken by another row (an edited row may keep its own name). Names compare exactly, as the relay looks them up. */
export function isDuplicateName(rows: readonly ModelPricingRow[], name: string, previousName: string | null): boolean {
  return name !== previousName && rows.some((row) => row.name === name);
}

/**
 * Checks the form. With a fixed price typed the ratio fields are disabled and ignored (their
 * text is neither checked nor stored).
 */
export function validateRowDraft(
  draft: RowDraft,
  rows: readonly ModelPricingRow[],
  previousName: string | null,
): { row: ModelPricingRow; errors: null } | { row: null; errors: RowDraftErrors } {
  const errors: RowDraftErrors = {};
  const name = draft.name.trim();
  if (name === '') errors.name = 'required';
  else if (isDuplicateName(rows, name, previousName)) errors.name = 'duplicate';

  const fixed = fixedPriceTyped(draft);
  const price = parseNumberInput(draft.price);
  const ratio = fixed ? ({ ok: true, value: undefined } as const) : parseNumberInput(draft.ratio);
  const completionRatio = fixed ? ({ ok: true, value: undefined } as const) : parseNumberInput(draft.completionRatio);
  const cacheRatio = fixed ? ({ ok: true, value: undefined } as const) : parseNumberInput(draft.cacheRatio);
  const createCacheRatio = fixed ? ({ ok: true, value: undefined } as const) : parseNumberInput(draft.createCacheRatio);
  if (!price.ok) errors.price = price.problem;
  if (!ratio.ok) errors.ratio = ratio.problem;
  if (!completionRatio.ok) errors.completionRatio = completionRatio.problem;
  if (!cacheRatio.ok) errors.cacheRatio = cacheRatio.problem;
  if (!createCacheRatio.ok) errors.createCacheRatio = createCacheRatio.problem;
  if (price.ok && ratio.ok && price.value === undefined && ratio.value === undefined) errors.row = 'noPrice';

  if (Object.keys(errors).length > 0 || !price.ok || !ratio.ok || !completionRatio.ok || !cacheRatio.ok || !createCacheRatio.ok) {
    return { row: null, errors };
  }
  const row: ModelPricingRow = { name };
  if (price.value !== undefined) row.price = price.value;
  if (ratio.value !== undefined) row.ratio = ratio.value;
  if (completionRatio.value !== undefined) row.completionRatio = completionRatio.value;
  if (cacheRatio.value !== undefined) row.cacheRatio = cacheRatio.value;
  if (createCacheRatio.value !== undefined) row.createCacheRatio = createCacheRatio.value;
  return { row, errors: null };
}

/**
 * Spec 01 §9: 1M input tokens cost ratio × 2 USD, output tokens the completion ratio (1 when
 * unset, as the relay bills) times that. Null for fixed-price rows and rows without a ratio.
 */
export function tokenPrices(row: Pick<ModelPricingRow, 'price' | 'ratio' | 'completionRatio'>): { input: number; output: number } | null {
  if (row.price !== undefined || row.ratio === undefined) return null;
  const input = row.ratio * 2;
  return { input, output: input * (row.completionRatio ?? 1) };
}

/** Spec 01 §9's unit for a cached prompt token: 1M of them cost ratio × cache ratio × 2 USD. Null as tokenPrices, or without a cache ratio. */
export function cachedTokenPrice(row: Pick<ModelPricingRow, 'price' | 'ratio' | 'cacheRatio'>): number | null {
  if (row.price !== undefined || row.ratio === undefined || row.cacheRatio === undefined) return null;
  return row.ratio * 2 * row.cacheRatio;
}

/**
 * 1M prompt tokens written into the upstream's cache cost ratio × cache-creation ratio × 2 USD.
 * Null as tokenPrices, or without a cache-creation ratio (the relay then bills new-api's 1.25).
 */
export function cacheWriteTokenPrice(row: Pick<ModelPricingRow, 'price' | 'ratio' | 'createCacheRatio'>): number | null {
  if (row.price !== undefined || row.ratio === undefined || row.createCacheRatio === undefined) return null;
  return row.ratio * 2 * row.createCacheRatio;
}

/** Dollars without float noise (0.075 × 2 shows 0.15) or padding zeros. */
export const formatUsd = (value: number): string => `$${Number(value.toFixed(6)).toString()}`;

/** Rows whose name contains the search text, any case. */
export function filterRows(rows: readonly ModelPricingRow[], search: string): ModelPricingRow[] {
  const needle = search.trim().toLowerCase();
  return needle === '' ? [...rows] : rows.filter((row) => row.name.toLowerCase().includes(needle));
}

export const pageCount = (total: number, pageSize = PRICING_PAGE_SIZE): number => Math.max(1, Math.ceil(total / pageSize));

/** The page to show: past the last page (after deletes or a narrower search) falls back to the last one. */
export const clampPage = (page: number, total: number, pageSize = PRICING_PAGE_SIZE): number =>
  Math.min(Math.max(1, Math.floor(page) || 1), pageCount(total, pageSize));

export function pageRows<T>(rows: readonly T[], page: number, pageSize = PRICING_PAGE_SIZE): T[] {
  const start = (clampPage(page, rows.length, pageSize) - 1) * pageSize;
  return rows.slice(start, start + pageSize);
}

/** The page a model is on (1 when it is not listed), so a new row can be shown at once. */
export function pageOf(rows: readonly ModelPricingRow[], name: string, pageSize = PRICING_PAGE_SIZE): number {
  const index = rows.findIndex((row) => row.name === name);
  return index < 0 ? 1 : Math.floor(index / pageSize) + 1;
}
