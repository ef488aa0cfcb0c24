import { Button, SideSheet, Space, Spin, Typography } from '@douyinfe/semi-ui';
import type { CSSProperties, ReactNode } from 'react';
import './form-drawer.css';

/** The part of Semi's form API a drawer's fields and its footer reach for. */
export interface DrawerFormApi<Values> {
  setValue: <Field extends keyof Values>(field: Field, value: Values[Field]) => void;
  submitForm: () => void;
}

interface FormDrawerProps {
  visible: boolean;
  title: string;
  width: number;
  /** The feature's own class beside the shared one. */
  className: string;
  /** In the feature's words: each feature's texts live in its own i18n file. */
  texts: { cancel: string; submit: string };
  submitting: boolean;
  /** E.g. while the record to edit is still loading. */
  submitDisabled?: boolean;
  submitTestId: string;
  /** Left of the buttons, e.g. how far a batch has got. */
  footerNote?: ReactNode;
  /** Keep the drawer open while saving: a batch cut off halfway would leave the user guessing what was saved. */
  holdWhileSubmitting?: boolean;
  bodyStyle?: CSSProperties;
  onSubmit: () => void;
  onClose: () => void;
  children: ReactNode;
}

/** A form in a side drawer (channels, tokens): title, the fields, and a cancel and a submit button at the foot. */
export function FormDrawer(props: FormDrawerProps) {
  const held = props.holdWhileSubmitting === true && props.submitting;
  const footer = (
    <Space className="mg-form-drawer-footer">
      {props.footerNote}
      <Button onClick={props.onClose} disabled={held}>
        {props.texts.cancel}
      </Button>
      <Button theme="solid" type="primary" loading={props.submitting} disabled={props.submitDisabled} onClick={props.onSubmit} data-testid={props.submitTestId}>
        {props.texts.submit}
      </Button>
    </Space>
  );

  return (
    <SideSheet
      visible={props.visible}
      onCancel={held ? undefined : props.onClose}
      placement="right"
      width={props.width}
      title={<Typography.Title heading={4}>{props.title}</Typography.Title>}
      footer={footer}
      className={`mg-form-drawer ${props.className}`}
      bodyStyle={props.bodyStyle}
    >
      {props.children}
    </SideSheet>
  );
}

/** In place of the form while the record it edits loads. */
export function DrawerLoading({ tip }: { tip: string }) {
  return (
    <div className="mg-form-drawer-loading">
      <Spin tip={tip} />
    </div>
  );
}
