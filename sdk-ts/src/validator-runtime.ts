/**
 * The two helpers ajv's standalone validators need at run time, written here so the generated
 * validators import nothing from ajv and run wherever JavaScript runs. Never import Node built-ins.
 */

/** One ajv error, as the generated validators report it. */
export interface GeneratedValidatorError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A compiled validator: returns true when valid, else sets `errors`. */
export interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: GeneratedValidatorError[] | null;
}

/** Length in Unicode code points, as JSON Schema's minLength/maxLength count it. */
export function ucs2length(str: string): number {
  let length = 0;
  let pos = 0;
  while (pos < str.length) {
    length++;
    const code = str.charCodeAt(pos++);
    if (code >= 0xd800 && code <= 0xdbff && pos < str.length) {
      const next = str.charCodeAt(pos);
      if ((next & 0xfc00) === 0xdc00) pos++;
    }
  }
  return length;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** RFC 3339 `date-time` (what JSON Schema's `format: date-time` means). */
export const dateTimeFormat = {
  validate(str: string): boolean {
    const m = DATE_TIME.exec(str);
    if (!m) return false;
    const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
    if (month! < 1 || month! > 12 || day! < 1) return false;
    const maxDay = month === 2 && isLeap(year!) ? 29 : DAYS[month!]!;
    if (day! > maxDay) return false;
    if (hour! > 23 || minute! > 59 || second! > 60) return false;
    if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
    return true;
  },
  compare(a: string, b: string): number | undefined {
    const x = Date.parse(a);
    const y = Date.parse(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
    return x - y;
  },
};
