import { Button, Input, Popconfirm, TextArea, Toast } from '@douyinfe/semi-ui';
import { IconClose, IconDelete, IconImage, IconPlus, IconSend, IconStop, IconUpload } from '@douyinfe/semi-icons';
import { useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';
import { addImage, imageLabel, MAX_IMAGE_FILE_BYTES, MAX_IMAGES_PER_MESSAGE } from '../image-input';

interface ComposerProps {
  streaming: boolean;
  hasMessages: boolean;
  /** Answers whether the question was taken (the box and its images are then cleared). */
  onSend: (text: string, images: string[]) => boolean;
  onStop: () => void;
  onClear: () => void;
}

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

/**
 * The input under the chat: Enter sends, Shift+Enter starts a new line, and Enter while an input
 * method is composing (Chinese, Japanese) confirms the composition instead of sending. While a
 * reply streams, the send button becomes the stop button. Images go with the question as image
 * URLs; a pasted or uploaded picture goes as a data: URL (kept for this tab only).
 */
export function Composer({ streaming, hasMessages, onSend, onStop, onClear }: ComposerProps) {
  const { t } = useTranslation(['playground', 'common']);
  // On a phone the secondary buttons keep only their icons (and names for screen readers), so one row fits.
  const narrow = useNarrowScreen();
  const [text, setText] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const [addingImage, setAddingImage] = useState(false);
  const [imageUrl, setImageUrl] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = () => {
    if (streaming) return;
    if (onSend(text, images)) {
      setText('');
      setImages([]);
      setAddingImage(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    submit();
  };

  // Files are read one after another: each addition must see the ones before it.
  const attached = useRef(images);
  attached.current = images;
  const attach = (url: string): boolean => {
    const result = addImage(attached.current, url);
    if ('problem' in result) {
      Toast.warning(t(`problems.${result.problem}`, { max: MAX_IMAGES_PER_MESSAGE }));
      return false;
    }
    attached.current = result.images;
    setImages(result.images);
    return true;
  };

  const addTypedUrl = () => {
    if (attach(imageUrl)) setImageUrl('');
  };

  const attachFiles = async (files: File[]) => {
    for (const file of files) {
      if (!file.type.startsWith('image/')) continue;
      if (file.size > MAX_IMAGE_FILE_BYTES) {
        Toast.warning(t('problems.imageTooLarge', { mb: MAX_IMAGE_FILE_BYTES / 1024 / 1024 }));
        continue;
      }
      try {
        attach(await readAsDataUrl(file));
      } catch {
        Toast.error(t('problems.imageUnreadable'));
      }
    }
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files).filter((file) => file.type.startsWith('image/'));
    if (files.length === 0) return;
    event.preventDefault();
    void attachFiles(files);
  };

  const canSend = text.trim() !== '' || images.length > 0;

  return (
    <div className="mg-pg-composer">
      {images.length > 0 && (
        <div className="mg-pg-attachments" data-testid="pg-attachments">
          {images.map((url) => (
            <div key={url} className="mg-pg-attachment" title={imageLabel(url) ?? t('images.pasted')}>
              <img src={url} alt={imageLabel(url) ?? t('images.pasted')} className="mg-pg-attachment-img" />
              <Button
                size="small"
                theme="solid"
                type="tertiary"
                icon={<IconClose />}
                className="mg-pg-attachment-remove"
                aria-label={t('images.remove')}
                onClick={() => setImages((current) => current.filter((image) => image !== url))}
              />
            </div>
          ))}
        </div>
      )}
      {addingImage && (
        <div className="mg-pg-image-row">
          <Input
            value={imageUrl}
            onChange={setImageUrl}
            onEnterPress={addTypedUrl}
            placeholder={t('images.urlPlaceholder')}
            aria-label={t('images.url')}
            data-testid="pg-image-url"
          />
          <Button icon={<IconPlus />} onClick={addTypedUrl} disabled={imageUrl.trim() === ''} data-testid="pg-image-add">
            {t('images.add')}
          </Button>
          <Button icon={<IconUpload />} onClick={() => fileInput.current?.click()}>
            {t('images.upload')}
          </Button>
          <input
            ref={fileInput}
            type="file"
            accept="image/*"
            multiple
            hidden
            onChange={(event) => {
              void attachFiles(Array.from(event.target.files ?? []));
              event.target.value = '';
            }}
          />
        </div>
      )}
      <TextArea
        value={text}
        onChange={setText}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        placeholder={t('chat.placeholder')}
        autosize={{ minRows: 2, maxRows: 8 }}
        aria-label={t('chat.placeholder')}
        className="mg-pg-input"
        data-testid="pg-input"
      />
      <div className="mg-pg-composer-actions">
        <Button
          icon={<IconImage />}
          type="tertiary"
          theme={addingImage ? 'light' : 'borderless'}
          aria-pressed={addingImage}
          onClick={() => setAddingImage((open) => !open)}
          aria-label={images.length > 0 ? t('images.buttonCount', { count: images.length }) : t('images.button')}
          data-testid="pg-image-toggle"
        >
          {!narrow && (images.length > 0 ? t('images.buttonCount', { count: images.length }) : t('images.button'))}
        </Button>
        <span className="mg-pg-spacer" />
        <Popconfirm
          title={t('chat.clearConfirm')}
          content={t('chat.clearContent')}
          okText={t('common:actions.confirm')}
          cancelText={t('common:actions.cancel')}
          onConfirm={onClear}
          disabled={streaming || !hasMessages}
        >
          <Button icon={<IconDelete />} type="tertiary" disabled={streaming || !hasMessages} aria-label={t('chat.clear')} data-testid="pg-clear">
            {!narrow && t('chat.clear')}
          </Button>
        </Popconfirm>
        {streaming ? (
          <Button icon={<IconStop />} type="danger" theme="solid" onClick={onStop} data-testid="pg-stop">
            {t('chat.stop')}
          </Button>
        ) : (
          <Button icon={<IconSend />} theme="solid" disabled={!canSend} onClick={submit} data-testid="pg-send">
            {t('chat.send')}
          </Button>
        )}
      </div>
    </div>
  );
}
