import { renderToStaticMarkup } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { applyParamChanges, pageFromParam, pageParamChange, useUrlFilters } from './use-url-filters';

describe('applyParamChanges', () => {
  it('sets the changed parameters and keeps the others', () => {
    const next = applyParamChanges(new URLSearchParams('keyword=a&group=vip&p=3'), { keyword: 'b', model: 'gpt-4o' });
    expect(next.toString()).toBe('keyword=b&group=vip&p=3&model=gpt-4o');
  });

  it('drops a parameter set to null or to the empty text', () => {
    const next = applyParamChanges(new URLSearchParams('keyword=a&group=vip&p=3'), { keyword: '', p: null, absent: null });
    expect(next.toString()).toBe('group=vip');
  });

  it('leaves the parameters it was given alone', () => {
    const current = new URLSearchParams('p=2');
    applyParamChanges(current, { p: null });
    expect(current.toString()).toBe('p=2');
  });
});

describe('pages in the address', () => {
  it('reads a whole page from 1 up and anything else as page 1', () => {
    expect(pageFromParam('4')).toBe(4);
    expect(pageFromParam(null)).toBe(1);
    expect(pageFromParam('')).toBe(1);
    expect(pageFromParam('0')).toBe(1);
    expect(pageFromParam('-2')).toBe(1);
    expect(pageFromParam('two')).toBe(1);
    expect(pageFromParam('Infinity')).toBe(1);
    expect(pageFromParam('2.5')).toBe(2);
  });

  it('writes page 1 as the bare address', () => {
    expect(pageParamChange(1)).toEqual({ p: null });
    expect(pageParamChange(0)).toEqual({ p: null });
    expect(pageParamChange(5)).toEqual({ p: '5' });
  });
});

const readFilters = (params: URLSearchParams) => ({ keyword: params.get('keyword') ?? '', group: params.get('group') ?? '' });

function FilterProbe() {
  const { filters, page } = useUrlFilters(readFilters);
  return <output>{JSON.stringify({ ...filters, page })}</output>;
}

function render(address: string): unknown {
  const html = renderToStaticMarkup(
    <StaticRouter location={address}>
      <FilterProbe />
    </StaticRouter>,
  );
  const json = /<output>(.*)<\/output>/.exec(html)?.[1] ?? '';
  return JSON.parse(json.replaceAll('&quot;', '"'));
}

describe('useUrlFilters', () => {
  it('hands the screen its typed filters and page from the address', () => {
    expect(render('/channel?keyword=east&group=vip&p=3')).toEqual({ keyword: 'east', group: 'vip', page: 3 });
  });

  it('reads a bare address as no filters on page 1', () => {
    expect(render('/channel')).toEqual({ keyword: '', group: '', page: 1 });
  });
});
