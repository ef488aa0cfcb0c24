/**
 * A Vertex AI channel's key field as its keys. A service-account key is JSON that Google's console
 * downloads pretty-printed over many lines, so the one-key-per-line rule of the other types would
 * cut it apart. Accepted: one JSON object (any layout), a JSON array of them (several keys, as
 * new-api's multi-key Vertex channels take them), or one compact JSON object per line.
 */
export function vertexChannelKeys(keyField: string): string[] {
  const text = keyField.trim();
  if (text === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed)) {
    return parsed.flatMap((item) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? [JSON.stringify(item)] : []));
  }
  if (typeof parsed === 'object' && parsed !== null) return [text];
  // Not one JSON value: one key per line (a line that is not JSON is kept, and refused with a clear error when used).
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
