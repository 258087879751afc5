// The one-time code of a step-up the Principal confirms (docs/step-up-confirmation.md): 10
// characters from 31 that cannot be mistaken for one another (no 0/O, 1/I/L), about 50 bits,
// typed by a human, case and dashes or spaces ignored. Only its hash is stored: hex SHA-256 of
// '<step_up_id>:<code>' (the id salts it, so one hash says nothing about another step-up's code).
import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const STEP_UP_CODE_LENGTH = 10;

export function newStepUpCode(): string {
  let out = '';
  for (let i = 0; i < STEP_UP_CODE_LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** The code as compared: upper case, without spaces and dashes. */
export function normaliseStepUpCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export function hashStepUpCode(stepUpId: string, code: string): string {
  return createHash('sha256')
    .update(`${stepUpId}:${normaliseStepUpCode(code)}`, 'utf8')
    .digest('hex');
}
