import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { UsableGroup } from './api';
import { chooseGroup, chooseModel, orderGroups } from './chat-request';
import { browserStore, loadSettings, saveSettings, type PlaygroundSettings } from './conversation';

export interface SettingsState {
  settings: PlaygroundSettings;
  update: (change: Partial<PlaygroundSettings>) => void;
  /** Group names in the order the sidebar lists them (the user's own group first). */
  groupNames: string[];
}

/**
 * The sidebar's values: the user's last choices (localStorage), checked against what the user may
 * use now. A saved model or group that is gone falls back to gpt-4o-mini (when offered) or the
 * first model, and to the user's own group.
 */
export function usePlaygroundSettings(
  userId: number,
  userGroup: string | undefined,
  models: string[] | undefined,
  groups: Record<string, UsableGroup> | undefined,
): SettingsState {
  const store = useRef(browserStore()).current;
  const [settings, setSettings] = useState<PlaygroundSettings>(() => (store ? loadSettings(store, userId) : loadSettings(emptyStore, userId)));
  const groupNames = useMemo(() => orderGroups(Object.keys(groups ?? {}), userGroup), [groups, userGroup]);

  useEffect(() => {
    if (models === undefined) return;
    setSettings((current) => {
      const model = chooseModel(models, current.model);
      return model === current.model ? current : { ...current, model };
    });
  }, [models]);

  useEffect(() => {
    if (groups === undefined) return;
    setSettings((current) => {
      const group = chooseGroup(groupNames, current.group);
      return group === current.group ? current : { ...current, group };
    });
  }, [groups, groupNames]);

  useEffect(() => {
    if (store) saveSettings(store, userId, settings);
  }, [store, userId, settings]);

  const update = useCallback((change: Partial<PlaygroundSettings>) => setSettings((current) => ({ ...current, ...change })), []);
  return { settings, update, groupNames };
}

const emptyStore = { getItem: () => null, setItem: () => undefined, removeItem: () => undefined };
