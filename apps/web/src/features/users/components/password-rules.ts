import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from '@modelgate/contract';
import type { TFunction } from 'i18next';

/** Field rules for Semi forms; empty values pass here (whether a field is required is decided on submit). */
export function usernameRules(t: TFunction<'users'>) {
  return [{ max: USERNAME_MAX_LENGTH, message: t('messages.usernameTooLong') }];
}

export function passwordRules(t: TFunction<'users'>) {
  return [
    { min: PASSWORD_MIN_LENGTH, message: t('messages.passwordTooShort') },
    { max: PASSWORD_MAX_LENGTH, message: t('messages.passwordTooLong') },
  ];
}
