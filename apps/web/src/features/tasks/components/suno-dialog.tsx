import { Button, Empty, Modal, Tag, Typography } from '@douyinfe/semi-ui';
import { IconExternalOpen } from '@douyinfe/semi-icons';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatClipDuration, type SunoClip, type SunoResult } from '../suno-result';

interface SunoDialogProps {
  result: SunoResult | null;
  onClose: () => void;
}

function ClipCard({ clip, index }: { clip: SunoClip; index: number }) {
  const { t } = useTranslation('tasks');
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [clip.audioUrl]);
  const title = clip.title || t('suno.untitled');

  return (
    <div className="mg-suno-clip" data-testid={`suno-clip-${index}`}>
      <div className="mg-suno-clip-head">
        {clip.imageUrl && <img className="mg-suno-cover" src={clip.imageUrl} alt={title} loading="lazy" />}
        <div className="mg-suno-clip-info">
          <Typography.Text strong ellipsis={{ showTooltip: true }} data-testid={`suno-title-${index}`}>
            {title}
          </Typography.Text>
          <div className="mg-suno-meta">
            {clip.duration > 0 && <Tag size="small">{formatClipDuration(clip.duration)}</Tag>}
            {clip.tags && (
              <Typography.Text type="tertiary" size="small">
                {clip.tags}
              </Typography.Text>
            )}
          </div>
          {clip.audioUrl &&
            (broken ? (
              <div className="mg-suno-broken">
                <Typography.Text type="warning">{t('suno.cannotPlay')}</Typography.Text>
                <Button size="small" icon={<IconExternalOpen />} onClick={() => window.open(clip.audioUrl, '_blank', 'noopener,noreferrer')}>
                  {t('suno.openInTab')}
                </Button>
              </div>
            ) : (
              <audio
                className="mg-suno-audio"
                src={clip.audioUrl}
                controls
                preload="none"
                onError={() => setBroken(true)}
                data-testid={`suno-audio-${index}`}
              />
            ))}
        </div>
      </div>
      {clip.lyrics && (
        <div className="mg-suno-lyrics-block">
          <Typography.Text type="tertiary" size="small">
            {t('suno.lyrics')}
          </Typography.Text>
          <pre className="mg-suno-lyrics" data-testid={`suno-lyrics-${index}`}>
            {clip.lyrics}
          </pre>
        </div>
      )}
    </div>
  );
}

/** A Suno task's songs (cover, player, lyrics) or the lyrics a LYRICS task wrote. */
export function SunoDialog({ result, onClose }: SunoDialogProps) {
  const { t } = useTranslation('tasks');
  const title = result?.kind === 'lyrics' ? t('suno.lyricsTitle') : t('suno.musicTitle');
  return (
    <Modal visible={result !== null} title={title} onCancel={onClose} footer={null} centered width={640} bodyStyle={{ maxHeight: '70vh', overflow: 'auto' }}>
      <div className="mg-suno-result" data-testid="suno-result">
        {result?.kind === 'clips' && result.clips.map((clip, index) => <ClipCard key={clip.id || index} clip={clip} index={index} />)}
        {result?.kind === 'lyrics' && (
          <div className="mg-suno-lyrics-block">
            {result.lyrics.title && <Typography.Title heading={6}>{result.lyrics.title}</Typography.Title>}
            <pre className="mg-suno-lyrics" data-testid="suno-lyrics-text">
              {result.lyrics.text}
            </pre>
          </div>
        )}
        {result?.kind === 'none' && <Empty description={t('row.none')} />}
      </div>
    </Modal>
  );
}
