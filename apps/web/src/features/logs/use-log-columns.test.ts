import { describe, expect, it } from 'vitest';
import { defaultLogColumns, LOG_COLUMN_KEYS, mergeLogColumns } from './use-log-columns';

describe('log column choice', () => {
  it('shows every column but the group until the user chooses', () => {
    const choice = defaultLogColumns();
    expect(LOG_COLUMN_KEYS.filter((key) => !choice[key])).toEqual(['group']);
  });

  it('keeps what was stored and defaults what it does not name', () => {
    const choice = mergeLogColumns({ quota: false, group: true });
    expect(choice.quota).toBe(false);
    expect(choice.group).toBe(true);
    expect(choice.content).toBe(true);
  });

  it('ignores junk: a non-object, an array, non-boolean values', () => {
    expect(mergeLogColumns('x')).toEqual(defaultLogColumns());
    expect(mergeLogColumns([false])).toEqual(defaultLogColumns());
    expect(mergeLogColumns({ quota: 'no', unknown: false })).toEqual(defaultLogColumns());
  });
});
