/**
 * RFC 4180: a field holding a comma, a double quote, CR or LF is enclosed in double quotes, a quote
 * inside doubled; records end with CRLF. A null is an empty field.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export const csvRecord = (fields: readonly (string | null)[]): string => `${fields.map(csvField).join(',')}\r\n`;
