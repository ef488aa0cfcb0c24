import { Button, Popconfirm, TextArea } from '@douyinfe/semi-ui';
import { IconDelete, IconSend, IconStop } from '@douyinfe/semi-icons';
import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

interface ComposerProps {
  streaming: boolean;
  hasMessages: boolean;
  /** Answers whether the text was taken (it is then cleared from the box). */
  onSend: (text: string) => boolean;
  onStop: () => void;
  onClear: () => void;
}

/**
 * The input under the chat: Enter sends, Shift+Enter starts a new line, and Enter while an input
 * method is composing (Chinese, Japanese) confirms the composition instead of sending. While a
 * reply streams, the send button becomes the stop button.
 */
export function Composer({ streaming, hasMessages, onSend, onStop, onClear }: ComposerProps) {
  const { t } = useTranslation(['playground', 'common']);
  const [text, setText] = useState('');

  const submit = () => {
    if (streaming) return;
    if (onSend(text)) setText('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    submit();
  };

  return (
    <div className="mg-pg-composer">
      <TextArea
        value={text}
        onChange={setText}
        onKeyDown={onKeyDown}
        placeholder={t('chat.placeholder')}
        autosize={{ minRows: 2, maxRows: 8 }}
        aria-label={t('chat.placeholder')}
        className="mg-pg-input"
        data-testid="pg-input"
      />
      <div className="mg-pg-composer-actions">
        <Popconfirm
          title={t('chat.clearConfirm')}
          content={t('chat.clearContent')}
          okText={t('common:actions.confirm')}
          cancelText={t('common:actions.cancel')}
          onConfirm={onClear}
          disabled={streaming || !hasMessages}
        >
          <Button icon={<IconDelete />} type="tertiary" disabled={streaming || !hasMessages} data-testid="pg-clear">
            {t('chat.clear')}
          </Button>
        </Popconfirm>
        {streaming ? (
          <Button icon={<IconStop />} type="danger" theme="solid" onClick={onStop} data-testid="pg-stop">
            {t('chat.stop')}
          </Button>
        ) : (
          <Button icon={<IconSend />} theme="solid" disabled={text.trim() === ''} onClick={submit} data-testid="pg-send">
            {t('chat.send')}
          </Button>
        )}
      </div>
    </div>
  );
}
