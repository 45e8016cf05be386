/** What counts as a secret value: the checks the rules in `secret-rules.ts` make on what they matched. */

const PLACEHOLDERS = new Set([
  'null',
  'none',
  'nil',
  'true',
  'false',
  'undefined',
  'string',
  'str',
  'bytes',
  'number',
  'int',
  'integer',
  'boolean',
  'bool',
  'any',
  'unknown',
  'object',
  'optional',
  'required',
  'redacted',
  'hidden',
  'masked',
  'example',
  'placeholder',
  'empty',
  'secret',
  'password',
  'token',
  'your_token',
  'your_password',
  'your_api_key',
  'your-api-key',
]);

// What a secret-named field holds when it is not a secret: a reference to one (`$DB_PASSWORD`,
// `${TOKEN}`, `%APPDATA%`, `{{ secrets.X }}`, `process.env.X`), a format (`%s`), a placeholder
// (`<your password>`), a mask (`****1234`), a path. A value that merely starts with punctuation
// (`%Tr0ub4dor`, `$ecretP4ss`, `!pass123`) is a secret.
const REFERENCE =
  /^(?:\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|\d+|\{[^}]*\}?|\([^)]*\)?)|%(?:[A-Za-z_][\w]*%|\(\w*\)[sdr]|[+\-# 0]?[a-zA-Z])|\{\{.*|\{\d{0,2}\}|@[A-Za-z_]+@|<[^<>]*>?|\[REDACTED.*|\*{3,}.*|\.\.\..*|….*|(?:process\.env|os\.environ|env\.|ENV\[|getenv|import\.meta\.env).*)$/;
const PATH = /^(?:~?\/|\.{1,2}\/|[A-Za-z]:\\)[\w.\-/\\@+ ]*$/;

/** False for values of secret-named fields that are not secrets: references, types, placeholders. */
export function plausibleSecretValue(value: string): boolean {
  if (value.length < 4) return false;
  if (REFERENCE.test(value) || PATH.test(value)) return false;
  if (PLACEHOLDERS.has(value.toLowerCase())) return false;
  if (/^(.)\1*$/.test(value)) return false; // ****, xxxx
  if (/^\d{1,7}$/.test(value)) return false; // max_token=4096, pass: 12
  return true;
}

export const hasDigitOrMixedCase = (s: string): boolean => /\d/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s));

/** Upper case, lower case and digits all present: a random key rather than a word or a hash. */
export const randomLooking = (s: string): boolean => /\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s);

const COMMON_WORDS = new Set(
  'correct incorrect wrong right invalid valid expired required optional missing empty set unset stored saved hidden visible shown encrypted hashed changed reset updated rotated revoked needed used wrong weak strong long short there here same different the a an in on at of to for from with not now still just also only above below following same this that these those it'.split(
    ' ',
  ),
);

/** A value after "password is …" in prose: a secret-looking word, not an ordinary one. */
export function plausiblePhraseValue(value: string): boolean {
  const word = value.replace(/[.,;:!?)\]]+$/, '');
  if (word.length < 4 || !plausibleSecretValue(word)) return false;
  if (COMMON_WORDS.has(word.toLowerCase())) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(.*)?$|^[\w.$]+\(/.test(word)) return false; // settings.API_KEY, f(x)
  // Ordinary words (and `snake_case`/`kebab-case` identifiers of them) need a digit, a symbol or
  // mixed case to count.
  return /[\d!#$%&*+=?@^~]/.test(word) || (/[a-z]/.test(word) && /[A-Z]/.test(word) && !/^[A-Z][a-z]+$/.test(word));
}
