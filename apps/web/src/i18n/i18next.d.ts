import 'i18next';
import type { resources } from './index';

// Typed keys: a misspelled or missing translation key fails `tsc` instead of showing the raw key.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: (typeof resources)['zh'];
    returnNull: false;
  }
}
