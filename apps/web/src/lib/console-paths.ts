import type { ConsolePath } from '../route-table';

/** Spec 01 §2: after a password login the user lands on the token list. */
export const POST_LOGIN_PATH: ConsolePath = '/token';

/** The personal settings screen, which the header's user menu links to. */
export const SETTINGS_PATH: ConsolePath = '/setting';
