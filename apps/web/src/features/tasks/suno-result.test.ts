import { describe, expect, it } from 'vitest';
import fixture from './__fixtures__/suno-fetch.json';
import { formatClipDuration, sunoResult, taskActionTag } from './suno-result';

describe('a Suno task result (new-api dto/suno.go)', () => {
  it('lists a MUSIC task clips with audio, cover, title, tags and lyrics', () => {
    const result = sunoResult(fixture.music);
    expect(result.kind).toBe('clips');
    if (result.kind !== 'clips') return;
    expect(result.clips).toHaveLength(2);
    expect(result.clips[0]).toEqual({
      id: '124b735f-7fb0-42b9-8b35-761aed65a7f6',
      title: 'Kitchen Floor',
      audioUrl: 'https://cdn1.suno.ai/124b735f-7fb0-42b9-8b35-761aed65a7f6.mp3',
      imageUrl: 'https://cdn1.suno.ai/image_124b735f-7fb0-42b9-8b35-761aed65a7f6.png',
      tags: 'lofi, chill',
      lyrics: '[Verse]\nCoffee on the kitchen floor\nSunlight through the open door',
      description: 'a calm lofi song about a quiet morning',
      duration: 124.5,
    });
    // No small cover: the large one; no duration: 0.
    expect(result.clips[1]).toMatchObject({ imageUrl: 'https://cdn1.suno.ai/image_large_b10ff6d2.png', duration: 0, title: '' });
  });

  it('reads the data also when it arrives as JSON text', () => {
    const result = sunoResult(JSON.stringify(fixture.music));
    expect(result.kind === 'clips' && result.clips.length).toBe(2);
  });

  it('shows the lyrics a LYRICS task wrote', () => {
    expect(sunoResult(fixture.lyrics)).toEqual({ kind: 'lyrics', lyrics: { title: 'Quiet Morning', text: '[Verse]\nThe kettle hums a patient tune' } });
  });

  it('has nothing to show for an empty, broken or unfinished result', () => {
    expect(sunoResult(null)).toEqual({ kind: 'none' });
    expect(sunoResult('not json')).toEqual({ kind: 'none' });
    expect(sunoResult([{ id: 'x', audio_url: '', status: 'streaming' }])).toEqual({ kind: 'none' });
  });

  it('never offers a script address as audio', () => {
    expect(sunoResult([{ id: 'x', audio_url: 'javascript:alert(1)' }])).toEqual({ kind: 'none' });
  });

  it('formats a clip length as m:ss', () => {
    expect(formatClipDuration(124.5)).toBe('2:04');
    expect(formatClipDuration(0)).toBe('--:--');
  });

  it('tags the async actions of spec 02 §4', () => {
    expect(taskActionTag('MUSIC')).toEqual({ key: 'music', colour: 'grey' });
    expect(taskActionTag('LYRICS')).toEqual({ key: 'lyrics', colour: 'pink' });
    expect(taskActionTag('VIDEO')).toEqual({ key: 'unknown', colour: 'white' });
  });
});
