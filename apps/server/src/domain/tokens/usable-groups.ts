import type { UsableGroup, UsableGroups } from '@modelgate/contract';
import type { OptionService } from '../options/option-service.js';

/**
 * The groups a user may pick for a token: the administrator's UserUsableGroups plus the user's
 * own group (described as 用户分组 when it is not listed), each with its GroupRatio (1 if unset).
 */
export function usableGroups(options: OptionService, userGroup: string): UsableGroups {
  const descriptions = options.json<Record<string, string>>('UserUsableGroups');
  const ratios = options.json<Record<string, number>>('GroupRatio');
  const groups: Record<string, UsableGroup> = {};
  for (const [name, desc] of Object.entries(descriptions)) groups[name] = { desc, ratio: ratios[name] ?? 1 };
  if (userGroup !== '' && !(userGroup in groups)) groups[userGroup] = { desc: '用户分组', ratio: ratios[userGroup] ?? 1 };
  return groups;
}

export const mayUseGroup = (options: OptionService, userGroup: string, group: string): boolean =>
  group === '' || Object.hasOwn(usableGroups(options, userGroup), group);
