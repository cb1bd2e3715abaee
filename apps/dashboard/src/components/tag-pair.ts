/**
 * One tag syntax in the dashboard, `key=value` (the send form's audience and the subscribers filter
 * alike); `key:value`, the API's form of the filter, is read the same. The pair splits at the first
 * `=` or `:`, whichever comes first, so a value may hold either character.
 */
export function tagPairOf(text: string): { key: string; value: string } | null {
  const pair = text.trim();
  const at = pair.search(/[=:]/);
  if (at < 1) return null;
  return { key: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
}
