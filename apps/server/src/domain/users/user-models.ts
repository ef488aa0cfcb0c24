import type { Db } from '../../db/index.js';

/**
 * Distinct model names of the enabled abilities in `groups`, sorted: what GET /api/user/models
 * lists for the user's usable groups (domain/tokens/usable-groups.ts).
 */
export async function modelsForGroups(db: Db, groups: string[]): Promise<string[]> {
  if (groups.length === 0) return [];
  const rows = await db.kysely
    .selectFrom('abilities')
    .select('model')
    .distinct()
    .where('group', 'in', groups)
    .where('enabled', '=', 1)
    .orderBy('model')
    .execute();
  return rows.map((row) => row.model);
}
