/**
 * Log `other` as a non-admin may see it: admin_info (which channels were tried, unpaid amounts)
 * is for administrators only. For the log APIs to apply to every row they return to users.
 */
export function hideAdminInfo(other: string): string {
  if (!other.includes('admin_info')) return other;
  try {
    const parsed: unknown = JSON.parse(other);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return other;
    const { admin_info: _hidden, ...visible } = parsed as Record<string, unknown>;
    return JSON.stringify(visible);
  } catch {
    return other;
  }
}
