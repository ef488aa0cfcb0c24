import { ImagePreview } from '@douyinfe/semi-ui';
import type { DrawingTask } from '../api';
import { drawingFileName } from '../drawing-rules';

interface DrawingViewerProps {
  drawing: DrawingTask | null;
  onClose: () => void;
}

/**
 * Semi's image viewer: zoom in and out, fit or real size, rotate and download, saved under the
 * task's id. A picture on a host that does not allow cross-origin reads (Discord's CDN) cannot be
 * fetched for a download, so it opens in a new tab instead, where it can be saved.
 */
export function DrawingViewer({ drawing, onClose }: DrawingViewerProps) {
  return (
    <ImagePreview
      src={drawing?.image_url ?? ''}
      visible={drawing !== null}
      onVisibleChange={(visible) => {
        if (!visible) onClose();
      }}
      showTooltip
      zoomStep={0.25}
      setDownloadName={() => (drawing ? drawingFileName(drawing.mj_id, drawing.image_url) : 'drawing.png')}
      onDownloadError={(src) => window.open(src, '_blank', 'noopener,noreferrer')}
      previewCls="mg-drawing-viewer"
    />
  );
}
