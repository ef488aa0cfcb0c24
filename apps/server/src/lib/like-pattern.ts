import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * LIKE patterns with the user's text taken literally. `!` is the escape character because a
 * backslash means different things in MySQL and PostgreSQL string literals; `!` means the same
 * everywhere.
 */
const escapeLike = (text: string): string => text.replace(/[!%_]/g, (char) => `!${char}`);

export const likeContains = (text: string): string => `%${escapeLike(text)}%`;
export const likePrefix = (text: string): string => `${escapeLike(text)}%`;
export const likeSuffix = (text: string): string => `%${escapeLike(text)}`;

/** `column LIKE pattern` with the escape clause every pattern above needs. */
export function like(column: string, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '!'`;
}

/** Case-insensitive on every dialect (PostgreSQL's LIKE is case-sensitive, SQLite's and MySQL's are not). */
export function likeIgnoreCase(column: string, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern.toLowerCase()} escape '!'`;
}
