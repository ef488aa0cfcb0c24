/**
 * What a finished Suno task holds in its `data` (new-api dto/suno.go): a MUSIC task keeps the clips
 * Suno answered (SunoSong: id, title, audio_url, image_url, image_large_url, metadata.tags,
 * metadata.prompt = the lyrics, metadata.gpt_description_prompt, metadata.duration); a LYRICS task
 * keeps {id, status, title, text}. The column is JSON; older rows may carry it as JSON text.
 */

export interface SunoClip {
  id: string;
  title: string;
  audioUrl: string;
  imageUrl: string;
  tags: string;
  lyrics: string;
  description: string;
  /** Seconds; 0 when Suno did not say. */
  duration: number;
}

export interface SunoLyrics {
  title: string;
  text: string;
}

export type SunoResult = { kind: 'clips'; clips: SunoClip[] } | { kind: 'lyrics'; lyrics: SunoLyrics } | { kind: 'none' };

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const httpUrl = (value: unknown): string => {
  const url = text(value).trim();
  return /^https?:\/\//i.test(url) || url.startsWith('/') ? url : '';
};

function unwrap(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return null;
  }
}

function clipOf(raw: Json): SunoClip {
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  const duration = Number(metadata.duration ?? raw.duration);
  return {
    id: text(raw.id) || text(raw.clip_id),
    title: text(raw.title),
    audioUrl: httpUrl(raw.audio_url),
    imageUrl: httpUrl(raw.image_url) || httpUrl(raw.image_large_url),
    tags: text(metadata.tags) || text(raw.tags),
    lyrics: text(metadata.prompt) || text(raw.lyrics),
    description: text(metadata.gpt_description_prompt),
    duration: Number.isFinite(duration) && duration > 0 ? duration : 0,
  };
}

/** The clips or lyrics of a Suno task; `none` while there is nothing to play or read. */
export function sunoResult(data: unknown): SunoResult {
  const value = unwrap(data);
  if (Array.isArray(value)) {
    const clips = value
      .filter(isRecord)
      .map(clipOf)
      .filter((clip) => clip.audioUrl || clip.lyrics);
    return clips.length > 0 ? { kind: 'clips', clips } : { kind: 'none' };
  }
  if (isRecord(value)) {
    if (value.audio_url !== undefined) {
      const clip = clipOf(value);
      return clip.audioUrl ? { kind: 'clips', clips: [clip] } : { kind: 'none' };
    }
    const lyrics = text(value.text);
    if (lyrics) return { kind: 'lyrics', lyrics: { title: text(value.title), text: lyrics } };
  }
  return { kind: 'none' };
}

/** m:ss, as a player shows it. */
export function formatClipDuration(seconds: number): string {
  if (!(seconds > 0)) return '--:--';
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/** Spec 02 §4: async actions MUSIC and LYRICS; anything else reads as unknown. */
export type TaskActionKey = 'music' | 'lyrics' | 'unknown';

export function taskActionTag(action: string): { key: TaskActionKey; colour: 'grey' | 'pink' | 'white' } {
  switch (action) {
    case 'MUSIC':
      return { key: 'music', colour: 'grey' };
    case 'LYRICS':
      return { key: 'lyrics', colour: 'pink' };
    default:
      return { key: 'unknown', colour: 'white' };
  }
}
