/** Where the footer, home and about pages point for the open-source project. */
export const PROJECT_URL = 'https://github.com/modelgate/modelgate';

/** Shown until the admin sets SystemName. */
export const DEFAULT_SYSTEM_NAME = 'modelgate';
