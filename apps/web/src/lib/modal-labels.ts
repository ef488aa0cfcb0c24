import type { ButtonProps } from '@douyinfe/semi-ui/lib/es/button';

/**
 * Semi's Modal labels its footer buttons aria-label="confirm"/"cancel", which hides the visible
 * (translated) text from screen readers and role queries; this gives them their real names back.
 */
export function modalButtonLabels(okText: string, cancelText: string): { okButtonProps: ButtonProps; cancelButtonProps: ButtonProps } {
  return { okButtonProps: { 'aria-label': okText }, cancelButtonProps: { 'aria-label': cancelText } };
}
