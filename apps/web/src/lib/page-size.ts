import { DEFAULT_PAGE_SIZE, PAGE_SIZE_OPTIONS } from '@modelgate/contract';
import { useCallback, useState } from 'react';
import { readString, StorageKey, writeString } from './storage';

/** Spec 01 §9: one page size for every console table, remembered under localStorage `page-size`. */
export function readPageSize(): number {
  const stored = Number(readString(StorageKey.pageSize));
  return (PAGE_SIZE_OPTIONS as readonly number[]).includes(stored) ? stored : DEFAULT_PAGE_SIZE;
}

export function writePageSize(size: number): void {
  writeString(StorageKey.pageSize, String(size));
}

/** The remembered page size and a setter that also stores it (only the offered sizes are accepted). */
export function usePageSize(): [number, (size: number) => void] {
  const [size, setSize] = useState(readPageSize);
  const update = useCallback((next: number) => {
    if (!(PAGE_SIZE_OPTIONS as readonly number[]).includes(next)) return;
    writePageSize(next);
    setSize(next);
  }, []);
  return [size, update];
}

/** For Semi's Pagination/Table `pageSizeOpts`. */
export const PAGE_SIZE_CHOICES: number[] = [...PAGE_SIZE_OPTIONS];
