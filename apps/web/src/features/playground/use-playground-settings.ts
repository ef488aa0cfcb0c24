import { useEffect, useMemo } from 'react';
import type { UsableGroup } from './api';
import { chooseGroup, chooseModel, orderGroups } from './chat-request';
import type { PlaygroundSettings } from './conversation';

/**
 * Keeps the sidebar of the conversation on screen usable: a saved model or group that the user may
 * no longer use falls back to gpt-4o-mini (when offered) or the first model, and to the user's own
 * group. Answers the group names in the order the sidebar lists them (the user's own group first).
 */
export function usePlaygroundSettings(
  settings: PlaygroundSettings,
  update: (change: Partial<PlaygroundSettings>) => void,
  userGroup: string | undefined,
  models: string[] | undefined,
  groups: Record<string, UsableGroup> | undefined,
): string[] {
  const groupNames = useMemo(() => orderGroups(Object.keys(groups ?? {}), userGroup), [groups, userGroup]);

  useEffect(() => {
    if (models === undefined) return;
    const model = chooseModel(models, settings.model);
    if (model !== settings.model) update({ model });
  }, [models, settings.model, update]);

  useEffect(() => {
    if (groups === undefined) return;
    const group = chooseGroup(groupNames, settings.group);
    if (group !== settings.group) update({ group });
  }, [groups, groupNames, settings.group, update]);

  return groupNames;
}
