/** The language of a message's text for the `lang` attribute (fonts and line breaking), when it is CJK. */
export function cjkLang(text: string): 'ja' | 'zh' | 'ko' | undefined {
  const sample = text.length > 4000 ? text.slice(0, 4000) : text;
  if (/[\u3040-\u30ff]/.test(sample)) return 'ja';
  if (/[\uac00-\ud7af]/.test(sample)) return 'ko';
  if (/[\u4e00-\u9fff]/.test(sample)) return 'zh';
  return undefined;
}

/** `1.2 kB`, `3.4 MB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
