import { TabPane, Tabs } from '@douyinfe/semi-ui';
import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionRoles } from '../../lib/session';
import { useUrlParams } from '../../lib/use-url-filters';
import { PersonalSettings } from './components/personal-settings';
import { OperationSettings } from './operation/operation-settings';
import { OtherSettings } from './other/other-settings';
import { SystemSettings } from './system/system-settings';
import './settings.css';

type TabKey = 'personal' | 'operation' | 'system' | 'other';

interface SettingsTab {
  key: TabKey;
  /** Spec 01 §6: the operation, system and other tabs are for super administrators only. */
  rootOnly: boolean;
  component: ComponentType;
}

const SETTINGS_TABS: SettingsTab[] = [
  { key: 'personal', rootOnly: false, component: PersonalSettings },
  { key: 'operation', rootOnly: true, component: OperationSettings },
  { key: 'system', rootOnly: true, component: SystemSettings },
  { key: 'other', rootOnly: true, component: OtherSettings },
];

const DEFAULT_TAB: TabKey = 'personal';

/** /setting: the tab comes from ?tab= (default personal); a tab the viewer may not see falls back to it. */
export default function SettingsPage() {
  const { t } = useTranslation('settings');
  const { root } = useSessionRoles();
  const { params, update } = useUrlParams({ replace: true });

  const tabs = SETTINGS_TABS.filter((tab) => !tab.rootOnly || root);
  const requested = params.get('tab');
  const active = tabs.find((tab) => tab.key === requested) ?? tabs.find((tab) => tab.key === DEFAULT_TAB)!;

  const select = (key: string) => update({ tab: key });

  return (
    <div className="mg-page mg-settings">
      <Tabs type="line" activeKey={active.key} onChange={select} lazyRender keepDOM={false}>
        {tabs.map(({ key, component: Content }) => (
          <TabPane key={key} itemKey={key} tab={t(`tabs.${key}`)}>
            <div className="mg-settings-pane">
              <Content />
            </div>
          </TabPane>
        ))}
      </Tabs>
    </div>
  );
}
