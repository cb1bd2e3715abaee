import { AppError } from '@webpush/errors';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL = 254;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw new AppError('INVALID_EMAIL');
  return email;
}
