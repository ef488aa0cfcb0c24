import type { z } from 'zod';

export type AuthLevel = 'public' | 'user' | 'admin' | 'root';

/** What the description says about one route; the zod schemas are the ones the route parses with. */
export interface RouteDoc {
  summary: string;
  auth: AuthLevel;
  description?: string;
  /** The JSON body, as the route's parseInput reads it. */
  body?: z.ZodType;
  /** Query parameters: an object schema, one parameter per property. */
  query?: z.ZodType;
  /** A list read with lib/paging.ts: adds ?p= and ?page_size=. */
  paged?: boolean;
  /** Path parameters: an object schema keyed by parameter name (plain strings when absent). */
  params?: z.ZodType;
  /** The envelope's `data` on success, where its shape is fixed: a schema of @modelgate/contract's api/. */
  data?: z.ZodType;
  /** Fields a few routes answer beside success, message and data, as new-api does (an object schema). */
  beside?: z.ZodObject;
  /** Answers plain text instead of the envelope (payment notifications). */
  plainText?: boolean;
  /** Answers a CSV download (text/csv) instead of the envelope; a refusal before it starts is the envelope. */
  csv?: boolean;
}

/** Documented routes, keyed `METHOD /path` exactly as registered (`GET /api/token/:id`). */
export type RouteDocs = Readonly<Record<string, RouteDoc>>;
