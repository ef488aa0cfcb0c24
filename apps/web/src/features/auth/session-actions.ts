import { Modal } from '@douyinfe/semi-ui';
import { DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USERNAME } from '@modelgate/contract';
import i18n from '../../i18n';
import { setSessionUser } from '../../lib/session';
import type { UserInfo } from './api';
import { toSessionUser } from './queries';

/** Stores the signed-in user so later calls carry the New-Api-User header (spec 01 §4). */
export function startSession(user: UserInfo): void {
  setSessionUser(toSessionUser(user));
}

export function isDefaultRootLogin(username: string, password: string): boolean {
  return username.trim() === DEFAULT_ROOT_USERNAME && password === DEFAULT_ROOT_PASSWORD;
}

/**
 * The default root password is public knowledge; the warning is a blocking modal rather than a toast
 * so it cannot fade away unread. It is imperative so it survives the navigation that follows login.
 */
export function warnAboutDefaultPassword(): void {
  Modal.warning({
    title: i18n.t('auth:login.defaultPasswordTitle'),
    content: i18n.t('auth:login.defaultPasswordContent'),
    okText: i18n.t('auth:login.defaultPasswordAcknowledge'),
    centered: true,
    hasCancel: false,
    className: 'mg-default-password-warning',
  });
}
