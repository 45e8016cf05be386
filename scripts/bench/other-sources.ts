// The smaller sources of the corpus, together about a tenth of its sessions at any scale: their profiles,
// their generation, and where each keeps its files (for the corpus line's sizes).
import path from 'node:path';
import { CLINE_PROFILE, clineTasks, generateCline } from './generate-cline.ts';
import { COPILOT_PROFILE, generateCopilot } from './generate-copilot.ts';
import { CURSOR_PROFILE, cursorDatabase, generateCursor } from './generate-cursor.ts';
import { GEMINI_PROFILE, generateGemini } from './generate-gemini.ts';
import { generateGoose, GOOSE_PROFILE, gooseDatabase } from './generate-goose.ts';
import { generateOpenCode, OPENCODE_PROFILE, openCodeDatabase } from './generate-opencode.ts';
import { generateQwen, QWEN_PROFILE } from './generate-qwen.ts';
import { scaleSessionProfile, type SessionProfile } from './profile.ts';

interface OtherSource {
  label: string;
  profile: SessionProfile;
  generate: (home: string, profile: SessionProfile) => Promise<number>;
  /** The files and folders the source reads, in a home. */
  paths: (home: string) => string[];
}

export const OTHER_SOURCES = {
  gemini: {
    label: 'Gemini CLI',
    profile: GEMINI_PROFILE,
    generate: generateGemini,
    paths: (home) => [path.join(home, '.gemini')],
  },
  qwen: {
    label: 'Qwen Code',
    profile: QWEN_PROFILE,
    generate: generateQwen,
    paths: (home) => [path.join(home, '.qwen')],
  },
  copilot: {
    label: 'Copilot CLI',
    profile: COPILOT_PROFILE,
    generate: generateCopilot,
    paths: (home) => [path.join(home, '.copilot')],
  },
  cursor: {
    label: 'Cursor',
    profile: CURSOR_PROFILE,
    generate: generateCursor,
    paths: (home) => [path.join(home, '.cursor'), cursorDatabase(home)],
  },
  opencode: {
    label: 'OpenCode',
    profile: OPENCODE_PROFILE,
    generate: generateOpenCode,
    paths: (home) => [openCodeDatabase(home)],
  },
  goose: {
    label: 'Goose',
    profile: GOOSE_PROFILE,
    generate: generateGoose,
    paths: (home) => [gooseDatabase(home)],
  },
  cline: {
    label: 'Cline',
    profile: CLINE_PROFILE,
    generate: generateCline,
    paths: (home) => [clineTasks(home)],
  },
} satisfies Record<string, OtherSource>;

export type OtherSourceName = keyof typeof OTHER_SOURCES;
export type OtherProfiles = Record<OtherSourceName, SessionProfile>;

const names = Object.keys(OTHER_SOURCES) as OtherSourceName[];

export function scaleOtherProfiles(scale: number): OtherProfiles {
  return Object.fromEntries(
    names.map((n) => [n, scaleSessionProfile(OTHER_SOURCES[n].profile, scale)]),
  ) as OtherProfiles;
}

export async function generateOtherSources(
  home: string,
  profiles: OtherProfiles,
  log: (s: string) => void = () => {},
): Promise<void> {
  for (const name of names) {
    const bytes = await OTHER_SOURCES[name].generate(home, profiles[name]);
    log(`  ${OTHER_SOURCES[name].label}: ${profiles[name].sessions} sessions, ${(bytes / 1e6).toFixed(1)} MB`);
  }
}

/** Each source's label, session count (as generated) and what it reads (files and folders). */
export function otherSourcePaths(
  home: string,
  profiles: OtherProfiles,
): Array<{ name: OtherSourceName; label: string; sessions: number; paths: string[] }> {
  return names.map((name) => ({
    name,
    label: OTHER_SOURCES[name].label,
    sessions: profiles[name].sessions,
    paths: OTHER_SOURCES[name].paths(home),
  }));
}
