// The shapes of a secret rule and of gitleaks' rules as data, apart from the rules so neither list imports the other.

export interface SecretRule {
  /** Appears in the marker: `[REDACTED:<id>]`. */
  id: string;
  /**
   * Literals a match starts with, compared case-insensitively. The redactor finds all keywords of all
   * rules in one pass and tries a rule's pattern only where one of its keywords starts.
   */
  keywords: readonly string[];
  /**
   * Tried anchored (sticky) at a keyword. When it has named groups starting with `secret`, only the first
   * such group that participated is redacted (the pattern then needs the `d` flag); otherwise the whole
   * match.
   */
  pattern: RegExp;
  /** Last word on a match (placeholders, variable references, low-entropy values). */
  accept?: (secret: string, match: RegExpExecArray, text: string) => boolean;
  /** Keywords compared exactly (`SK`, `:AA`), for prefixes too short to be looked for in any case. */
  caseSensitive?: boolean;
  /**
   * When set, the pattern is not anchored at the keyword: it runs over a window around it and a match
   * may start up to this many characters before the keyword (gitleaks' `[\w.-]{0,50}?(?:name)…` rules, a
   * token whose keyword is in its middle, a secret that follows a key id).
   */
  lookback?: number;
  /** The capture group that holds the secret (needs the `d` flag); 0: the first one that matched. */
  secretGroup?: number;
}

export interface RegexData {
  source: string;
  flags: string;
}

export interface GitleaksData {
  source: string;
  package: string;
  file: string;
  sha256: string;
  generated: string;
  license: string;
  rules: Array<{
    id: string;
    description: string;
    keywords: string[];
    source: string;
    flags: string;
    entropy?: number;
    /** Which capture group holds the secret; 0 or absent: the first that matched, else the whole match. */
    secretGroup?: number;
    /** The match starts with one of the keywords, so the pattern is tried only there. */
    anchored: boolean;
    /** A secret matching one of these (or the whole match, for `match`) is not redacted. */
    allow?: Array<{ target: 'secret' | 'match' | 'line'; regexes: RegexData[]; stopwords: string[] }>;
  }>;
  skipped: Array<{ id: string; reason: string }>;
  globalAllow: { regexes: RegexData[]; stopwords: string[] };
}
