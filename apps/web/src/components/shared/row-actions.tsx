import { Button, Dropdown, Modal, Space, SplitButtonGroup } from '@douyinfe/semi-ui';
import { IconMore, IconTreeTriangleDown } from '@douyinfe/semi-icons';
import { type ReactNode, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rethrowUnlessApiError } from '../../lib/api-client';

/** A table row's buttons (channels, tokens): side by side, never wrapped onto a second line. */
export function RowActionGroup({ children }: { children: ReactNode }) {
  return (
    <Space spacing={4} wrap={false}>
      {children}
    </Space>
  );
}

/**
 * Which of a row's actions are running, for their buttons' spinners. An API error has already been
 * shown by the API client, so it ends the action quietly; anything else is a bug and surfaces.
 */
export function useRowBusy<Action extends string>() {
  const [running, setRunning] = useState<ReadonlySet<Action>>(() => new Set());
  const run = useCallback(async (action: Action, work: () => Promise<void>) => {
    setRunning((current) => new Set(current).add(action));
    try {
      await work();
    } catch (error) {
      rethrowUnlessApiError(error);
    } finally {
      setRunning((current) => {
        const next = new Set(current);
        next.delete(action);
        return next;
      });
    }
  }, []);
  const busy = useCallback((action: Action) => running.has(action), [running]);
  return { busy, run };
}

interface StatusToggleItemProps {
  enabled: boolean;
  labels: { enable: string; disable: string };
  onClick: () => void;
  disabled?: boolean;
  testId?: string;
}

/** Disable while the row is enabled, enable otherwise: an item of the row's "more" menu. */
export function StatusToggleItem({ enabled, labels, onClick, disabled, testId }: StatusToggleItemProps) {
  return (
    <Dropdown.Item onClick={onClick} disabled={disabled} data-testid={testId}>
      {enabled ? labels.disable : labels.enable}
    </Dropdown.Item>
  );
}

/** The row's one main action, the only button in the primary colour. */
export function RowPrimaryButton({
  label,
  onClick,
  loading,
  disabled,
  testId,
}: {
  label: string;
  onClick: () => void;
  loading?: boolean;
  disabled?: boolean;
  testId?: string;
}) {
  return (
    <Button size="small" theme="light" type="primary" loading={loading} disabled={disabled} onClick={onClick} data-testid={testId}>
      {label}
    </Button>
  );
}

export function RowEditButton({ label, onClick, disabled, testId }: { label: string; onClick: () => void; disabled?: boolean; testId?: string }) {
  return (
    <Button size="small" theme="light" type="tertiary" disabled={disabled} onClick={onClick} data-testid={testId}>
      {label}
    </Button>
  );
}

interface SplitMenuButtonProps {
  label: string;
  /** Semi's default colour unless given. */
  type?: 'tertiary';
  loading?: boolean;
  onClick: () => void;
  testId?: string;
  /** A Dropdown.Menu of the action's variants (a model to test with, a chat client to open). */
  menu: ReactNode;
  menuLabel: string;
  menuDisabled?: boolean;
  menuTestId: string;
  className: string;
}

/** An action and, on the arrow beside it, a menu of its variants. */
export function SplitMenuButton(props: SplitMenuButtonProps) {
  return (
    <SplitButtonGroup className={props.className}>
      <Button size="small" theme="light" type={props.type} loading={props.loading} onClick={props.onClick} data-testid={props.testId}>
        {props.label}
      </Button>
      <Dropdown trigger="click" clickToHide position="bottomRight" render={props.menu}>
        <Button
          size="small"
          theme="light"
          type={props.type}
          icon={<IconTreeTriangleDown />}
          disabled={props.menuDisabled}
          aria-label={props.menuLabel}
          data-testid={props.menuTestId}
        />
      </Dropdown>
    </SplitButtonGroup>
  );
}

interface RowMoreMenuProps {
  label: string;
  loading?: boolean;
  testId: string;
  /** Dropdown.Items. */
  children: ReactNode;
}

/**
 * The "more" button at the end of a row: every action used less (enable/disable, copy, delete; on a
 * phone also the frequent ones), so a row shows one main button, a frequent one or two, and this.
 * Only delete is red, and only in here.
 */
export function RowMoreMenu({ label, loading, testId, children }: RowMoreMenuProps) {
  return (
    <Dropdown trigger="click" clickToHide position="bottomRight" render={<Dropdown.Menu>{children}</Dropdown.Menu>}>
      <Button size="small" theme="light" type="tertiary" icon={<IconMore />} loading={loading} aria-label={label} data-testid={testId} />
    </Dropdown>
  );
}

/** Asks before a delete, with a red confirm button; `onOk` may return the delete's promise, which keeps the dialog busy. */
export function useConfirmDelete() {
  const { t } = useTranslation('common');
  return useCallback(
    ({ title, content, onOk }: { title: string; content: string; onOk: () => Promise<void> }) =>
      Modal.confirm({
        title,
        content,
        okText: t('actions.confirm'),
        cancelText: t('actions.cancel'),
        okButtonProps: { type: 'danger', theme: 'solid' },
        centered: true,
        onOk,
      }),
    [t],
  );
}
