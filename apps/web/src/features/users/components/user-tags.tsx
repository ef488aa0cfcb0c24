import { Role, UserStatus } from '@modelgate/contract';
import { Tag } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';

/** Spec 01 §3: 1 normal, 10 admin, 100 super admin. */
export function RoleTag({ role }: { role: number }) {
  const { t } = useTranslation('users');
  switch (role) {
    case Role.Common:
      return <Tag color="blue">{t('roles.common')}</Tag>;
    case Role.Admin:
      return <Tag color="orange">{t('roles.admin')}</Tag>;
    case Role.Root:
      return <Tag color="red">{t('roles.root')}</Tag>;
    default:
      return <Tag color="grey">{t('roles.unknown')}</Tag>;
  }
}

/** The user has two-factor sign-in on. */
export function TwoFactorTag() {
  const { t } = useTranslation('security');
  return (
    <Tag color="cyan" size="small" data-testid="user-2fa-tag">
      {t('users.twoFactorTag')}
    </Tag>
  );
}

/** Spec 01 §4: 1 activated, 2 banned, anything else unknown; a deregistered user shows only that. */
export function UserStatusTag({ status, deleted }: { status: number; deleted: boolean }) {
  const { t } = useTranslation('users');
  if (deleted) return <Tag color="grey">{t('status.deleted')}</Tag>;
  if (status === UserStatus.Enabled) return <Tag color="green">{t('status.enabled')}</Tag>;
  if (status === UserStatus.Disabled) return <Tag color="red">{t('status.disabled')}</Tag>;
  return <Tag color="grey">{t('status.unknown')}</Tag>;
}

type TagColor = 'red' | 'orange' | 'blue' | 'green';

/** Spec 01 §9: group ratio above 5 red, above 3 orange, above 1 blue, else green. */
export function groupRatioColor(ratio: number): TagColor {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}

/** A group name, coloured by its ratio when the ratio is known. */
export function GroupTag({ group, ratio }: { group: string; ratio?: number }) {
  const color = ratio === undefined ? 'light-blue' : groupRatioColor(ratio);
  return (
    <Tag color={color} className="mg-group-tag">
      {ratio === undefined || ratio === 1 ? group : `${group} ×${ratio}`}
    </Tag>
  );
}
