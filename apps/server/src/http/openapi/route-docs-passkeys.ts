import {
  passkeyAssertionSchema,
  passkeyCeremonySchema,
  passkeyRegistrationSchema,
  passkeyStatusSchema,
  signedInUserSchema,
  verifyResultSchema,
} from '@modelgate/contract';
import { loginBeginBody, passkeyIdQuery, registerBeginBody, resetParams } from '../api/passkeys.js';
import type { RouteDocs } from './route-doc-types.js';

/** Passkeys (WebAuthn), on new-api's routes (http/api/passkeys.ts). */
export const PASSKEY_ROUTE_DOCS: RouteDocs = {
  'POST /api/user/passkey/login/begin': {
    summary: 'Begin signing in with a passkey (discoverable credentials, no username)',
    auth: 'public',
    body: loginBeginBody,
    data: passkeyCeremonySchema,
  },
  'POST /api/user/passkey/login/finish': {
    summary: "Finish signing in with a passkey: the browser's assertion; sets the session cookie",
    auth: 'public',
    body: passkeyAssertionSchema,
    data: signedInUserSchema,
  },
  'GET /api/user/passkey': { summary: "The signed-in user's passkeys", auth: 'user', data: passkeyStatusSchema },
  'POST /api/user/passkey/register/begin': {
    summary: 'Begin adding a passkey (needs a fresh verification)',
    auth: 'user',
    body: registerBeginBody,
    data: passkeyCeremonySchema,
  },
  'POST /api/user/passkey/register/finish': {
    summary: "Finish adding a passkey: the browser's new credential (needs a fresh verification)",
    auth: 'user',
    body: passkeyRegistrationSchema,
  },
  'DELETE /api/user/passkey': {
    summary: "Remove the signed-in user's passkeys, or the one named by ?id= (needs a fresh verification)",
    auth: 'user',
    query: passkeyIdQuery,
  },
  'POST /api/user/passkey/verify/begin': {
    summary: 'Begin re-verifying with one of your passkeys',
    auth: 'user',
    body: loginBeginBody,
    data: passkeyCeremonySchema,
  },
  'POST /api/user/passkey/verify/finish': {
    summary: 'Finish re-verifying with a passkey: the session counts as verified (POST /api/verify with method passkey confirms it)',
    auth: 'user',
    body: passkeyAssertionSchema,
    data: verifyResultSchema,
  },
  'DELETE /api/user/:id/reset_passkey': { summary: "Remove all of a user's passkeys (administrators)", auth: 'admin', params: resetParams },
};
