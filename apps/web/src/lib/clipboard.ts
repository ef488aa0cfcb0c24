import { Modal, Toast } from '@douyinfe/semi-ui';
import { createElement } from 'react';
import i18n from '../i18n';

async function writeClipboard(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through to the legacy path: permissions can be denied even in secure contexts */
  }
  // Plain-http deployments have no async clipboard API; execCommand still works there.
  const textarea = document.createElement('textarea');
  textarea.value = text;
  textarea.setAttribute('readonly', '');
  textarea.style.position = 'fixed';
  textarea.style.opacity = '0';
  document.body.appendChild(textarea);
  textarea.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    textarea.remove();
  }
}

/**
 * Copies and tells the user (`successText` replaces the generic "copied" toast); when copying is
 * impossible the text is shown for manual copying (spec 01 §8).
 */
export async function copyWithFeedback(text: string, successText?: string): Promise<boolean> {
  const copied = await writeClipboard(text);
  if (copied) {
    Toast.success(successText ?? i18n.t('common:clipboard.copied'));
    return true;
  }
  Modal.info({
    title: i18n.t('common:clipboard.failed'),
    content: createElement('code', { className: 'mg-manual-copy' }, text),
    okText: i18n.t('common:actions.close'),
    hasCancel: false,
    centered: true,
  });
  return false;
}
