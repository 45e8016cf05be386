/** A problem with one input that did not stop collection. Always names the file, and the line when known. */
export interface CollectWarning {
  file: string;
  line?: number;
  message: string;
}

export type WarningSink = (warning: CollectWarning) => void;

export function formatWarning(w: CollectWarning): string {
  return `${w.file}${w.line === undefined ? '' : `:${w.line}`}: ${w.message}`;
}
