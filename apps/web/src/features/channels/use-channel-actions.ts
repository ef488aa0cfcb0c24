import { Toast } from '@douyinfe/semi-ui';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../lib/api-client';
import { copyChannel, deleteChannel, editTag, patchChannel, setTagEnabled, testChannel, updateBalance, type Channel } from './api';
import type { RowNumberField } from './channel-rules';
import { useRefreshChannels } from './queries';

/** What a row (channel or tag) can do; each call reports its own outcome and refreshes the list. */
export interface ChannelActions {
  test: (channel: Channel, model?: string) => Promise<void>;
  remove: (channel: Channel) => Promise<void>;
  setStatus: (channel: Channel, status: number) => Promise<void>;
  copy: (channel: Channel, suffix: string, resetBalance: boolean) => Promise<void>;
  updateBalance: (channel: Channel) => Promise<void>;
  patch: (channel: Channel, field: RowNumberField, value: number) => Promise<void>;
  setTagEnabled: (tag: string, enabled: boolean) => Promise<void>;
  patchTag: (tag: string, field: RowNumberField, value: number) => Promise<void>;
}

export function useChannelActions(): ChannelActions {
  const { t } = useTranslation('channels');
  const refresh = useRefreshChannels();

  return useMemo<ChannelActions>(
    () => ({
      async test(channel, model) {
        try {
          const time = await testChannel(channel.id, model);
          const seconds = time.toFixed(2);
          Toast.success(
            model
              ? t('messages.testModelSuccess', { name: channel.name, model, time: seconds })
              : t('messages.testSuccess', { name: channel.name, time: seconds }),
          );
        } finally {
          // A failed test also records its time and may disable the channel.
          await refresh();
        }
      },
      async remove(channel) {
        await deleteChannel(channel.id);
        Toast.success(t('messages.deleted'));
        await refresh();
      },
      async setStatus(channel, status) {
        await patchChannel(channel.id, { status });
        Toast.success(t('messages.enabled'));
        await refresh();
      },
      async copy(channel, suffix, resetBalance) {
        try {
          await copyChannel(channel.id, suffix, resetBalance);
          Toast.success(t('messages.copied'));
          await refresh();
        } catch (error) {
          if (error instanceof ApiError && !error.notified) Toast.error(t('messages.copyFailed', { message: error.message }));
          throw error;
        }
      },
      async updateBalance(channel) {
        await updateBalance(channel.id);
        Toast.success(t('messages.balanceUpdated', { name: channel.name }));
        await refresh();
      },
      async patch(channel, field, value) {
        await patchChannel(channel.id, { [field]: value });
        Toast.success(t('messages.updated'));
        await refresh();
      },
      async setTagEnabled(tag, enabled) {
        await setTagEnabled(tag, enabled);
        Toast.success(t(enabled ? 'messages.tagEnabled' : 'messages.tagDisabled', { tag }));
        await refresh();
      },
      async patchTag(tag, field, value) {
        await editTag({ tag, [field]: value });
        Toast.success(t('messages.updated'));
        await refresh();
      },
    }),
    [t, refresh],
  );
}
